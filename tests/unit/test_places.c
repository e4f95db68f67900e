/*
 * Unit tests of agent/places.c on a live team in a git repository: a
 * teammate in a worktree of its own changes only its worktree, /diff
 * shows its change, /worktrees lists it, /merge brings it into the
 * person's branch; /discard asks to be confirmed and then removes the
 * worktree; a task's worktree name is taken from teammates.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/places.h"
#include "liveteam.h"
#include "util/xmalloc.h"

#define ALICE "{\"agents\": {\"alice\": [{\"tools\": [{\"name\": " \
	"\"write_file\", \"input\": {\"path\": \"new.txt\", \"content\": " \
	"\"fresh\\n\"}}]}, {\"text\": \"wrote it\"}], " \
	"\"*\": [{\"text\": \"ok\"}, {\"loop\": 0}]}}"

static void
spawn_in_worktree(struct lt *l, const char *name)
{
	char *err = NULL;
	struct spawn_request s = { name, "coder", "write new.txt", NULL, 0, 0,
	    1, NULL };

	ck_assert_msg(team_spawn(l->team, &s, &err) == 0, "%s", err);
}

START_TEST(diff_list_and_merge)
{
	struct lt l;
	char *err = NULL, *msg = NULL, *text;
	json_t *d, *report, *w, *files;

	lt_init(&l, ALICE);
	lt_git_init(&l);
	lt_start(&l);
	spawn_in_worktree(&l, "alice");
	lt_need(&l, EV_TEXT, "alice", "wrote it");
	lt_need_status(&l, "alice", "idle");
	/* Its change is in its worktree only. */
	ck_assert_ptr_null(lt_read(&l, "new.txt"));
	d = places_diff(l.team, "alice", &err);
	ck_assert_msg(d != NULL, "%s", err);
	files = json_object_get(d, "files");
	ck_assert_uint_eq(json_array_size(files), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    files, 0), "path")), "new.txt");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(d,
	    "patch")), "+fresh"));
	json_decref(d);
	report = places_list(l.team);
	w = json_object_get(report, "worktrees");
	ck_assert_uint_eq(json_array_size(w), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(w,
	    0), "name")), "alice");
	json_decref(report);
	ck_assert_ptr_null(places_diff(l.team, "nobody", &err));
	ck_assert_ptr_nonnull(err);
	free(err);
	err = NULL;
	ck_assert_msg(places_merge(l.team, "alice", &msg) == 0, "%s", msg);
	free(msg);
	text = lt_read(&l, "new.txt");
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, "fresh\n");
	free(text);
	/* Committed on the person's branch. */
	ck_assert_int_eq(lt_sh(&l, "git log --oneline | wc -l | "
	    "grep -qv '^1$' && git diff --quiet HEAD"), 0);
	lt_close(&l);
}
END_TEST

START_TEST(discard_asks_first)
{
	struct lt l;
	char *err = NULL, *msg = NULL, *path;

	lt_init(&l, ALICE);
	lt_git_init(&l);
	lt_start(&l);
	spawn_in_worktree(&l, "alice");
	lt_need_status(&l, "alice", "idle");
	path = xstrdup(places_root(lt_agent(&l, "alice")));
	ck_assert_int_eq(access(path, F_OK), 0);
	/* Not while it runs. */
	ck_assert_int_eq(places_discard(l.team, "alice", 1, &msg), -1);
	free(msg);
	msg = NULL;
	ck_assert_int_eq(team_force_stop(l.team, "alice", &err), 0);
	lt_need_status(&l, "alice", "terminated");
	lt_need_gone(&l, "alice");
	/* Its unmerged work keeps the worktree after it ended. */
	ck_assert_int_eq(access(path, F_OK), 0);
	ck_assert_int_eq(places_discard(l.team, "alice", 0, &msg), -1);
	ck_assert_ptr_nonnull(msg);
	free(msg);
	msg = NULL;
	ck_assert_int_eq(access(path, F_OK), 0);
	ck_assert_msg(places_discard(l.team, "alice", 1, &msg) == 0, "%s", msg);
	free(msg);
	ck_assert_int_ne(access(path, F_OK), 0);
	ck_assert_int_ne(lt_sh(&l, "git rev-parse --verify -q huddle/alice"),
	    0);
	free(path);
	lt_close(&l);
}
END_TEST

START_TEST(a_tasks_worktree_takes_its_name)
{
	struct lt l;
	char *err = NULL, *msg = NULL;
	struct spawn_request s = { "wt", "coder", "hi", NULL, 0, 0, 0, NULL };

	lt_init(&l, ALICE);
	lt_start(&l);
	ck_assert_int_eq(places_for_tasks(l.team, &err), -1);
	free(err);
	err = NULL;
	lt_quit(&l);
	lt_git_init(&l);
	lt_resume(&l);
	ck_assert_msg(places_for_tasks(l.team, &err) == 0, "%s", err);
	ck_assert_int_eq(places_name_free(l.team, "wt", &err), 0);
	ck_assert_int_eq(team_task_add(l.team, "in wt", NULL, 0, "wt", &msg),
	    0);
	free(msg);
	ck_assert_int_eq(places_name_free(l.team, "wt", &err), -1);
	free(err);
	err = NULL;
	ck_assert_int_eq(team_spawn(l.team, &s, &err), -1);
	ck_assert_ptr_nonnull(err);
	free(err);
	lt_close(&l);
}
END_TEST

static Suite *
worktrees_suite(void)
{
	Suite *s = suite_create("worktrees");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, diff_list_and_merge);
	tcase_add_test(tc, discard_asks_first);
	tcase_add_test(tc, a_tasks_worktree_takes_its_name);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, worktrees_suite());
}
