/*
 * Unit tests of agent/teamperson.c: the person's words reach the member
 * named, a plan is found by its teammate's name and approved (the
 * teammate goes on), requests are found by the start of their id and
 * nothing is decided on a name that matches none, a shutdown asked of a
 * teammate ends it, a force stop ends a slow turn, and the lead can be
 * neither asked nor forced.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "liveteam.h"
#include "util/xmalloc.h"

START_TEST(words_reach_the_member_named)
{
	struct lt l;
	char *err = NULL;
	struct spawn_request s = { "alice", "coder", "wait", NULL, 0, 0, 0,
	    NULL };

	lt_init(&l, "{\"agents\": {\"alice\": [{\"text\": \"ready\"}, "
	    "{\"when\": \"from user\", \"text\": \"heard you\"}], "
	    "\"lead\": [{\"text\": \"ok\"}, {\"loop\": 0}]}}");
	lt_start(&l);
	ck_assert_int_eq(team_spawn(l.team, &s, &err), 0);
	lt_need_status(&l, "alice", "idle");
	ck_assert_int_eq(team_say(l.team, "alice", "hello alice", &err), 0);
	lt_need(&l, EV_MESSAGE, NULL, "\"to\":\"alice\"");
	lt_need(&l, EV_TEXT, "alice", "heard you");
	/* A name nobody has is refused. */
	ck_assert_int_eq(team_say(l.team, "nobody", "hi", &err), -1);
	ck_assert_ptr_nonnull(err);
	free(err);
	lt_close(&l);
}
END_TEST

START_TEST(a_plan_is_approved_by_its_teammates_name)
{
	struct lt l;
	char *err = NULL, *msg = NULL, id[PROTO_ID_SIZE];
	struct request *r;
	struct spawn_request s = { "bob", "refactorer", "plan it", NULL, 1, 0,
	    0, NULL };

	lt_init(&l, "{\"agents\": {\"bob\": [{\"tools\": [{\"name\": "
	    "\"submit_plan\", \"input\": {\"plan\": \"1. rename\"}}]}, "
	    "{\"text\": \"renaming now\"}], "
	    "\"lead\": [{\"text\": \"ok\"}, {\"loop\": 0}]}}");
	lt_start(&l);
	/* Nothing waits yet. */
	ck_assert_int_eq(team_decide(l.team, NULL, 1, "", &msg),
	    PROTO_UNKNOWN);
	ck_assert_ptr_nonnull(strstr(msg, "no pending request"));
	free(msg);
	msg = NULL;
	ck_assert_int_eq(team_spawn(l.team, &s, &err), 0);
	lt_need(&l, EV_REQUEST, "lead", "\"from\":\"bob\"");
	ck_assert_int_eq(team_find_request(l.team, "alice", id, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "names no request"));
	free(err);
	err = NULL;
	ck_assert_int_eq(team_find_request(l.team, "bob", id, &err), 0);
	r = protocol_get(team_protocol(l.team), id);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->type, REQ_PLAN_APPROVAL);
	request_free(r);
	/* The start of its id finds it too. */
	{
		char start[8], again[PROTO_ID_SIZE];

		memcpy(start, id + 4, 4);
		start[4] = '\0';
		ck_assert_int_eq(team_find_request(l.team, start, again, &err),
		    0);
		ck_assert_str_eq(again, id);
	}
	ck_assert_int_eq(team_decide(l.team, "bob", 1, "go", &msg),
	    PROTO_DECIDED);
	ck_assert_ptr_nonnull(strstr(msg, "approved bob's"));
	ck_assert_ptr_nonnull(strstr(msg, id));
	free(msg);
	msg = NULL;
	lt_need(&l, EV_TEXT, "bob", "renaming now");
	r = protocol_get(team_protocol(l.team), id);
	ck_assert_int_eq(r->status, REQ_APPROVED);
	request_free(r);
	/* Decided once, it changes nothing again. */
	ck_assert_int_ne(team_decide(l.team, id, 0, "", &msg), PROTO_DECIDED);
	free(msg);
	lt_close(&l);
}
END_TEST

START_TEST(a_shutdown_asked_ends_a_teammate)
{
	struct lt l;
	char *err = NULL;
	struct member *m;
	struct spawn_request s = { "alice", "coder", "wait", NULL, 0, 0, 0,
	    NULL };

	lt_init(&l, "{\"agents\": {\"alice\": [{\"text\": \"ready\"}, "
	    "{\"tools\": [{\"name\": \"shutdown_response\", \"input\": "
	    "{\"request_id\": \"{{request_id}}\", \"approve\": true}}]}], "
	    "\"lead\": [{\"text\": \"ok\"}, {\"loop\": 0}]}}");
	lt_start(&l);
	ck_assert_int_eq(team_request_shutdown(l.team, "lead", &err), -1);
	free(err);
	err = NULL;
	ck_assert_int_eq(team_spawn(l.team, &s, &err), 0);
	lt_need_status(&l, "alice", "idle");
	ck_assert_int_eq(team_request_shutdown(l.team, "alice", &err), 0);
	lt_need(&l, EV_REQUEST, "alice", "\"status\":\"approved\"");
	lt_need_status(&l, "alice", "terminated");
	m = roster_get(team_store(l.team), "alice");
	ck_assert_int_eq(m->status, MEMBER_TERMINATED);
	member_free(m);
	lt_close(&l);
}
END_TEST

START_TEST(a_force_stop_ends_a_slow_turn)
{
	struct lt l;
	char *err = NULL;
	struct member *m;
	struct spawn_request s = { "alice", "coder", "work", NULL, 0, 0, 0,
	    NULL };

	lt_init(&l, "{\"agents\": {\"alice\": [{\"delay_ms\": 60000, "
	    "\"text\": \"late\"}], \"lead\": [{\"text\": \"ok\"}, "
	    "{\"loop\": 0}]}}");
	lt_start(&l);
	ck_assert_int_eq(team_force_stop(l.team, "lead", &err), -1);
	free(err);
	err = NULL;
	ck_assert_int_eq(team_force_stop(l.team, "nobody", &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "no teammate named"));
	free(err);
	err = NULL;
	ck_assert_int_eq(team_spawn(l.team, &s, &err), 0);
	lt_need(&l, EV_LLM_CALL, "alice", NULL);
	ck_assert_int_eq(team_force_stop(l.team, "alice", &err), 0);
	lt_need_status(&l, "alice", "terminated");
	ck_assert_uint_eq(lt_count(&l, EV_TEXT, "alice", "late"), 0);
	m = roster_get(team_store(l.team), "alice");
	ck_assert_int_eq(m->status, MEMBER_TERMINATED);
	member_free(m);
	lt_close(&l);
}
END_TEST

START_TEST(compact_needs_a_running_member)
{
	struct lt l;
	char *err = NULL;

	lt_init(&l, "{\"agents\": {\"lead\": []}}");
	lt_start(&l);
	ck_assert_int_eq(team_compact(l.team, "nobody", &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "no running member"));
	free(err);
	ck_assert_int_eq(team_compact(l.team, "lead", &err), 0);
	lt_close(&l);
}
END_TEST

static Suite *
teamperson_suite(void)
{
	Suite *s = suite_create("teamperson");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, words_reach_the_member_named);
	tcase_add_test(tc, a_plan_is_approved_by_its_teammates_name);
	tcase_add_test(tc, a_shutdown_asked_ends_a_teammate);
	tcase_add_test(tc, a_force_stop_ends_a_slow_turn);
	tcase_add_test(tc, compact_needs_a_running_member);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return lt_main(argc, argv, teamperson_suite());
}
