/*
 * Unit tests of huddle's own git (tools/git.h, tools/worktree.h) against
 * what the team can plant: a worktree's commondir led to a copy of the
 * repository whose configuration defines a filter, a config.worktree, a
 * worktree's .git replaced by a repository of its own, the git directory
 * moved aside; every filter, text conversion, diff and merge driver the
 * configuration defines, chosen by a .gitattributes, never run (clean
 * on status, diff, add and merge; smudge on worktree add; textconv and
 * external diff on diff; a long-running filter process); and git run
 * in the profile huddle's git gets is confined as a command is.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "tools/bash.h"
#include "tools/landlock.h"
#include "tools/profile.h"
#include "tools/worktree.h"
#include "util/xmalloc.h"

static char *program;
static struct git g;

static void
setup(void)
{
	program = tu_reaper_program();
	memset(&g, 0, sizeof g);
	g.program = program;
	ck_assert_int_eq(git_find(&g), 0);
}

static void
teardown(void)
{
	free(program);
	git_clear(&g);
}

static int
exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* A repository with one commit of a.txt, its git directory pinned. */
static char *
repo(void)
{
	char *real = tu_git_repo(), *common = NULL, *err = NULL;

	ck_assert_int_eq(worktree_repo(&g, real, &common, &err), 0);
	ck_assert_int_eq(git_pin(&g, common, &err), 0);
	free(common);
	return real;
}

/* Where the planted drivers leave their mark: outside the repository. */
static char *
marks(void)
{
	return tu_tmpdir_canonical();
}

/* Removes the repository and the marks' folder, and frees their paths. */
static void
remove_both(char *dir, char *m)
{
	tu_rmtree(m);
	free(m);
	tu_rmtree(dir);
	free(dir);
}

/* Whether any mark was left. */
static int
marked(const char *m)
{
	char *cmd = xasprintf("test -z \"$(ls -A '%s')\"", m);
	int clean = system(cmd) == 0;

	free(cmd);
	return !clean;
}

/* Defines, in the git directory gitdir's config, a filter x (clean,
 * smudge), a filter p (process), a diff driver y (textconv, command)
 * and a merge driver z, each leaving a mark in m when run. */
static void
drivers(const char *gitdir, const char *m)
{
	char *cmd = xasprintf(
	    "git --git-dir='%s' config filter.x.clean 'touch %s/clean; cat' && "
	    "git --git-dir='%s' config filter.x.smudge 'touch %s/smudge; cat' "
	    "&& "
	    "git --git-dir='%s' config filter.x.required true && "
	    "git --git-dir='%s' config filter.p.process 'touch %s/process' && "
	    "git --git-dir='%s' config diff.y.textconv 'touch %s/textconv; cat' "
	    "&& "
	    "git --git-dir='%s' config diff.y.command 'touch %s/extdiff' && "
	    "git --git-dir='%s' config merge.z.driver 'touch %s/merge; false'",
	    gitdir, m, gitdir, m, gitdir, gitdir, m, gitdir, m, gitdir, m,
	    gitdir, m);

	tu_sh("/", cmd);
	free(cmd);
}

/* The test's own git, with the drivers off. */
#define OFF "-c filter.x.clean=cat -c filter.x.smudge=cat " \
    "-c filter.p.process= -c diff.y.textconv= -c diff.y.command= " \
    "-c merge.z.driver="

static const char attributes[] = "*.txt filter=x diff=y merge=z\n"
    "p.dat filter=p\n";

/* The attack: the lead's command leads bob's commondir to a copy
 * of the repository whose config defines a clean filter, and adds a
 * .gitattributes. huddle refuses the worktree, naming the file, and runs
 * nothing; once the file is as git wrote it, the worktree is used again
 * and the copy's filter still never runs. */
START_TEST(a_redirected_commondir_is_refused)
{
	char *dir = repo(), *m = marks(), *sha, *err = NULL, *report = NULL;
	char *wt, *copy, *cmd, *elsewhere = marks();
	struct worktree_state s;
	struct worktree_diff d;

	ck_assert_int_eq(worktree_add(&g, dir, "bob", NULL, &sha, &err), 0);
	wt = worktree_path(dir, "bob");
	copy = xasprintf("%s/copy.git", elsewhere);
	cmd = xasprintf("cp -r .git '%s'", copy);
	tu_sh(dir, cmd);
	free(cmd);
	drivers(copy, m);
	tu_write_file(wt, ".gitattributes", attributes);
	tu_write_file(wt, "a.txt", "ONE\nTWO\nTHREE\n");
	cmd = xasprintf("echo '%s' > .git/worktrees/bob/commondir", copy);
	tu_sh(dir, cmd);
	free(cmd);
	ck_assert_int_eq(worktree_state(&g, dir, "bob", &s, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "worktrees/bob/commondir"));
	free(err);
	ck_assert_int_eq(worktree_diff(&g, dir, "bob", sha, &d, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "commondir"));
	free(err);
	ck_assert_int_eq(worktree_merge(&g, dir, "bob", "bob's", &report),
	    WT_FAILED);
	ck_assert_ptr_nonnull(strstr(report, "commondir"));
	free(report);
	ck_assert_int_eq(worktree_check(&g, dir, "bob", &err), -1);
	free(err);
	ck_assert_msg(!marked(m), "a planted driver ran");
	/* A config.worktree of the team's is refused the same way. */
	tu_sh(dir, "echo ../.. > .git/worktrees/bob/commondir && "
	    "printf '[core]\\n\\tfsmonitor = true\\n' > "
	    ".git/worktrees/bob/config.worktree");
	ck_assert_int_eq(worktree_state(&g, dir, "bob", &s, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "bob/config.worktree"));
	free(err);
	tu_sh(dir, "rm .git/worktrees/bob/config.worktree");
	ck_assert_int_eq(worktree_state(&g, dir, "bob", &s, &err), 0);
	ck_assert(s.dirty);
	ck_assert_int_eq(worktree_merge(&g, dir, "bob", "bob's", &report),
	    WT_MERGED);
	free(report);
	ck_assert_msg(!marked(m), "a planted driver ran");
	free(copy);
	tu_rmtree(elsewhere);
	free(elsewhere);
	free(wt);
	free(sha);
	remove_both(dir, m);
}
END_TEST

/* A teammate replaces its worktree's .git by a repository of its own
 * with a file-system monitor: huddle's git never reads it, and says
 * which file. */
START_TEST(a_replaced_dotgit_is_refused)
{
	char *dir = repo(), *m = marks(), *sha, *err = NULL, *wt, *cmd;
	struct worktree_state s;

	ck_assert_int_eq(worktree_add(&g, dir, "bob", NULL, &sha, &err), 0);
	wt = worktree_path(dir, "bob");
	cmd = xasprintf("mv .git .git-old && git init -q . && "
	    "git config core.fsmonitor 'touch %s/fsmonitor; false'", m);
	tu_sh(wt, cmd);
	free(cmd);
	ck_assert_int_eq(worktree_state(&g, dir, "bob", &s, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "bob/.git is not the file git "
	    "wrote"));
	free(err);
	ck_assert_int_eq(worktree_check(&g, dir, "bob", &err), -1);
	free(err);
	ck_assert(!marked(m));
	/* Forced, it can still be discarded. */
	ck_assert_int_eq(worktree_remove(&g, dir, "bob", 1, &err), 0);
	ck_assert(!exists(wt));
	ck_assert(!marked(m));
	free(wt);
	free(sha);
	remove_both(dir, m);
}
END_TEST

/* The git directory found at start moved aside and another put in its
 * place: huddle's git refuses to run at all. */
START_TEST(a_replaced_git_directory_is_refused)
{
	char *dir = repo(), *out = NULL;
	const char *status[] = { "status", "--porcelain", NULL };

	ck_assert_int_eq(git_run(&g, dir, 0, 0, &out, status), 0);
	free(out);
	tu_sh(dir, "mv .git .git-old && cp -r .git-old .git");
	ck_assert_int_eq(git_run(&g, dir, 0, 0, &out, status), -1);
	ck_assert_ptr_nonnull(strstr(out, "is not the git directory huddle "
	    "found"));
	free(out);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* The person's own configuration defines drivers, and the team's
 * .gitattributes chooses them: none runs in huddle's git, from the
 * worktree's checkout to the merge. */
START_TEST(no_filter_or_driver_runs)
{
	char *dir = repo(), *m = marks(), *sha, *err = NULL, *report, *wt;
	char *gitdir;
	int rc;
	struct worktree_state s;
	struct worktree_diff d;

	gitdir = xasprintf("%s/.git", dir);
	/* Committed first, so that the worktree's checkout smudges. */
	tu_write_file(dir, ".gitattributes", attributes);
	tu_write_file(dir, "p.dat", "data\n");
	tu_sh(dir, "git add .gitattributes p.dat && git commit -q -m attrs");
	drivers(gitdir, m);
	rc = worktree_add(&g, dir, "bob", NULL, &sha, &err);
	ck_assert_msg(!marked(m), "smudge ran at worktree add");
	ck_assert_msg(rc == 0, "%s", err);
	wt = worktree_path(dir, "bob");
	/* The same size, another time: status must read it (clean). */
	tu_write_file(wt, "a.txt", "ONE\nTWO\nTHREE\n");
	tu_write_file(wt, "p.dat", "DATA\n");
	tu_write_file(wt, "b.txt", "new\n");
	ck_assert_int_eq(worktree_state(&g, dir, "bob", &s, &err), 0);
	ck_assert(s.dirty);
	ck_assert_msg(!marked(m), "a filter ran at status");
	ck_assert_int_eq(worktree_diff(&g, dir, "bob", sha, &d, &err), 0);
	ck_assert_ptr_nonnull(strstr(d.patch, "+TWO"));
	worktree_diff_clear(&d);
	ck_assert_msg(!marked(m), "a filter or diff driver ran at diff");
	/* Both sides change a.txt: the merge driver would be asked. */
	tu_write_file(dir, "a.txt", "one\ntwo\nthree\nfour\n");
	tu_sh(dir, "git " OFF " commit -q -am mine");
	ck_assert_msg(!marked(m), "the test's own commit ran a driver");
	ck_assert_int_ne(worktree_merge(&g, dir, "bob", "bob's", &report),
	    WT_MERGED);
	free(report);
	ck_assert_msg(!marked(m), "a filter or merge driver ran at merge");
	tu_sh(dir, "git " OFF " diff --quiet HEAD");
	free(gitdir);
	free(wt);
	free(sha);
	remove_both(dir, m);
}
END_TEST

/* A filter name git's -c cannot carry stops git rather than run it. */
START_TEST(a_name_with_equals_stops_git)
{
	char *dir = repo(), *m = marks(), *out = NULL, *cmd;
	const char *add[] = { "add", "a.txt", NULL };

	cmd = xasprintf("git config 'filter.a=b.clean' 'touch %s/clean; cat' "
	    "&& echo 'a.txt filter=a=b' > .gitattributes", m);
	tu_sh(dir, cmd);
	free(cmd);
	tu_write_file(dir, "a.txt", "changed\n");
	ck_assert_int_ne(git_run(&g, dir, 0, 0, &out, add), 0);
	ck_assert_ptr_nonnull(strstr(out, "huddle does not run git here"));
	free(out);
	ck_assert(!marked(m));
	remove_both(dir, m);
}
END_TEST

/* git in the profile places.c gives huddle's git: no capabilities, the
 * seccomp filter, no network, no desktop variables, the hooks and
 * configuration read-only, while the worktrees' records stay writable. An alias is how this
 * test makes git run a command of its own. */
START_TEST(huddle_git_is_confined)
{
	char *dir = repo(), *tmp = tu_tmpdir(), *out = NULL, *err = NULL;
	char *hidden[] = { NULL };
	struct profile_spec s = { 0 };
	struct bash_options bo = { 0 };
	struct profile *p;
	struct git boxed;
	const char *probe[] = { "-c", "alias.probe=!"
	    "grep -E '^(CapEff|Seccomp):' /proc/self/status; "
	    "(echo x > .git/hooks/post-commit) 2>/dev/null || echo hooks-ro; "
	    "(echo x >> .git/config) 2>/dev/null || echo config-ro; "
	    "mkdir -p .git/worktrees && touch .git/worktrees/w && "
	    "echo worktrees-rw; "
	    "python3 -c 'import socket; socket.create_connection("
	    "(\"127.0.0.1\", 9), 1)' 2>&1 | grep -q PermissionError "
	    "&& echo no-net; echo \"tmux=${TMUX-none} "
	    "display=${DISPLAY-none}\"", "probe", NULL };
	const char *sha[] = { "rev-parse", "HEAD", NULL };

	s.root = dir;
	s.tmpdir = tmp;
	s.program = program;
	s.hidden = hidden;
	s.sandbox = landlock_abi() > 0;
	s.confined = 1;
	s.net = CONFINE_NET_NONE;
	s.git_admin = 1;
	p = profile_new(&s, &err);
	ck_assert_msg(p != NULL, "%s", err ? err : "");
	profile_bash_options(p, &bo);
	/* The person's desktop, in huddle's environment. */
	setenv("TMUX", "/tmp/tmux-0/default,1,0", 1);
	setenv("DISPLAY", ":0", 1);
	boxed = g;
	git_confine(&boxed, &bo);
	ck_assert_int_eq(git_run(&boxed, dir, 0, 0, &out, probe), 0);
	ck_assert_msg(strstr(out, "CapEff:\t0000000000000000") != NULL, "%s",
	    out);
	ck_assert_msg(strstr(out, "Seccomp:\t2") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "hooks-ro") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "config-ro") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "worktrees-rw") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "no-net") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "tmux=none display=none") != NULL, "%s",
	    out);
	free(out);
	ck_assert_int_eq(git_run(&boxed, dir, 0, 0, &out, sha), 0);
	free(out);
	profile_free(p);
	tu_rmtree(tmp);
	free(tmp);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

static Suite *
gitrun_suite(void)
{
	Suite *s = suite_create("gitrun");
	TCase *tc = tcase_create("git");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, a_redirected_commondir_is_refused);
	tcase_add_test(tc, a_replaced_dotgit_is_refused);
	tcase_add_test(tc, a_replaced_git_directory_is_refused);
	tcase_add_test(tc, no_filter_or_driver_runs);
	tcase_add_test(tc, a_name_with_equals_stops_git);
	tcase_add_test(tc, huddle_git_is_confined);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, gitrun_suite());
}
