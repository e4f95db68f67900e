/*
 * Unit tests of core/roster: names, statuses, the plan gate, tokens and
 * persistence across a reopen (what --resume relies on), and what the lead
 * waits for.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/bus.h"
#include "core/roster.h"
#include "testutil.h"

START_TEST(names_are_checked)
{
	static const char *const bad[] = {
		"", "Alice", "1abc", "-x", "a b", "a/b", "user", "system", "all",
		"person", "human", "operator", "huddle", "lead", "team",
		"abcdefghijabcdefghijabcdefghijabc",
	};
	static const char *const good[] = {
		"a", "alice", "bob-2", "x_y", "abcdefghijabcdefghijabcdefghijab",
		"person-2", "teams", "leader",
	};
	char *err = NULL;
	size_t i;

	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		ck_assert_msg(roster_check_name(bad[i], &err) == -1, "%s",
		    bad[i]);
		ck_assert_ptr_nonnull(err);
		free(err);
		err = NULL;
	}
	ck_assert_int_eq(roster_check_name(NULL, &err), -1);
	free(err);
	/* A sentence a model can act on. */
	ck_assert_int_eq(roster_check_name("person", &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "'person' is reserved"));
	ck_assert_ptr_nonnull(strstr(err, "choose another"));
	free(err);
	for (i = 0; i < sizeof good / sizeof *good; i++)
		ck_assert_msg(roster_check_name(good[i], &err) == 0, "%s",
		    good[i]);
}
END_TEST

START_TEST(add_get_list)
{
	struct tu_team t;
	struct member *m, *all;
	char *err = NULL;
	size_t n;

	tu_team_open(&t);
	m = roster_get(t.store, "bob");
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(m->role, "refactorer");
	ck_assert_str_eq(m->prompt, "refactor");
	ck_assert_int_eq(m->status, MEMBER_STARTING);
	ck_assert_int_eq(m->plan_required, 1);
	ck_assert_int_eq(m->plan_approved, 0);
	ck_assert_int_eq(m->is_lead, 0);
	member_free(m);
	ck_assert_ptr_null(roster_get(t.store, "carol"));

	/* A taken name is refused and the first member is untouched. */
	ck_assert_int_eq(roster_add(t.store, "alice", "other", "", 1, &err),
	    -1);
	ck_assert_ptr_nonnull(strstr(err, "already exists"));
	free(err);
	err = NULL;
	/* A shut-down teammate's name is not reused; the refusal says so
	 * and offers another. */
	ck_assert_int_eq(roster_set_status(t.store, "alice", MEMBER_TERMINATED,
	    &err), 0);
	ck_assert_int_eq(roster_add(t.store, "alice", "other", "", 0, &err),
	    -1);
	ck_assert_msg(strstr(err, "shut down") != NULL &&
	    strstr(err, "'alice-2'") != NULL, "%s", err);
	free(err);
	err = NULL;
	ck_assert_int_eq(roster_add(t.store, "Bad Name", "x", "", 0, &err),
	    -1);
	free(err);

	n = roster_list(t.store, &all);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(all[0].name, "lead");
	ck_assert_int_eq(all[0].is_lead, 1);
	ck_assert_str_eq(all[1].name, "alice");
	ck_assert_str_eq(all[1].role, "coder");
	ck_assert_str_eq(all[2].name, "bob");
	member_free_array(all, n);
	tu_team_close(&t);
}
END_TEST

START_TEST(status_tokens_and_plan_persist)
{
	struct tu_team t;
	struct member *m;
	char *err = NULL;
	int i;

	tu_team_open(&t);
	for (i = 0; i < MEMBER_STATUS_COUNT; i++) {
		ck_assert_int_eq(member_status_parse(member_status_name(i)), i);
		ck_assert_int_eq(roster_set_status(t.store, "alice", i, &err),
		    0);
		m = roster_get(t.store, "alice");
		ck_assert_int_eq(m->status, i);
		member_free(m);
	}
	ck_assert_int_eq(member_status_parse("sleeping"), -1);
	ck_assert_int_eq(roster_set_status(t.store, "carol", MEMBER_IDLE,
	    &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "carol"));
	free(err);
	err = NULL;

	ck_assert_int_eq(roster_set_status(t.store, "bob", MEMBER_WAITING,
	    &err), 0);
	ck_assert_int_eq(roster_add_usage(t.store, "bob", 100, 20, 7, 300,
	    0.25, &err), 0);
	ck_assert_int_eq(roster_add_usage(t.store, "bob", 5, 1, 0, 50, 0.5,
	    &err), 0);
	ck_assert_int_eq(roster_add_usage(t.store, "alice", 1, 1, 0, 0,
	    1.0, &err), 0);
	ck_assert_int_eq(store_begin(t.store, &err), 0);
	ck_assert_int_eq(roster_set_model_tx(t.store, "bob", "claude-x",
	    &err), 0);
	ck_assert_int_eq(store_end(t.store, 1, &err), 0);
	ck_assert_int_eq(store_begin(t.store, &err), 0);
	ck_assert_int_eq(roster_approve_plan_tx(t.store, "bob", &err), 0);
	ck_assert_int_eq(store_end(t.store, 1, &err), 0);

	/* Everything survives closing and reopening the store. */
	tu_team_reopen(&t);
	m = roster_get(t.store, "bob");
	ck_assert_int_eq(m->status, MEMBER_WAITING);
	ck_assert_int_eq(m->tokens_in, 105);
	ck_assert_int_eq(m->tokens_out, 21);
	ck_assert_int_eq(m->cache_write, 7);
	ck_assert_int_eq(m->cache_read, 350);
	ck_assert_double_eq_tol(m->cost, 0.75, 1e-9);
	ck_assert_str_eq(m->model, "claude-x");
	ck_assert_double_eq_tol(roster_team_cost(t.store), 1.75, 1e-9);
	ck_assert_int_eq(m->plan_required, 1);
	ck_assert_int_eq(m->plan_approved, 1);
	ck_assert_int_ge(m->updated_at, m->created_at);
	member_free(m);
	tu_team_close(&t);
}
END_TEST

/* Takes the lead's wait for `name` the way the lead's inbox drain does,
 * for a notice with id message_id. */
static int
take_awaited_by(struct store *s, const char *name, int64_t message_id)
{
	char *err = NULL;
	int taken;

	ck_assert_int_eq(store_begin(s, &err), 0);
	taken = roster_take_awaited_tx(s, name, message_id);
	ck_assert_int_eq(store_end(s, 1, &err), 0);
	return taken;
}

/* The same for a notice sent after every message so far. */
static int
take_awaited(struct store *s, const char *name)
{
	return take_awaited_by(s, name, INT64_MAX);
}

/* "lead" is the lead's alone: made first, with the team; never a second
 * time. A store holding a teammate with a reserved name (written by an
 * older huddle or by hand), or a lead under another name, is read back
 * without it. */
START_TEST(reserved_names_stay_reserved)
{
	struct tu_team t;
	struct member *m, *all;
	char *err = NULL;
	size_t n, i;

	tu_team_open(&t);
	m = roster_get(t.store, ROSTER_LEAD);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->is_lead, 1);
	member_free(m);
	ck_assert_int_eq(roster_add(t.store, ROSTER_LEAD, "x", "", 0, &err),
	    -1);
	ck_assert_ptr_nonnull(strstr(err, "reserved"));
	free(err);
	err = NULL;
	ck_assert_int_eq(roster_add(t.store, "person", "x", "", 0, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "reserved"));
	free(err);
	err = NULL;
	/* Planted rows. */
	store_lock(t.store);
	ck_assert_int_eq(sqlite3_exec(store_db(t.store), "INSERT INTO members"
	    " (name, role, status, is_lead, created_at, updated_at) VALUES"
	    " ('person', 'x', 'idle', 0, 1, 1), ('boss', 'x', 'idle', 1, 2, 2),"
	    " ('human', 'x', 'idle', 0, 3, 3)", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(store_db(t.store), "UPDATE members SET"
	    " is_lead = 0 WHERE name = 'alice'", NULL, NULL, NULL), SQLITE_OK);
	store_unlock(t.store);
	tu_team_reopen(&t);
	ck_assert_ptr_null(roster_get(t.store, "person"));
	ck_assert_ptr_null(roster_get(t.store, "boss"));
	n = roster_list(t.store, &all);
	ck_assert_int_eq(n, 3);
	for (i = 0; i < n; i++) {
		ck_assert_str_ne(all[i].name, "person");
		ck_assert_str_ne(all[i].name, "human");
		ck_assert_int_eq(all[i].is_lead, strcmp(all[i].name,
		    ROSTER_LEAD) == 0);
	}
	member_free_array(all, n);
	tu_team_close(&t);
}
END_TEST

START_TEST(lead_waits_are_stored_and_taken_once)
{
	struct tu_team t;
	char *err = NULL;

	tu_team_open(&t);
	ck_assert_int_eq(take_awaited(t.store, "alice"), 0);
	ck_assert_int_eq(roster_set_awaited(t.store, "alice", 1, &err), 0);
	ck_assert_int_eq(roster_set_awaited(t.store, "alice", 1, &err), 0);
	ck_assert_int_eq(roster_set_awaited(t.store, "bob", 1, &err), 0);
	ck_assert_int_eq(roster_set_awaited(t.store, "bob", 0, &err), 0);
	/* Nobody by that name: nothing to wait for, and no error. */
	ck_assert_int_eq(roster_set_awaited(t.store, "carol", 1, &err), 0);

	/* The wait survives a restart; one notice answers it. */
	tu_team_reopen(&t);
	ck_assert_int_eq(take_awaited(t.store, "bob"), 0);
	ck_assert_int_eq(take_awaited(t.store, "carol"), 0);
	ck_assert_int_eq(take_awaited(t.store, "alice"), 1);
	ck_assert_int_eq(take_awaited(t.store, "alice"), 0);
	tu_team_close(&t);
}
END_TEST

/* A notice sent before the lead began to wait is of other work: it does
 * not answer the wait, which the next notice still does. */
START_TEST(a_notice_older_than_the_wait_does_not_answer_it)
{
	struct tu_team t;
	char *err = NULL;
	int64_t before, after;

	tu_team_open(&t);
	before = bus_send(t.bus, "alice", "lead", MSG_IDLE_NOTIFICATION,
	    "alice is idle: an old turn", NULL, &err);
	ck_assert_int_gt(before, 0);
	ck_assert_int_eq(roster_set_awaited(t.store, "alice", 1, &err), 0);
	ck_assert_int_eq(take_awaited_by(t.store, "alice", before), 0);
	after = bus_send(t.bus, "alice", "lead", MSG_IDLE_NOTIFICATION,
	    "alice is idle: the work asked for", NULL, &err);
	ck_assert_int_gt(after, before);
	ck_assert_int_eq(take_awaited_by(t.store, "alice", after), 1);
	ck_assert_int_eq(take_awaited_by(t.store, "alice", after), 0);
	tu_team_close(&t);
}
END_TEST

static Suite *
roster_suite(void)
{
	Suite *s = suite_create("roster");
	TCase *tc = tcase_create("roster");

	tcase_add_test(tc, names_are_checked);
	tcase_add_test(tc, add_get_list);
	tcase_add_test(tc, status_tokens_and_plan_persist);
	tcase_add_test(tc, lead_waits_are_stored_and_taken_once);
	tcase_add_test(tc, a_notice_older_than_the_wait_does_not_answer_it);
	tcase_add_test(tc, reserved_names_stay_reserved);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(roster_suite());
}
