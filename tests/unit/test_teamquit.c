/*
 * Unit tests of agent/teamquit.c: an idle teammate approves the quit's
 * request between turns and stays a member for --resume; a busy one
 * that does not answer is stopped at the quit's deadline and its
 * request withdrawn; no teammate joins during a quit; a forced quit ends
 * at once.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/teamstate.h"
#include "liveteam.h"
#include "util/clock.h"
#include "util/xmalloc.h"

#define LEAD_OK "\"lead\": [{\"text\": \"ok\"}, {\"loop\": 0}]"

/* Polls the quit until it is over; returns how long it took (ms). */
static int64_t
quit_until_done(struct lt *l, int64_t within_ms)
{
	int64_t t0 = clock_mono_ms();

	while (!team_quit_poll(l->team)) {
		ck_assert_msg(clock_mono_ms() - t0 < within_ms,
		    "the quit did not end in %lld ms", (long long)within_ms);
		lt_wait(l, EV_TYPE_COUNT, NULL, NULL, 20);
	}
	return clock_mono_ms() - t0;
}

START_TEST(an_idle_teammate_pauses_for_resume)
{
	struct lt l;
	char *err = NULL;
	struct member *m;
	struct spawn_request s = { "alice", "coder", "hi", NULL, 0, 0, 0,
	    NULL };

	lt_init(&l, "{\"agents\": {\"alice\": [{\"text\": \"ready\"}], "
	    LEAD_OK "}}");
	lt_start(&l);
	ck_assert_int_eq(team_spawn(l.team, &s, &err), 0);
	lt_need_status(&l, "alice", "idle");
	ck_assert_int_eq(team_quitting(l.team), 0);
	team_quit_begin(l.team);
	ck_assert_int_eq(team_quitting(l.team), 1);
	lt_need(&l, EV_NOTICE, NULL, "\"asked\":1");
	/* The teammate answers without a model call. */
	quit_until_done(&l, 5000);
	lt_need(&l, EV_REQUEST, "alice", "\"status\":\"approved\"");
	ck_assert_ptr_null(team_find(l.team, "alice"));
	ck_assert_ptr_null(team_find(l.team, "lead"));
	m = roster_get(team_store(l.team), "alice");
	ck_assert_int_ne(m->status, MEMBER_TERMINATED);
	member_free(m);
	lt_close(&l);
}
END_TEST

START_TEST(a_busy_teammate_is_stopped_at_the_deadline)
{
	struct lt l;
	char *err = NULL, id[PROTO_ID_SIZE];
	struct member *m;
	struct request *list;
	size_t n, i;
	int64_t took;
	struct spawn_request s = { "alice", "coder", "work", NULL, 0, 0, 0,
	    NULL };

	lt_init(&l, "{\"agents\": {\"alice\": [{\"delay_ms\": 60000, "
	    "\"text\": \"late\"}], " LEAD_OK "}}");
	l.o.quit_timeout_ms = 600;
	lt_start(&l);
	ck_assert_int_eq(team_spawn(l.team, &s, &err), 0);
	lt_need(&l, EV_LLM_CALL, "alice", NULL);
	team_quit_begin(l.team);
	ck_assert_int_gt(team_quit_left_ms(l.team), 0);
	ck_assert_int_le(team_quit_left_ms(l.team), 600);
	/* Not over before its deadline. */
	ck_assert_int_eq(team_quit_poll(l.team), 0);
	took = quit_until_done(&l, 5000);
	ck_assert_int_ge(took, 300);
	ck_assert_int_eq(team_quit_left_ms(l.team), 0);
	/* Kept for --resume, its request withdrawn. */
	m = roster_get(team_store(l.team), "alice");
	ck_assert_int_ne(m->status, MEMBER_TERMINATED);
	member_free(m);
	*id = '\0';
	n = protocol_list(team_protocol(l.team), 16, &list);
	for (i = 0; i < n; i++) {
		if (list[i].type == REQ_SHUTDOWN) {
			ck_assert_str_eq(list[i].to, "alice");
			ck_assert_int_ne(list[i].status, REQ_PENDING);
			ck_assert_int_ne(list[i].status, REQ_APPROVED);
			memcpy(id, list[i].id, PROTO_ID_SIZE);
		}
	}
	request_free_array(list, n);
	ck_assert_str_ne(id, "");
	lt_close(&l);
}
END_TEST

START_TEST(no_teammate_joins_during_a_quit)
{
	struct lt l;
	char *err = NULL;
	struct spawn_request s = { "alice", "coder", "hi", NULL, 0, 0, 0,
	    NULL };

	lt_init(&l, "{\"agents\": {" LEAD_OK "}}");
	lt_start(&l);
	team_quit_begin(l.team);
	ck_assert_int_eq(team_spawn(l.team, &s, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "shutting down"));
	free(err);
	ck_assert_ptr_null(roster_get(team_store(l.team), "alice"));
	quit_until_done(&l, 5000);
	lt_close(&l);
}
END_TEST

START_TEST(a_forced_quit_ends_at_once)
{
	struct lt l;
	char *err = NULL;
	int64_t t0;
	struct spawn_request s = { "alice", "coder", "work", NULL, 0, 0, 0,
	    NULL };

	lt_init(&l, "{\"agents\": {\"alice\": [{\"delay_ms\": 60000, "
	    "\"text\": \"late\"}], \"lead\": [{\"delay_ms\": 60000, "
	    "\"text\": \"late\"}]}}");
	l.o.quit_timeout_ms = 60000;
	lt_start(&l);
	ck_assert_int_eq(team_spawn(l.team, &s, &err), 0);
	ck_assert_int_eq(team_say(l.team, NULL, "go", &err), 0);
	lt_need(&l, EV_LLM_CALL, "alice", NULL);
	lt_need(&l, EV_LLM_CALL, "lead", NULL);
	t0 = clock_mono_ms();
	team_quit_force(l.team);
	ck_assert_int_eq(team_quitting(l.team), 1);
	ck_assert_int_eq(team_quit_left_ms(l.team), 0);
	quit_until_done(&l, 5000);
	ck_assert_int_lt(clock_mono_ms() - t0, 5000);
	ck_assert_uint_eq(lt_count(&l, EV_TEXT, NULL, "late"), 0);
	lt_close(&l);
}
END_TEST

static Suite *
teamquit_suite(void)
{
	Suite *s = suite_create("teamquit");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, an_idle_teammate_pauses_for_resume);
	tcase_add_test(tc, a_busy_teammate_is_stopped_at_the_deadline);
	tcase_add_test(tc, no_teammate_joins_during_a_quit);
	tcase_add_test(tc, a_forced_quit_ends_at_once);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, teamquit_suite());
}
