/*
 * Unit tests of agent/tasks.c: the person's task commands on a live
 * team (add, assign, cancel and reopen, done), a completion that waits
 * for its check (--verify) and stays in progress when the check fails,
 * the person's /task done checked in a thread of its own, an autonomous
 * teammate that claims the next ready task and completes it, and the
 * check a teammate whose plan waits may not set.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/tasks.h"
#include "core/taskboard.h"
#include "liveteam.h"
#include "util/xmalloc.h"

static enum task_status
status_of(struct lt *l, const char *id, enum task_check *checked)
{
	struct task k;
	enum task_status st;

	ck_assert_int_eq(taskboard_get(team_taskboard(l->team), id, &k), 0);
	st = k.status;
	if (checked != NULL)
		*checked = k.checked;
	task_clear(&k);
	return st;
}

START_TEST(the_persons_task_commands)
{
	struct lt l;
	char *msg = NULL;

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	lt_spawn(&l, "alice", 0, 0, 0);
	lt_need_status(&l, "alice", "idle");
	ck_assert_int_eq(team_task_add(l.team, "write docs", NULL, 0, NULL,
	    &msg), 0);
	ck_assert_msg(strstr(msg, "added t1, ready on the board: ") != NULL,
	    "%s", msg);
	free(msg);
	lt_need(&l, EV_TASK, NULL, "write docs");
	ck_assert_int_eq(team_task_assign(l.team, "t1", "alice", &msg), 0);
	ck_assert_ptr_nonnull(strstr(msg, "alice's now"));
	free(msg);
	lt_need(&l, EV_TASK, "alice", "\"id\":\"t1\"");
	ck_assert_int_eq(team_task_move(l.team, "t1", TASK_CANCELLED, &msg),
	    0);
	free(msg);
	ck_assert_int_eq(status_of(&l, "t1", NULL), TASK_CANCELLED);
	ck_assert_int_eq(team_task_move(l.team, "t1", TASK_PENDING, &msg), 0);
	free(msg);
	ck_assert_int_eq(team_task_done(l.team, "t1", &msg), 0);
	free(msg);
	ck_assert_int_eq(status_of(&l, "t1", NULL), TASK_COMPLETED);
	/* Errors say so. */
	ck_assert_int_eq(team_task_done(l.team, "t9", &msg), -1);
	ck_assert_ptr_nonnull(strstr(msg, "no task 't9'"));
	free(msg);
	ck_assert_int_eq(team_task_assign(l.team, "t1", "nobody", &msg), -1);
	free(msg);
	ck_assert_int_eq(team_task_add(l.team, "in a tree", NULL, 0, "wt",
	    &msg), -1);
	free(msg);
	lt_close(&l);
}
END_TEST

START_TEST(a_completion_waits_for_its_check)
{
	struct lt l;
	char *msg = NULL;
	enum task_check checked;

	lt_init(&l, LT_OK_ALWAYS);
	l.o.verify = "test -f done.txt";
	lt_start(&l);
	ck_assert_int_eq(team_task_add(l.team, "make done.txt", NULL, 0,
	    NULL, &msg), 0);
	free(msg);
	ck_assert_int_eq(tasks_complete(l.team, lt_agent(&l, "lead"), "t1",
	    "made", NULL, &msg), 1);
	ck_assert_ptr_nonnull(strstr(msg, "failed"));
	free(msg);
	ck_assert_int_eq(status_of(&l, "t1", &checked), TASK_PENDING);
	ck_assert_int_eq(checked, TASK_FAILED);
	lt_write(&l, "done.txt", "");
	ck_assert_int_eq(tasks_complete(l.team, lt_agent(&l, "lead"), "t1",
	    "made", NULL, &msg), 0);
	ck_assert_ptr_nonnull(strstr(msg, "passed"));
	free(msg);
	ck_assert_int_eq(status_of(&l, "t1", &checked), TASK_COMPLETED);
	ck_assert_int_eq(checked, TASK_PASSED);
	ck_assert_int_eq(tasks_complete(l.team, NULL, "t7", NULL, NULL, &msg),
	    -1);
	free(msg);
	lt_close(&l);
}
END_TEST

START_TEST(the_persons_done_checks_in_a_thread)
{
	struct lt l;
	char *msg = NULL;

	lt_init(&l, LT_OK_ALWAYS);
	l.o.verify = "test -f ok.txt";
	lt_start(&l);
	lt_write(&l, "ok.txt", "");
	ck_assert_int_eq(team_task_add(l.team, "check me", NULL, 0, NULL,
	    &msg), 0);
	free(msg);
	ck_assert_int_eq(team_task_done(l.team, "t1", &msg), 0);
	ck_assert_ptr_nonnull(strstr(msg, "checking t1"));
	free(msg);
	lt_need(&l, EV_TASK, NULL, "\"status\":\"completed\"");
	ck_assert_int_eq(status_of(&l, "t1", NULL), TASK_COMPLETED);
	lt_close(&l);
}
END_TEST

START_TEST(an_autonomous_teammate_takes_the_next_task)
{
	struct lt l;
	char *msg = NULL;
	struct task k;

	lt_init(&l, "{\"agents\": {\"alice\": [{\"text\": \"ready\"}, "
	    "{\"when\": \"\\\\[task t1\", \"tools\": [{\"name\": "
	    "\"task_update\", \"input\": {\"id\": \"{{task_id}}\", "
	    "\"status\": \"completed\", \"result\": \"did it\"}}]}, "
	    "{\"text\": \"finished\"}], "
	    "\"*\": [{\"text\": \"ok\"}, {\"loop\": 0}]}}");
	lt_start(&l);
	lt_spawn(&l, "alice", 0, 1, 0);
	lt_need_status(&l, "alice", "idle");
	ck_assert_int_eq(team_task_add(l.team, "do the thing", NULL, 0, NULL,
	    &msg), 0);
	free(msg);
	lt_need(&l, EV_TASK, "alice", "\"status\":\"in_progress\"");
	lt_need(&l, EV_TASK, "alice", "\"status\":\"completed\"");
	ck_assert_int_eq(taskboard_get(team_taskboard(l.team), "t1", &k), 0);
	ck_assert_str_eq(k.owner, "alice");
	ck_assert_str_eq(k.result, "did it");
	task_clear(&k);
	lt_close(&l);
}
END_TEST

START_TEST(a_check_needs_an_approved_plan)
{
	struct lt l;
	char *why;

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	lt_spawn(&l, "bob", 1, 0, 0);
	lt_spawn(&l, "alice", 0, 0, 0);
	lt_need(&l, EV_LLM_CALL, "bob", NULL);
	lt_need(&l, EV_LLM_CALL, "alice", NULL);
	ck_assert_ptr_null(tasks_check_refused(lt_agent(&l, "lead"),
	    "make test"));
	ck_assert_ptr_null(tasks_check_refused(lt_agent(&l, "alice"),
	    "make test"));
	why = tasks_check_refused(lt_agent(&l, "bob"), "make test");
	ck_assert_ptr_nonnull(why);
	free(why);
	lt_close(&l);
}
END_TEST

static Suite *
tasks_suite(void)
{
	Suite *s = suite_create("tasks");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, the_persons_task_commands);
	tcase_add_test(tc, a_completion_waits_for_its_check);
	tcase_add_test(tc, the_persons_done_checks_in_a_thread);
	tcase_add_test(tc, an_autonomous_teammate_takes_the_next_task);
	tcase_add_test(tc, a_check_needs_an_approved_plan);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, tasks_suite());
}
