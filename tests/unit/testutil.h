/*
 * Helpers shared by the Check unit tests: temporary working directories
 * and the files, shell steps and git repositories made in them, a
 * ready-made team in a fresh store, JSON read and compared, a cancel
 * fired later, the fixture and reaper of the tests that run commands,
 * and the runner and main.
 */
#ifndef HUDDLE_TESTS_TESTUTIL_H
#define HUDDLE_TESTS_TESTUTIL_H

#include <check.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "core/bus.h"
#include "core/protocol.h"
#include "core/store.h"
#include "core/task.h"

struct cancel;

/* A fresh store with members lead, alice and bob (bob plan_required). */
struct tu_team {
	char		*dir;
	struct store	*store;
	struct bus	*bus;
	struct protocol	*proto;
	struct taskboard *tasks;
};

/* Makes a new empty directory under $TMPDIR (or /tmp), removed (with
 * what it holds) when the process that made it exits; free the result. */
char *tu_tmpdir(void);

/* tu_tmpdir by its canonical path (no link on the way to it), as the
 * sandbox compares paths; free the result. */
char *tu_tmpdir_canonical(void);

/* Removes a directory tree. */
void tu_rmtree(const char *dir);

/* Writes text to the file at path, or dir/name (made or emptied),
 * failing the test when it cannot. */
void tu_write(const char *path, const char *text);
void tu_write_file(const char *dir, const char *name, const char *text);

/* A team in a fresh directory: the store, its bus and protocol engine,
 * and the members lead, alice and bob (bob must have his plan approved). */
void tu_team_open(struct tu_team *t);
/* Closes the store and opens it again, as a restart would. */
void tu_team_reopen(struct tu_team *t);
void tu_team_close(struct tu_team *t);

/* Makes the folder dir/name (mode 0700), failing the test when it
 * cannot. */
void tu_make_dir(const char *dir, const char *name);

/* Runs the shell command cmd in dir, its output dropped, failing the
 * test when it fails. */
void tu_sh(const char *dir, const char *cmd);

/* A git repository on branch main with one commit of a.txt, in a new
 * canonical tu_tmpdir; free the result. */
char *tu_git_repo(void);

/* Opens a store in dir, failing the test on error. */
struct store *tu_store_open(const char *dir);

/* A thread that fires a cancel token after a while, noting when:
 * pthread_create(&th, NULL, tu_fire_later, &firer). */
struct tu_firer {
	struct cancel	*cancel;
	int		 after_ms;
	_Atomic int64_t	 fired_at;	/* clock_mono_ms() when fired */
};

void *tu_fire_later(void *firer);

/* Initialises c and starts the thread th (join it) that fires c after
 * after_ms, as f records (f must outlive the thread). */
void tu_fire_after(struct tu_firer *f, struct cancel *c, int after_ms,
    pthread_t *th);

/* A file of the source tree ($top_srcdir, else .), whole and
 * NUL-terminated (free it); NULL when missing. */
char *tu_source_file(const char *name);

/* The JSON text parsed (any value; decref it), failing the test when it
 * is not JSON. */
json_t *tu_json(const char *text);

/* Fails the test unless got equals the JSON text want, showing both. */
void tu_json_check(json_t *got, const char *want);

/* Runs a suite (fork mode) and returns the process exit status. */
int tu_run(Suite *suite);

/* This test program's own path, which runs its commands' reaper when
 * started again (tu_main), with the test's process made the subreaper
 * of those commands, as huddle is; free the result. */
char *tu_reaper_program(void);

/* The checked fixture of the tests that run commands: tu_wd, a new
 * canonical working folder, and tu_program, the reaper
 * (tu_reaper_program); the teardown removes and frees them. */
extern char *tu_wd;
extern char *tu_program;
void tu_commands_setup(void);
void tu_commands_teardown(void);

/* The main of a test program that runs commands: started again as the
 * command reaper or the git sandbox's namespace holder, it is that, as
 * huddle is; with any other option it runs nothing; else it runs suite
 * (tu_run). */
int tu_main(int argc, char **argv, Suite *suite);

#endif
