/*
 * Unit tests of core/store and core/transcript: permissions, schema
 * versions, transactions and transcripts.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/bus.h"
#include "core/protocol.h"
#include "core/roster.h"
#include "core/statedir.h"
#include "core/store.h"
#include "core/wtrecord.h"
#include "core/transcript.h"
#include "testutil.h"
#include "util/xmalloc.h"

static mode_t
mode_of(const char *path)
{
	struct stat st;

	ck_assert_msg(stat(path, &st) == 0, "stat %s", path);
	return st.st_mode & 0777;
}

static char *scratch;		/* the test's own folder */

static void
setup(void)
{
	scratch = tu_tmpdir();
}

static void
teardown(void)
{
	tu_rmtree(scratch);
	free(scratch);
}

START_TEST(open_makes_private_files)
{
	char *state, *db, *wal;
	struct store *s;
	json_t *e = transcript_user_text("hi");
	char *err = NULL;

	state = xasprintf("%s/team", scratch);
	s = tu_store_open(state);
	ck_assert_int_eq(transcript_append(s, "lead", e, &err), 0);
	db = xasprintf("%s/team.db", state);
	wal = xasprintf("%s-wal", db);
	ck_assert_int_eq(mode_of(state), 0700);
	ck_assert_int_eq(mode_of(db), 0600);
	ck_assert_int_eq(mode_of(wal), 0600);
	ck_assert_str_eq(store_path(s), db);
	store_close(s);
	json_decref(e);
	free(state);
	free(db);
	free(wal);
}
END_TEST

START_TEST(open_tightens_loose_permissions)
{
	char *state = xasprintf("%s/state", scratch);
	char *db = xasprintf("%s/team.db", state);
	struct store *s;
	int fd;

	ck_assert_int_eq(mkdir(state, 0700), 0);
	fd = open(db, O_CREAT | O_WRONLY, 0644);
	ck_assert_int_ge(fd, 0);
	fchmod(fd, 0644);
	close(fd);
	s = tu_store_open(state);
	ck_assert_int_eq(mode_of(db), 0600);
	store_close(s);
	free(state);
	free(db);
}
END_TEST

START_TEST(open_fails_cleanly)
{
	char *state = xasprintf("%s/state", scratch);
	char *err = NULL, *db;
	int fd;

	/* The folder is a file, not a directory. */
	fd = open(state, O_CREAT | O_WRONLY, 0600);
	close(fd);
	ck_assert_ptr_null(store_open(state, 0, &err));
	ck_assert_ptr_nonnull(strstr(err, "not a directory"));
	free(err);
	err = NULL;
	unlink(state);
	/* Open to others, or a symbolic link: refused, not followed. */
	ck_assert_int_eq(mkdir(state, 0700), 0);
	chmod(state, 0777);
	ck_assert_ptr_null(store_open(state, 0, &err));
	ck_assert_ptr_nonnull(strstr(err, "writable by others"));
	free(err);
	err = NULL;
	rmdir(state);
	ck_assert_int_eq(symlink("/tmp", state), 0);
	ck_assert_ptr_null(store_open(state, 0, &err));
	ck_assert_ptr_nonnull(strstr(err, "symbolic link"));
	free(err);
	err = NULL;
	unlink(state);
	/* A database that is a link to another file is not opened. */
	ck_assert_int_eq(mkdir(state, 0700), 0);
	db = xasprintf("%s/team.db", state);
	ck_assert_int_eq(symlink("/etc/passwd", db), 0);
	ck_assert_ptr_null(store_open(state, 0, &err));
	ck_assert_ptr_nonnull(err);
	free(err);
	err = NULL;
	free(db);
	ck_assert_ptr_null(store_open("/nonexistent/dir", 0, &err));
	ck_assert_ptr_nonnull(err);
	free(err);
	free(state);
}
END_TEST

START_TEST(schema_version_is_set_and_checked)
{
	char *err = NULL;
	struct store *s = tu_store_open(scratch);
	sqlite3_stmt *st;

	store_lock(s);
	ck_assert_int_eq(sqlite3_prepare_v2(store_db(s),
	    "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_int(st, 0), STORE_SCHEMA_VERSION);
	sqlite3_finalize(st);
	/* Pretend a newer huddle wrote this database. */
	ck_assert_int_eq(sqlite3_exec(store_db(s), "PRAGMA user_version = 99",
	    NULL, NULL, NULL), SQLITE_OK);
	store_unlock(s);
	store_close(s);

	ck_assert_ptr_null(store_open(scratch, 0, &err));
	ck_assert_msg(strstr(err, "newer") != NULL, "%s", err);
	free(err);
}
END_TEST

/* Schema 5 kept a teammate's worktree base on its member row; 6 moves
 * it to the worktrees table, named after the teammate and its own. */
START_TEST(version_5_worktree_bases_move)
{
	char *err = NULL;
	struct store *s = tu_store_open(scratch);
	struct wt_record w;

	ck_assert_int_eq(roster_add(s, "alice", "coder", "go", 0, &err), 0);
	ck_assert_int_eq(roster_add(s, "bob", "coder", "go", 0, &err), 0);
	store_lock(s);
	ck_assert_int_eq(sqlite3_exec(store_db(s), "DROP TABLE mcp_offers;"
	    " ALTER TABLE members DROP COLUMN awaits_after;"
	    " DROP TABLE worktrees;"
	    " DROP INDEX tasks_by_worktree;"
	    " ALTER TABLE tasks DROP COLUMN worktree;"
	    " ALTER TABLE members ADD COLUMN worktree_base TEXT;"
	    " UPDATE members SET worktree_base = 'abc123' WHERE name = 'alice';"
	    " PRAGMA user_version = 5", NULL, NULL, NULL), SQLITE_OK);
	store_unlock(s);
	store_close(s);

	s = tu_store_open(scratch);
	ck_assert_int_eq(wtrecord_get(s, "alice", &w), 0);
	ck_assert_str_eq(w.base, "abc123");
	ck_assert_str_eq(w.member, "alice");
	wtrecord_clear(&w);
	ck_assert_int_eq(wtrecord_get(s, "bob", &w), -1);
	store_close(s);
}
END_TEST

/* A database written by schema version 1 is brought up to date through
 * every step, and what it held is kept. */
START_TEST(version_1_database_is_migrated)
{
	char *err = NULL;
	struct store *s = tu_store_open(scratch);
	sqlite3_stmt *st;

	ck_assert_int_eq(roster_add(s, "alice", "coder", "go", 0, &err), 0);
	store_lock(s);
	ck_assert_int_eq(sqlite3_exec(store_db(s), "ALTER TABLE members DROP"
	    " COLUMN lead_awaits; ALTER TABLE members DROP COLUMN model;"
	    " ALTER TABLE members DROP COLUMN cache_write;"
	    " ALTER TABLE members DROP COLUMN cache_read;"
	    " ALTER TABLE members DROP COLUMN cost;"
	    " ALTER TABLE members DROP COLUMN autonomous;"
	    " ALTER TABLE members DROP COLUMN awaits_after;"
	    " DROP TABLE tasks; DROP TABLE task_deps; DROP TABLE worktrees;"
	    " DROP TABLE mcp_offers;"
	    " PRAGMA user_version = 1",
	    NULL, NULL, NULL),
	    SQLITE_OK);
	store_unlock(s);
	store_close(s);

	s = tu_store_open(scratch);
	ck_assert_int_eq(roster_set_awaited(s, "alice", 1, &err), 0);
	ck_assert_int_eq(roster_add_usage(s, "alice", 1, 2, 3, 4, 0.5, &err),
	    0);
	store_lock(s);
	ck_assert_int_eq(sqlite3_prepare_v2(store_db(s), "SELECT role,"
	    " lead_awaits, (SELECT user_version FROM pragma_user_version),"
	    " model, cache_write, cache_read, cost, autonomous,"
	    " (SELECT count(*) FROM tasks)"
	    " FROM members WHERE name = 'alice'", -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), "coder");
	ck_assert_int_eq(sqlite3_column_int(st, 1), 1);
	ck_assert_int_eq(sqlite3_column_int(st, 2), STORE_SCHEMA_VERSION);
	ck_assert_int_eq(STORE_SCHEMA_VERSION, 8);
	ck_assert_str_eq((const char *)sqlite3_column_text(st, 3), "");
	ck_assert_int_eq(sqlite3_column_int(st, 4), 3);
	ck_assert_int_eq(sqlite3_column_int(st, 5), 4);
	ck_assert_double_eq_tol(sqlite3_column_double(st, 6), 0.5, 1e-9);
	ck_assert_int_eq(sqlite3_column_int(st, 7), 0);
	ck_assert_int_eq(sqlite3_column_int(st, 8), 0);
	sqlite3_finalize(st);
	store_unlock(s);
	store_close(s);
}
END_TEST

/* One process per team: a second lock fails and names the holder;
 * letting go lets the next one in. */
START_TEST(team_lock_is_one_at_a_time)
{
	char *err = NULL, *pid;
	int a, b;

	a = statedir_lock(scratch, &err);
	ck_assert_msg(a != -1, "%s", err);
	ck_assert_int_eq(statedir_lock(scratch, &err), -1);
	pid = xasprintf("(PID %ld)", (long)getpid());
	ck_assert_msg(strstr(err, pid) != NULL, "%s", err);
	free(pid);
	free(err);
	err = NULL;
	close(a);
	b = statedir_lock(scratch, &err);
	ck_assert_msg(b != -1, "%s", err);
	close(b);
}
END_TEST

/* A team folder: named from the workdir, made private, recorded; a team
 * database found in the working tree is named in a notice and left as it
 * was (neither moved, opened nor deleted); and a database with a trigger
 * planted in it is refused. */
START_TEST(team_folder_ignores_and_refuses_foreign_databases)
{
	char *err = NULL, *notice = NULL, *work, *old;
	char *folder, *base, *olddb, *newdb;
	struct member *lead;
	struct stat before, after;
	struct store *s;

	work = xasprintf("%s/my project", scratch);
	base = xasprintf("%s/state", scratch);
	ck_assert_int_eq(mkdir(work, 0755), 0);
	old = xasprintf("%s/.huddle", work);
	olddb = xasprintf("%s/team.db", old);
	s = tu_store_open(old);
	ck_assert_int_eq(roster_add(s, "lead", "lead", "", 0, &err), 0);
	store_close(s);
	ck_assert_int_eq(stat(olddb, &before), 0);
	folder = statedir_team(base, work, NULL, &err);
	ck_assert_msg(folder != NULL, "%s", err);
	ck_assert_ptr_nonnull(strstr(folder, "/state/my_project-"));
	ck_assert_int_eq(mode_of(folder), 0700);
	ck_assert_int_eq(statedir_stray(folder, work, &notice, &err), 1);
	ck_assert_ptr_nonnull(strstr(notice, olddb));
	ck_assert_ptr_nonnull(strstr(notice, "ignores it"));
	free(notice);
	notice = NULL;
	/* Untouched: the same file, the same size and times, and nothing
	 * of it in the team's folder. */
	ck_assert_int_eq(stat(olddb, &after), 0);
	ck_assert_int_eq(before.st_ino, after.st_ino);
	ck_assert_int_eq(before.st_size, after.st_size);
	ck_assert_int_eq(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
	ck_assert_int_eq(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
	ck_assert_int_eq(before.st_atim.tv_nsec, after.st_atim.tv_nsec);
	newdb = xasprintf("%s/team.db", folder);
	ck_assert_int_eq(access(newdb, F_OK), -1);
	free(newdb);
	/* Nothing there: nothing said. */
	ck_assert_int_eq(unlink(olddb), 0);
	ck_assert_int_eq(statedir_stray(folder, work, &notice, &err), 0);
	ck_assert_ptr_null(notice);
	/* A link in its place is named, not followed. */
	ck_assert_int_eq(symlink("/nonexistent", olddb), 0);
	ck_assert_int_eq(statedir_stray(folder, work, &notice, &err), 1);
	free(notice);
	free(olddb);
	s = tu_store_open(folder);
	ck_assert_int_eq(roster_add(s, "lead", "lead", "", 0, &err), 0);
	lead = roster_get(s, "lead");
	ck_assert_ptr_nonnull(lead);
	member_free(lead);
	/* A trigger someone planted. */
	store_lock(s);
	ck_assert_int_eq(sqlite3_exec(store_db(s), "CREATE TRIGGER approve"
	    " AFTER INSERT ON requests BEGIN UPDATE requests SET status ="
	    " 'approved'; END", NULL, NULL, NULL), SQLITE_OK);
	store_unlock(s);
	store_close(s);
	ck_assert_ptr_null(store_open(folder, 0, &err));
	ck_assert_msg(strstr(err, "trigger named 'approve'") != NULL, "%s",
	    err);
	free(err);
	free(folder);
	free(base);
	free(old);
	free(work);
}
END_TEST

/* What the full hook heard. */
static int full_calls;
static char full_message[512];

static void
on_full(void *ud, const char *message)
{
	(void)ud;
	full_calls++;
	snprintf(full_message, sizeof full_message, "%s", message);
}

/* The state's size (bytes in use). */
static int64_t
used_bytes(struct store *s)
{
	sqlite3_stmt *st;
	int64_t n = 0;

	store_lock(s);
	ck_assert_int_eq(sqlite3_prepare_v2(store_db(s), "SELECT (SELECT"
	    " page_count FROM pragma_page_count()) * (SELECT page_size FROM"
	    " pragma_page_size())", -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	store_unlock(s);
	return n;
}

/* A team's state stops growing at its ceiling: new content is refused
 * first with a clear sentence (the hook hears it once), bookkeeping
 * still has room, SQLite holds the file to the ceiling whatever writes,
 * and the team opens again as it was. */
START_TEST(state_has_a_ceiling)
{
	char *err = NULL, *text;
	struct store *s = tu_store_open(scratch);
	int64_t ceiling = 1 << 20;
	struct member *lead;
	json_t *e;
	int i, refused = -1;

	ck_assert_int_eq(roster_add(s, "lead", "lead", "", 0, &err), 0);
	store_on_full(s, on_full, NULL);
	store_set_ceiling(s, ceiling);
	text = xmalloc(16 * 1024 + 1);
	memset(text, 'x', 16 * 1024);
	text[16 * 1024] = '\0';
	e = transcript_user_text(text);
	for (i = 0; i < 200 && refused == -1; i++) {
		if (transcript_append(s, "lead", e, &err) == -1)
			refused = i;
	}
	ck_assert_int_gt(refused, 10);
	ck_assert_msg(strstr(err, "reached its ceiling of 1 MiB") != NULL,
	    "%s", err);
	free(err);
	err = NULL;
	ck_assert_int_eq(full_calls, 1);
	ck_assert_ptr_nonnull(strstr(full_message, "ceiling of 1 MiB"));
	ck_assert_int_le(used_bytes(s), ceiling);
	/* Bookkeeping goes on. */
	for (i = 0; i < 20; i++)
		ck_assert_int_eq(roster_set_status(s, "lead", i % 2 ?
		    MEMBER_IDLE : MEMBER_WORKING, &err), 0);
	/* Whatever writes, SQLite holds the file to the ceiling. */
	store_lock(s);
	for (i = 0; i < 200; i++) {
		if (sqlite3_exec(store_db(s), "INSERT INTO transcripts (member,"
		    " seq, entry, created_at) VALUES ('lead', 100000 + abs(random()"
		    " % 1000000000), hex(randomblob(8000)), 0)", NULL, NULL,
		    NULL) != SQLITE_OK)
			break;
	}
	ck_assert_int_eq(sqlite3_errcode(store_db(s)), SQLITE_FULL);
	store_unlock(s);
	ck_assert_int_le(used_bytes(s), ceiling);
	ck_assert_int_eq(full_calls, 1);
	store_close(s);
	/* Opened again: readable, and still full for new content. */
	s = tu_store_open(scratch);
	store_set_ceiling(s, ceiling);
	lead = roster_get(s, "lead");
	ck_assert_ptr_nonnull(lead);
	member_free(lead);
	ck_assert_int_eq(transcript_append(s, "lead", e, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "ceiling"));
	free(err);
	json_decref(e);
	free(text);
	store_close(s);
}
END_TEST

/* Writes text to path (a /proc file). */
static int
write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;

	if (fd == -1)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

/* Mounts a file system of `size` (tmpfs) on dir, in a mount namespace of
 * the test process's own (in a user namespace too when not root). Returns
 * 0, or -1 when the kernel will not: the test has nothing to try. */
static int
small_disk(const char *dir, const char *size)
{
	char map[64], *opts = xasprintf("size=%s,mode=0700", size);
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int rc = -1;

	if (uid == 0) {
		if (unshare(CLONE_NEWNS) == -1)
			goto out;
	} else {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) == -1)
			goto out;
		snprintf(map, sizeof map, "%d %d 1", (int)uid, (int)uid);
		if (write_file("/proc/self/setgroups", "deny") == -1 ||
		    write_file("/proc/self/uid_map", map) == -1)
			goto out;
		snprintf(map, sizeof map, "%d %d 1", (int)gid, (int)gid);
		if (write_file("/proc/self/gid_map", map) == -1)
			goto out;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1 ||
	    mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, opts) == -1)
		goto out;
	rc = 0;
out:
	free(opts);
	return rc;
}

/* Fills the file system holding dir: path grows until nothing more
 * fits. */
static void
fill_disk(const char *path)
{
	static char block[64 << 10];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	ck_assert_int_ge(fd, 0);
	while (write(fd, block, sizeof block) > 0)
		;
	ck_assert_int_eq(errno, ENOSPC);
	/* The last few bytes, a page at a time. */
	while (write(fd, block, 512) > 0)
		;
	close(fd);
}

/* A full disk is named as such, never as the state's ceiling; new
 * content stops while the person's decisions and the statuses still land
 * (in the reserve the store gives back); and once space is freed, new
 * content goes on and the reserve is held again. */
START_TEST(a_full_disk_is_named_and_the_person_still_decides)
{
	char *state = xasprintf("%s/state", scratch);
	char *fill = xasprintf("%s/fill", scratch), *err = NULL, *msg = NULL;
	char *reserve = xasprintf("%s/disk-reserve", state);
	char ids[3][PROTO_ID_SIZE];
	struct store *s;
	struct bus *bus;
	struct protocol *proto;
	struct stat st;
	json_t *e = transcript_user_text("a turn");
	int i;

	if (small_disk(scratch, "8m") == -1) {
		fprintf(stderr, "test_store: no file system of its own to fill; "
		    "the full disk is not tried\n");
		goto out;
	}
	s = tu_store_open(state);
	bus = bus_new(s);
	proto = protocol_new(bus);
	store_on_full(s, on_full, NULL);
	full_calls = 0;
	ck_assert_int_eq(stat(reserve, &st), 0);
	ck_assert_int_ge((int64_t)st.st_blocks * 512, 1 << 20);
	ck_assert_int_eq(roster_add(s, "lead", "lead", "", 0, &err), 0);
	ck_assert_int_eq(roster_add(s, "carl", "ops", "", 0, &err), 0);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(protocol_request(proto, REQ_PERMISSION, "carl",
		    "lead", "rm -rf junk", ids[i], &err), 0);
	fill_disk(fill);
	/* A write the disk refuses (the reserve still held) is named for
	 * the disk, and gives the reserve back. */
	store_lock(s);
	ck_assert_int_ne(sqlite3_exec(store_db(s), "INSERT INTO transcripts "
	    "(member, seq, entry, created_at) VALUES ('carl', 1, "
	    "hex(randomblob(300000)), 0)", NULL, NULL, NULL), SQLITE_OK);
	store_fail(s, &err, "writing");
	store_unlock(s);
	ck_assert_msg(strstr(err, "the disk holding the team's state is full")
	    != NULL, "%s", err);
	free(err);
	err = NULL;
	ck_assert_int_eq(stat(reserve, &st), -1);
	/* New content: refused, for the disk. */
	ck_assert_int_eq(transcript_append(s, "carl", e, &err), -1);
	ck_assert_msg(strstr(err, "the disk holding the team's state is full")
	    != NULL && strstr(err, state) != NULL, "%s", err);
	ck_assert_msg(strstr(err, "ceiling") == NULL && strstr(err,
	    "HUDDLE_STATE_MAX") == NULL, "%s", err);
	free(err);
	err = NULL;
	ck_assert_int_lt(bus_send(bus, "carl", "lead", MSG_MESSAGE, "hello",
	    NULL, &err), 0);
	ck_assert_msg(strstr(err, "disk") != NULL, "%s", err);
	free(err);
	err = NULL;
	ck_assert_int_eq(full_calls, 1);
	ck_assert_msg(strstr(full_message, "disk holding the team's state is "
	    "full") != NULL, "%s", full_message);
	/* The person's decisions land, and so do statuses. */
	ck_assert_int_eq(protocol_respond(proto, ids[0],
	    MSG_PERMISSION_RESPONSE, MSG_USER, 1, "", &msg), PROTO_DECIDED);
	free(msg);
	msg = NULL;
	for (i = 0; i < 20; i++)
		ck_assert_msg(roster_set_status(s, "carl", i % 2 ? MEMBER_IDLE :
		    MEMBER_WORKING, &err) == 0, "%s", err);
	ck_assert_int_eq(protocol_respond(proto, ids[1],
	    MSG_PERMISSION_RESPONSE, MSG_USER, 0, "no", &msg), PROTO_DECIDED);
	free(msg);
	msg = NULL;
	ck_assert_int_eq(protocol_cancel(proto, ids[2], "the person quit",
	    &err), 0);
	/* Space freed: new content again, and the reserve held again. */
	ck_assert_int_eq(unlink(fill), 0);
	ck_assert_msg(transcript_append(s, "carl", e, &err) == 0, "%s", err);
	ck_assert_int_eq(stat(reserve, &st), 0);
	ck_assert_int_ge((int64_t)st.st_blocks * 512, 1 << 20);
	protocol_free(proto);
	bus_free(bus);
	store_close(s);
	/* Every decision is there when the team opens again. */
	s = tu_store_open(state);
	bus = bus_new(s);
	proto = protocol_new(bus);
	for (i = 0; i < 3; i++) {
		struct request *r = protocol_get(proto, ids[i]);

		ck_assert_ptr_nonnull(r);
		ck_assert_int_eq(r->status, i == 0 ? REQ_APPROVED : i == 1 ?
		    REQ_REJECTED : REQ_CANCELLED);
		request_free(r);
	}
	protocol_free(proto);
	bus_free(bus);
	store_close(s);
	tu_rmtree(scratch);
	umount2(scratch, MNT_DETACH);
out:
	json_decref(e);
	free(state);
	free(fill);
	free(reserve);
}
END_TEST

START_TEST(reopen_keeps_data_and_sync_full_works)
{
	char *err = NULL;
	struct store *s = tu_store_open(scratch);
	json_t *e = transcript_user_text("remember me"), *t;

	ck_assert_int_eq(transcript_append(s, "alice", e, &err), 0);
	store_close(s);
	s = store_open(scratch, STORE_SYNC_FULL, &err);
	ck_assert_ptr_nonnull(s);
	t = transcript_load(s, "alice", &err);
	ck_assert_int_eq(json_array_size(t), 1);
	ck_assert(json_equal(json_array_get(t, 0), e));
	ck_assert_int_eq(store_check_integrity(s, &err), 0);
	json_decref(t);
	json_decref(e);
	store_close(s);
}
END_TEST

START_TEST(rollback_discards_everything)
{
	char *err = NULL;
	struct store *s = tu_store_open(scratch);
	json_t *e = transcript_user_text("never"), *t;

	ck_assert_int_eq(store_begin(s, &err), 0);
	ck_assert_int_eq(transcript_append_tx(s, "alice", e, 0, &err), 0);
	ck_assert_int_eq(transcript_append_tx(s, "alice", e, 0, &err), 0);
	ck_assert_int_eq(store_end(s, 0, NULL), -1);
	t = transcript_load(s, "alice", &err);
	ck_assert_int_eq(json_array_size(t), 0);
	json_decref(t);
	json_decref(e);
	store_close(s);
}
END_TEST

START_TEST(transcript_keeps_order_and_refuses_double_delivery)
{
	char *err = NULL;
	struct store *s = tu_store_open(scratch);
	json_t *t;
	int i;

	for (i = 0; i < 50; i++) {
		char *text = xasprintf("entry %d", i);
		json_t *e = transcript_user_text(text);

		ck_assert_int_eq(transcript_append(s, i % 2 ? "a" : "b", e,
		    &err), 0);
		json_decref(e);
		free(text);
	}
	t = transcript_load(s, "a", &err);
	ck_assert_int_eq(json_array_size(t), 25);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    json_object_get(json_array_get(t, 24), "content"), 0), "text")),
	    "entry 49");
	json_decref(t);
	t = transcript_load(s, "nobody", &err);
	ck_assert_int_eq(json_array_size(t), 0);
	json_decref(t);

	/* One inbox message can be recorded once only. */
	t = transcript_user_text("msg 7");
	ck_assert_int_eq(store_begin(s, &err), 0);
	ck_assert_int_eq(transcript_append_tx(s, "a", t, 7, &err), 0);
	ck_assert_int_eq(transcript_append_tx(s, "a", t, 7, &err), -1);
	ck_assert_ptr_nonnull(err);
	free(err);
	err = NULL;
	store_end(s, 0, NULL);
	json_decref(t);
	store_close(s);
}
END_TEST

START_TEST(damaged_transcript_is_reported)
{
	char *err = NULL;
	struct store *s = tu_store_open(scratch);

	store_lock(s);
	ck_assert_int_eq(sqlite3_exec(store_db(s), "INSERT INTO transcripts"
	    " (member, seq, entry, created_at) VALUES ('a', 1, '{bad', 0)",
	    NULL, NULL, NULL), SQLITE_OK);
	store_unlock(s);
	ck_assert_ptr_null(transcript_load(s, "a", &err));
	ck_assert_ptr_nonnull(strstr(err, "damaged"));
	free(err);
	store_close(s);
}
END_TEST

static Suite *
store_suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("store");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, open_makes_private_files);
	tcase_add_test(tc, open_tightens_loose_permissions);
	tcase_add_test(tc, open_fails_cleanly);
	tcase_add_test(tc, schema_version_is_set_and_checked);
	tcase_add_test(tc, version_1_database_is_migrated);
	tcase_add_test(tc, version_5_worktree_bases_move);
	tcase_add_test(tc, team_lock_is_one_at_a_time);
	tcase_add_test(tc, team_folder_ignores_and_refuses_foreign_databases);
	tcase_add_test(tc, state_has_a_ceiling);
	tcase_add_test(tc, a_full_disk_is_named_and_the_person_still_decides);
	tcase_add_test(tc, reopen_keeps_data_and_sync_full_works);
	tcase_add_test(tc, rollback_discards_everything);
	tcase_add_test(tc, transcript_keeps_order_and_refuses_double_delivery);
	tcase_add_test(tc, damaged_transcript_is_reported);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(store_suite());
}
