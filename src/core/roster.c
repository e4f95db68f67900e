/*
 * Members of the team, persisted in the store's members table (see
 * roster.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/roster.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/names.h"
#include "util/xmalloc.h"

static const char *const member_status_names[MEMBER_STATUS_COUNT] = {
	[MEMBER_STARTING] = "starting",
	[MEMBER_WORKING] = "working",
	[MEMBER_IDLE] = "idle",
	[MEMBER_WAITING] = "waiting",
	[MEMBER_ERROR] = "error",
	[MEMBER_TERMINATED] = "terminated",
};

/* Names that stand for the person, huddle itself, the lead or everyone:
 * a teammate called so could pass its words off as theirs. */
static const char *const roster_reserved[] = {
	"person", "user", "human", "operator", "system", "huddle",
	ROSTER_LEAD, "all", "team",
};

/* Whether name is one of roster_reserved. */
static int
roster_reserved_name(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof roster_reserved / sizeof *roster_reserved;
	    i++) {
		if (strcmp(name, roster_reserved[i]) == 0)
			return 1;
	}
	return 0;
}

const char *
member_status_name(enum member_status status)
{
	return names_get(member_status_names, MEMBER_STATUS_COUNT, (int)status);
}

int
member_status_parse(const char *name)
{
	return names_find(member_status_names, MEMBER_STATUS_COUNT, name);
}

int
roster_name_valid(const char *name)
{
	size_t i, len = name ? strlen(name) : 0;

	if (len == 0 || len > 32 || name[0] < 'a' || name[0] > 'z')
		return 0;
	for (i = 0; i < len; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

int
roster_check_name(const char *name, char **err)
{
	if (!roster_name_valid(name)) {
		*err = xasprintf("bad name '%s': use 1-32 lowercase letters, "
		    "digits, '-' or '_', starting with a letter",
		    name ? name : "");
		return -1;
	}
	if (roster_reserved_name(name)) {
		*err = xasprintf("'%s' is reserved: person, user, human, "
		    "operator, system, huddle, lead, all and team stand for "
		    "the person, huddle or the whole team and are never a "
		    "teammate's name; choose another, such as one after its "
		    "role (\"tester\", \"reviewer\")", name);
		return -1;
	}
	return 0;
}

/* Inside a transaction: whether the team has no member yet. */
static int
roster_empty_tx(struct store *s)
{
	sqlite3_stmt *st = store_stmt(s, "SELECT 1 FROM members LIMIT 1");
	int empty = sqlite3_step(st) != SQLITE_ROW;

	sqlite3_reset(st);
	return empty;
}

int
roster_add_tx(struct store *s, const char *name, const char *role,
    const char *prompt, int plan_required, char **err)
{
	sqlite3_stmt *st;
	int64_t now = clock_wall_ms();

	/* The lead is the team's first member, made with it; "lead" is
	 * never anyone else's. */
	if (!(strcmp(name, ROSTER_LEAD) == 0 && roster_empty_tx(s)) &&
	    roster_check_name(name, err) == -1)
		return -1;
	switch (roster_status_tx(s, name)) {
	case -1:
		break;
	case MEMBER_TERMINATED:
		/* Its transcript and requests stay on record under it. */
		*err = xasprintf("'%s' was a teammate that has been shut "
		    "down; names are not reused: choose another, such as "
		    "'%.29s-2'", name, name);
		return -1;
	default:
		*err = xasprintf("a member named '%s' already exists", name);
		return -1;
	}
	st = store_stmt(s, "INSERT INTO members (name, role, prompt, is_lead,"
	    " status, plan_required, created_at, updated_at)"
	    " VALUES (?, ?, ?, ?, 'starting', ?, ?, ?)");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, role ? role : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, prompt ? prompt : "", -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, strcmp(name, ROSTER_LEAD) == 0);
	sqlite3_bind_int(st, 5, plan_required != 0);
	sqlite3_bind_int64(st, 6, now);
	sqlite3_bind_int64(st, 7, now);
	return store_step_done(s, st, err);
}

int
roster_add(struct store *s, const char *name, const char *role,
    const char *prompt, int plan_required, char **err)
{
	int rc;

	if (strcmp(name, ROSTER_LEAD) != 0 && roster_check_name(name, err) ==
	    -1)
		return -1;
	if (store_begin(s, err) == -1)
		return -1;
	rc = roster_add_tx(s, name, role, prompt, plan_required, err);
	return store_end(s, rc == 0, rc == 0 ? err : NULL);
}

int
roster_status_tx(struct store *s, const char *name)
{
	sqlite3_stmt *st = store_stmt(s,
	    "SELECT status FROM members WHERE name = ?");
	int status = -1;

	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		status = member_status_parse(
		    (const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	return status;
}

/* Runs a one-member UPDATE and fails when no member matched. */
static int
roster_update_one(struct store *s, sqlite3_stmt *st, const char *name,
    char **err)
{
	if (store_step_done(s, st, err) == -1)
		return -1;
	if (sqlite3_changes(store_db(s)) == 0) {
		*err = xasprintf("no member named '%s'", name);
		return -1;
	}
	return 0;
}

int
roster_set_status_tx(struct store *s, const char *name,
    enum member_status status, char **err)
{
	sqlite3_stmt *st = store_stmt(s, "UPDATE members SET status = ?,"
	    " updated_at = ? WHERE name = ?");

	sqlite3_bind_text(st, 1, member_status_name(status), -1,
	    SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, clock_wall_ms());
	sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
	return roster_update_one(s, st, name, err);
}

int
roster_set_status(struct store *s, const char *name,
    enum member_status status, char **err)
{
	int rc;

	if (store_begin(s, err) == -1)
		return -1;
	rc = roster_set_status_tx(s, name, status, err);
	return store_end(s, rc == 0, err);
}

int
roster_approve_plan_tx(struct store *s, const char *name, char **err)
{
	sqlite3_stmt *st = store_stmt(s, "UPDATE members SET"
	    " plan_approved = 1, updated_at = ? WHERE name = ?");

	sqlite3_bind_int64(st, 1, clock_wall_ms());
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	return roster_update_one(s, st, name, err);
}

int
roster_set_awaited_tx(struct store *s, const char *name, int awaited,
    char **err)
{
	sqlite3_stmt *st = store_stmt(s, "UPDATE members SET"
	    " lead_awaits = ?, awaits_after = (SELECT COALESCE(MAX(id), 0)"
	    " FROM messages) WHERE name = ?");

	sqlite3_bind_int(st, 1, awaited != 0);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	return store_step_done(s, st, err);
}

int
roster_set_awaited(struct store *s, const char *name, int awaited,
    char **err)
{
	int rc;

	if (store_begin(s, err) == -1)
		return -1;
	rc = roster_set_awaited_tx(s, name, awaited, err);
	return store_end(s, rc == 0, err);
}

int
roster_take_awaited_tx(struct store *s, const char *name, int64_t message_id)
{
	sqlite3_stmt *st = store_stmt(s, "UPDATE members SET"
	    " lead_awaits = 0 WHERE name = ? AND lead_awaits = 1"
	    " AND awaits_after < ?");

	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, message_id);
	if (store_step_done(s, st, NULL) == -1)
		return 0;
	return sqlite3_changes(store_db(s)) > 0;
}

char *
roster_awaited(struct store *s)
{
	sqlite3_stmt *st;
	char *names = NULL, *name;
	size_t len = 0, cap = 0;

	store_lock(s);
	st = store_stmt(s, "SELECT name FROM members WHERE lead_awaits = 1"
	    " AND status != 'terminated' ORDER BY created_at");
	while (sqlite3_step(st) == SQLITE_ROW) {
		name = store_column_text(st, 0);
		if (name != NULL && roster_name_valid(name)) {
			if (len > 0)
				names = xappend(names, &len, &cap, ", ", 2);
			names = xappend(names, &len, &cap, name, strlen(name));
		}
		free(name);
	}
	sqlite3_reset(st);
	store_unlock(s);
	return names;
}

int
roster_add_usage(struct store *s, const char *name, int64_t in,
    int64_t out, int64_t cache_write, int64_t cache_read, double cost,
    char **err)
{
	sqlite3_stmt *st;
	int rc;

	if (store_begin(s, err) == -1)
		return -1;
	st = store_stmt(s, "UPDATE members SET tokens_in = tokens_in + ?,"
	    " tokens_out = tokens_out + ?, cache_write = cache_write + ?,"
	    " cache_read = cache_read + ?, cost = cost + ? WHERE name = ?");
	sqlite3_bind_int64(st, 1, in);
	sqlite3_bind_int64(st, 2, out);
	sqlite3_bind_int64(st, 3, cache_write);
	sqlite3_bind_int64(st, 4, cache_read);
	sqlite3_bind_double(st, 5, cost);
	sqlite3_bind_text(st, 6, name, -1, SQLITE_STATIC);
	rc = roster_update_one(s, st, name, err);
	return store_end(s, rc == 0, err);
}

double
roster_team_cost(struct store *s)
{
	sqlite3_stmt *st;
	double cost = 0;

	store_lock(s);
	st = store_stmt(s, "SELECT total(cost) FROM members");
	if (sqlite3_step(st) == SQLITE_ROW)
		cost = sqlite3_column_double(st, 0);
	sqlite3_reset(st);
	store_unlock(s);
	return cost;
}

int
roster_set_model_tx(struct store *s, const char *name, const char *model,
    char **err)
{
	sqlite3_stmt *st = store_stmt(s, "UPDATE members SET model = ?"
	    " WHERE name = ?");

	sqlite3_bind_text(st, 1, model ? model : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	return roster_update_one(s, st, name, err);
}

int
roster_set_autonomous_tx(struct store *s, const char *name, char **err)
{
	sqlite3_stmt *st = store_stmt(s, "UPDATE members SET autonomous = 1"
	    " WHERE name = ?");

	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	return roster_update_one(s, st, name, err);
}

#define ROSTER_COLUMNS "name, role, prompt, is_lead, plan_required," \
	" plan_approved, status, tokens_in, tokens_out, created_at," \
	" updated_at, cache_write, cache_read, cost, model, autonomous"

/* Reads a row of ROSTER_COLUMNS; returns -1 (logged, nothing kept) for
 * one huddle did not write: a bad name or an unknown status. */
static int
roster_read_row(sqlite3_stmt *st, struct member *m)
{
	const char *name = (const char *)sqlite3_column_text(st, 0);

	memset(m, 0, sizeof *m);
	m->status = member_status_parse(
	    (const char *)sqlite3_column_text(st, 6));
	if (!roster_name_valid(name) || (int)m->status < 0) {
		log_printf("members: a row with a bad name or status is "
		    "ignored");
		return -1;
	}
	/* Read back as it was made: the lead is "lead", and no teammate
	 * has a reserved name (a store an older huddle or someone else
	 * wrote may hold one; that member is not resumed). */
	if ((sqlite3_column_int(st, 3) != 0) != (strcmp(name, ROSTER_LEAD) ==
	    0) || (strcmp(name, ROSTER_LEAD) != 0 &&
	    roster_reserved_name(name))) {
		log_printf("members: '%s' is a reserved name or not the "
		    "lead's; that member is ignored", name);
		return -1;
	}
	m->name = store_column_text(st, 0);
	m->role = store_column_text(st, 1);
	m->prompt = store_column_text(st, 2);
	m->is_lead = sqlite3_column_int(st, 3);
	m->plan_required = sqlite3_column_int(st, 4);
	m->plan_approved = sqlite3_column_int(st, 5);
	m->tokens_in = sqlite3_column_int64(st, 7);
	m->tokens_out = sqlite3_column_int64(st, 8);
	m->created_at = sqlite3_column_int64(st, 9);
	m->updated_at = sqlite3_column_int64(st, 10);
	m->cache_write = sqlite3_column_int64(st, 11);
	m->cache_read = sqlite3_column_int64(st, 12);
	m->cost = sqlite3_column_double(st, 13);
	m->model = store_column_text(st, 14);
	m->autonomous = sqlite3_column_int(st, 15);
	if (m->role == NULL)
		m->role = xstrdup("");
	if (m->prompt == NULL)
		m->prompt = xstrdup("");
	return 0;
}

struct member *
roster_get(struct store *s, const char *name)
{
	struct member *m = NULL;
	sqlite3_stmt *st;

	store_lock(s);
	st = store_stmt(s, "SELECT " ROSTER_COLUMNS
	    " FROM members WHERE name = ?");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		m = xcalloc(1, sizeof *m);
		if (roster_read_row(st, m) == -1) {
			free(m);
			m = NULL;
		}
	}
	sqlite3_reset(st);
	store_unlock(s);
	return m;
}

size_t
roster_list(struct store *s, struct member **out)
{
	struct member *array = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *st;

	store_lock(s);
	st = store_stmt(s, "SELECT " ROSTER_COLUMNS " FROM members"
	    " ORDER BY is_lead DESC, created_at, rowid");
	while (sqlite3_step(st) == SQLITE_ROW) {
		array = xgrow(array, &cap, n + 1, sizeof *array);
		if (roster_read_row(st, &array[n]) == 0)
			n++;
	}
	sqlite3_reset(st);
	store_unlock(s);
	*out = array;
	return n;
}

/* Frees what m holds and zeroes it. */
static void
member_clear(struct member *m)
{
	free(m->name);
	free(m->role);
	free(m->prompt);
	free(m->model);
	memset(m, 0, sizeof *m);
}

void
member_free(struct member *m)
{
	if (m == NULL)
		return;
	member_clear(m);
	free(m);
}

void
member_free_array(struct member *array, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		member_clear(&array[i]);
	free(array);
}
