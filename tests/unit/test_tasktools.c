/*
 * Unit tests of agent/tasktools.c: the board's tools run for agents of a
 * live team — create (with blockers, a check, a worktree where there is
 * no repository), list and get, claim, update and assign — and what the
 * model reads when the board refuses.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/taskboard.h"
#include "liveteam.h"
#include "util/xmalloc.h"

/* Runs a tool that must succeed; returns its text (free it). */
static char *
ok(struct lt *l, const char *who, const char *tool, const char *in)
{
	struct tool_output o;

	lt_tool(l, who, tool, in, &o);
	ck_assert_msg(!o.is_error, "%s %s: %s", tool, in, o.text);
	return o.text;
}

/* Runs a tool that must fail; returns its text (free it). */
static char *
fails(struct lt *l, const char *who, const char *tool, const char *in)
{
	struct tool_output o;

	lt_tool(l, who, tool, in, &o);
	ck_assert_msg(o.is_error, "%s %s passed: %s", tool, in, o.text);
	return o.text;
}

START_TEST(create_list_and_get)
{
	struct lt l;
	char *text;

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	text = ok(&l, "lead", "task_create", "{\"subject\": \"first\"}");
	ck_assert_ptr_nonnull(strstr(text, "created t1"));
	free(text);
	text = ok(&l, "lead", "task_create", "{\"subject\": \"second\", "
	    "\"blocked_by\": [\"t1\"]}");
	ck_assert_ptr_nonnull(strstr(text, "becomes ready"));
	free(text);
	text = ok(&l, "lead", "task_list", "{}");
	ck_assert_ptr_nonnull(strstr(text, "first"));
	ck_assert_ptr_nonnull(strstr(text, "second"));
	free(text);
	text = ok(&l, "lead", "task_get", "{\"id\": \"t2\"}");
	ck_assert_ptr_nonnull(strstr(text, "second"));
	ck_assert_ptr_nonnull(strstr(text, "t1"));
	free(text);
	free(fails(&l, "lead", "task_get", "{\"id\": \"t9\"}"));
	free(fails(&l, "lead", "task_list", "{\"status\": \"sideways\"}"));
	free(fails(&l, "lead", "task_create", "{}"));
	free(fails(&l, "lead", "task_create", "{\"subject\": \"x\", "
	    "\"blocked_by\": [\"t9\"]}"));
	/* No repository here: a task may not name a worktree. */
	text = fails(&l, "lead", "task_create", "{\"subject\": \"x\", "
	    "\"worktree\": \"wt\"}");
	ck_assert_ptr_nonnull(strstr(text, "not created"));
	free(text);
	lt_close(&l);
}
END_TEST

START_TEST(claim_update_and_assign)
{
	struct lt l;
	char *text;
	struct task k;

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	lt_spawn_idle(&l, "alice", 0);
	lt_spawn_idle(&l, "carol", 0);
	free(ok(&l, "lead", "task_create", "{\"subject\": \"a\"}"));
	free(ok(&l, "lead", "task_create", "{\"subject\": \"b\", "
	    "\"blocked_by\": [\"t1\"]}"));
	text = ok(&l, "alice", "task_claim", "{}");
	ck_assert_ptr_nonnull(strstr(text, "t1"));
	free(text);
	ck_assert_int_eq(taskboard_get(team_taskboard(l.team), "t1", &k), 0);
	ck_assert_str_eq(k.owner, "alice");
	ck_assert_int_eq(k.status, TASK_IN_PROGRESS);
	task_clear(&k);
	/* t2 waits for t1: nothing is ready for carol. */
	text = ok(&l, "carol", "task_claim", "{}");
	ck_assert_ptr_nonnull(strstr(text, "no task is ready"));
	free(text);
	/* Not carol's to complete. */
	free(fails(&l, "carol", "task_update", "{\"id\": \"t1\", "
	    "\"status\": \"completed\"}"));
	free(fails(&l, "alice", "task_update", "{\"id\": \"t1\", "
	    "\"status\": \"finished\"}"));
	free(ok(&l, "alice", "task_update", "{\"id\": \"t1\", \"status\": "
	    "\"completed\", \"result\": \"done a\"}"));
	ck_assert_int_eq(taskboard_get(team_taskboard(l.team), "t1", &k), 0);
	ck_assert_int_eq(k.status, TASK_COMPLETED);
	ck_assert_str_eq(k.result, "done a");
	task_clear(&k);
	text = ok(&l, "lead", "task_assign", "{\"id\": \"t2\", \"teammate\": "
	    "\"carol\"}");
	ck_assert_ptr_nonnull(strstr(text, "carol was sent the task"));
	free(text);
	lt_need(&l, EV_MESSAGE, NULL, "\"to\":\"carol\"");
	free(fails(&l, "lead", "task_assign", "{\"id\": \"t2\", "
	    "\"teammate\": \"nobody\"}"));
	lt_close(&l);
}
END_TEST

START_TEST(a_check_from_an_unapproved_teammate)
{
	struct lt l;
	char *text;

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	lt_spawn_idle(&l, "bob", 1);
	text = fails(&l, "bob", "task_create", "{\"subject\": \"x\", "
	    "\"verify\": \"make test\"}");
	ck_assert_ptr_nonnull(strstr(text, "leave verify out"));
	free(text);
	/* The lead's check that the policy flags will ask when it runs. */
	text = ok(&l, "lead", "task_create", "{\"subject\": \"y\", "
	    "\"verify\": \"rm -rf build\"}");
	ck_assert_ptr_nonnull(strstr(text, "permission"));
	free(text);
	lt_close(&l);
}
END_TEST

static Suite *
tasktools_suite(void)
{
	Suite *s = suite_create("tasktools");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, create_list_and_get);
	tcase_add_test(tc, claim_update_and_assign);
	tcase_add_test(tc, a_check_from_an_unapproved_teammate);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, tasktools_suite());
}
