/*
 * Helpers shared by the Check unit tests (see testutil.h).
 */
#include "config.h"

#include <ftw.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/roster.h"
#include "core/taskboard.h"
#include "testutil.h"
#include "util/cancel.h"
#include "util/clock.h"
#include "util/xmalloc.h"

/* The directories tu_tmpdir made, each with the process that made it:
 * removed when that process exits, whatever the test forgot. */
static struct tu_made {
	pid_t	 pid;
	char	*dir;
} *tu_made;
static size_t tu_nmade;

static void
tu_remove_made(void)
{
	size_t i;

	for (i = 0; i < tu_nmade; i++)
		if (tu_made[i].pid == getpid())
			tu_rmtree(tu_made[i].dir);
}

char *
tu_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *dir = xasprintf("%s/huddle-test-XXXXXX", base && *base ? base :
	    "/tmp");

	ck_assert_ptr_nonnull(mkdtemp(dir));
	if (tu_made == NULL)
		atexit(tu_remove_made);
	tu_made = xrealloc(tu_made, (tu_nmade + 1) * sizeof *tu_made);
	tu_made[tu_nmade].pid = getpid();
	tu_made[tu_nmade++].dir = xstrdup(dir);
	return dir;
}

static int
tu_rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	return remove(path);
}

void
tu_rmtree(const char *dir)
{
	nftw(dir, tu_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

struct store *
tu_store_open(const char *dir)
{
	char *err = NULL;
	struct store *s = store_open(dir, 0, &err);

	ck_assert_msg(s != NULL, "store_open: %s", err ? err : "?");
	return s;
}

void
tu_team_open(struct tu_team *t)
{
	char *err = NULL;

	t->dir = tu_tmpdir();
	t->store = tu_store_open(t->dir);
	t->bus = bus_new(t->store);
	t->proto = protocol_new(t->bus);
	t->tasks = taskboard_new(t->bus);
	ck_assert_int_eq(roster_add(t->store, "lead", "lead", "", 0, &err), 0);
	ck_assert_int_eq(roster_add(t->store, "alice", "coder", "write", 0,
	    &err), 0);
	ck_assert_int_eq(roster_add(t->store, "bob", "refactorer", "refactor",
	    1, &err), 0);
}

void
tu_team_reopen(struct tu_team *t)
{
	taskboard_free(t->tasks);
	protocol_free(t->proto);
	bus_free(t->bus);
	store_close(t->store);
	t->store = tu_store_open(t->dir);
	t->bus = bus_new(t->store);
	t->proto = protocol_new(t->bus);
	t->tasks = taskboard_new(t->bus);
}

void
tu_team_close(struct tu_team *t)
{
	taskboard_free(t->tasks);
	protocol_free(t->proto);
	bus_free(t->bus);
	store_close(t->store);
	tu_rmtree(t->dir);
	free(t->dir);
}

char *
tu_source_file(const char *name)
{
	const char *top = getenv("top_srcdir");
	char path[4096], *text;
	FILE *f;
	long n;

	snprintf(path, sizeof path, "%s/%s", top ? top : ".", name);
	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)n + 1);
	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return text;
}

int
tu_run(Suite *suite)
{
	SRunner *sr = srunner_create(suite);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

void *
tu_fire_later(void *arg)
{
	struct tu_firer *f = arg;

	poll(NULL, 0, f->after_ms);
	atomic_store(&f->fired_at, clock_mono_ms());
	cancel_fire(f->cancel);
	return NULL;
}
