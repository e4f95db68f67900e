/*
 * Unit tests of ui/tasklist: the tasks view keeps one row a task, in the
 * order ready, in progress, waiting, completed, cancelled; it names the
 * task an owner is on, and ignores events it cannot read.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "ui/tasklist.h"

static void
put(struct tasklist *l, const char *id, const char *status,
    const char *owner, int blocked, const char *subject)
{
	json_t *t = json_pack("{s:s, s:s, s:s, s:b, s:[], s:s, s:I}", "id", id,
	    "status", status, "subject", subject, "blocked", blocked,
	    "blocked_by", "checked", "none", "updated_at", (json_int_t)1);

	if (owner != NULL)
		json_object_set_new(t, "owner", json_string(owner));
	tasklist_update(l, t);
	json_decref(t);
}

static const char *
order(struct tasklist *l)
{
	static char out[64];
	size_t i;

	out[0] = '\0';
	for (i = 0; i < l->n; i++) {
		strcat(out, l->rows[i].id);
		strcat(out, " ");
	}
	return out;
}

START_TEST(rows_in_board_order)
{
	struct tasklist l;
	size_t ready, doing, open;

	tasklist_init(&l);
	put(&l, "t1", "completed", "ann", 0, "a");
	put(&l, "t2", "pending", NULL, 1, "b");
	put(&l, "t3", "in_progress", "ben", 0, "c");
	put(&l, "t4", "pending", NULL, 0, "d");
	put(&l, "t5", "cancelled", NULL, 0, "e");
	put(&l, "t6", "pending", NULL, 0, "f\nsecond line");
	ck_assert_str_eq(order(&l), "t4 t6 t3 t2 t1 t5 ");
	ck_assert_str_eq(l.rows[1].subject, "f");
	tasklist_counts(&l, &ready, &doing, &open);
	ck_assert_int_eq(ready, 2);
	ck_assert_int_eq(doing, 1);
	ck_assert_int_eq(open, 4);
	/* An update moves its row; it does not add one. */
	put(&l, "t2", "in_progress", "ann", 0, "b");
	ck_assert_str_eq(order(&l), "t4 t6 t2 t3 t1 t5 ");
	ck_assert_str_eq(tasklist_current(&l, "ann")->id, "t2");
	ck_assert_ptr_null(tasklist_current(&l, "cat"));
	tasklist_owner_gone(&l, "ann");
	ck_assert_int_eq(l.rows[2].owner_gone, 1);
	/* Nonsense is ignored. */
	put(&l, "x9", "pending", NULL, 0, "g");
	put(&l, "t7", "sleeping", NULL, 0, "g");
	ck_assert_int_eq(l.n, 6);
	tasklist_free(&l);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("tasklist");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, rows_in_board_order);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
