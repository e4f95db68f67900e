/*
 * Unit tests of agent/prompt.c: the system prompts of a live team's
 * agents say who reviews plans, where the agent works, and what its
 * gates are (a plan to submit, autonomy, a worktree of its own).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/prompt.h"
#include "liveteam.h"
#include "util/xmalloc.h"

/* The system prompt of `name`, once its thread has written it. */
static char *
prompt_of(struct lt *l, const char *name)
{
	struct agent *a;

	lt_need(l, EV_LLM_CALL, name, NULL);
	a = lt_agent(l, name);
	ck_assert_ptr_nonnull(a->turn.system);
	/* The same text prompt_system makes again. */
	return prompt_system(l->team, a);
}

START_TEST(the_lead_reviews_plans_or_not)
{
	struct lt l;
	char *err = NULL, *p;

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	ck_assert_int_eq(team_say(l.team, NULL, "hi", &err), 0);
	p = prompt_of(&l, "lead");
	ck_assert_ptr_nonnull(strstr(p, "You are the lead"));
	ck_assert_ptr_nonnull(strstr(p, l.work));
	ck_assert_ptr_nonnull(strstr(p, "review it with review_plan"));
	ck_assert_str_eq(p, lt_agent(&l, "lead")->turn.system);
	free(p);
	lt_close(&l);

	lt_init(&l, LT_OK_ALWAYS);
	l.o.plan_review = PROTO_BY_USER;
	lt_start(&l);
	ck_assert_int_eq(team_say(l.team, NULL, "hi", &err), 0);
	p = prompt_of(&l, "lead");
	ck_assert_ptr_null(strstr(p, "review it with review_plan"));
	ck_assert_ptr_nonnull(strstr(p, "the person reviews it; you cannot"));
	free(p);
	lt_close(&l);
}
END_TEST

START_TEST(a_teammates_gates_are_told)
{
	struct lt l;
	char *p;

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	lt_git_init(&l);
	lt_spawn(&l, "alice", 0, 0, 0);
	lt_spawn(&l, "bob", 1, 1, 0);
	lt_spawn(&l, "carol", 0, 0, 1);
	p = prompt_of(&l, "alice");
	ck_assert_ptr_nonnull(strstr(p, "You are alice, a coder"));
	ck_assert_ptr_null(strstr(p, "You are autonomous"));
	ck_assert_ptr_null(strstr(p, "submit_plan with the numbered steps"));
	ck_assert_ptr_null(strstr(p, "git worktree of your own"));
	ck_assert_ptr_nonnull(strstr(p, l.work));
	free(p);
	p = prompt_of(&l, "bob");
	ck_assert_ptr_nonnull(strstr(p, "You are autonomous"));
	ck_assert_ptr_nonnull(strstr(p, "submit_plan with the numbered steps"));
	free(p);
	p = prompt_of(&l, "carol");
	ck_assert_ptr_nonnull(strstr(p, "git worktree of your own"));
	ck_assert_ptr_nonnull(strstr(p, "huddle/carol"));
	free(p);
	lt_close(&l);
}
END_TEST

static Suite *
prompt_suite(void)
{
	Suite *s = suite_create("prompt");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, the_lead_reviews_plans_or_not);
	tcase_add_test(tc, a_teammates_gates_are_told);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, prompt_suite());
}
