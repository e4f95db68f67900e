/*
 * The worktrees table (see wtrecord.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/roster.h"
#include "core/wtrecord.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"

#define WTRECORD_COLUMNS "name, base, member, created_at"

/* Reads a row of WTRECORD_COLUMNS; -1 for one huddle did not write. */
static int
wtrecord_read_row(sqlite3_stmt *st, struct wt_record *r)
{
	memset(r, 0, sizeof *r);
	r->name = store_column_text(st, 0);
	r->base = store_column_text(st, 1);
	r->member = store_column_text(st, 2);
	r->created_at = sqlite3_column_int64(st, 3);
	if (!roster_name_valid(r->name) || r->base == NULL ||
	    (r->member != NULL && strcmp(r->member, r->name) != 0)) {
		log_printf("worktrees: a row with bad fields is ignored");
		wtrecord_clear(r);
		return -1;
	}
	return 0;
}

int
wtrecord_add_tx(struct store *s, const char *name, const char *base,
    const char *member, char **err)
{
	sqlite3_stmt *st = store_stmt(s, "INSERT INTO worktrees (name, base,"
	    " member, created_at) VALUES (?, ?, ?, ?)");

	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, base, -1, SQLITE_STATIC);
	if (member != NULL)
		sqlite3_bind_text(st, 3, member, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, clock_wall_ms());
	return store_step_done(s, st, err);
}

int
wtrecord_add(struct store *s, const char *name, const char *base,
    const char *member, char **err)
{
	int rc;

	if (store_begin(s, err) == -1)
		return -1;
	rc = wtrecord_add_tx(s, name, base, member, err);
	return store_end(s, rc == 0, rc == 0 ? err : NULL);
}

/* wtrecord_get, in the caller's transaction. */
static int
wtrecord_get_tx(struct store *s, const char *name, struct wt_record *out)
{
	sqlite3_stmt *st = store_stmt(s, "SELECT " WTRECORD_COLUMNS
	    " FROM worktrees WHERE name = ?");
	int rc = -1;

	memset(out, 0, sizeof *out);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		rc = wtrecord_read_row(st, out);
	sqlite3_reset(st);
	return rc;
}

int
wtrecord_get(struct store *s, const char *name, struct wt_record *out)
{
	int rc;

	store_lock(s);
	rc = wtrecord_get_tx(s, name, out);
	store_unlock(s);
	return rc;
}

size_t
wtrecord_list(struct store *s, struct wt_record **out)
{
	sqlite3_stmt *st;
	struct wt_record *array = NULL;
	size_t n = 0, cap = 0;

	store_lock(s);
	st = store_stmt(s, "SELECT " WTRECORD_COLUMNS " FROM worktrees"
	    " ORDER BY name");
	while (sqlite3_step(st) == SQLITE_ROW) {
		array = xgrow(array, &cap, n + 1, sizeof *array);
		if (wtrecord_read_row(st, &array[n]) == 0)
			n++;
	}
	sqlite3_reset(st);
	store_unlock(s);
	*out = array;
	return n;
}

int
wtrecord_remove(struct store *s, const char *name, char **err)
{
	sqlite3_stmt *st;
	int rc;

	if (store_begin(s, err) == -1)
		return -1;
	st = store_stmt(s, "DELETE FROM worktrees WHERE name = ?");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = store_step_done(s, st, err);
	return store_end(s, rc == 0, rc == 0 ? err : NULL);
}

void
wtrecord_clear(struct wt_record *r)
{
	free(r->name);
	free(r->base);
	free(r->member);
	memset(r, 0, sizeof *r);
}

void
wtrecord_free_array(struct wt_record *array, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		wtrecord_clear(&array[i]);
	free(array);
}
