/*
 * Helpers shared by the Check unit tests: temporary working directories,
 * a ready-made team in a fresh store, and the runner.
 */
#ifndef HUDDLE_TESTS_TESTUTIL_H
#define HUDDLE_TESTS_TESTUTIL_H

#include <check.h>

#include "core/bus.h"
#include "core/protocol.h"
#include "core/store.h"

/* A fresh store with members lead, alice and bob (bob plan_required). */
struct tu_team {
	char		*dir;
	struct store	*store;
	struct bus	*bus;
	struct protocol	*proto;
};

/* Makes a new empty directory under $TMPDIR (or /tmp); free the result. */
char *tu_tmpdir(void);

/* Removes a directory tree. */
void tu_rmtree(const char *dir);

/* A team in a fresh directory: the store, its bus and protocol engine,
 * and the members lead, alice and bob (bob must have his plan approved). */
void tu_team_open(struct tu_team *t);
/* Closes the store and opens it again, as a restart would. */
void tu_team_reopen(struct tu_team *t);
void tu_team_close(struct tu_team *t);

/* Opens a store in dir, failing the test on error. */
struct store *tu_store_open(const char *dir);

/* Runs a suite (fork mode) and returns the process exit status. */
int tu_run(Suite *suite);

#endif
