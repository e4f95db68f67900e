/*
 * Unit tests of agent/checking.c on a bare team (agentfix.h): the
 * worktrees where a task's check runs, marked and unmarked by the very
 * pointer, several at once, the working directory never.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/checking.h"
#include "agentfix.h"
#include "util/xmalloc.h"

START_TEST(a_mark_holds_until_its_unmark)
{
	struct agentfix f;
	char *root, *same;

	af_open(&f);
	root = xasprintf("%s-wt/parser", f.workdir);
	same = xstrdup(root);
	ck_assert(!checking_at(&f.team, root));
	checking_mark(&f.team, root);
	/* Asked by its path, whatever string holds it. */
	ck_assert(checking_at(&f.team, root));
	ck_assert(checking_at(&f.team, same));
	ck_assert(!checking_at(&f.team, f.workdir));
	/* Only the very pointer marked unmarks it. */
	checking_unmark(&f.team, same);
	ck_assert(checking_at(&f.team, root));
	checking_unmark(&f.team, root);
	ck_assert(!checking_at(&f.team, root));
	ck_assert_uint_eq(f.team.checks.nchecking, 0);
	/* An unmark of nothing marked changes nothing. */
	checking_unmark(&f.team, root);
	ck_assert_uint_eq(f.team.checks.nchecking, 0);
	free(same);
	free(root);
	af_close(&f);
}
END_TEST

START_TEST(two_checks_in_one_worktree)
{
	struct agentfix f;
	char *first, *second, *other;

	af_open(&f);
	first = xasprintf("%s-wt/a", f.workdir);
	second = xstrdup(first);
	other = xasprintf("%s-wt/b", f.workdir);
	checking_mark(&f.team, first);
	checking_mark(&f.team, second);
	checking_mark(&f.team, other);
	ck_assert_uint_eq(f.team.checks.nchecking, 3);
	checking_unmark(&f.team, first);
	ck_assert(checking_at(&f.team, first));	/* the second runs on */
	ck_assert(checking_at(&f.team, other));
	checking_unmark(&f.team, second);
	ck_assert(!checking_at(&f.team, first));
	ck_assert(checking_at(&f.team, other));
	checking_unmark(&f.team, other);
	ck_assert(!checking_at(&f.team, other));
	free(first);
	free(second);
	free(other);
	af_close(&f);
}
END_TEST

START_TEST(the_working_directory_is_never_marked)
{
	struct agentfix f;
	char *copy;

	af_open(&f);
	copy = xstrdup(f.workdir);
	checking_mark(&f.team, f.workdir);
	checking_mark(&f.team, copy);
	ck_assert_uint_eq(f.team.checks.nchecking, 0);
	ck_assert(!checking_at(&f.team, f.workdir));
	free(copy);
	af_close(&f);
}
END_TEST

static Suite *
checking_suite(void)
{
	Suite *s = suite_create("checking");
	TCase *tc = tcase_create("checking");

	tcase_add_test(tc, a_mark_holds_until_its_unmark);
	tcase_add_test(tc, two_checks_in_one_worktree);
	tcase_add_test(tc, the_working_directory_is_never_marked);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(checking_suite());
}
