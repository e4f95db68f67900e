/*
 * Agents' conversations in the store's transcripts table (see
 * transcript.h).
 */
#include "config.h"

#include <stdlib.h>

#include "core/transcript.h"
#include "util/clock.h"
#include "util/xmalloc.h"

int
transcript_append_tx(struct store *s, const char *member, json_t *entry,
    int64_t message_id, char **err)
{
	char *text = json_dumps(entry, JSON_COMPACT);
	sqlite3_stmt *st;
	int rc;

	if (text == NULL) {
		*err = xstrdup("transcript entry is not valid JSON");
		return -1;
	}
	st = store_stmt(s, "INSERT INTO transcripts"
	    " (member, seq, entry, message_id, created_at)"
	    " VALUES (?1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM transcripts"
	    "  WHERE member = ?1), ?2, ?3, ?4)");
	sqlite3_bind_text(st, 1, member, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
	if (message_id > 0)
		sqlite3_bind_int64(st, 3, message_id);
	sqlite3_bind_int64(st, 4, clock_wall_ms());
	rc = store_step_done(s, st, err);
	free(text);
	return rc;
}

int
transcript_append(struct store *s, const char *member, json_t *entry,
    char **err)
{
	int rc;

	if (store_begin(s, err) == -1)
		return -1;
	rc = store_room(s, STORE_RECORD, err);
	if (rc == 0)
		rc = transcript_append_tx(s, member, entry, 0, err);
	return store_end(s, rc == 0, err);
}

/*
 * Reads the rows st selects (entry, message_id, created_at), oldest
 * first, under the store lock: each entry alone, or with_meta as {entry,
 * message_id, at}. NULL with *err when a row is damaged or the store
 * fails.
 */
static json_t *
transcript_read(struct store *s, sqlite3_stmt *st, const char *member,
    int with_meta, char **err)
{
	json_t *array = json_array(), *entry;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(st, 0);

		/* A row we wrote ourselves that does not parse means the
		 * file was damaged: say so rather than skip a turn. */
		if ((entry = json_loads(text ? text : "", 0, NULL)) == NULL) {
			*err = xasprintf("%s's transcript holds a damaged "
			    "entry", member);
			rc = SQLITE_CORRUPT;
			break;
		}
		if (with_meta)
			entry = json_pack("{s:o, s:I, s:I}", "entry", entry,
			    "message_id", (json_int_t)sqlite3_column_int64(st,
			    1), "at", (json_int_t)sqlite3_column_int64(st, 2));
		json_array_append_new(array, entry);
	}
	if (rc != SQLITE_DONE && rc != SQLITE_CORRUPT)
		store_fail(s, err, "reading a transcript");
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		json_decref(array);
		return NULL;
	}
	return array;
}

json_t *
transcript_load_tail(struct store *s, const char *member, size_t last,
    char **err)
{
	sqlite3_stmt *st;
	json_t *array;

	store_lock(s);
	st = store_stmt(s, "SELECT * FROM (SELECT entry, message_id,"
	    " created_at, seq FROM transcripts WHERE member = ?"
	    " ORDER BY seq DESC LIMIT ?) ORDER BY seq");
	sqlite3_bind_text(st, 1, member, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)last);
	array = transcript_read(s, st, member, 1, err);
	store_unlock(s);
	return array;
}

json_t *
transcript_load(struct store *s, const char *member, char **err)
{
	sqlite3_stmt *st;
	json_t *array;

	store_lock(s);
	st = store_stmt(s, "SELECT entry, message_id, created_at FROM"
	    " transcripts WHERE member = ? ORDER BY seq");
	sqlite3_bind_text(st, 1, member, -1, SQLITE_STATIC);
	array = transcript_read(s, st, member, 0, err);
	store_unlock(s);
	return array;
}

json_t *
transcript_user_text(const char *text)
{
	return json_pack("{s:s, s:[{s:s, s:s}]}", "role", "user", "content",
	    "type", "text", "text", text);
}
