/*
 * Unit tests of agent/teamspawn.c: a spawned teammate is stored with its
 * role, gates and first message, and its thread plays that message; the
 * name, the team's size and a quit are checked first; the model given is
 * kept for it; with a worktree it works in a git worktree of its own.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/places.h"
#include "agent/teamstate.h"
#include "liveteam.h"
#include "util/xmalloc.h"

START_TEST(a_teammate_is_stored_and_started)
{
	struct lt l;
	char *err = NULL;
	struct member *m;
	struct spawn_request s = { "alice", "coder", "write hello.txt", NULL,
	    1, 1, 0, NULL };

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	ck_assert_msg(team_spawn(l.team, &s, &err) == 0, "%s", err);
	lt_need(&l, EV_SPAWNED, "alice", "\"plan_required\":true");
	lt_need(&l, EV_MESSAGE, NULL, "write hello.txt");
	lt_need(&l, EV_LLM_CALL, "alice", NULL);
	m = roster_get(team_store(l.team), "alice");
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(m->role, "coder");
	ck_assert_int_eq(m->plan_required, 1);
	ck_assert_int_eq(m->autonomous, 1);
	ck_assert_str_eq(team_model_of(l.team, m), "script");
	member_free(m);
	ck_assert_ptr_nonnull(team_find(l.team, "alice"));
	lt_close(&l);
}
END_TEST

START_TEST(names_and_size_are_checked)
{
	struct lt l;
	char *err = NULL;
	struct spawn_request a = { "alice", "coder", "hi", NULL, 0, 0, 0,
	    NULL };
	struct spawn_request bad = { "no such name!", "coder", "hi", NULL, 0,
	    0, 0, NULL };
	struct spawn_request lead = { "lead", "coder", "hi", NULL, 0, 0, 0,
	    NULL };
	struct spawn_request bob = { "bob", "coder", "hi", NULL, 0, 0, 0,
	    NULL };

	lt_init(&l, LT_OK_ALWAYS);
	l.o.max_teammates = 1;
	lt_start(&l);
	ck_assert_int_eq(team_spawn(l.team, &bad, &err), -1);
	ck_assert_ptr_nonnull(err);
	free(err);
	err = NULL;
	ck_assert_int_eq(team_spawn(l.team, &lead, &err), -1);
	free(err);
	err = NULL;
	ck_assert_int_eq(team_spawn(l.team, &a, &err), 0);
	ck_assert_int_eq(team_spawn(l.team, &bob, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "the team is full"));
	free(err);
	err = NULL;
	ck_assert_ptr_null(roster_get(team_store(l.team), "bob"));
	ck_assert_ptr_null(roster_get(team_store(l.team), "no such name!"));
	/* A terminated teammate frees its place. */
	ck_assert_int_eq(team_force_stop(l.team, "alice", &err), 0);
	lt_need_status(&l, "alice", "terminated");
	ck_assert_msg(team_spawn(l.team, &bob, &err) == 0, "%s", err);
	lt_close(&l);
}
END_TEST

START_TEST(the_model_given_is_kept)
{
	struct lt l;
	char *err = NULL;
	struct member *m;
	const char *model;
	struct spawn_request s = { "alice", "coder", "hi", NULL, 0, 0, 0,
	    NULL };

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	model = catalog_model(l.cat, 0)->id;
	s.model = model;
	ck_assert_msg(team_spawn(l.team, &s, &err) == 0, "%s", err);
	lt_need(&l, EV_SPAWNED, "alice", model);
	m = roster_get(team_store(l.team), "alice");
	ck_assert_str_eq(team_model_of(l.team, m), model);
	member_free(m);
	ck_assert_str_eq(lt_agent(&l, "alice")->model_id, model);
	ck_assert_str_eq(lt_agent(&l, "lead")->model_id, "script");
	lt_close(&l);
}
END_TEST

START_TEST(a_worktree_of_its_own)
{
	struct lt l;
	char *err = NULL, *root;
	struct spawn_request s = { "alice", "coder", "hi", NULL, 0, 0, 1,
	    NULL };

	lt_init(&l, LT_OK_ALWAYS);
	/* Not a repository: refused before anything is stored. */
	lt_start(&l);
	ck_assert_int_eq(team_spawn(l.team, &s, &err), -1);
	ck_assert_ptr_nonnull(err);
	free(err);
	err = NULL;
	ck_assert_ptr_null(roster_get(team_store(l.team), "alice"));
	lt_git_init(&l);
	ck_assert_msg(team_spawn(l.team, &s, &err) == 0, "%s", err);
	lt_need(&l, EV_SPAWNED, "alice", "\"worktree_base\":\"");
	ck_assert_int_eq(places_own(l.team, "alice"), 1);
	ck_assert_int_eq(places_own(l.team, "lead"), 0);
	root = xstrdup(places_root(lt_agent(&l, "alice")));
	ck_assert_str_ne(root, l.work);
	ck_assert_str_eq(places_root(lt_agent(&l, "lead")), l.work);
	free(root);
	lt_close(&l);
}
END_TEST

static Suite *
teamspawn_suite(void)
{
	Suite *s = suite_create("teamspawn");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, a_teammate_is_stored_and_started);
	tcase_add_test(tc, names_and_size_are_checked);
	tcase_add_test(tc, the_model_given_is_kept);
	tcase_add_test(tc, a_worktree_of_its_own);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, teamspawn_suite());
}
