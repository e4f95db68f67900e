/*
 * The store is huddle's one durable home: a SQLite database in
 * <workdir>/.huddle/team.db holding the members of the team, every inbox
 * message, every protocol request, every task on the board and every
 * agent's transcript.
 *
 * One connection is shared by all threads and serialised by the store's own
 * mutex. Writers bracket their work with store_begin()/store_end(), which
 * makes a group of changes (say, marking a message delivered and recording
 * it in a transcript) commit together or not at all. Readers bracket theirs
 * with store_lock()/store_unlock(). The SQL of each table lives with the
 * module that owns the concept (bus.c for messages, protocol.c for requests,
 * roster.c for members, transcript.c for transcripts); the store only opens,
 * migrates, locks and caches prepared statements.
 */
#ifndef HUDDLE_CORE_STORE_H
#define HUDDLE_CORE_STORE_H

#include <sqlite3.h>
#include <stdint.h>

struct store;

/* store_open flags. */
#define STORE_SYNC_FULL 0x1	/* fsync every commit: survives power loss */

/* The schema version this build writes. */
#define STORE_SCHEMA_VERSION 8

/*
 * Opens <folder>/team.db, creating the folder (0700, core/statedir.h) and
 * the database (0600) when missing, neither through a symbolic link, and
 * migrating an older schema. A database holding schema objects huddle did
 * not make (a trigger, a view, a table) or of a newer schema is refused. Commits are
 * durable against a crash of the process (WAL, synchronous=NORMAL); with
 * STORE_SYNC_FULL also against power loss. Returns NULL and a malloc'd
 * message in *err on failure. (One process per team is statedir_lock's
 * business.)
 */
struct store *store_open(const char *folder, int flags, char **err);

/* The default ceiling of a team's state, in bytes, unless
 * $HUDDLE_STATE_MAX (a number with an optional K, M or G) says. */
#define STORE_CEILING ((int64_t)1 << 30)

/*
 * Sets the ceiling of the database's size (bytes; store_open sets the
 * default). SQLite's max_page_count holds the file to it; new content
 * is refused a little before (store_room), so that bookkeeping — statuses,
 * a quit's shutdown, a resume — still has room once agents can store
 * nothing more.
 */
void store_set_ceiling(struct store *s, int64_t bytes);

/* What stores_room is asked for. */
enum store_use {
	STORE_MESSAGE,		/* a new message or request, a task */
	STORE_RECORD		/* an agent's transcript entry */
};

/*
 * Inside a transaction: whether there is room for new content of this
 * use. Messages stop when the database is within an eighth of the
 * ceiling (at most 32 MiB) of it, transcript entries within half of
 * that. Returns 0, or -1 with a sentence in *err; the first refusal
 * calls the store's full hook.
 *
 * The disk counts too, and is named as such, never as the ceiling: the
 * store holds a reserve of 1 MiB beside the database (disk-reserve,
 * util/diskspace.h). When less than that is free, or a write fails for a
 * full disk (ENOSPC, EDQUOT), the reserve is given back and new content
 * stops, so that bookkeeping — the person's decisions, statuses, a
 * shutdown — lands in the room it leaves; a commit the disk refused is
 * tried once more in it. Once 4 MiB are free the reserve is taken again
 * and new content goes on.
 */
int store_room(struct store *s, enum store_use use, char **err);

/* Called with the sentence when the state first reaches its ceiling
 * (store_room, or a write SQLite refused as full), and each time the disk
 * becomes full; on the writing thread, with the store's lock held: it
 * must not call the store. */
typedef void (*store_full_fn)(void *ud, const char *message);
void store_on_full(struct store *s, store_full_fn fn, void *ud);

/* Closes the database; NULL is ignored. */
void store_close(struct store *s);

/* The path of the database file; owned by the store. */
const char *store_path(const struct store *s);

/* Takes the store's lock for a group of reads. */
void store_lock(struct store *s);
void store_unlock(struct store *s);

/*
 * Takes the lock and opens a write transaction. Returns 0, or -1 with *err
 * (the lock is then released). Every write of the modules' *_tx functions
 * runs between store_begin() and store_end().
 */
int store_begin(struct store *s, char **err);

/*
 * Commits when ok is non-zero, else rolls back; then releases the lock.
 * Returns 0 on a successful commit, -1 (with *err when err is not NULL) when
 * the commit failed or ok was zero.
 */
int store_end(struct store *s, int ok, char **err);

/*
 * store_end() that keeps the lock: the caller tells what committed, then
 * calls store_unlock(). Told under the lock, changes reach listeners in
 * the order they committed (a message's id order), which is the order a
 * resumed screen rebuilds them in.
 */
int store_commit(struct store *s, int ok, char **err);

/*
 * Returns the cached prepared statement for `sql`, reset and with its
 * bindings cleared. `sql` must be a string literal (it is the cache key).
 * The store's lock must be held. Aborts on a statement that does not
 * compile, which is a programming error.
 */
sqlite3_stmt *store_stmt(struct store *s, const char *sql);

/* Steps a statement that returns no rows. Returns 0 or -1 with *err. */
int store_step_done(struct store *s, sqlite3_stmt *st, char **err);

/* Sets *err to "what: <sqlite's message>" and returns -1. */
int store_fail(struct store *s, char **err, const char *what);

/* The raw connection, for tests and integrity checks; lock before use. */
sqlite3 *store_db(struct store *s);

/* Runs PRAGMA integrity_check. Returns 0 when the database is sound. */
int store_check_integrity(struct store *s, char **err);

/* Returns a column as a malloc'd string (NULL stays NULL). */
char *store_column_text(sqlite3_stmt *st, int col);

#endif
