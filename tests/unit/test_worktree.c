/*
 * Unit tests of tools/worktree with real git: a worktree on its own
 * branch, its diff (committed, uncommitted and new files), its state, a
 * clean merge, a conflict that changes nothing, a dirty tree refused,
 * names that exist already refused, and removal; never where a link put
 * in place of .huddle or .huddle/worktrees, or in a worktree, leads; and
 * huddle's git in a ruleset writes nowhere else.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "tools/landlock.h"
#include "tools/worktree.h"
#include "util/xmalloc.h"

static char *program;
static struct git g;

static void
setup(void)
{
	program = tu_reaper_program();
	g.program = program;
	g.tmpdir = NULL;
	g.path = NULL;
	ck_assert_int_eq(git_find(&g), 0);
}

static void
teardown(void)
{
	free(program);
	free(g.path);
	g.path = NULL;
}

START_TEST(diff_merge_and_remove)
{
	char *dir = tu_git_repo(), *common, *sha, *err = NULL, *report, *wt;
	struct worktree_diff d;
	struct worktree_state s;

	ck_assert_int_eq(worktree_repo(&g, dir, &common, &err), 0);
	free(common);
	/* .huddle/ is kept out of the user's status. */
	tu_sh(dir, "mkdir -p .huddle && touch .huddle/x && "
	    "test -z \"$(git status --porcelain)\"");
	ck_assert_int_eq(worktree_add(&g, dir, "alice", NULL, &sha, &err), 0);
	ck_assert_int_eq(strlen(sha), 40);
	ck_assert_int_eq(worktree_check(&g, dir, "alice", &err), 0);
	ck_assert_int_eq(worktree_add(&g, dir, "alice", NULL, &common, &err),
	    -1);
	ck_assert_ptr_nonnull(strstr(err, "exists already"));
	free(err);
	wt = worktree_path(dir, "alice");
	tu_write_file(wt, "a.txt", "one\nTWO\nthree\n");
	tu_write_file(wt, "new.txt", "fresh\n");
	ck_assert_int_eq(worktree_diff(&g, dir, "alice", sha, &d, &err), 0);
	ck_assert_int_eq(json_array_size(d.files), 2);
	ck_assert_int_eq(d.added, 2);
	ck_assert_int_eq(d.removed, 1);
	ck_assert_ptr_nonnull(strstr(d.patch, "-two\n+TWO\n"));
	ck_assert_ptr_nonnull(strstr(d.patch, "+fresh\n"));
	worktree_diff_clear(&d);
	ck_assert_int_eq(worktree_state(&g, dir, "alice", &s, &err), 0);
	ck_assert(s.dirty && !s.merged && !s.missing);
	/* A dirty tree of the user's is refused, and nothing moves. */
	tu_write_file(dir, "mine.txt", "x\n");
	ck_assert_int_eq(worktree_merge(&g, dir, "alice", "alice's work",
	    &report), WT_DIRTY);
	ck_assert_ptr_nonnull(strstr(report, "mine.txt"));
	free(report);
	tu_sh(dir, "rm mine.txt");
	ck_assert_int_eq(worktree_merge(&g, dir, "alice", "alice's work",
	    &report), WT_MERGED);
	free(report);
	tu_sh(dir, "grep -q TWO a.txt && test -f new.txt && "
	    "git log --format=%an -1 huddle/alice | grep -q 'alice (huddle)'");
	ck_assert_int_eq(worktree_state(&g, dir, "alice", &s, &err), 0);
	ck_assert(s.merged && !s.dirty);
	ck_assert_int_eq(worktree_merge(&g, dir, "alice", "again", &report),
	    WT_NOTHING);
	free(report);
	ck_assert_int_eq(worktree_remove(&g, dir, "alice", 0, &err), 0);
	ck_assert_int_eq(worktree_check(&g, dir, "alice", &err), -1);
	free(err);
	tu_sh(dir, "! git show-ref -q refs/heads/huddle/alice");
	free(wt);
	free(sha);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(a_conflict_changes_nothing)
{
	char *dir = tu_git_repo(), *common, *sha, *err = NULL, *report, *wt;
	struct worktree_state s;

	ck_assert_int_eq(worktree_repo(&g, dir, &common, &err), 0);
	free(common);
	ck_assert_int_eq(worktree_add(&g, dir, "bob", NULL, &sha, &err), 0);
	wt = worktree_path(dir, "bob");
	tu_write_file(wt, "a.txt", "one\nbob's\nthree\n");
	tu_write_file(dir, "a.txt", "one\nmine\nthree\n");
	tu_sh(dir, "git commit -q -am mine");
	ck_assert_int_eq(worktree_merge(&g, dir, "bob", "bob's work",
	    &report), WT_CONFLICT);
	ck_assert_ptr_nonnull(strstr(report, "a.txt"));
	free(report);
	/* Both branches as they were; bob's work kept, on his branch. */
	tu_sh(dir, "test -z \"$(git status --porcelain)\" && "
	    "grep -q mine a.txt && "
	    "git show huddle/bob:a.txt | grep -q \"bob's\"");
	ck_assert_int_eq(worktree_state(&g, dir, "bob", &s, &err), 0);
	ck_assert(!s.merged && s.ahead == 1 && s.behind == 1);
	/* Not without force: the work is not merged. */
	ck_assert_int_eq(worktree_remove(&g, dir, "bob", 0, &err), 0 - 1);
	free(err);
	ck_assert_int_eq(worktree_remove(&g, dir, "bob", 1, &err), 0);
	free(wt);
	free(sha);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(outside_a_repository)
{
	char *dir = tu_tmpdir(), *real = realpath(dir, NULL), *common;
	char *err = NULL;

	ck_assert_int_eq(worktree_repo(&g, real, &common, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "not in a git repository"));
	free(err);
	tu_sh(real, "git init -q .");
	ck_assert_int_eq(worktree_repo(&g, real, &common, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "no commit yet"));
	free(err);
	tu_rmtree(real);
	free(real);
	free(dir);
}
END_TEST

/* Whether path exists (links not followed). */
static int
exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

START_TEST(never_where_a_link_leads)
{
	char *dir = tu_git_repo(), *out = tu_tmpdir(), *common, *sha;
	char *err = NULL;
	char *line, *outwt;

	ck_assert_int_eq(worktree_repo(&g, dir, &common, &err), 0);
	free(common);
	/* .huddle/ is excluded once, however often the repository is
	 * opened; and never through a link in place of the file. */
	ck_assert_int_eq(worktree_repo(&g, dir, &common, &err), 0);
	free(common);
	tu_sh(dir, "test \"$(grep -c '^.huddle/$' .git/info/exclude)\" = 1");
	tu_write_file(out, "exclude", "theirs\n");
	line = xasprintf("rm .git/info/exclude && ln -s '%s/exclude' "
	    ".git/info/exclude", out);
	tu_sh(dir, line);
	free(line);
	ck_assert_int_eq(worktree_repo(&g, dir, &common, &err), -1);
	free(err);
	line = xasprintf("test \"$(cat '%s/exclude')\" = theirs", out);
	tu_sh(dir, line);
	free(line);
	tu_sh(dir, "rm .git/info/exclude");
	ck_assert_int_eq(worktree_repo(&g, dir, &common, &err), 0);
	free(common);
	/* .huddle/worktrees is a link out: no worktree, no branch, nothing
	 * written where it leads. */
	tu_sh(dir, "mkdir .huddle");
	line = xasprintf("ln -s '%s' .huddle/worktrees", out);
	tu_sh(dir, line);
	free(line);
	ck_assert_int_eq(worktree_add(&g, dir, "ann", NULL, &sha, &err), -1);
	ck_assert_msg(strstr(err, "symbolic link") != NULL, "%s", err);
	free(err);
	outwt = xasprintf("%s/ann", out);
	ck_assert(!exists(outwt));
	tu_sh(dir, "! git show-ref -q --verify refs/heads/huddle/ann");

	/* A worktree made where it should be, then .huddle swapped for a
	 * link to a copy of it: it is not found, and not removed. */
	tu_sh(dir, "rm .huddle/worktrees");
	ck_assert_int_eq(worktree_add(&g, dir, "ann", NULL, &sha, &err), 0);
	free(sha);
	line = xasprintf("mkdir '%s/copy' && cp -a .huddle/worktrees "
	    "'%s/copy/' && mv .huddle .huddle-real && ln -s '%s/copy' .huddle",
	    out, out, out);
	tu_sh(dir, line);
	free(line);
	ck_assert_int_eq(worktree_check(&g, dir, "ann", &err), -1);
	ck_assert_msg(strstr(err, "symbolic link") != NULL, "%s", err);
	free(err);
	ck_assert_int_eq(worktree_remove(&g, dir, "ann", 1, &err), -1);
	ck_assert_msg(strstr(err, "symbolic link") != NULL, "%s", err);
	free(err);
	free(outwt);
	outwt = xasprintf("%s/copy/worktrees/ann/a.txt", out);
	ck_assert(exists(outwt));
	/* Back where it was, it is found and removed. */
	tu_sh(dir, "rm .huddle && mv .huddle-real .huddle");
	ck_assert_int_eq(worktree_check(&g, dir, "ann", &err), 0);
	ck_assert_int_eq(worktree_remove(&g, dir, "ann", 1, &err), 0);
	free(outwt);
	tu_rmtree(out);
	free(out);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* A forced removal of a worktree git no longer knows deletes what is
 * in it, but nothing a link in it leads to. */
START_TEST(removal_follows_no_link)
{
	char *dir = tu_git_repo(), *out = tu_tmpdir(), *common, *sha;
	char *err = NULL;
	char *wt, *line, *kept;

	ck_assert_int_eq(worktree_repo(&g, dir, &common, &err), 0);
	free(common);
	ck_assert_int_eq(worktree_add(&g, dir, "bob", NULL, &sha, &err), 0);
	free(sha);
	wt = worktree_path(dir, "bob");
	tu_write_file(out, "keep.txt", "mine\n");
	line = xasprintf("echo gitdir: /nowhere > .git && mkdir -p sub/deep "
	    "&& echo x > sub/deep/x && ln -s '%s' away && ln -s '%s/keep.txt' "
	    "file", out, out);
	tu_sh(wt, line);
	free(line);
	ck_assert_int_eq(worktree_remove(&g, dir, "bob", 1, &err), 0);
	ck_assert(!exists(wt));
	kept = xasprintf("%s/keep.txt", out);
	ck_assert(exists(kept));
	free(kept);
	free(wt);
	tu_rmtree(out);
	free(out);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* huddle's git in a ruleset of the repository alone cannot make a
 * worktree anywhere else. */
START_TEST(sandboxed_git_writes_only_where_allowed)
{
	char *dir = tu_git_repo(), *out = tu_tmpdir(), *there, *o = NULL;
	char *err = NULL;
	const char *writable[1];
	struct landlock_rules rules = { 0 };
	struct git boxed = g;
	const char *add[] = { "worktree", "add", "-q", "-b", "huddle/x", NULL,
	    "HEAD", NULL };

	if (landlock_abi() == 0) {
		tu_rmtree(out);
		free(out);
		tu_rmtree(dir);
		free(dir);
		return;
	}
	writable[0] = dir;
	boxed.sandboxed = 1;
	rules.writable = writable;
	rules.nwritable = 1;
	boxed.sandbox_fd = landlock_ruleset(&rules, &err);
	ck_assert_msg(boxed.sandbox_fd != -1, "%s", err ? err : "");
	there = xasprintf("%s/x", out);
	add[5] = there;
	ck_assert_int_ne(git_run(&boxed, dir, 0, 0, &o, add), 0);
	free(o);
	ck_assert(!exists(there));
	/* The same git, unconfined, can: the test would see it. */
	o = NULL;
	add[4] = "huddle/y";
	ck_assert_msg(git_run(&g, dir, 0, 0, &o, add) == 0, "%s", o);
	free(o);
	ck_assert(exists(there));
	close(boxed.sandbox_fd);
	free(there);
	tu_rmtree(out);
	free(out);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

static Suite *
worktree_suite(void)
{
	Suite *s = suite_create("worktree");
	TCase *tc = tcase_create("git");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, diff_merge_and_remove);
	tcase_add_test(tc, a_conflict_changes_nothing);
	tcase_add_test(tc, outside_a_repository);
	tcase_add_test(tc, never_where_a_link_leads);
	tcase_add_test(tc, removal_follows_no_link);
	tcase_add_test(tc, sandboxed_git_writes_only_where_allowed);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, worktree_suite());
}
