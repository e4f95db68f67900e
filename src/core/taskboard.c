/*
 * The task board (see taskboard.h): the team's tasks in the store. What
 * it says of a task in words is task.c's.
 *
 * Like the protocol engine, every change runs in one store transaction
 * and collects in an outbox what to tell afterwards: the messages it
 * posted, the members to wake and the tasks to announce. The outbox is
 * flushed only after the commit, so nobody hears of a change that did
 * not happen.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/roster.h"
#include "core/taskboard.h"
#include "core/transcript.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/names.h"
#include "util/xmalloc.h"

struct taskboard {
	struct bus		*bus;
	struct store		*store;
	int64_t			 last_stamp;	/* under the store's lock */
	struct listeners	 listeners;
};

/* What a transaction will tell once it has committed. */
struct task_outbox {
	struct bus_outbox mail;
	int64_t		*changed;	/* task numbers to announce */
	size_t		 nchanged, capchanged;
	struct task	*snap;		/* them as committed */
	size_t		 nsnap;
};

struct taskboard *
taskboard_new(struct bus *bus)
{
	struct taskboard *tb = xcalloc(1, sizeof *tb);

	tb->bus = bus;
	tb->store = bus_store(bus);
	return tb;
}

void
taskboard_free(struct taskboard *tb)
{
	free(tb);
}

void
taskboard_listen(struct taskboard *tb, task_listener_fn fn, void *ud)
{
	listeners_add(&tb->listeners, fn, ud);
}

/* --- reading ------------------------------------------------------------- */

/* The columns of a task, and whether its owner is gone and whether it
 * waits for a task not completed, worked out from the other tables. */
#define TASK_COLUMNS "t.num, t.subject, t.description, t.status, t.owner," \
	" t.created_by, t.result, t.verify, t.checked, t.check_output," \
	" t.lead_awaits, t.created_at, t.updated_at," \
	" (SELECT status = 'terminated' FROM members WHERE name = t.owner)," \
	" EXISTS (SELECT 1 FROM task_deps d JOIN tasks b ON b.num = d.blocker" \
	"   WHERE d.task = t.num AND b.status != 'completed')," \
	" t.worktree, t.status = 'pending' AND EXISTS (SELECT 1 FROM tasks w" \
	"   WHERE w.worktree = t.worktree AND w.status = 'in_progress'" \
	"   AND w.owner IS NOT t.owner AND" TASK_LIVE_OWNER("w") ")"

/* Whether the owner of task `w` (an SQL alias) is alive: a task a
 * terminated teammate left in progress keeps no one out of its
 * worktree. */
#define TASK_LIVE_OWNER(w) " NOT EXISTS (SELECT 1 FROM members m" \
	" WHERE m.name = " w ".owner AND m.status = 'terminated')"

/* Whether a task has no blocker left that is not completed (an SQL
 * condition on the task `t`). */
#define TASK_UNBLOCKED "NOT EXISTS (SELECT 1 FROM task_deps d JOIN tasks b" \
	" ON b.num = d.blocker WHERE d.task = t.num" \
	" AND b.status != 'completed')"

/* Reads the blockers of t. */
static void
task_read_deps_tx(struct store *s, struct task *t)
{
	sqlite3_stmt *st = store_stmt(s, "SELECT blocker FROM task_deps"
	    " WHERE task = ? ORDER BY blocker");
	size_t cap = 0;

	sqlite3_bind_int64(st, 1, t->num);
	while (sqlite3_step(st) == SQLITE_ROW) {
		t->blocked_by = xgrow(t->blocked_by, &cap, t->nblocked_by + 1,
		    sizeof *t->blocked_by);
		t->blocked_by[t->nblocked_by++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_reset(st);
}

/* Reads a row of TASK_COLUMNS (without its blockers); -1 for a row that
 * huddle did not write whole. */
static int
task_read_row(sqlite3_stmt *st, struct task *t)
{
	int status = task_status_parse(
	    (const char *)sqlite3_column_text(st, 3));
	int checked = task_check_parse(
	    (const char *)sqlite3_column_text(st, 8));

	memset(t, 0, sizeof *t);
	t->num = sqlite3_column_int64(st, 0);
	t->subject = store_column_text(st, 1);
	t->description = store_column_text(st, 2);
	t->owner = store_column_text(st, 4);
	t->created_by = store_column_text(st, 5);
	t->result = store_column_text(st, 6);
	t->verify = store_column_text(st, 7);
	t->check_output = store_column_text(st, 9);
	t->worktree = store_column_text(st, 15);
	if (status < 0 || checked < 0 || t->num <= 0 || t->subject == NULL ||
	    t->created_by == NULL || (t->owner != NULL &&
	    !roster_name_valid(t->owner)) || (t->worktree != NULL &&
	    !roster_name_valid(t->worktree))) {
		log_printf("tasks: a row with missing or bad fields is "
		    "ignored");
		task_clear(t);
		return -1;
	}
	snprintf(t->id, sizeof t->id, "t%" PRId64, t->num);
	t->status = status;
	t->checked = checked;
	t->lead_awaits = sqlite3_column_int(st, 10);
	t->created_at = sqlite3_column_int64(st, 11);
	t->updated_at = sqlite3_column_int64(st, 12);
	t->owner_gone = sqlite3_column_int(st, 13);
	t->blocked = sqlite3_column_int(st, 14);
	t->worktree_busy = sqlite3_column_int(st, 16);
	if (t->description == NULL)
		t->description = xstrdup("");
	if (t->result == NULL)
		t->result = xstrdup("");
	if (t->check_output == NULL)
		t->check_output = xstrdup("");
	return 0;
}

/* Reads every row of st (TASK_COLUMNS) with its blockers. */
static size_t
task_read_all_tx(struct store *s, sqlite3_stmt *st, struct task **out)
{
	struct task *array = NULL;
	size_t n = 0, cap = 0, i;

	while (sqlite3_step(st) == SQLITE_ROW) {
		array = xgrow(array, &cap, n + 1, sizeof *array);
		if (task_read_row(st, &array[n]) == 0)
			n++;
	}
	sqlite3_reset(st);
	for (i = 0; i < n; i++)
		task_read_deps_tx(s, &array[i]);
	*out = array;
	return n;
}

static int
task_load_tx(struct store *s, int64_t num, struct task *t)
{
	sqlite3_stmt *st = store_stmt(s, "SELECT " TASK_COLUMNS
	    " FROM tasks t WHERE t.num = ?");
	int rc = -1;

	sqlite3_bind_int64(st, 1, num);
	if (sqlite3_step(st) == SQLITE_ROW)
		rc = task_read_row(st, t);
	sqlite3_reset(st);
	if (rc == 0)
		task_read_deps_tx(s, t);
	return rc;
}

/* Loads the task an id names, or says why not. */
static int
task_find_tx(struct store *s, const char *id, struct task *t, char **err)
{
	int64_t num;

	if (task_id_parse(id, &num) == -1) {
		*err = xasprintf("'%s' is not a task id (they look like t3)",
		    id ? id : "");
		return -1;
	}
	if (task_load_tx(s, num, t) == -1) {
		*err = xasprintf("there is no task t%" PRId64, num);
		return -1;
	}
	return 0;
}

int
taskboard_get(struct taskboard *tb, const char *id, struct task *out)
{
	char *err = NULL;
	int rc;

	store_lock(tb->store);
	rc = task_find_tx(tb->store, id, out, &err);
	store_unlock(tb->store);
	free(err);
	return rc;
}

size_t
taskboard_list(struct taskboard *tb, int status, struct task **out)
{
	sqlite3_stmt *st;
	size_t n;

	store_lock(tb->store);
	if (status < 0)
		st = store_stmt(tb->store, "SELECT " TASK_COLUMNS
		    " FROM tasks t ORDER BY t.num");
	else {
		st = store_stmt(tb->store, "SELECT " TASK_COLUMNS
		    " FROM tasks t WHERE t.status = ? ORDER BY t.num");
		sqlite3_bind_text(st, 1, task_status_name(status), -1,
		    SQLITE_STATIC);
	}
	n = task_read_all_tx(tb->store, st, out);
	store_unlock(tb->store);
	return n;
}

int
taskboard_current(struct taskboard *tb, const char *who, struct task *out)
{
	sqlite3_stmt *st;
	int rc = -1;

	store_lock(tb->store);
	st = store_stmt(tb->store, "SELECT " TASK_COLUMNS " FROM tasks t"
	    " WHERE t.owner = ? AND t.status = 'in_progress'"
	    " ORDER BY t.num LIMIT 1");
	sqlite3_bind_text(st, 1, who, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		rc = task_read_row(st, out);
	sqlite3_reset(st);
	if (rc == 0)
		task_read_deps_tx(tb->store, out);
	store_unlock(tb->store);
	return rc;
}

/* The text of the first row `sql` gives with its one parameter bound to
 * `arg` (malloc'd), or NULL. */
static char *
task_query_text(struct taskboard *tb, const char *sql, const char *arg)
{
	sqlite3_stmt *st;
	char *text = NULL;

	store_lock(tb->store);
	st = store_stmt(tb->store, sql);
	sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		text = store_column_text(st, 0);
	sqlite3_reset(st);
	store_unlock(tb->store);
	return text;
}

char *
taskboard_place(struct taskboard *tb, const char *who)
{
	return task_query_text(tb, "SELECT worktree FROM tasks"
	    " WHERE owner = ? AND status = 'in_progress'"
	    " AND worktree IS NOT NULL ORDER BY num LIMIT 1", who);
}

char *
taskboard_worktree_holder(struct taskboard *tb, const char *name)
{
	return task_query_text(tb, "SELECT w.owner FROM tasks w"
	    " WHERE w.worktree = ? AND w.status = 'in_progress'"
	    " ORDER BY" TASK_LIVE_OWNER("w") " DESC, w.num LIMIT 1", name);
}

char *
taskboard_worktree_open(struct taskboard *tb, const char *name)
{
	return task_query_text(tb, "SELECT group_concat('t' || num, ', ')"
	    " FROM (SELECT num FROM tasks WHERE worktree = ?"
	    " AND status IN ('pending', 'in_progress') ORDER BY num)", name);
}

/* Inside a transaction: why `who` may not hold task t in progress
 * because of where it is done, or NULL when it may (malloc'd). Someone
 * else holds a task in its worktree, or `who` works elsewhere now. */
static char *
task_place_conflict_tx(struct store *s, const struct task *t,
    const char *who)
{
	sqlite3_stmt *st = store_stmt(s, "SELECT w.num, w.owner, w.worktree"
	    " FROM tasks w WHERE w.status = 'in_progress' AND w.num != ?1"
	    " AND ((?2 IS NOT NULL AND w.worktree = ?2 AND w.owner != ?3"
	    "   AND" TASK_LIVE_OWNER("w") ")"
	    "   OR (w.owner = ?3 AND w.worktree IS NOT ?2))"
	    " ORDER BY w.owner = ?3, w.num LIMIT 1");
	char *why = NULL, *owner, *worktree;
	int64_t num;

	sqlite3_bind_int64(st, 1, t->num);
	if (t->worktree != NULL)
		sqlite3_bind_text(st, 2, t->worktree, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, who, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		num = sqlite3_column_int64(st, 0);
		owner = store_column_text(st, 1);
		worktree = store_column_text(st, 2);
		if (owner != NULL && strcmp(owner, who) != 0)
			why = xasprintf("%s works in the worktree %s now (on t%"
			    PRId64 "); one teammate works in a worktree at a "
			    "time", owner, t->worktree, num);
		else
			why = xasprintf("%s works on t%" PRId64 " %s%s now, "
			    "and %s is done %s%s; a teammate works in one "
			    "place at a time: complete or give back t%" PRId64
			    " first",
			    who, num, worktree ? "in the worktree " :
			    "outside worktrees", worktree ? worktree : "",
			    t->id, t->worktree ? "in the worktree " :
			    "outside worktrees", t->worktree ? t->worktree : "",
			    num);
		free(owner);
		free(worktree);
	}
	sqlite3_reset(st);
	return why;
}

/* --- telling -------------------------------------------------------------- */

static int
task_is_manager(const char *who)
{
	return strcmp(who, ROSTER_LEAD) == 0 || strcmp(who, MSG_USER) == 0;
}

static void
task_outbox_changed(struct task_outbox *o, int64_t num)
{
	size_t i;

	for (i = 0; i < o->nchanged; i++) {
		if (o->changed[i] == num)
			return;
	}
	o->changed = xgrow(o->changed, &o->capchanged, o->nchanged + 1,
	    sizeof *o->changed);
	o->changed[o->nchanged++] = num;
}

/* Inside a transaction: posts a message through the outbox, unless `to`
 * is the person or is gone (the change is announced anyway). */
static int
task_post_tx(struct taskboard *tb, struct task_outbox *o, const char *from,
    const char *to, enum msg_type type, const char *content, json_t *meta,
    char **err)
{
	int status = roster_status_tx(tb->store, to);

	if (status == -1 || status == MEMBER_TERMINATED)
		return 0;
	return bus_outbox_post_tx(&o->mail, tb->store, from, to, type,
	    content, meta, err);
}

/* Inside a transaction: a task may have become ready, so every live
 * autonomous member is to be woken to look. */
static void
task_wake_autonomous_tx(struct taskboard *tb, struct task_outbox *o)
{
	sqlite3_stmt *st;

	if (o->mail.nwake > 0)
		return;
	st = store_stmt(tb->store, "SELECT name FROM members"
	    " WHERE autonomous = 1 AND status != 'terminated'");
	while (sqlite3_step(st) == SQLITE_ROW)
		bus_outbox_wake(&o->mail, store_column_text(st, 0));
	sqlite3_reset(st);
}

static int64_t task_stamp_tx(struct taskboard *);

/* Inside a transaction: whether a pending task's worktree is in use may
 * have changed with the tasks changed in it, so those tasks are stamped
 * and announced too. */
static void
task_worktree_siblings_tx(struct taskboard *tb, struct task_outbox *o)
{
	sqlite3_stmt *st;
	size_t n = o->nchanged, i;
	int64_t *nums = NULL, stamp = 0;
	size_t nnums = 0, cap = 0, j;

	for (i = 0; i < n; i++) {
		st = store_stmt(tb->store, "SELECT s.num FROM tasks t"
		    " JOIN tasks s ON s.worktree = t.worktree"
		    " WHERE t.num = ? AND s.num != t.num"
		    " AND s.status = 'pending'");
		sqlite3_bind_int64(st, 1, o->changed[i]);
		while (sqlite3_step(st) == SQLITE_ROW) {
			nums = xgrow(nums, &cap, nnums + 1, sizeof *nums);
			nums[nnums++] = sqlite3_column_int64(st, 0);
		}
		sqlite3_reset(st);
	}
	for (j = 0; j < nnums; j++) {
		for (i = 0; i < o->nchanged && o->changed[i] != nums[j]; i++)
			;
		if (i < o->nchanged)
			continue;
		if (stamp == 0)
			stamp = task_stamp_tx(tb);
		st = store_stmt(tb->store, "UPDATE tasks SET updated_at = ?"
		    " WHERE num = ?");
		sqlite3_bind_int64(st, 1, stamp);
		sqlite3_bind_int64(st, 2, nums[j]);
		if (store_step_done(tb->store, st, NULL) == 0)
			task_outbox_changed(o, nums[j]);
	}
	free(nums);
}

/* Inside a transaction, just before it commits: the tasks to announce,
 * as they will be committed (read later, another thread's change could
 * pass for this one's). */
static void
task_outbox_snapshot_tx(struct taskboard *tb, struct task_outbox *o)
{
	size_t i;

	task_worktree_siblings_tx(tb, o);
	o->snap = xcalloc(o->nchanged ? o->nchanged : 1, sizeof *o->snap);
	for (i = 0; i < o->nchanged; i++) {
		if (task_load_tx(tb->store, o->changed[i],
		    &o->snap[o->nsnap]) == 0)
			o->nsnap++;
	}
}

static void task_outbox_flush(struct taskboard *, struct task_outbox *,
    int);

/* Ends a change's transaction: commits it when rc is 0 (else rolls it
 * back), then tells what it did. Returns 0, or -1 when it failed. */
static int
task_commit(struct taskboard *tb, struct task_outbox *o, int rc,
    char **err)
{
	if (rc == 0)
		task_outbox_snapshot_tx(tb, o);
	if (store_commit(tb->store, rc == 0, rc == 0 ? err : NULL) == -1)
		rc = -1;
	task_outbox_flush(tb, o, rc == 0);
	store_unlock(tb->store);
	return rc;
}

/* Inside a transaction: the time of a change, in wall-clock ms, later
 * than that of every change before it, so the updated_at of a task's
 * events orders them even when they are told out of order. */
static int64_t
task_stamp_tx(struct taskboard *tb)
{
	int64_t now = clock_wall_ms();
	sqlite3_stmt *st;

	if (tb->last_stamp == 0) {
		st = store_stmt(tb->store, "SELECT max(updated_at) FROM tasks");
		if (sqlite3_step(st) == SQLITE_ROW)
			tb->last_stamp = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
	}
	if (now <= tb->last_stamp)
		now = tb->last_stamp + 1;
	tb->last_stamp = now;
	return now;
}

/* Wakes and announces what a committed transaction did; frees it all. */
static void
task_outbox_flush(struct taskboard *tb, struct task_outbox *o,
    int committed)
{
	size_t i;

	/* The board's new state first, then the news of it. */
	for (i = 0; committed && i < o->nsnap; i++)
		listeners_tell(&tb->listeners, &o->snap[i]);
	bus_outbox_flush(tb->bus, &o->mail, committed);
	free(o->changed);
	task_free_array(o->snap, o->nsnap);
	memset(o, 0, sizeof *o);
}

char *
taskboard_left_text_tx(struct store *s, const char *name)
{
	sqlite3_stmt *st = store_stmt(s, "SELECT num, subject FROM tasks"
	    " WHERE owner = ? AND status = 'in_progress' ORDER BY num");
	char *list = NULL, *next;
	int n = 0;

	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		next = xasprintf("%s%st%" PRId64 " (%s)", list ? list : "",
		    list ? ", " : "", (int64_t)sqlite3_column_int64(st, 0),
		    (const char *)sqlite3_column_text(st, 1));
		free(list);
		list = next;
		n++;
	}
	sqlite3_reset(st);
	if (list == NULL)
		return NULL;
	next = task_left_text(list, n);
	free(list);
	return next;
}

/* --- changing --------------------------------------------------------------- */

/* Checks a text field's size; -1 with *err when it is too long. */
static int
task_check_size(const char *what, const char *text, size_t max, char **err)
{
	if (text != NULL && strlen(text) > max) {
		*err = xasprintf("the %s is too long (%zu bytes; at most %zu)",
		    what, strlen(text), max);
		return -1;
	}
	return 0;
}

/* Inside a transaction: whether task `from` waits, directly or through
 * others, for task `to`. */
static int
task_waits_for_tx(struct store *s, int64_t from, int64_t to)
{
	sqlite3_stmt *st = store_stmt(s, "WITH RECURSIVE up(n) AS ("
	    " SELECT ?1 UNION SELECT d.blocker FROM task_deps d"
	    " JOIN up ON d.task = up.n)"
	    " SELECT 1 FROM up WHERE n = ?2 LIMIT 1");
	int found;

	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_reset(st);
	return found;
}

/* Inside a transaction: makes task num wait for each of ids, refusing an
 * unknown id or a cycle. */
static int
task_add_deps_tx(struct taskboard *tb, int64_t num, const char *const *ids,
    size_t n, char **err)
{
	sqlite3_stmt *st;
	struct task b;
	int64_t blocker;
	size_t i;

	if (n > TASK_MAX_BLOCKERS) {
		*err = xasprintf("a task may wait for at most %d others",
		    TASK_MAX_BLOCKERS);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (task_find_tx(tb->store, ids[i], &b, err) == -1)
			return -1;
		blocker = b.num;
		task_clear(&b);
		if (blocker == num) {
			*err = xasprintf("t%" PRId64 " cannot wait for itself",
			    num);
			return -1;
		}
		if (task_waits_for_tx(tb->store, blocker, num)) {
			*err = xasprintf("t%" PRId64 " cannot wait for t%"
			    PRId64 ": t%" PRId64 " already waits for t%"
			    PRId64 ", and the two would wait for each other "
			    "for ever", num, blocker, blocker, num);
			return -1;
		}
		st = store_stmt(tb->store, "INSERT OR IGNORE INTO task_deps"
		    " (task, blocker) VALUES (?, ?)");
		sqlite3_bind_int64(st, 1, num);
		sqlite3_bind_int64(st, 2, blocker);
		if (store_step_done(tb->store, st, err) == -1)
			return -1;
	}
	st = store_stmt(tb->store, "SELECT count(*) FROM task_deps"
	    " WHERE task = ?");
	sqlite3_bind_int64(st, 1, num);
	n = sqlite3_step(st) == SQLITE_ROW ? (size_t)sqlite3_column_int64(st,
	    0) : 0;
	sqlite3_reset(st);
	if (n > TASK_MAX_BLOCKERS) {
		*err = xasprintf("a task may wait for at most %d others",
		    TASK_MAX_BLOCKERS);
		return -1;
	}
	return 0;
}

/* Whether s holds no line break of any kind a reader would take as
 * one (CR, LF, NEL, LS, PS): a subject shows on a header line. */
static int
task_one_line(const char *s)
{
	return strpbrk(s, "\r\n") == NULL && strstr(s, "\xc2\x85") == NULL &&
	    strstr(s, "\xe2\x80\xa8") == NULL && strstr(s, "\xe2\x80\xa9") ==
	    NULL;
}

int
taskboard_create(struct taskboard *tb, const char *by,
    const struct task_new *n, struct task *out, char **err)
{
	struct task_outbox o = { 0 };
	sqlite3_stmt *st;
	int64_t now, num = 0, open = 0;
	int rc = -1;

	if (n->subject == NULL || n->subject[strspn(n->subject,
	    " \t\r\n")] == '\0') {
		*err = xstrdup("a task needs a subject: a few words on what "
		    "is to be done");
		return -1;
	}
	if (!task_one_line(n->subject)) {
		*err = xstrdup("a subject is one line; put the rest in the "
		    "description");
		return -1;
	}
	if (task_check_size("subject", n->subject, TASK_MAX_SUBJECT, err) ==
	    -1 || task_check_size("description", n->description,
	    TASK_MAX_TEXT, err) == -1 || task_check_size("verify command",
	    n->verify, TASK_MAX_TEXT, err) == -1)
		return -1;
	if (n->worktree != NULL && !roster_name_valid(n->worktree)) {
		*err = xstrdup("a worktree's name is 1 to 32 characters of "
		    "a-z, 0-9, _ and -, starting with a letter");
		return -1;
	}
	if (store_begin(tb->store, err) == -1)
		return -1;
	if (store_room(tb->store, STORE_MESSAGE, err) == -1) {
		store_end(tb->store, 0, NULL);
		return -1;
	}
	/* A member's name stays the name of its own worktree alone. */
	if (n->worktree != NULL && roster_status_tx(tb->store, n->worktree) !=
	    -1) {
		*err = xasprintf("'%s' is a member's name; name the worktree "
		    "after the work instead", n->worktree);
		goto done;
	}
	st = store_stmt(tb->store, "SELECT count(*) FROM tasks"
	    " WHERE status IN ('pending', 'in_progress')");
	if (sqlite3_step(st) == SQLITE_ROW)
		open = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (open >= TASK_MAX_OPEN) {
		*err = xasprintf("the board already has %d open tasks; finish "
		    "or cancel some first", TASK_MAX_OPEN);
		goto done;
	}
	/* One teammate cannot fill the board for everyone. */
	if (!task_is_manager(by)) {
		st = store_stmt(tb->store, "SELECT count(*) FROM tasks"
		    " WHERE created_by = ?"
		    " AND status IN ('pending', 'in_progress')");
		sqlite3_bind_text(st, 1, by, -1, SQLITE_STATIC);
		open = sqlite3_step(st) == SQLITE_ROW ?
		    sqlite3_column_int64(st, 0) : 0;
		sqlite3_reset(st);
		if (open >= TASK_MAX_OPEN_MADE) {
			*err = xasprintf("you already made %d open tasks; a "
			    "teammate may have at most %d open at once",
			    (int)open, TASK_MAX_OPEN_MADE);
			goto done;
		}
	}
	now = task_stamp_tx(tb);
	st = store_stmt(tb->store, "INSERT INTO tasks (subject, description,"
	    " status, created_by, verify, lead_awaits, created_at, updated_at,"
	    " worktree) VALUES (?, ?, 'pending', ?, ?, ?, ?, ?, ?)");
	sqlite3_bind_text(st, 1, n->subject, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, n->description ? n->description : "", -1,
	    SQLITE_STATIC);
	sqlite3_bind_text(st, 3, by, -1, SQLITE_STATIC);
	if (n->verify != NULL && *n->verify != '\0')
		sqlite3_bind_text(st, 4, n->verify, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 5, strcmp(by, ROSTER_LEAD) == 0);
	sqlite3_bind_int64(st, 6, now);
	sqlite3_bind_int64(st, 7, now);
	if (n->worktree != NULL)
		sqlite3_bind_text(st, 8, n->worktree, -1, SQLITE_STATIC);
	if (store_step_done(tb->store, st, err) == -1)
		goto done;
	num = sqlite3_last_insert_rowid(store_db(tb->store));
	if (task_add_deps_tx(tb, num, n->blocked_by, n->nblocked_by, err) ==
	    -1)
		goto done;
	task_outbox_changed(&o, num);
	task_wake_autonomous_tx(tb, &o);
	rc = 0;
	if (out != NULL && task_load_tx(tb->store, num, out) == -1)
		memset(out, 0, sizeof *out);
done:
	if (task_commit(tb, &o, rc, err) == -1) {
		if (rc == 0 && out != NULL)
			task_clear(out);
		return -1;
	}
	log_printf("task t%" PRId64 ": made by %s", num, by);
	return 0;
}

/* Inside a transaction: sets a task's owner and status. */
static int
task_set_owner_tx(struct taskboard *tb, int64_t num, const char *owner,
    enum task_status status, char **err)
{
	struct store *s = tb->store;
	sqlite3_stmt *st = store_stmt(s, "UPDATE tasks SET owner = ?,"
	    " status = ?, updated_at = ? WHERE num = ?");

	if (owner != NULL)
		sqlite3_bind_text(st, 1, owner, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, task_status_name(status), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, task_stamp_tx(tb));
	sqlite3_bind_int64(st, 4, num);
	return store_step_done(s, st, err);
}

/* Why task t is not ready for `who`, or NULL when it is (malloc'd). */
static char *
task_not_ready(struct store *s, const struct task *t, const char *who)
{
	struct task b;
	char *why = NULL;
	size_t i;

	if (t->status != TASK_PENDING)
		return xasprintf("%s is %s%s%s", t->id, task_status_name(
		    t->status), t->owner ? " and belongs to " : "",
		    t->owner ? t->owner : "");
	if (t->owner != NULL && strcmp(t->owner, who) != 0)
		return xasprintf("%s is assigned to %s", t->id, t->owner);
	for (i = 0; i < t->nblocked_by && why == NULL; i++) {
		if (task_load_tx(s, t->blocked_by[i], &b) == -1)
			continue;
		if (b.status != TASK_COMPLETED)
			why = xasprintf("%s waits for %s, which is %s", t->id,
			    b.id, task_status_name(b.status));
		task_clear(&b);
	}
	return why != NULL ? why : task_place_conflict_tx(s, t, who);
}

/* Inside a transaction: the number of who's next ready task (its own
 * assigned ones first, then the board's order), or 0. */
static int64_t
task_next_tx(struct store *s, const char *who)
{
	sqlite3_stmt *st = store_stmt(s, "SELECT t.num FROM tasks t"
	    " WHERE t.status = 'pending' AND (t.owner IS NULL OR t.owner = ?1)"
	    " AND " TASK_UNBLOCKED " AND NOT EXISTS (SELECT 1 FROM tasks w"
	    "   WHERE w.status = 'in_progress' AND ((w.worktree = t.worktree"
	    "   AND w.owner != ?1 AND" TASK_LIVE_OWNER("w") ")"
	    "   OR (w.owner = ?1 AND w.worktree IS NOT t.worktree)))"
	    " ORDER BY t.owner IS NULL, t.num LIMIT 1");
	int64_t num = 0;

	sqlite3_bind_text(st, 1, who, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		num = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return num;
}

int
taskboard_claim(struct taskboard *tb, const char *who, const char *id,
    struct task *out, json_t **entry, char **err)
{
	struct task_outbox o = { 0 };
	struct task t = { 0 };
	int64_t num = 0;
	char *why;
	int rc = -1, status;

	if (entry != NULL)
		*entry = NULL;
	if (store_begin(tb->store, err) == -1)
		return -1;
	status = roster_status_tx(tb->store, who);
	if (status == -1 || status == MEMBER_TERMINATED) {
		*err = xasprintf("'%s' is not a live member of the team", who);
		goto done;
	}
	if (id != NULL) {
		if (task_find_tx(tb->store, id, &t, err) == -1)
			goto done;
		if ((why = task_not_ready(tb->store, &t, who)) != NULL) {
			*err = xasprintf("%s is not ready to claim: %s", t.id,
			    why);
			free(why);
			goto done;
		}
		num = t.num;
		task_clear(&t);
	} else
		num = task_next_tx(tb->store, who);
	rc = 0;
	if (num == 0)
		goto done;
	if (task_set_owner_tx(tb, num, who, TASK_IN_PROGRESS,
	    err) == -1 || task_load_tx(tb->store, num, &t) == -1) {
		rc = -1;
		goto done;
	}
	if (entry != NULL) {
		*entry = task_handover_entry(&t, "claimed by you from the "
		    "board", "Do this task.");
		rc = transcript_append_tx(tb->store, who, *entry, 0, err);
	}
	task_outbox_changed(&o, num);
done:
	rc = task_commit(tb, &o, rc, err);
	if (rc == 0 && num > 0) {
		log_printf("task %s: claimed by %s", t.id, who);
		if (out != NULL)
			*out = t;
		else
			task_clear(&t);
		return 1;
	}
	task_clear(&t);
	if (entry != NULL && *entry != NULL) {
		json_decref(*entry);
		*entry = NULL;
	}
	return rc;
}

/* Inside a transaction: tells `to` (an owner) what someone else did to
 * its task. */
static int
task_tell_owner_tx(struct taskboard *tb, struct task_outbox *o,
    const char *from, const char *to, const struct task *t,
    const char *text, char **err)
{
	json_t *meta;
	int rc;

	if (to == NULL || strcmp(to, from) == 0)
		return 0;
	meta = json_pack("{s:s}", "task_id", t->id);
	rc = task_post_tx(tb, o, from, to, MSG_TASK_CHANGED, text, meta, err);
	json_decref(meta);
	return rc;
}

/*
 * Inside a transaction: task t has just been closed (completed or
 * cancelled) by `who`. The lead hears of a completion; its model hears
 * only when the lead waits on the task and no other task it waits on is
 * still open, and then of every one closed since it last heard, so a
 * large board wakes the lead once, not once a task.
 */
static int
task_tell_lead_tx(struct taskboard *tb, struct task_outbox *o,
    const struct task *t, const char *who, char **err)
{
	sqlite3_stmt *st;
	char *text = NULL;
	json_t *meta;
	int64_t open = 1;
	int feed = 0, rc = 0;

	if (t->lead_awaits) {
		st = store_stmt(tb->store, "SELECT count(*) FROM tasks"
		    " WHERE lead_awaits = 1"
		    " AND status IN ('pending', 'in_progress')");
		if (sqlite3_step(st) == SQLITE_ROW)
			open = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
		feed = open == 0;
	}
	if (feed) {
		struct task *closed;
		size_t n;

		st = store_stmt(tb->store, "SELECT " TASK_COLUMNS
		    " FROM tasks t WHERE t.lead_awaits = 1 AND t.lead_told = 0"
		    " AND t.status IN ('completed', 'cancelled') ORDER BY t.num");
		n = task_read_all_tx(tb->store, st, &closed);
		text = task_closed_text(closed, n);
		task_free_array(closed, n);
		st = store_stmt(tb->store, "UPDATE tasks SET lead_told = 1"
		    " WHERE lead_awaits = 1 AND lead_told = 0"
		    " AND status IN ('completed', 'cancelled')");
		if (store_step_done(tb->store, st, err) == -1) {
			free(text);
			return -1;
		}
	} else if (t->status == TASK_COMPLETED)
		text = task_completed_text(t, who);
	if (text == NULL || strcmp(who, ROSTER_LEAD) == 0) {
		free(text);
		return 0;
	}
	meta = json_pack("{s:s, s:b}", "task_id", t->id, "feed", feed);
	rc = task_post_tx(tb, o, t->owner && t->status == TASK_COMPLETED ?
	    t->owner : who, ROSTER_LEAD, MSG_TASK_COMPLETED, text, meta, err);
	json_decref(meta);
	free(text);
	return rc;
}

/* Inside a transaction: tells the owners of tasks that waited for task
 * num and now wait for nothing that they may start. */
static int
task_tell_unblocked_tx(struct taskboard *tb, struct task_outbox *o,
    int64_t num, const char *who, char **err)
{
	sqlite3_stmt *st = store_stmt(tb->store, "SELECT " TASK_COLUMNS
	    " FROM tasks t JOIN task_deps d ON d.task = t.num"
	    " WHERE d.blocker = ? AND t.status = 'pending'"
	    " AND t.owner IS NOT NULL AND " TASK_UNBLOCKED " ORDER BY t.num");
	struct task *ready;
	size_t n, i;
	char *text;
	int rc = 0;

	sqlite3_bind_int64(st, 1, num);
	n = task_read_all_tx(tb->store, st, &ready);
	for (i = 0; i < n && rc == 0; i++) {
		text = task_unblocked_text(&ready[i]);
		rc = task_tell_owner_tx(tb, o, who, ready[i].owner, &ready[i],
		    text, err);
		free(text);
	}
	task_free_array(ready, n);
	return rc;
}

/* Inside a transaction: checks that `who` may move task t to `status`,
 * and works out its owner then. Returns 0 or -1 with *err. */
static int
task_may_move(const struct task *t, const char *who, int manager,
    enum task_status status, const char **owner, char **err)
{
	int open = t->status == TASK_PENDING || t->status == TASK_IN_PROGRESS;

	*owner = t->owner;
	switch (status) {
	case TASK_PENDING:
		/* An owner gives its task back; the lead reopens any. */
		if (!manager && t->status != TASK_IN_PROGRESS)
			break;
		*owner = NULL;
		return 0;
	case TASK_IN_PROGRESS:
		if (t->status != TASK_PENDING)
			break;
		if (t->owner == NULL) {
			*err = xasprintf("%s has no owner: %s", t->id, manager ?
			    "give it to a teammate with task_assign" :
			    "claim it with task_claim");
			return -1;
		}
		if (t->blocked) {
			*err = xasprintf("%s still waits for another task to be "
			    "completed", t->id);
			return -1;
		}
		return 0;
	case TASK_COMPLETED:
		if (manager ? !open : t->status != TASK_IN_PROGRESS)
			break;
		return 0;
	case TASK_CANCELLED:
		if (!manager) {
			*err = xasprintf("only the lead or the person cancels "
			    "a task; give %s back with status pending if you "
			    "cannot do it", t->id);
			return -1;
		}
		if (!open)
			break;
		return 0;
	default:
		break;
	}
	*err = xasprintf("%s is %s and cannot become %s%s", t->id,
	    task_status_name(t->status), task_status_name(status),
	    manager || t->status == TASK_PENDING ? "" :
	    " (it is yours until you complete it or give it back)");
	return -1;
}

/* Inside a transaction: writes t's fields back. */
static int
task_write_tx(struct taskboard *tb, const struct task *t, char **err)
{
	struct store *s = tb->store;
	sqlite3_stmt *st = store_stmt(s, "UPDATE tasks SET status = ?,"
	    " owner = ?, result = ?, checked = ?, check_output = ?,"
	    " lead_awaits = ?, lead_told = CASE WHEN ? IN ('pending',"
	    " 'in_progress') THEN 0 ELSE lead_told END, updated_at = ?"
	    " WHERE num = ?");

	sqlite3_bind_text(st, 1, task_status_name(t->status), -1,
	    SQLITE_STATIC);
	if (t->owner != NULL)
		sqlite3_bind_text(st, 2, t->owner, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, t->result, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, task_check_name(t->checked), -1,
	    SQLITE_STATIC);
	sqlite3_bind_text(st, 5, t->check_output, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 6, t->lead_awaits);
	sqlite3_bind_text(st, 7, task_status_name(t->status), -1,
	    SQLITE_STATIC);
	sqlite3_bind_int64(st, 8, task_stamp_tx(tb));
	sqlite3_bind_int64(st, 9, t->num);
	return store_step_done(s, st, err);
}

/* Replaces a malloc'd string field. */
static void
task_set_text(char **field, const char *text)
{
	char *copy = text != NULL ? xstrdup(text) : NULL;

	/* text may be the field itself. */
	free(*field);
	*field = copy;
}

/* Inside a transaction: the tasks that wait for task num are to be
 * announced too, since whether they are blocked may have changed. */
static void
task_dependents_changed_tx(struct store *s, struct task_outbox *o,
    int64_t num)
{
	sqlite3_stmt *st = store_stmt(s, "SELECT task FROM task_deps"
	    " WHERE blocker = ? ORDER BY task");

	sqlite3_bind_int64(st, 1, num);
	while (sqlite3_step(st) == SQLITE_ROW)
		task_outbox_changed(o, sqlite3_column_int64(st, 0));
	sqlite3_reset(st);
}

/* Inside a transaction: what a status change tells whom. */
static int
task_moved_tx(struct taskboard *tb, struct task_outbox *o,
    const struct task *t, const char *old_owner, const char *who,
    char **err)
{
	char *text = NULL;
	int rc = 0;

	task_outbox_changed(o, t->num);
	task_dependents_changed_tx(tb->store, o, t->num);

	switch (t->status) {
	case TASK_COMPLETED:
		rc = task_tell_lead_tx(tb, o, t, who, err);
		if (rc == 0)
			rc = task_tell_unblocked_tx(tb, o, t->num, who, err);
		if (rc == 0 && old_owner != NULL)
			text = xasprintf("%s was marked completed by %s; stop "
			    "working on it.", t->id, who);
		break;
	case TASK_CANCELLED:
		rc = task_tell_lead_tx(tb, o, t, who, err);
		if (rc == 0 && old_owner != NULL)
			text = xasprintf("%s was cancelled by %s; stop working "
			    "on it.", t->id, who);
		break;
	case TASK_PENDING:
		if (old_owner != NULL)
			text = xasprintf("%s was put back on the board by %s; "
			    "it is no longer yours.", t->id, who);
		break;
	default:
		break;
	}
	if (rc == 0 && text != NULL)
		rc = task_tell_owner_tx(tb, o, who, old_owner, t, text, err);
	free(text);
	/* A completion may unblock others; a task back on the board may be
	 * claimed. */
	if (t->status == TASK_COMPLETED || t->status == TASK_PENDING)
		task_wake_autonomous_tx(tb, o);
	return rc;
}

/* Whether `who` may change task t at all. */
static int
task_may_change(const struct task *t, const char *who, char **err)
{
	if (task_is_manager(who) || (t->owner != NULL &&
	    strcmp(t->owner, who) == 0))
		return 0;
	*err = t->owner != NULL ? xasprintf("%s belongs to %s; only its "
	    "owner or the lead may change it", t->id, t->owner) :
	    xasprintf("%s is not yours: claim it first with task_claim",
	    t->id);
	return -1;
}

int
taskboard_may_move(struct taskboard *tb, const char *who, const char *id,
    enum task_status status, char **err)
{
	const char *owner;
	struct task t;
	int rc = -1;

	store_lock(tb->store);
	if (task_find_tx(tb->store, id, &t, err) == 0) {
		rc = task_may_change(&t, who, err);
		if (rc == 0 && t.status == status && (status ==
		    TASK_COMPLETED || status == TASK_CANCELLED)) {
			*err = xasprintf("%s is already %s", t.id,
			    task_status_name(status));
			rc = -1;
		} else if (rc == 0 && t.status != status)
			rc = task_may_move(&t, who, task_is_manager(who), status,
			    &owner, err);
		task_clear(&t);
	}
	store_unlock(tb->store);
	return rc;
}

int
taskboard_update(struct taskboard *tb, const char *who, const char *id,
    const struct task_change *c, struct task *out, char **err)
{
	struct task_outbox o = { 0 };
	struct task t = { 0 };
	int manager = task_is_manager(who), rc = -1, moved;
	const char *owner;
	char *old_owner = NULL, *text;

	if (task_check_size("result", c->result, TASK_MAX_TEXT, err) == -1)
		return -1;
	if (store_begin(tb->store, err) == -1)
		return -1;
	if (task_find_tx(tb->store, id, &t, err) == -1)
		goto done;
	if (task_may_change(&t, who, err) == -1)
		goto done;
	if (!task_is_manager(who) && c->result != NULL &&
	    t.status != TASK_IN_PROGRESS) {
		*err = xasprintf("%s is %s: its result is written while it is "
		    "in progress", t.id, task_status_name(t.status));
		goto done;
	}
	if (c->if_updated_at != 0 && t.updated_at != c->if_updated_at) {
		*err = xasprintf("%s changed meanwhile (it is %s now); look at "
		    "it again", t.id, task_status_name(t.status));
		goto done;
	}
	if (c->nblocked_by > 0) {
		if (!manager) {
			*err = xstrdup("only the lead or the person adds what "
			    "a task waits for");
			goto done;
		}
		if (t.status != TASK_PENDING) {
			*err = xasprintf("%s is %s; only a pending task can be "
			    "made to wait", t.id, task_status_name(t.status));
			goto done;
		}
		if (task_add_deps_tx(tb, t.num, c->blocked_by, c->nblocked_by,
		    err) == -1)
			goto done;
	}
	/* A task is closed once: a second completion changes nothing. */
	if ((c->status == TASK_COMPLETED || c->status == TASK_CANCELLED) &&
	    (enum task_status)c->status == t.status) {
		*err = xasprintf("%s is already %s", t.id, task_status_name(
		    t.status));
		goto done;
	}
	old_owner = xstrdup_or_null(t.owner);
	moved = c->status >= 0 && (enum task_status)c->status != t.status;
	if (moved) {
		if (task_may_move(&t, who, manager, c->status, &owner, err) ==
		    -1)
			goto done;
		if (c->status == TASK_IN_PROGRESS && (*err =
		    task_place_conflict_tx(tb->store, &t, owner)) != NULL)
			goto done;
		task_set_text(&t.owner, owner);
		t.status = c->status;
		if (t.status == TASK_PENDING)
			t.checked = TASK_UNCHECKED;
	}
	if (c->result != NULL)
		task_set_text(&t.result, c->result);
	if (c->checked >= 0) {
		t.checked = c->checked;
		task_set_text(&t.check_output, c->check_output ?
		    c->check_output : "");
	}
	if (task_write_tx(tb, &t, err) == -1)
		goto done;
	rc = 0;
	if (moved)
		rc = task_moved_tx(tb, &o, &t, old_owner, who, err);
	if (rc == 0 && c->checked == TASK_FAILED) {
		text = xasprintf("%s did not pass its check, so it stays in "
		    "progress; fix what the output shows, then complete it "
		    "again.\n%s", t.id, t.check_output);
		rc = task_tell_owner_tx(tb, &o, who, t.owner, &t, text, err);
		free(text);
	}
	task_outbox_changed(&o, t.num);
	if (rc == 0 && out != NULL) {
		int64_t num = t.num;

		task_clear(&t);
		if ((rc = task_load_tx(tb->store, num, &t)) == -1)
			*err = xstrdup("the task could not be read back");
	}
done:
	free(old_owner);
	rc = task_commit(tb, &o, rc, err);
	if (rc == 0) {
		log_printf("task %s: %s by %s", t.id, task_status_name(
		    t.status), who);
		if (out != NULL) {
			*out = t;
			return 0;
		}
	}
	task_clear(&t);
	return rc;
}

int
taskboard_assign(struct taskboard *tb, const char *who, const char *id,
    const char *teammate, struct task *out, char **err)
{
	struct task_outbox o = { 0 };
	struct task t = { 0 };
	char *old_owner = NULL, *body, *text;
	json_t *meta;
	int rc = -1, status;

	if (!task_is_manager(who)) {
		*err = xstrdup("only the lead or the person assigns tasks");
		return -1;
	}
	if (store_begin(tb->store, err) == -1)
		return -1;
	if (task_find_tx(tb->store, id, &t, err) == -1)
		goto done;
	status = roster_status_tx(tb->store, teammate);
	if (status == -1 || status == MEMBER_TERMINATED ||
	    strcmp(teammate, ROSTER_LEAD) == 0) {
		*err = xasprintf("'%s' is not a live teammate", teammate);
		goto done;
	}
	if (t.status != TASK_PENDING && t.status != TASK_IN_PROGRESS) {
		*err = xasprintf("%s is %s; reopen it first", t.id,
		    task_status_name(t.status));
		goto done;
	}
	/* One that waits is placed when its owner claims it. */
	if (!t.blocked && (*err = task_place_conflict_tx(tb->store, &t,
	    teammate)) != NULL)
		goto done;
	old_owner = xstrdup_or_null(t.owner);
	task_set_text(&t.owner, teammate);
	t.status = t.blocked ? TASK_PENDING : TASK_IN_PROGRESS;
	if (strcmp(who, ROSTER_LEAD) == 0)
		t.lead_awaits = 1;
	if (task_write_tx(tb, &t, err) == -1)
		goto done;
	body = xasprintf("assigned to you by %s", who);
	text = task_handover(&t, body, t.blocked ? "It waits for other "
	    "tasks: you will be told when you may start it." : "Do this "
	    "task.");
	meta = json_pack("{s:s}", "task_id", t.id);
	rc = task_post_tx(tb, &o, who, teammate, MSG_TASK_ASSIGNED, text,
	    meta, err);
	json_decref(meta);
	free(body);
	free(text);
	if (rc == 0 && old_owner != NULL && strcmp(old_owner, teammate) != 0) {
		text = xasprintf("%s was given to %s by %s; stop working on "
		    "it.", t.id, teammate, who);
		rc = task_tell_owner_tx(tb, &o, who, old_owner, &t, text, err);
		free(text);
	}
	task_outbox_changed(&o, t.num);
	if (rc == 0) {
		int64_t num = t.num;

		task_clear(&t);
		task_load_tx(tb->store, num, &t);
	}
done:
	free(old_owner);
	rc = task_commit(tb, &o, rc, err);
	if (rc == 0) {
		log_printf("task %s: assigned to %s by %s", t.id, teammate,
		    who);
		if (out != NULL) {
			*out = t;
			return 0;
		}
	}
	task_clear(&t);
	return rc;
}
