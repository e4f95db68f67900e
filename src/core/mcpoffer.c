/*
 * The mcp_offers table (see mcpoffer.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/mcpoffer.h"
#include "util/clock.h"
#include "util/xmalloc.h"

char *
mcpoffer_entry(json_t *config)
{
	char *text = json_dumps(config, JSON_COMPACT | JSON_SORT_KEYS |
	    JSON_ENCODE_ANY);

	return text != NULL ? text : xstrdup("");
}

enum mcpoffer_answer
mcpoffer_get(struct store *s, const char *name, const char *entry)
{
	sqlite3_stmt *st;
	enum mcpoffer_answer a = MCPOFFER_NONE;

	store_lock(s);
	st = store_stmt(s, "SELECT approved FROM mcp_offers"
	    " WHERE name = ? AND entry = ?");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, entry, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		a = sqlite3_column_int(st, 0) == 1 ? MCPOFFER_APPROVED :
		    MCPOFFER_REJECTED;
	sqlite3_reset(st);
	store_unlock(s);
	return a;
}

int
mcpoffer_set(struct store *s, const char *name, const char *entry,
    int approved, char **err)
{
	sqlite3_stmt *st;
	int rc;

	if (store_begin(s, err) == -1)
		return -1;
	st = store_stmt(s, "INSERT OR REPLACE INTO mcp_offers (name, entry,"
	    " approved, decided_at) VALUES (?, ?, ?, ?)");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, entry, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, approved ? 1 : 0);
	sqlite3_bind_int64(st, 4, clock_wall_ms());
	rc = store_step_done(s, st, err);
	return store_end(s, rc == 0, rc == 0 ? err : NULL);
}
