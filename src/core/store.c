/*
 * The SQLite store: opening, permissions, schema migrations, the lock and
 * the prepared-statement cache (see store.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/statedir.h"
#include "core/store.h"
#include "util/diskspace.h"
#include "util/number.h"
#include "util/xmalloc.h"

struct store_cached {
	const char	*sql;
	sqlite3_stmt	*stmt;
};

struct store {
	sqlite3			*db;
	char			*path;
	char			*dir;		/* the folder holding it */
	char			*reserve;	/* the disk reserve's file */
	int			 disk_full;	/* till space comes back */
	pthread_mutex_t		 lock;
	struct store_cached	*cache;
	size_t			 ncache;
	size_t			 capcache;
	int64_t			 ceiling;	/* bytes */
	int64_t			 page_size;
	int			 full;		/* the hook was called */
	store_full_fn		 full_fn;
	void			*full_ud;
};

/* The most of the ceiling kept for bookkeeping once content stops. */
#define STORE_RESERVE_MAX	((int64_t)32 << 20)

/* What is held on the disk for the writes that must land once it is
 * full (the person's decisions, statuses, a quit): a thousand small
 * transactions or so. New content stops when less than that is free, and
 * starts again once four times as much is. */
#define STORE_DISK_RESERVE	((int64_t)1 << 20)
#define STORE_DISK_AGAIN	(4 * STORE_DISK_RESERVE)

/*
 * Migrations, oldest first: migrations[i] brings a database from schema
 * version i to i + 1. Never edit a released step; append a new one.
 */
static const char *const store_migrations[] = {
	/* 0 -> 1: the first schema. */
	"CREATE TABLE members ("
	"  name TEXT PRIMARY KEY,"
	"  role TEXT NOT NULL,"
	"  prompt TEXT NOT NULL DEFAULT '',"
	"  is_lead INTEGER NOT NULL DEFAULT 0,"
	"  status TEXT NOT NULL,"
	"  plan_required INTEGER NOT NULL DEFAULT 0,"
	"  plan_approved INTEGER NOT NULL DEFAULT 0,"
	"  tokens_in INTEGER NOT NULL DEFAULT 0,"
	"  tokens_out INTEGER NOT NULL DEFAULT 0,"
	"  created_at INTEGER NOT NULL,"
	"  updated_at INTEGER NOT NULL);"
	/* Messages are never deleted, so rowids are never reused. */
	"CREATE TABLE messages ("
	"  id INTEGER PRIMARY KEY,"
	"  sender TEXT NOT NULL,"
	"  recipient TEXT NOT NULL,"
	"  type TEXT NOT NULL,"
	"  content TEXT NOT NULL,"
	"  metadata TEXT NOT NULL DEFAULT '{}',"
	"  created_at INTEGER NOT NULL,"
	"  delivered_at INTEGER);"
	"CREATE INDEX messages_undelivered ON messages(recipient, id)"
	"  WHERE delivered_at IS NULL;"
	"CREATE TABLE requests ("
	"  id TEXT PRIMARY KEY,"
	"  type TEXT NOT NULL,"
	"  sender TEXT NOT NULL,"
	"  target TEXT NOT NULL,"
	"  status TEXT NOT NULL CHECK (status IN"
	"    ('pending','approved','rejected','expired','cancelled')),"
	"  body TEXT NOT NULL,"
	"  response TEXT,"
	"  decided_by TEXT,"
	"  created_at INTEGER NOT NULL,"
	"  expires_at INTEGER,"
	"  decided_at INTEGER);"
	"CREATE INDEX requests_by_status ON requests(status, created_at);"
	/* message_id ties an entry to the inbox message it records: UNIQUE
	 * makes a second delivery of one message impossible. */
	"CREATE TABLE transcripts ("
	"  member TEXT NOT NULL,"
	"  seq INTEGER NOT NULL,"
	"  entry TEXT NOT NULL,"
	"  message_id INTEGER UNIQUE,"
	"  created_at INTEGER NOT NULL,"
	"  PRIMARY KEY (member, seq));",
	/* 1 -> 2: the lead waits for this member's idle notice. */
	"ALTER TABLE members ADD COLUMN lead_awaits INTEGER NOT NULL"
	"  DEFAULT 0;",
	/* 2 -> 3: each member's model, its prompt-cache tokens and what it
	 * has cost (US dollars). An empty model is the team's default. */
	"ALTER TABLE members ADD COLUMN model TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE members ADD COLUMN cache_write INTEGER NOT NULL"
	"  DEFAULT 0;"
	"ALTER TABLE members ADD COLUMN cache_read INTEGER NOT NULL"
	"  DEFAULT 0;"
	"ALTER TABLE members ADD COLUMN cost REAL NOT NULL DEFAULT 0;",
	/* 3 -> 4: the task board (core/task.c), and teammates that take
	 * their work from it. Tasks are never deleted (cancelled instead),
	 * so their numbers, the n of "tn", are never reused. */
	"ALTER TABLE members ADD COLUMN autonomous INTEGER NOT NULL"
	"  DEFAULT 0;"
	"CREATE TABLE tasks ("
	"  num INTEGER PRIMARY KEY,"
	"  subject TEXT NOT NULL,"
	"  description TEXT NOT NULL DEFAULT '',"
	"  status TEXT NOT NULL CHECK (status IN"
	"    ('pending','in_progress','completed','cancelled')),"
	"  owner TEXT,"
	"  created_by TEXT NOT NULL,"
	"  result TEXT NOT NULL DEFAULT '',"
	"  verify TEXT,"
	"  checked TEXT NOT NULL DEFAULT 'none' CHECK (checked IN"
	"    ('none','passed','failed')),"
	"  check_output TEXT NOT NULL DEFAULT '',"
	"  lead_awaits INTEGER NOT NULL DEFAULT 0,"
	"  lead_told INTEGER NOT NULL DEFAULT 0,"
	"  created_at INTEGER NOT NULL,"
	"  updated_at INTEGER NOT NULL);"
	"CREATE INDEX tasks_by_status ON tasks(status, num);"
	"CREATE TABLE task_deps ("
	"  task INTEGER NOT NULL,"
	"  blocker INTEGER NOT NULL,"
	"  PRIMARY KEY (task, blocker));",
	/* 4 -> 5: the commit a teammate's worktree was made from (NULL:
	 * it has none; tools/worktree.h). */
	"ALTER TABLE members ADD COLUMN worktree_base TEXT;",
	/* 5 -> 6: worktrees by name (core/wtrecord.h), a teammate's own
	 * or one that tasks name; the members' bases move there. */
	"CREATE TABLE worktrees ("
	"  name TEXT PRIMARY KEY,"
	"  base TEXT NOT NULL,"
	"  member TEXT,"
	"  created_at INTEGER NOT NULL);"
	"INSERT INTO worktrees (name, base, member, created_at)"
	"  SELECT name, worktree_base, name, updated_at FROM members"
	"  WHERE worktree_base IS NOT NULL;"
	"ALTER TABLE members DROP COLUMN worktree_base;"
	"ALTER TABLE tasks ADD COLUMN worktree TEXT;"
	"CREATE INDEX tasks_by_worktree ON tasks(worktree, status)"
	"  WHERE worktree IS NOT NULL;",
	/* 6 -> 7: the person's answers to a project's MCP servers, by
	 * name and configuration (core/mcpoffer.h). */
	"CREATE TABLE mcp_offers ("
	"  name TEXT NOT NULL,"
	"  entry TEXT NOT NULL,"
	"  approved INTEGER NOT NULL CHECK (approved IN (0, 1)),"
	"  decided_at INTEGER NOT NULL,"
	"  PRIMARY KEY (name, entry));",
	/* 7 -> 8: the newest message when the lead began to wait for a
	 * member: only a notice sent after it answers the wait. */
	"ALTER TABLE members ADD COLUMN awaits_after INTEGER NOT NULL"
	"  DEFAULT 0;",
};

/* bytes as people read them: "1 GiB", "512 KiB" (malloc'd). */
static char *
store_size_text(int64_t bytes)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB",
	    "TiB" };
	size_t u = 0;

	while (u + 1 < sizeof units / sizeof *units && bytes >= 1024 &&
	    bytes % 1024 == 0) {
		bytes /= 1024;
		u++;
	}
	return xasprintf("%" PRId64 " %s", bytes, units[u]);
}

/* The sentence of a full state; calls the hook the first time. */
static char *
store_full(struct store *s)
{
	char *size = store_size_text(s->ceiling);
	char *msg = xasprintf("the team's state reached its ceiling of %s: "
	    "no new message, task or turn can be stored. Stop here; the "
	    "person can quit, and resume with a higher HUDDLE_STATE_MAX",
	    size);

	free(size);
	if (!s->full) {
		s->full = 1;
		if (s->full_fn != NULL)
			s->full_fn(s->full_ud, msg);
	}
	return msg;
}

/* The sentence of a full disk (malloc'd). */
static char *
store_disk_text(struct store *s)
{
	char *left = number_size(diskspace_free(s->dir));
	char *msg = xasprintf("the disk holding the team's state is full (%s, "
	    "%s left): nothing new can be stored until space is freed on "
	    "it; what is left is kept for the person's decisions", s->dir,
	    left);

	free(left);
	return msg;
}

/* The disk is full: gives the reserve back, so that the writes that
 * must land have room, and tells the hook once for this time. */
static void
store_disk_full(struct store *s)
{
	char *msg;

	if (s->disk_full)
		return;
	s->disk_full = 1;
	diskspace_release(s->reserve);
	if (s->full_fn != NULL) {
		msg = store_disk_text(s);
		s->full_fn(s->full_ud, msg);
		free(msg);
	}
}

/* Whether the write SQLite just refused was refused for a full disk.
 * SQLite reports a write that found no room as SQLITE_FULL, clearing the
 * system error, and a ceiling's refusal the same way; so the disk must
 * be nearly full now for it to count. An I/O error counts when its
 * system error says the disk is full; a quota's refusal is believed. */
static int
store_disk_refused(struct store *s)
{
	int code = sqlite3_extended_errcode(s->db) & 0xff;
	int e = sqlite3_system_errno(s->db);
	int64_t left;

	if (code != SQLITE_FULL && (code != SQLITE_IOERR ||
	    !diskspace_full_errno(e)))
		return 0;
	if (e == EDQUOT)
		return 1;
	left = diskspace_free(s->dir);
	return left >= 0 && left < STORE_DISK_AGAIN;
}

int
store_fail(struct store *s, char **err, const char *what)
{
	char *full;

	if (store_disk_refused(s)) {
		store_disk_full(s);
		if (err != NULL) {
			full = store_disk_text(s);
			*err = xasprintf("%s: %s", what, full);
			free(full);
		}
		return -1;
	}
	if (sqlite3_errcode(s->db) == SQLITE_FULL) {
		full = store_full(s);
		if (err != NULL)
			*err = xasprintf("%s: %s", what, full);
		free(full);
		return -1;
	}
	if (err != NULL)
		*err = xasprintf("%s: %s", what, sqlite3_errmsg(s->db));
	return -1;
}

/* The default ceiling: $HUDDLE_STATE_MAX when set, else STORE_CEILING. */
static int64_t
store_default_ceiling(void)
{
	const char *v = getenv("HUDDLE_STATE_MAX");
	char *end;
	long long n;
	int shift = 0;

	if (v == NULL || *v == '\0')
		return STORE_CEILING;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift != 0)
		end++;
	/* Nonsense, or too small to hold a team at all: the default. */
	if (errno != 0 || end == v || *end != '\0' || n <= 0 ||
	    n > (INT64_MAX >> 30) || ((int64_t)n << shift) < (256 << 10))
		return STORE_CEILING;
	return (int64_t)n << shift;
}

void
store_set_ceiling(struct store *s, int64_t bytes)
{
	char *sql;

	store_lock(s);
	s->ceiling = bytes;
	sql = sqlite3_mprintf("PRAGMA max_page_count = %lld",
	    (long long)(bytes / s->page_size));
	sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	sqlite3_free(sql);
	store_unlock(s);
}

void
store_on_full(struct store *s, store_full_fn fn, void *ud)
{
	store_lock(s);
	s->full_fn = fn;
	s->full_ud = ud;
	store_unlock(s);
}

/* A PRAGMA's number (the lock held), or 0. */
static int64_t
store_pragma(struct store *s, const char *sql)
{
	sqlite3_stmt *st = store_stmt(s, sql);
	int64_t n = sqlite3_step(st) == SQLITE_ROW ?
	    sqlite3_column_int64(st, 0) : 0;

	sqlite3_reset(st);
	return n;
}

/* Whether the disk has room for new content (see STORE_DISK_RESERVE):
 * 0, or -1 with the sentence in *err. A disk that cannot be asked has. */
static int
store_disk_room(struct store *s, char **err)
{
	int64_t left = diskspace_free(s->dir);

	if (left < 0)
		return 0;
	if (s->disk_full && left >= STORE_DISK_AGAIN &&
	    diskspace_hold(s->reserve, STORE_DISK_RESERVE) == 0)
		s->disk_full = 0;
	if (!s->disk_full && left < STORE_DISK_RESERVE)
		store_disk_full(s);
	if (!s->disk_full)
		return 0;
	*err = store_disk_text(s);
	return -1;
}

int
store_room(struct store *s, enum store_use use, char **err)
{
	int64_t reserve = s->ceiling / 8, used;

	if (store_disk_room(s, err) == -1)
		return -1;
	if (reserve > STORE_RESERVE_MAX)
		reserve = STORE_RESERVE_MAX;
	if (use == STORE_RECORD)
		reserve /= 2;
	used = (store_pragma(s, "PRAGMA page_count") -
	    store_pragma(s, "PRAGMA freelist_count")) * s->page_size;
	if (used < s->ceiling - reserve)
		return 0;
	*err = store_full(s);
	return -1;
}

/* The names of everything the migrations create; anything else in a
 * database (a trigger, a view, a table) was put there by someone else. */
static const char *const store_objects[] = {
	"members", "messages", "messages_undelivered", "requests",
	"requests_by_status", "transcripts", "tasks", "tasks_by_status",
	"task_deps", "worktrees", "tasks_by_worktree", "mcp_offers",
};

/* Refuses a database holding schema objects huddle did not make. */
static int
store_check_objects(struct store *s, char **err)
{
	sqlite3_stmt *st;
	size_t i;
	int rc = 0;

	if (sqlite3_prepare_v2(s->db, "SELECT type, name FROM sqlite_master"
	    " WHERE name NOT LIKE 'sqlite_autoindex_%'", -1, &st, NULL) !=
	    SQLITE_OK)
		return store_fail(s, err, "reading the schema");
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);

		for (i = 0; i < sizeof store_objects / sizeof *store_objects;
		    i++) {
			if (name != NULL && strcmp(name, store_objects[i]) == 0)
				break;
		}
		if (i == sizeof store_objects / sizeof *store_objects) {
			*err = xasprintf("it holds a %s named '%s' that huddle "
			    "did not make; huddle opens only a database of its "
			    "own", type ? type : "thing", name ? name : "");
			rc = -1;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * Creates path with mode 0600 (or tightens it) before SQLite opens it:
 * SQLite gives its -wal and -shm files the mode of the database file.
 */
static int
store_make_private_file(const char *path, char **err)
{
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd == -1 || fchmod(fd, 0600) == -1) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int
store_exec(struct store *s, const char *sql, char **err)
{
	char *msg = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		*err = xasprintf("%s", msg ? msg : sqlite3_errmsg(s->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int
store_user_version(struct store *s, int *version, char **err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st,
	    NULL) != SQLITE_OK)
		return store_fail(s, err, "reading the schema version");
	rc = sqlite3_step(st);
	*version = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_finalize(st);
	if (*version < 0)
		return store_fail(s, err, "reading the schema version");
	return 0;
}

/* Brings the schema up to STORE_SCHEMA_VERSION, one step per transaction. */
static int
store_migrate(struct store *s, char **err)
{
	int version = 0;

	if (store_user_version(s, &version, err) == -1)
		return -1;
	if (version > STORE_SCHEMA_VERSION) {
		*err = xasprintf("%s: schema version %d is newer than this "
		    "huddle understands (%d)", s->path, version,
		    STORE_SCHEMA_VERSION);
		return -1;
	}
	for (; version < STORE_SCHEMA_VERSION; version++) {
		char *bump = xasprintf("PRAGMA user_version = %d",
		    version + 1);
		int rc = -1;

		if (store_exec(s, "BEGIN IMMEDIATE", err) == 0) {
			rc = store_exec(s, store_migrations[version], err);
			if (rc == 0)
				rc = store_exec(s, bump, err);
			if (rc == 0)
				rc = store_exec(s, "COMMIT", err);
			else
				sqlite3_exec(s->db, "ROLLBACK", NULL, NULL,
				    NULL);
		}
		free(bump);
		if (rc == -1)
			return -1;
	}
	return 0;
}

struct store *
store_open(const char *folder, int flags, char **err)
{
	struct store *s;
	char *dir = xstrdup(folder);
	char *why = NULL;

	s = xcalloc(1, sizeof *s);
	pthread_mutex_init(&s->lock, NULL);
	s->path = xasprintf("%s/team.db", dir);
	s->dir = xstrdup(dir);
	if (statedir_make(dir, 0, err) == -1 ||
	    store_make_private_file(s->path, err) == -1)
		goto fail;
	if (sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
		*err = xasprintf("%s: %s", s->path, s->db ?
		    sqlite3_errmsg(s->db) : "cannot open");
		goto fail;
	}
	sqlite3_busy_timeout(s->db, 5000);
	if (store_exec(s, "PRAGMA journal_mode = WAL", &why) == -1 ||
	    store_exec(s, flags & STORE_SYNC_FULL ?
	    "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL",
	    &why) == -1 ||
	    store_migrate(s, &why) == -1 || store_check_objects(s, &why) == -1) {
		*err = xasprintf("%s: %s", s->path, why);
		free(why);
		goto fail;
	}
	store_lock(s);
	s->page_size = store_pragma(s, "PRAGMA page_size");
	if (s->page_size <= 0)
		s->page_size = 4096;
	store_unlock(s);
	/* No room for the reserve: the disk is full already. */
	s->reserve = xasprintf("%s/disk-reserve", dir);
	if (diskspace_hold(s->reserve, STORE_DISK_RESERVE) == -1)
		s->disk_full = 1;
	store_set_ceiling(s, store_default_ceiling());
	free(dir);
	return s;
fail:
	free(dir);
	store_close(s);
	return NULL;
}

void
store_close(struct store *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->ncache; i++)
		sqlite3_finalize(s->cache[i].stmt);
	free(s->cache);
	sqlite3_close(s->db);
	pthread_mutex_destroy(&s->lock);
	free(s->path);
	free(s->dir);
	free(s->reserve);
	free(s);
}

const char *
store_path(const struct store *s)
{
	return s->path;
}

sqlite3 *
store_db(struct store *s)
{
	return s->db;
}

void
store_lock(struct store *s)
{
	pthread_mutex_lock(&s->lock);
}

void
store_unlock(struct store *s)
{
	pthread_mutex_unlock(&s->lock);
}

int
store_begin(struct store *s, char **err)
{
	sqlite3_stmt *st;

	store_lock(s);
	st = store_stmt(s, "BEGIN IMMEDIATE");
	if (sqlite3_step(st) != SQLITE_DONE) {
		store_fail(s, err, "starting a transaction");
		store_unlock(s);
		return -1;
	}
	return 0;
}

int
store_commit(struct store *s, int ok, char **err)
{
	int rc = ok ? 0 : -1;

	if (ok && sqlite3_step(store_stmt(s, "COMMIT")) != SQLITE_DONE) {
		/* A full disk: the reserve given back has room for it. */
		if (store_disk_refused(s) && !s->disk_full) {
			store_disk_full(s);
			if (!sqlite3_get_autocommit(s->db) &&
			    sqlite3_step(store_stmt(s, "COMMIT")) == SQLITE_DONE)
				return 0;
		}
		rc = store_fail(s, err, "committing");
	}
	/* A failed COMMIT leaves the transaction open: roll it back too. */
	if (rc == -1 && !sqlite3_get_autocommit(s->db))
		sqlite3_step(store_stmt(s, "ROLLBACK"));
	return rc;
}

int
store_end(struct store *s, int ok, char **err)
{
	int rc = store_commit(s, ok, err);

	store_unlock(s);
	return rc;
}

sqlite3_stmt *
store_stmt(struct store *s, const char *sql)
{
	struct store_cached *c;
	size_t i;

	for (i = 0; i < s->ncache; i++) {
		if (s->cache[i].sql == sql) {
			sqlite3_reset(s->cache[i].stmt);
			sqlite3_clear_bindings(s->cache[i].stmt);
			return s->cache[i].stmt;
		}
	}
	s->cache = xgrow(s->cache, &s->capcache, s->ncache + 1,
	    sizeof *s->cache);
	c = &s->cache[s->ncache];
	if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
	    &c->stmt, NULL) != SQLITE_OK) {
		/* Our own SQL failing to compile is a bug, not a condition. */
		fprintf(stderr, "huddle: bad SQL (%s): %s\n",
		    sqlite3_errmsg(s->db), sql);
		abort();
	}
	c->sql = sql;
	s->ncache++;
	return c->stmt;
}

int
store_step_done(struct store *s, sqlite3_stmt *st, char **err)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return store_fail(s, err, "writing to the store");
	return 0;
}

char *
store_column_text(sqlite3_stmt *st, int col)
{
	return xstrdup_or_null((const char *)sqlite3_column_text(st, col));
}

int
store_check_integrity(struct store *s, char **err)
{
	sqlite3_stmt *st;
	int rc = -1;

	store_lock(s);
	if (sqlite3_prepare_v2(s->db, "PRAGMA integrity_check", -1, &st,
	    NULL) != SQLITE_OK) {
		store_fail(s, err, "integrity check");
		store_unlock(s);
		return -1;
	}
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *r = (const char *)sqlite3_column_text(st, 0);

		if (r != NULL && strcmp(r, "ok") == 0)
			rc = 0;
		else if (err != NULL)
			*err = xasprintf("integrity check: %s", r ? r : "?");
	} else
		store_fail(s, err, "integrity check");
	sqlite3_finalize(st);
	store_unlock(s);
	return rc;
}
