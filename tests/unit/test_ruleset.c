/*
 * Unit tests of tools/ruleset: one ruleset, built on a thread of its own,
 * serves every profile of a place, and a command waits for it; one that
 * cannot be built runs no command rather than one unconfined; and it
 * knows when a directory its walk split into entries changed, so that a
 * store moved into place after it was built is hidden from the ruleset
 * built anew.
 *
 * The reaper is this test program started again (main() below answers
 * REAPER_ARG, as huddle's does).
 */
#include "config.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/hidden.h"
#include "tools/landlock.h"
#include "tools/profile.h"
#include "tools/ruleset.h"
#include "homefix.h"
#include "testutil.h"
#include "util/xmalloc.h"

static char *top;		/* the test's directory */
static char *home;		/* a person's home in it */
static char *wd;		/* a working directory in the home */
static char *program;
static char **hidden;		/* the home's stores */

/* Puts dir's modification time an hour back, so that any change to its
 * entries moves it, however coarse the file system's clock. */
static void
age(const char *dir)
{
	struct timespec ts[2];

	ck_assert_int_eq(clock_gettime(CLOCK_REALTIME, &ts[0]), 0);
	ts[0].tv_sec -= 3600;
	ts[1] = ts[0];
	ck_assert_int_eq(utimensat(AT_FDCWD, dir, ts, 0), 0);
}

static void
setup(void)
{
	hf_make(&top, &home, &wd);
	hidden = hidden_paths(home, NULL);
	program = tu_reaper_program();
}

static void
teardown(void)
{
	hf_remove(top, home, wd);
	free(program);
	hidden_free(hidden);
}

/* The spec of a confined place at root, hiding the home's stores. */
static struct profile_spec
spec_at(const char *root)
{
	struct profile_spec s = { 0 };

	s.root = root;
	s.tmpdir = top;
	s.hidden = hidden;
	s.sandbox = 1;
	s.confined = 1;
	return s;
}

START_TEST(profiles_of_a_place_share_its_ruleset)
{
	struct profile_spec s = spec_at(wd);
	struct profile *p[2];
	struct ruleset *rs;
	char *err = NULL, *out;
	int i;

	if (landlock_abi() == 0)
		return;
	rs = profile_ruleset_start(&s);
	s.ruleset = rs;
	for (i = 0; i < 2; i++) {
		p[i] = profile_new(&s, &err);
		ck_assert_msg(p[i] != NULL, "%s", err ? err : "");
		ck_assert_ptr_eq(p[i]->ruleset, rs);
	}
	/* The profiles hold it: the one who started it may go. */
	ruleset_drop(rs);
	for (i = 0; i < 2; i++) {
		out = hf_run(p[i], program,
		    "cat notes.txt; cat ../.ssh/id_rsa");
		ck_assert_msg(strstr(out, "ordinary") != NULL, "%s", out);
		ck_assert_msg(strstr(out, "SENTINEL") == NULL, "%s", out);
		free(out);
		profile_free(p[i]);
	}
}
END_TEST

START_TEST(a_ruleset_that_cannot_be_built_runs_nothing)
{
	char *missing = xasprintf("%s/gone", top), *err = NULL, *out;
	struct profile_spec s = spec_at(missing);
	struct profile *p;
	struct ruleset *rs;

	if (landlock_abi() == 0) {
		free(missing);
		return;
	}
	rs = profile_ruleset_start(&s);
	s.ruleset = rs;
	/* The profile does not wait for it; its first command does. */
	p = profile_new(&s, &err);
	ck_assert_msg(p != NULL, "%s", err ? err : "");
	out = hf_run(p, program, "echo RAN-UNCONFINED");
	ck_assert_msg(strstr(out, "RAN-UNCONFINED") == NULL, "%s", out);
	ck_assert_msg(strstr(out, missing) != NULL, "%s", out);
	free(out);
	ck_assert_int_eq(ruleset_fd(rs, &err), -1);
	ck_assert_msg(strstr(err, missing) != NULL, "%s", err);
	free(err);
	ruleset_drop(rs);
	profile_free(p);
	free(missing);
}
END_TEST

START_TEST(an_entry_made_in_a_split_directory_makes_it_stale)
{
	struct profile_spec s = spec_at(wd);
	struct ruleset *rs;
	char *err = NULL, *p;

	if (landlock_abi() == 0)
		return;
	age(home);
	rs = profile_ruleset_start(&s);
	ck_assert_msg(ruleset_fd(rs, &err) != -1, "%s", err ? err : "");
	/* The home lies on the way to its stores: split. */
	p = xasprintf("%s/new-file", home);
	tu_write(p, "x");
	ck_assert(!ruleset_fresh(rs));
	free(p);
	ruleset_drop(rs);
}
END_TEST

START_TEST(a_writable_directory_counts_by_what_it_is)
{
	char *w = xasprintf("%s/w", top), *p = xasprintf("%s/w/file", top);
	char *moved = xasprintf("%s/w-old", top);
	const char *writable[] = { w };
	struct landlock_rules r = { NULL, 0, NULL, 0, writable, 1, 0, 0 };
	struct ruleset *rs;
	char *err = NULL;

	if (landlock_abi() == 0)
		goto out;
	ck_assert_int_eq(mkdir(w, 0700), 0);
	rs = ruleset_start(&r);
	ck_assert_msg(ruleset_fd(rs, &err) != -1, "%s", err ? err : "");
	ck_assert(ruleset_fresh(rs));
	/* What commands write there changes nothing of the ruleset ... */
	tu_write(p, "x");
	ck_assert(ruleset_fresh(rs));
	/* ... but another directory in its place does: the rule is bound
	 * to the one that was there. */
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(rename(w, moved), 0);
	ck_assert_int_eq(mkdir(w, 0700), 0);
	ck_assert(!ruleset_fresh(rs));
	ruleset_drop(rs);
out:
	free(w);
	free(p);
	free(moved);
}
END_TEST

START_TEST(a_store_moved_into_place_is_hidden_anew)
{
	struct profile_spec s = spec_at(wd);
	struct ruleset *old, *rs;
	struct profile *p;
	char *stuff, *aws, *err = NULL, *out;

	if (landlock_abi() == 0)
		return;
	stuff = xasprintf("%s/stuff", home);
	aws = xasprintf("%s/.aws", home);
	ck_assert_int_eq(mkdir(stuff, 0700), 0);
	out = xasprintf("%s/credentials", stuff);
	tu_write(out, "CLOUD-SENTINEL\n");
	free(out);
	age(home);
	old = profile_ruleset_start(&s);
	ck_assert_msg(ruleset_fd(old, &err) != -1, "%s", err ? err : "");
	/* The person moves a folder of the home where a store belongs,
	 * once the ruleset granted that folder. */
	ck_assert_int_eq(rename(stuff, aws), 0);
	ck_assert(!ruleset_fresh(old));
	/* So the next profile gets a ruleset built anew, which hides it. */
	rs = profile_ruleset_start(&s);
	s.ruleset = rs;
	p = profile_new(&s, &err);
	ck_assert_msg(p != NULL, "%s", err ? err : "");
	out = hf_run(p, program, "cat ../.aws/credentials");
	ck_assert_msg(strstr(out, "CLOUD-SENTINEL") == NULL, "%s", out);
	free(out);
	profile_free(p);
	ruleset_drop(rs);
	ruleset_drop(old);
	free(stuff);
	free(aws);
}
END_TEST

START_TEST(a_readable_grant_joins_without_waiting)
{
	struct profile_spec s = spec_at(wd);
	struct ruleset *rs;
	struct profile *p;
	char *ssh = xasprintf("%s/.ssh", home), *aws = xasprintf("%s/.aws",
	    home), *missing = xasprintf("%s/gone", top), *err = NULL, *out;

	if (landlock_abi() == 0)
		goto out;
	ck_assert_int_eq(mkdir(aws, 0700), 0);
	out = xasprintf("%s/credentials", aws);
	tu_write(out, "CLOUD-SENTINEL\n");
	free(out);
	rs = profile_ruleset_start(&s);
	s.ruleset = rs;
	/* Asked while the walk may still run (it is queued for its end),
	 * then once it is built (added at once): both hold. */
	ck_assert_msg(ruleset_add_readable(rs, ssh, &err) == 0, "%s", err);
	ck_assert_msg(ruleset_fd(rs, &err) != -1, "%s", err ? err : "");
	ck_assert_msg(ruleset_add_readable(rs, aws, &err) == 0, "%s", err);
	ck_assert_int_eq(ruleset_add_readable(rs, missing, &err), -1);
	ck_assert_msg(strstr(err, missing) != NULL, "%s", err);
	free(err);
	err = NULL;
	p = profile_new(&s, &err);
	ck_assert_msg(p != NULL, "%s", err ? err : "");
	out = hf_run(p, program, "cat ../.ssh/id_rsa ../.aws/credentials");
	ck_assert_msg(strstr(out, "PRIVATE-KEY-SENTINEL") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "CLOUD-SENTINEL") != NULL, "%s", out);
	free(out);
	profile_free(p);
	ruleset_drop(rs);
out:
	free(ssh);
	free(aws);
	free(missing);
}
END_TEST

/* Waits for the ruleset on a thread of its own. */
static void *
waiter(void *arg)
{
	char *err = NULL;
	int fd = ruleset_fd(arg, &err);

	free(err);
	return fd == -1 ? NULL : arg;
}

START_TEST(many_threads_wait_for_one_build)
{
	struct profile_spec s = spec_at(wd);
	struct ruleset *rs;
	pthread_t th[8];
	void *got;
	int i;

	if (landlock_abi() == 0)
		return;
	rs = profile_ruleset_start(&s);
	for (i = 0; i < 8; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, waiter,
		    ruleset_hold(rs)), 0);
	for (i = 0; i < 8; i++) {
		ck_assert_int_eq(pthread_join(th[i], &got), 0);
		ck_assert_ptr_eq(got, rs);
		ruleset_drop(rs);
	}
	ruleset_drop(rs);
}
END_TEST

static Suite *
ruleset_suite(void)
{
	Suite *s = suite_create("ruleset");
	TCase *tc = tcase_create("ruleset");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, profiles_of_a_place_share_its_ruleset);
	tcase_add_test(tc, a_ruleset_that_cannot_be_built_runs_nothing);
	tcase_add_test(tc, an_entry_made_in_a_split_directory_makes_it_stale);
	tcase_add_test(tc, a_writable_directory_counts_by_what_it_is);
	tcase_add_test(tc, a_store_moved_into_place_is_hidden_anew);
	tcase_add_test(tc, many_threads_wait_for_one_build);
	tcase_add_test(tc, a_readable_grant_joins_without_waiting);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, ruleset_suite());
}
