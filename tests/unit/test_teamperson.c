/*
 * Unit tests of agent/teamperson.c: the person's words reach the member
 * named, a plan is found by its teammate's name and approved (the
 * teammate goes on), requests are found by the start of their id and
 * nothing is decided on a name that matches none, a shutdown asked of a
 * teammate ends it, a force stop ends a slow turn, and the lead can be
 * neither asked nor forced; all of one agent's requests are rejected at
 * once, and only those, even while it keeps asking.
 */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
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

/* A request of `from`'s to `to`, straight through the engine; its id
 * into id. */
static void
ask(struct lt *l, enum req_type type, const char *from, const char *to,
    const char *body, char id[PROTO_ID_SIZE])
{
	char *err = NULL;

	ck_assert_msg(protocol_request(team_protocol(l->team), type, from, to,
	    body, id, &err) == 0, "%s", err ? err : "");
}

static enum req_status
status_of(struct lt *l, const char *id)
{
	struct request *r = protocol_get(team_protocol(l->team), id);
	enum req_status st;

	ck_assert_ptr_nonnull(r);
	st = r->status;
	request_free(r);
	return st;
}

/* Two idle teammates, alice and bob, on a started team. */
static void
two_idle(struct lt *l)
{
	char *err = NULL;
	struct spawn_request a = { "alice", "w", "wait", NULL, 0, 0, 0, NULL };
	struct spawn_request b = { "bob", "w", "wait", NULL, 0, 0, 0, NULL };

	lt_init(l, "{\"agents\": {\"alice\": [{\"text\": \"ready\"}, "
	    "{\"loop\": 0}], \"bob\": [{\"text\": \"ready\"}, "
	    "{\"loop\": 0}], \"lead\": [{\"text\": \"ok\"}, "
	    "{\"loop\": 0}]}}");
	lt_start(l);
	ck_assert_int_eq(team_spawn(l->team, &a, &err), 0);
	ck_assert_int_eq(team_spawn(l->team, &b, &err), 0);
	lt_need_status(l, "alice", "idle");
	lt_need_status(l, "bob", "idle");
}

/* /reject-all's work: every request of alice's that waits for the
 * person is rejected through the engine (durably, with the feedback,
 * by the person), and said in one sentence; bob's request, a shutdown
 * addressed to alice (hers to answer) and one she asked of bob (his)
 * stay pending. */
START_TEST(reject_all_rejects_one_agents_requests)
{
	struct lt l;
	char net[20][PROTO_ID_SIZE], perm[PROTO_ID_SIZE], plan[PROTO_ID_SIZE];
	char bobs[PROTO_ID_SIZE], down[PROTO_ID_SIZE], body[64], *msg = NULL;
	char asks_bob[PROTO_ID_SIZE];
	struct request *r;
	int i;

	two_idle(&l);
	for (i = 0; i < 20; i++) {
		snprintf(body, sizeof body, "network: 192.0.2.%d:80 (GET)",
		    i + 1);
		ask(&l, REQ_PERMISSION, "alice", "lead", body, net[i]);
	}
	ask(&l, REQ_PERMISSION, "alice", "lead", "rm -rf build", perm);
	ask(&l, REQ_PLAN_APPROVAL, "alice", "lead", "1. all of it", plan);
	ask(&l, REQ_PERMISSION, "bob", "lead", "network: 192.0.2.99:80", bobs);
	ask(&l, REQ_SHUTDOWN, "lead", "alice", "done", down);
	/* Alice's own, but bob's to answer. */
	ask(&l, REQ_SHUTDOWN, "alice", "bob", "go home", asks_bob);

	ck_assert_int_eq(team_reject_all(l.team, "alice", "too many", &msg),
	    22);
	ck_assert_str_eq(msg, "rejected alice's 22 requests (20 network, "
	    "1 permission, 1 plan)");
	free(msg);
	for (i = 0; i < 20; i++)
		ck_assert_int_eq(status_of(&l, net[i]), REQ_REJECTED);
	ck_assert_int_eq(status_of(&l, perm), REQ_REJECTED);
	r = protocol_get(team_protocol(l.team), plan);
	ck_assert_int_eq(r->status, REQ_REJECTED);
	ck_assert_str_eq(r->decided_by, MSG_USER);
	ck_assert_str_eq(r->response, "too many");
	request_free(r);
	ck_assert_int_eq(status_of(&l, bobs), REQ_PENDING);
	ck_assert_int_eq(status_of(&l, down), REQ_PENDING);
	ck_assert_int_eq(status_of(&l, asks_bob), REQ_PENDING);

	/* Nothing left of hers; nobody's; the lead's none. */
	ck_assert_int_eq(team_reject_all(l.team, "alice", NULL, &msg), 0);
	ck_assert_str_eq(msg, "nothing was rejected: no request of alice "
	    "waits for you");
	free(msg);
	ck_assert_int_eq(team_reject_all(l.team, "nobody", NULL, &msg), 0);
	free(msg);
	ck_assert_int_eq(status_of(&l, bobs), REQ_PENDING);
	ck_assert_int_eq(team_reject_all(l.team, "bob", NULL, &msg), 1);
	ck_assert_str_eq(msg, "rejected bob's 1 request (1 network)");
	free(msg);
	ck_assert_int_eq(status_of(&l, down), REQ_PENDING);
	lt_close(&l);
}
END_TEST

#define FLOOD_N 150

struct flood {
	struct lt	*l;
	char		 ids[FLOOD_N][PROTO_ID_SIZE];
	atomic_int	 done;
};

static void *
flood_run(void *arg)
{
	struct flood *f = arg;
	char body[64], *err = NULL;
	int i;

	for (i = 0; i < FLOOD_N; i++) {
		snprintf(body, sizeof body, "network: 192.0.2.%d:%d", i % 250 +
		    1, 1000 + i);
		if (protocol_request(team_protocol(f->l->team), REQ_PERMISSION,
		    "alice", "lead", body, f->ids[i], &err) == -1) {
			fprintf(stderr, "flood: %s\n", err);
			abort();
		}
	}
	atomic_store(&f->done, 1);
	return NULL;
}

/* While alice keeps asking, each call rejects what waits then and no
 * request is lost or decided twice: every one ends rejected once, and
 * the counts add up. */
START_TEST(reject_all_holds_under_a_flood)
{
	static struct flood f;
	struct lt l;
	pthread_t th;
	char *msg = NULL;
	int n, total = 0, i;

	two_idle(&l);
	memset(&f, 0, sizeof f);
	f.l = &l;
	ck_assert_int_eq(pthread_create(&th, NULL, flood_run, &f), 0);
	while (!atomic_load(&f.done)) {
		n = team_reject_all(l.team, "alice", NULL, &msg);
		ck_assert_int_ge(n, 0);
		total += n;
		free(msg);
	}
	pthread_join(th, NULL);
	total += team_reject_all(l.team, "alice", NULL, &msg);
	free(msg);
	ck_assert_int_eq(total, FLOOD_N);
	for (i = 0; i < FLOOD_N; i++)
		ck_assert_int_eq(status_of(&l, f.ids[i]), REQ_REJECTED);
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
	tcase_add_test(tc, reject_all_rejects_one_agents_requests);
	tcase_add_test(tc, reject_all_holds_under_a_flood);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, teamperson_suite());
}
