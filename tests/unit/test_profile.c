/*
 * Unit tests of tools/profile, tools/hidden and the Landlock rules they
 * build: a command cannot read the person's secret stores or huddle's
 * state, even when they lie in its writable working directory; it
 * reaches no terminal device but the harmless ones; a store made later
 * stays hidden; --readable lets one path through; the file tools refuse
 * the same paths and the git files that run code later.
 *
 * The reaper is this test program started again (main() below answers
 * REAPER_ARG, as huddle's does).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/fstools.h"
#include "tools/hidden.h"
#include "tools/landlock.h"
#include "tools/profile.h"
#include "homefix.h"
#include "testutil.h"
#include "util/xmalloc.h"

static char *top;		/* the test's directory */
static char *home;		/* a person's home in it */
static char *wd;		/* a working directory in it */
static char *state;		/* huddle's state directory in it */
static char *program;

static void
setup(void)
{
	char *p;

	hf_make(&top, &home, &wd);
	state = xasprintf("%s/home/.local/state/huddle", top);
	p = xasprintf("%s/.local", home);
	mkdir(p, 0700);
	free(p);
	p = xasprintf("%s/.local/state", home);
	mkdir(p, 0700);
	free(p);
	ck_assert_int_eq(mkdir(state, 0700), 0);
	tu_write_file(state, "team.db", "TRANSCRIPT-SENTINEL\n");
	program = tu_reaper_program();
}

static void
teardown(void)
{
	hf_remove(top, home, wd);
	free(state);
	free(program);
}

/* A profile for root, hiding the test home's stores and the state. */
static struct profile *
profile_at(const char *root, const char *const *readable, size_t nreadable)
{
	struct profile_spec s = { 0 };
	struct profile *p;
	char **hidden = hidden_paths(home, state), *err = NULL;

	s.root = root;
	s.tmpdir = top;
	s.readable = readable;
	s.nreadable = nreadable;
	s.hidden = hidden;
	s.sandbox = landlock_abi() > 0;
	s.confined = 1;
	p = profile_new(&s, &err);
	ck_assert_msg(p != NULL, "%s", err ? err : "");
	hidden_free(hidden);
	return p;
}

START_TEST(the_table_lists_the_stores_and_the_state)
{
	char **h = hidden_paths(home, state), *p;

	p = xasprintf("%s/.ssh", home);
	ck_assert_ptr_nonnull(hidden_covers(h, p));
	free(p);
	p = xasprintf("%s/.aws/credentials", home);
	ck_assert_ptr_nonnull(hidden_covers(h, p));
	free(p);
	p = xasprintf("%s/other-team/team.db", state);
	ck_assert_ptr_nonnull(hidden_covers(h, p));
	free(p);
	ck_assert_ptr_null(hidden_covers(h, wd));
	p = xasprintf("%s/.sshx", home);
	ck_assert_ptr_null(hidden_covers(h, p));
	free(p);
	hidden_free(h);
}
END_TEST

START_TEST(xdg_folders_hide_both_places)
{
	char **h, *p;

	/* gh's tokens may be beneath $XDG_CONFIG_HOME and beneath
	 * ~/.config (made before the variable was set): both are hidden. */
	setenv("XDG_CONFIG_HOME", "/elsewhere/config", 1);
	h = hidden_paths(home, state);
	p = xasprintf("%s/.config/gh/hosts.yml", home);
	ck_assert_ptr_nonnull(hidden_covers(h, p));
	free(p);
	ck_assert_ptr_nonnull(hidden_covers(h, "/elsewhere/config/gh/x"));
	hidden_free(h);
	/* A relative one is no XDG folder at all. */
	setenv("XDG_CONFIG_HOME", "config", 1);
	h = hidden_paths(home, state);
	ck_assert_ptr_null(hidden_covers(h, "config/gh/x"));
	p = xasprintf("%s/.config/gh/hosts.yml", home);
	ck_assert_ptr_nonnull(hidden_covers(h, p));
	free(p);
	hidden_free(h);
	unsetenv("XDG_CONFIG_HOME");
}
END_TEST

START_TEST(commands_cannot_read_the_stores)
{
	struct profile *p;
	char *out, *cmd;

	if (landlock_abi() == 0)
		return;
	p = profile_at(wd, NULL, 0);
	cmd = xasprintf("cat %s/.ssh/id_rsa; cat %s/team.db; "
	    "python3 -c 'print(open(\"%s/.ssh/id_rsa\").read())'; "
	    "cat notes.txt", home, state, home);
	out = hf_run(p, program, cmd);
	ck_assert_msg(strstr(out, "SENTINEL") == NULL, "%s", out);
	ck_assert_msg(strstr(out, "ordinary") != NULL, "%s", out);
	free(out);
	free(cmd);
	/* A store made after the ruleset stays out of reach. */
	cmd = xasprintf("%s/.aws", home);
	ck_assert_int_eq(mkdir(cmd, 0700), 0);
	free(cmd);
	cmd = xasprintf("%s/.aws/credentials", home);
	tu_write(cmd, "AWS-SENTINEL\n");
	free(cmd);
	cmd = xasprintf("cat %s/.aws/credentials", home);
	out = hf_run(p, program, cmd);
	ck_assert_msg(strstr(out, "SENTINEL") == NULL, "%s", out);
	free(out);
	free(cmd);
	profile_free(p);
}
END_TEST

START_TEST(a_writable_home_keeps_its_stores_hidden)
{
	struct profile *p;
	char *out, *cmd;

	if (landlock_abi() == 0)
		return;
	p = profile_at(home, NULL, 0);
	/* What the home holds is the command's, but for its stores;
	 * entries are made in its directories (a directory on the way to
	 * a hidden path takes no rule of its own: see landlock.h). */
	cmd = xasprintf("cat .ssh/id_rsa; echo planted > .ssh/authorized_keys;"
	    " echo fine > project/new.txt && cat project/new.txt; "
	    "cat project/notes.txt");
	out = hf_run(p, program, cmd);
	ck_assert_msg(strstr(out, "SENTINEL") == NULL, "%s", out);
	ck_assert_msg(strstr(out, "fine") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "ordinary") != NULL, "%s", out);
	free(out);
	free(cmd);
	cmd = xasprintf("%s/.ssh/authorized_keys", home);
	ck_assert_int_ne(access(cmd, F_OK), 0);
	free(cmd);
	profile_free(p);
}
END_TEST

START_TEST(readable_lets_one_store_through)
{
	const char *readable[1];
	struct profile *p;
	char *out, *cmd, *key = xasprintf("%s/.ssh/id_rsa", home);

	if (landlock_abi() == 0) {
		free(key);
		return;
	}
	readable[0] = key;
	p = profile_at(wd, readable, 1);
	cmd = xasprintf("cat %s", key);
	out = hf_run(p, program, cmd);
	ck_assert_msg(strstr(out, "PRIVATE-KEY-SENTINEL") != NULL, "%s", out);
	free(out);
	free(cmd);
	profile_free(p);
	free(key);
}
END_TEST

START_TEST(no_terminal_device_is_reachable)
{
	struct profile *p;
	char *out;

	if (landlock_abi() == 0)
		return;
	p = profile_at(wd, NULL, 0);
	out = hf_run(p, program, "for d in /dev/tty /dev/ptmx /dev/console "
	    "/dev/pts/0 /dev/tty0; do "
	    "if (: < $d) 2>/dev/null; then echo OPENED $d; fi; "
	    "done; ls /dev/pts >/dev/null 2>&1 && echo LISTED; "
	    "head -c 4 /dev/urandom | wc -c; echo x > /dev/null && echo null; "
	    "bash -c 'cat <(echo procsub)'; echo stdout > /dev/stdout");
	ck_assert_msg(strstr(out, "OPENED") == NULL, "%s", out);
	ck_assert_msg(strstr(out, "LISTED") == NULL, "%s", out);
	ck_assert_msg(strstr(out, "4\n") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "null") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "procsub") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "stdout") != NULL, "%s", out);
	free(out);
	profile_free(p);
}
END_TEST

START_TEST(file_tools_refuse_stores_and_git_files)
{
	struct fstools_ctx c = { NULL, NULL, NULL };
	struct tool_output o = { 0 };
	struct profile *p;
	char *git = xasprintf("%s/.git", home), *config;

	ck_assert_int_eq(mkdir(git, 0755), 0);
	config = xasprintf("%s/config", git);
	tu_write(config, "[core]\n");
	free(config);
	p = profile_at(home, NULL, 0);
	c.workdir = home;
	c.profile = p;
	ck_assert_int_eq(fstools_read(&c, ".ssh/id_rsa", 0, 0, &o), -1);
	ck_assert_msg(strstr(o.text, "hidden") != NULL, "%s", o.text);
	tool_output_clear(&o);
	ck_assert_int_eq(fstools_write(&c, ".git/hooks/pre-commit",
	    "#!/bin/sh\ntouch /tmp/pwned\n", &o), -1);
	ck_assert_msg(strstr(o.text, "read-only") != NULL, "%s", o.text);
	tool_output_clear(&o);
	ck_assert_int_eq(fstools_edit(&c, ".git/config", "[core]",
	    "[core]\n\tfsmonitor = touch /tmp/pwned", &o), -1);
	tool_output_clear(&o);
	ck_assert_int_eq(fstools_write(&c, ".git/modules/m/hooks/post-merge",
	    "x", &o), -1);
	tool_output_clear(&o);
	ck_assert_int_eq(fstools_write(&c, ".git/worktrees/bob/commondir",
	    "/elsewhere\n", &o), -1);
	tool_output_clear(&o);
	ck_assert_int_eq(fstools_write(&c, ".git/worktrees/bob/config.worktree",
	    "[core]\n", &o), -1);
	tool_output_clear(&o);
	ck_assert_int_eq(fstools_write(&c, ".git/config.worktree", "[core]\n",
	    &o), -1);
	tool_output_clear(&o);
	ck_assert_int_eq(fstools_write(&c, "project/ok.txt", "fine\n", &o), 0);
	tool_output_clear(&o);
	ck_assert_int_eq(fstools_read(&c, "project/notes.txt", 0, 0, &o), 0);
	tool_output_clear(&o);
	profile_free(p);
	free(git);
}
END_TEST

/* A repository's worktree records and a worktree's .git file stay as
 * git wrote them: commands can neither write nor replace them, and the
 * file tools refuse them; huddle's own git (git_admin) may write the
 * records. */
START_TEST(worktree_records_and_dotgit_are_kept)
{
	struct fstools_ctx c = { NULL, NULL, NULL };
	struct tool_output o = { 0 };
	struct profile_spec s = { 0 };
	struct profile *p;
	char *wt = xasprintf("%s/wt", home), *cmd, *out, *err = NULL;
	char *hidden[] = { NULL };

	cmd = xasprintf("cd '%s' && git init -q . && mkdir -p "
	    ".git/worktrees/bob && echo ../.. > .git/worktrees/bob/commondir "
	    "&& mkdir '%s' && echo 'gitdir: %s/.git/worktrees/bob' > "
	    "'%s/.git'", home, wt, home, wt);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	p = profile_at(home, NULL, 0);
	out = hf_run(p, program, "echo /x > .git/worktrees/bob/commondir || "
	    "echo KEPT; mkdir .git/worktrees/eve || echo KEPT2");
	ck_assert_msg(strstr(out, "KEPT\n") != NULL &&
	    strstr(out, "KEPT2") != NULL, "%s", out);
	free(out);
	profile_free(p);
	p = profile_at(wt, NULL, 0);
	out = hf_run(p, program, "mv .git .git-old || echo KEPT; "
	    "rm -f .git || echo KEPT2; echo x > .git || echo KEPT3; cat .git");
	ck_assert_msg(strstr(out, "KEPT\n") != NULL && strstr(out, "KEPT2") !=
	    NULL && strstr(out, "KEPT3") != NULL && strstr(out, "gitdir: ") !=
	    NULL, "%s", out);
	free(out);
	c.workdir = wt;
	c.profile = p;
	ck_assert_int_eq(fstools_write(&c, ".git", "gitdir: /x\n", &o), -1);
	ck_assert_msg(strstr(o.text, "read-only") != NULL, "%s", o.text);
	tool_output_clear(&o);
	profile_free(p);
	s.root = home;
	s.tmpdir = top;
	s.hidden = hidden;
	s.sandbox = landlock_abi() > 0;
	s.confined = 1;
	s.git_admin = 1;
	p = profile_new(&s, &err);
	ck_assert_msg(p != NULL, "%s", err ? err : "");
	out = hf_run(p, program, "mkdir .git/worktrees/eve && echo MADE");
	ck_assert_msg(strstr(out, "MADE") != NULL, "%s", out);
	free(out);
	profile_free(p);
	free(wt);
}
END_TEST

static Suite *
profile_suite(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("profile");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, the_table_lists_the_stores_and_the_state);
	tcase_add_test(tc, xdg_folders_hide_both_places);
	tcase_add_test(tc, commands_cannot_read_the_stores);
	tcase_add_test(tc, a_writable_home_keeps_its_stores_hidden);
	tcase_add_test(tc, readable_lets_one_store_through);
	tcase_add_test(tc, no_terminal_device_is_reachable);
	tcase_add_test(tc, file_tools_refuse_stores_and_git_files);
	tcase_add_test(tc, worktree_records_and_dotgit_are_kept);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, profile_suite());
}
