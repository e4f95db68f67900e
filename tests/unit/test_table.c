/*
 * Unit tests of ui/table: the order of the rows, the selection that
 * follows its request, decided requests that fade and then leave, and
 * who has how many requests pending.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "util/xmalloc.h"
#include "ui/table.h"
#include "util/clock.h"

/* A request event's data, as event_request_json makes it. */
static json_t *
req(const char *id, const char *type, const char *status, int64_t created,
    int64_t decided)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I}",
	    "id", id, "type", type, "from", "bob", "to", "lead", "status",
	    status, "body", "line one\nline two", "response", "ok",
	    "created_at", (json_int_t)created, "decided_at",
	    (json_int_t)decided);
}

static void
update(struct table *t, const char *id, const char *status, int64_t created,
    int64_t decided)
{
	json_t *r = req(id, "plan", status, created, decided);

	table_update(t, r);
	json_decref(r);
}

START_TEST(pending_first_then_newest_decisions)
{
	struct table t;
	int64_t now = clock_wall_ms();

	table_init(&t);
	update(&t, "req_00000001", "approved", now - 5000, now - 3000);
	update(&t, "req_00000002", "pending", now - 4000, 0);
	update(&t, "req_00000003", "rejected", now - 2000, now - 1000);
	update(&t, "req_00000004", "pending", now - 3000, 0);
	ck_assert_uint_eq(t.n, 4);
	ck_assert_str_eq(t.rows[0].id, "req_00000002");
	ck_assert_str_eq(t.rows[1].id, "req_00000004");
	ck_assert_str_eq(t.rows[2].id, "req_00000003");
	ck_assert_str_eq(t.rows[3].id, "req_00000001");
	ck_assert_uint_eq(table_pending(&t), 2);
	ck_assert_int_eq(t.rows[0].type, REQ_PLAN_APPROVAL);
	ck_assert_str_eq(t.rows[0].summary, "line one");
	/* The oldest pending request is selected, and stays selected
	 * by id when a newer one arrives. */
	ck_assert_str_eq(t.selected, "req_00000002");
	table_move(&t, 1);
	ck_assert_str_eq(t.selected, "req_00000004");
	update(&t, "req_00000005", "pending", now - 10000, 0);
	ck_assert_str_eq(t.selected, "req_00000004");
	table_free(&t);
}
END_TEST

START_TEST(unknown_types_and_statuses_are_ignored)
{
	struct table t;
	json_t *r = req("req_00000001", "bribe", "pending", 1, 0);

	table_init(&t);
	table_update(&t, r);
	json_decref(r);
	update(&t, "req_00000002", "maybe", 1, 0);
	ck_assert_uint_eq(t.n, 0);
	table_free(&t);
}
END_TEST

START_TEST(decided_requests_fade_then_leave)
{
	struct table t;
	int64_t now = clock_wall_ms();

	table_init(&t);
	update(&t, "req_00000001", "pending", now - 1000, 0);
	update(&t, "req_00000002", "approved", now - 2000, now - 1000);
	ck_assert_int_eq(table_expire(&t, now), 0);
	ck_assert_uint_eq(t.faded, 0);
	/* Dim after TABLE_FADE_MS: a change to draw, once. */
	ck_assert_int_eq(table_expire(&t, now + TABLE_FADE_MS), 1);
	ck_assert_uint_eq(t.faded, 1);
	ck_assert_int_eq(table_expire(&t, now + TABLE_FADE_MS + 1000), 0);
	/* Gone after TABLE_LEAVE_MS; a pending one never leaves. */
	ck_assert_int_eq(table_expire(&t, now + TABLE_LEAVE_MS), 1);
	ck_assert_uint_eq(t.n, 1);
	ck_assert_str_eq(t.rows[0].id, "req_00000001");
	ck_assert_int_eq(table_expire(&t, now + 100 * TABLE_LEAVE_MS), 0);
	ck_assert_uint_eq(t.n, 1);
	table_free(&t);
}
END_TEST

/* A table of two pending requests and two decided ones, in that order
 * (1 and 4 pending, 2 approved, 3 rejected); returns its clock. */
static int64_t
four_rows(struct table *t)
{
	int64_t now = clock_wall_ms();

	table_init(t);
	update(t, "req_00000001", "pending", now - 5000, 0);
	update(t, "req_00000002", "approved", now - 4000, now - 3000);
	update(t, "req_00000003", "rejected", now - 4000, now - 2000);
	update(t, "req_00000004", "pending", now - 4500, 0);
	return now;
}

/* The person's choice stays: Down onto a decision is not undone by the
 * next tick while a request waits; a click maps lines to rows. */
START_TEST(the_selection_stays_where_the_person_puts_it)
{
	struct table t;
	int64_t now = four_rows(&t);

	ck_assert_str_eq(t.selected, "req_00000001");
	table_move(&t, 2);
	ck_assert_str_eq(t.selected, "req_00000003");
	ck_assert_int_eq(table_expire(&t, now + 1000), 0);
	ck_assert_int_eq(table_expire(&t, now + 2000), 0);
	ck_assert_str_eq(t.selected, "req_00000003");
	update(&t, "req_00000005", "pending", now, 0);
	ck_assert_str_eq(t.selected, "req_00000003");
	/* The selected request decided while others wait: the oldest
	 * waiting one takes the selection. */
	table_move(&t, -3);
	ck_assert_str_eq(t.selected, "req_00000001");
	update(&t, "req_00000001", "approved", now - 5000, now);
	ck_assert_str_eq(t.selected, "req_00000004");
	/* What a click on each line of the table selects, as drawn last
	 * (rows 1 to 3): the header and the lines past the rows, nothing. */
	t.drawn = xcalloc(3, sizeof *t.drawn);
	t.capdrawn = 3;
	t.drawn[0] = 1;
	t.drawn[1] = 2;
	t.drawn[2] = 3;
	t.shown = 3;
	ck_assert_int_eq(table_row_at(&t, 0), -1);
	ck_assert_int_eq(table_row_at(&t, 1), 1);
	ck_assert_int_eq(table_row_at(&t, 3), 3);
	ck_assert_int_eq(table_row_at(&t, 4), -1);
	table_free(&t);
}
END_TEST

/* The filter: only rows that hold its words are shown, selected and
 * moved through; a hidden selection goes to the first row shown. */
START_TEST(the_filter_shows_only_what_holds_it)
{
	struct table t;

	four_rows(&t);
	ck_assert_uint_eq(table_shown(&t), 4);
	table_set_filter(&t, "REJECT");		/* case aside */
	ck_assert_uint_eq(table_shown(&t), 1);
	ck_assert_str_eq(table_selected(&t)->id, "req_00000003");
	table_move(&t, -1);
	ck_assert_str_eq(table_selected(&t)->id, "req_00000003");
	table_set_filter(&t, "pend");
	ck_assert_uint_eq(table_shown(&t), 2);
	ck_assert_str_eq(table_selected(&t)->id, "req_00000001");
	table_move(&t, 5);
	ck_assert_str_eq(table_selected(&t)->id, "req_00000004");
	/* A row the filter hides is not selected by index. */
	table_select(&t, 2);
	ck_assert_str_eq(table_selected(&t)->id, "req_00000004");
	table_set_filter(&t, "nothing holds this");
	ck_assert_uint_eq(table_shown(&t), 0);
	ck_assert_ptr_null(table_selected(&t));
	table_set_filter(&t, "");
	ck_assert_uint_eq(table_shown(&t), 4);
	ck_assert_ptr_nonnull(table_selected(&t));
	table_free(&t);
}
END_TEST

START_TEST(a_selected_decision_that_leaves_gives_the_selection_back)
{
	struct table t;
	int64_t now = clock_wall_ms();

	table_init(&t);
	update(&t, "req_00000001", "rejected", now - 2000, now - 1000);
	ck_assert_str_eq(t.selected, "req_00000001");
	ck_assert_int_eq(table_expire(&t, now + TABLE_LEAVE_MS), 1);
	ck_assert_uint_eq(t.n, 0);
	ck_assert_ptr_null(table_selected(&t));
	update(&t, "req_00000002", "pending", now, 0);
	ck_assert_str_eq(t.selected, "req_00000002");
	table_free(&t);
}
END_TEST

START_TEST(a_decision_from_the_future_counts_from_now)
{
	struct table t;
	int64_t now = clock_wall_ms();

	/* A clock that went back must not keep a decision on show. */
	table_init(&t);
	update(&t, "req_00000001", "approved", now, now + 3600 * 1000);
	ck_assert_int_le(t.rows[0].changed_at, clock_wall_ms());
	ck_assert_int_eq(table_expire(&t, clock_wall_ms() + TABLE_LEAVE_MS),
	    1);
	ck_assert_uint_eq(t.n, 0);
	table_free(&t);
}
END_TEST

/* A pending permission of `from`'s. */
static void
asked_by(struct table *t, const char *id, const char *from, int64_t created)
{
	json_t *r = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I}", "id", id,
	    "type", "permission", "from", from, "to", "lead", "status",
	    "pending", "body", "network: 192.0.2.1:80", "created_at",
	    (json_int_t)created);

	table_update(t, r);
	json_decref(r);
}

/* Who asks, most first, cut to the room given with the rest counted;
 * decided requests are not counted. */
START_TEST(pending_by_agent_most_first)
{
	struct table t;
	int64_t now = clock_wall_ms();
	char id[16], *by;
	int i;

	table_init(&t);
	by = table_pending_by(&t, 80);
	ck_assert_str_eq(by, "");
	free(by);
	for (i = 0; i < 60; i++) {
		snprintf(id, sizeof id, "req_m%07d", i);
		asked_by(&t, id, "mallory", now - 1000 + i);
	}
	asked_by(&t, "req_b0000001", "bob", now - 5000);
	asked_by(&t, "req_b0000002", "bob", now - 4000);
	asked_by(&t, "req_c0000001", "christopher", now - 3000);
	update(&t, "req_d0000001", "rejected", now - 2000, now - 1000);
	ck_assert_uint_eq(table_pending(&t), 63);
	by = table_pending_by(&t, 80);
	ck_assert_str_eq(by, "mallory 60, bob 2, christopher 1");
	free(by);
	/* Not all fit: the rest are counted. */
	by = table_pending_by(&t, 25);
	ck_assert_str_eq(by, "mallory 60, bob 2, 1 more");
	free(by);
	by = table_pending_by(&t, 24);
	ck_assert_str_eq(by, "mallory 60, 2 more");
	free(by);
	/* Not even the first: nothing. */
	by = table_pending_by(&t, 8);
	ck_assert_str_eq(by, "");
	free(by);
	by = table_pending_by(&t, 0);
	ck_assert_str_eq(by, "");
	free(by);
	/* Past mallory's: the oldest pending of anyone else's. */
	table_select(&t, 5);
	ck_assert_str_eq(table_selected(&t)->from, "mallory");
	table_select_past(&t, "mallory");
	ck_assert_str_eq(t.selected, "req_b0000001");
	table_select_past(&t, "bob");
	ck_assert_str_eq(t.selected, "req_c0000001");
	table_free(&t);
}
END_TEST

static Suite *
table_suite(void)
{
	Suite *s = suite_create("table");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, pending_first_then_newest_decisions);
	tcase_add_test(tc, unknown_types_and_statuses_are_ignored);
	tcase_add_test(tc, decided_requests_fade_then_leave);
	tcase_add_test(tc, a_selected_decision_that_leaves_gives_the_selection_back);
	tcase_add_test(tc, the_selection_stays_where_the_person_puts_it);
	tcase_add_test(tc, the_filter_shows_only_what_holds_it);
	tcase_add_test(tc, a_decision_from_the_future_counts_from_now);
	tcase_add_test(tc, pending_by_agent_most_first);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(table_suite());
}
