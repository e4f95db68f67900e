/*
 * Helpers shared by the Check unit tests (see testutil.h).
 */
#include "config.h"

#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/roster.h"
#include "core/taskboard.h"
#include "testutil.h"
#include "tools/mountns.h"
#include "tools/reaper.h"
#include "tools/reaperexe.h"
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

char *
tu_tmpdir_canonical(void)
{
	char *t = tu_tmpdir(), buf[PATH_MAX];

	ck_assert_ptr_nonnull(realpath(t, buf));
	free(t);
	return xstrdup(buf);
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

void
tu_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL, "%s", path);
	fputs(text, f);
	fclose(f);
}

void
tu_write_file(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);

	tu_write(path, text);
	free(path);
}

void
tu_make_dir(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);

	ck_assert_int_eq(mkdir(path, 0700), 0);
	free(path);
}

void
tu_sh(const char *dir, const char *cmd)
{
	char *line = xasprintf("cd '%s' && { %s; } >/dev/null 2>&1", dir, cmd);

	ck_assert_msg(system(line) == 0, "failed: %s", cmd);
	free(line);
}

char *
tu_git_repo(void)
{
	char *dir = tu_tmpdir_canonical();

	tu_sh(dir, "git init -q -b main . && git config user.name T && "
	    "git config user.email t@example.invalid");
	tu_write_file(dir, "a.txt", "one\ntwo\nthree\n");
	tu_sh(dir, "git add a.txt && git commit -q -m first");
	return dir;
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

json_t *
tu_json(const char *text)
{
	json_error_t jerr;
	json_t *j = json_loads(text, JSON_DECODE_ANY, &jerr);

	ck_assert_msg(j != NULL, "bad test JSON: %s: %s", jerr.text, text);
	return j;
}

void
tu_json_check(json_t *got, const char *want)
{
	json_t *w = tu_json(want);
	char *g = json_dumps(got, JSON_COMPACT | JSON_ENCODE_ANY);

	ck_assert_msg(json_equal(got, w), "got %s\nwant %s", g, want);
	free(g);
	json_decref(w);
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

char *
tu_reaper_program(void)
{
	char *program = reaperexe_self();

	ck_assert_ptr_nonnull(program);
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	return program;
}

char *tu_wd;
char *tu_program;

void
tu_commands_setup(void)
{
	tu_wd = tu_tmpdir_canonical();
	tu_program = tu_reaper_program();
}

void
tu_commands_teardown(void)
{
	tu_rmtree(tu_wd);
	free(tu_wd);
	free(tu_program);
}

int
tu_main(int argc, char **argv, Suite *suite)
{
	/* Started again as huddle would be: never run the suite then, or
	 * each git sandbox's holder would run the tests of its own. */
	if (argc > 1 && strcmp(argv[1], REAPER_ARG) == 0)
		return reaper_main(argc, argv);
	if (argc > 1 && strcmp(argv[1], MOUNTNS_HOLDER_ARG) == 0)
		return mountns_holder_main(argc, argv);
	if (argc > 1 && strncmp(argv[1], "--", 2) == 0)
		return 2;
	return tu_run(suite);
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

void
tu_fire_after(struct tu_firer *f, struct cancel *c, int after_ms,
    pthread_t *th)
{
	cancel_init(c);
	f->cancel = c;
	f->after_ms = after_ms;
	atomic_init(&f->fired_at, 0);
	ck_assert_int_eq(pthread_create(th, NULL, tu_fire_later, f), 0);
}
