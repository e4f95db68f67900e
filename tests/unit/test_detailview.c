/*
 * Unit tests of ui/detailview: a field's value wraps inside its field,
 * under the value and never under the label, and a value too long for
 * the field's rows ends in "…"; a plan's text is numbered by line.
 */
#include "config.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "ui/detailview.h"
#include "ui/text.h"

static void
setup_locale(void)
{
	ck_assert_ptr_nonnull(setlocale(LC_CTYPE, "C.UTF-8"));
}

START_TEST(a_short_value_is_one_row)
{
	size_t n;
	char **rows = detailview_field("when", "asked 3s ago", 40, &n);

	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(rows[0], "when         asked 3s ago");
	permline_rows_free(rows, n);
}
END_TEST

START_TEST(a_long_value_wraps_inside_its_field)
{
	const char *dir = "/tmp/work/a-rather-long-folder-name/and-another-"
	    "one-below-it";
	size_t n, k;
	char **rows = detailview_field("directory", dir, 40, &n), *joined;

	/* 57 characters in 27 columns. */
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(strncmp(rows[0], "directory    /tmp", 17), 0);
	joined = calloc(1, strlen(dir) + 1);
	for (k = 0; k < n; k++) {
		ck_assert_int_le((int)text_width(rows[k], strlen(rows[k])), 40);
		/* Every row's value starts in the value's column. */
		if (k > 0)
			ck_assert_int_eq((int)strspn(rows[k], " "),
			    DETAILVIEW_LABEL_COLS);
		strcat(joined, rows[k] + DETAILVIEW_LABEL_COLS);
	}
	ck_assert_str_eq(joined, dir);
	free(joined);
	permline_rows_free(rows, n);
}
END_TEST

START_TEST(a_value_past_its_rows_says_so)
{
	char value[400];
	size_t n;
	char **rows;

	memset(value, 'x', sizeof value - 1);
	value[sizeof value - 1] = '\0';
	rows = detailview_field("why flagged", value, 40, &n);
	ck_assert_uint_eq(n, DETAILVIEW_FIELD_ROWS);
	ck_assert_ptr_nonnull(strstr(rows[n - 1], TEXT_ELLIPSIS));
	ck_assert_ptr_null(strstr(rows[n - 2], TEXT_ELLIPSIS));
	permline_rows_free(rows, n);
}
END_TEST

START_TEST(a_plan_is_numbered)
{
	struct table_row r;
	char **rows, *heading;
	size_t n;

	memset(&r, 0, sizeof r);
	r.type = REQ_PLAN_APPROVAL;
	r.body = (char *)"1. write bob.txt\n2. tell the lead\n\n";
	rows = detailview_block(&r, 40, &n, &heading);
	ck_assert_str_eq(heading, "the plan, 2 lines:");
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(rows[0], "1 │ 1. write bob.txt");
	ck_assert_str_eq(rows[1], "2 │ 2. tell the lead");
	free(heading);
	permline_rows_free(rows, n);
}
END_TEST

static Suite *
detailview_suite(void)
{
	Suite *s = suite_create("detailview");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup_locale, NULL);
	tcase_add_test(tc, a_short_value_is_one_row);
	tcase_add_test(tc, a_long_value_wraps_inside_its_field);
	tcase_add_test(tc, a_value_past_its_rows_says_so);
	tcase_add_test(tc, a_plan_is_numbered);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(detailview_suite());
}
