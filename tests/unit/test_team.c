/*
 * Unit tests of agent/team.c through the team's public interface on the
 * script provider: a fresh start makes the lead, a second start needs
 * --resume and a resume needs a team, the state folder may not lie in
 * the working tree, --resume relaunches the teammates that had not
 * ended, the tick reaps an ended thread, and team_free stops a slow
 * model call at once.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/teamstate.h"
#include "liveteam.h"
#include "util/clock.h"
#include "util/xmalloc.h"

START_TEST(a_fresh_team_has_its_lead)
{
	struct lt l;
	struct member *m;

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	m = roster_get(team_store(l.team), "lead");
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->is_lead, 1);
	member_free(m);
	ck_assert_ptr_nonnull(team_find(l.team, "lead"));
	ck_assert_str_eq(team_workdir(l.team), l.work);
	ck_assert_ptr_nonnull(strstr(team_state_dir(l.team), l.state));
	ck_assert_int_eq(team_proxy_port(l.team), 0);
	lt_need_status(&l, "lead", "idle");
	lt_close(&l);
}
END_TEST

START_TEST(a_second_start_needs_resume)
{
	struct lt l;
	char *err = NULL;

	lt_init(&l, LT_OK_ALWAYS);
	/* Nothing to resume yet. */
	l.o.resume = 1;
	ck_assert_ptr_null(lt_open_err(&l, &err));
	ck_assert_ptr_nonnull(strstr(err, "no team to resume"));
	free(err);
	err = NULL;
	l.o.resume = 0;
	lt_open(&l);
	team_free(l.team);
	/* The team is there now: a fresh start is refused. */
	ck_assert_ptr_null(lt_open_err(&l, &err));
	ck_assert_ptr_nonnull(strstr(err, "already works"));
	free(err);
	err = NULL;
	l.o.resume = 1;
	lt_open(&l);
	lt_close(&l);
}
END_TEST

/* A command's output half written when huddle was killed (bash's
 * out-XXXXXX) is removed at the next start; kept outputs stay. */
START_TEST(a_start_sweeps_half_written_outputs)
{
	struct lt l;
	char *left, *kept;

	lt_init(&l, LT_OK_ALWAYS);
	lt_open(&l);
	left = xasprintf("%s/outputs/out-Ab12Cd", team_state_dir(l.team));
	kept = xasprintf("%s/outputs/lead.toolu_1.txt",
	    team_state_dir(l.team));
	team_free(l.team);
	tu_write(left, "half");
	tu_write(kept, "whole");
	l.o.resume = 1;
	lt_open(&l);
	ck_assert_int_eq(access(left, F_OK), -1);
	ck_assert_int_eq(access(kept, F_OK), 0);
	lt_close(&l);
	free(left);
	free(kept);
}
END_TEST

START_TEST(the_state_may_not_lie_in_the_workdir)
{
	struct lt l;
	char *err = NULL;

	lt_init(&l, LT_OK_ALWAYS);
	l.o.state_base = l.work;
	ck_assert_ptr_null(lt_open_err(&l, &err));
	ck_assert_ptr_nonnull(strstr(err, "inside the working directory"));
	free(err);
	lt_close(&l);
}
END_TEST

START_TEST(resume_relaunches_live_teammates)
{
	struct lt l;
	char *err = NULL;
	struct spawn_request alice = { "alice", "coder", "hello", NULL, 0, 0,
	    0, NULL };
	struct spawn_request bob = { "bob", "tester", "hello", NULL, 0, 0, 0,
	    NULL };
	size_t i;

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	ck_assert_int_eq(team_spawn(l.team, &alice, &err), 0);
	ck_assert_int_eq(team_spawn(l.team, &bob, &err), 0);
	lt_need_status(&l, "alice", "idle");
	ck_assert_int_eq(team_force_stop(l.team, "bob", &err), 0);
	lt_need_status(&l, "bob", "terminated");
	team_free(l.team);
	for (i = 0; i < l.nseen; i++)
		event_free_list(l.seen[i]);
	l.nseen = l.mark = 0;

	l.o.resume = 1;
	lt_start(&l);
	lt_need(&l, EV_SPAWNED, "alice", "\"resumed\":true");
	ck_assert_ptr_nonnull(team_find(l.team, "alice"));
	ck_assert_ptr_null(team_find(l.team, "bob"));
	ck_assert_uint_eq(lt_count(&l, EV_SPAWNED, "bob", NULL), 0);
	lt_close(&l);
}
END_TEST

START_TEST(the_tick_reaps_an_ended_thread)
{
	struct lt l;
	char *err = NULL;
	struct spawn_request alice = { "alice", "coder", "hello", NULL, 0, 0,
	    0, NULL };

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	ck_assert_int_eq(team_spawn(l.team, &alice, &err), 0);
	lt_need_status(&l, "alice", "idle");
	ck_assert_int_eq(team_force_stop(l.team, "alice", &err), 0);
	lt_need_status(&l, "alice", "terminated");
	lt_need_gone(&l, "alice");
	ck_assert_ptr_nonnull(team_find(l.team, "lead"));
	lt_close(&l);
}
END_TEST

START_TEST(team_free_stops_a_slow_call)
{
	struct lt l;
	char *err = NULL;
	int64_t t0;

	lt_init(&l, LT_SLOW_LEAD);
	lt_start(&l);
	ck_assert_int_eq(team_say(l.team, NULL, "go", &err), 0);
	lt_need(&l, EV_LLM_CALL, "lead", NULL);
	t0 = clock_mono_ms();
	team_free(l.team);
	l.team = NULL;
	ck_assert_int_lt(clock_mono_ms() - t0, 5000);
	lt_close(&l);
}
END_TEST

static Suite *
team_suite(void)
{
	Suite *s = suite_create("team");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, a_fresh_team_has_its_lead);
	tcase_add_test(tc, a_second_start_needs_resume);
	tcase_add_test(tc, a_start_sweeps_half_written_outputs);
	tcase_add_test(tc, the_state_may_not_lie_in_the_workdir);
	tcase_add_test(tc, resume_relaunches_live_teammates);
	tcase_add_test(tc, the_tick_reaps_an_ended_thread);
	tcase_add_test(tc, team_free_stops_a_slow_call);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, team_suite());
}
