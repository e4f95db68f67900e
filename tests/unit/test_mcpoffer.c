/*
 * Unit tests of core/mcpoffer: a project MCP server's entry as it is
 * remembered, and the answers kept by name and entry.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/mcpoffer.h"
#include "core/store.h"
#include "testutil.h"
#include "util/xmalloc.h"

/* The same entry is remembered the same however it is laid out; any
 * change to what would run is another entry. */
START_TEST(entry_follows_the_config_not_its_layout)
{
	json_t *x = json_loads("{\"command\": \"python3\", \"args\": "
	    "[\"s.py\"], \"env\": {\"A\": \"1\"}}", 0, NULL);
	json_t *y = json_loads("{\"env\":{\"A\":\"1\"},\"args\":[\"s.py\"],"
	    "\"command\":\"python3\"}", 0, NULL);
	json_t *z = json_loads("{\"command\": \"python3\", \"args\": "
	    "[\"s.py\", \"--x\"], \"env\": {\"A\": \"1\"}}", 0, NULL);
	json_t *w = json_loads("{\"command\": \"python3\", \"args\": "
	    "[\"s.py\"], \"env\": {\"A\": \"2\"}}", 0, NULL);
	char *a = mcpoffer_entry(x), *b = mcpoffer_entry(y);
	char *c = mcpoffer_entry(z), *d = mcpoffer_entry(w);

	ck_assert_str_eq(a, b);
	ck_assert_str_ne(a, c);
	ck_assert_str_ne(a, d);
	free(a);
	free(b);
	free(c);
	free(d);
	json_decref(x);
	json_decref(y);
	json_decref(z);
	json_decref(w);
}
END_TEST

/* An answer is kept by name and entry, replaced by a later one, and
 * outlives the store's closing. */
START_TEST(answers_are_kept_by_name_and_entry)
{
	char *dir = tu_tmpdir(), *err = NULL;
	struct store *s = tu_store_open(dir);

	ck_assert_int_eq(mcpoffer_get(s, "db", "d1"), MCPOFFER_NONE);
	ck_assert_int_eq(mcpoffer_set(s, "db", "d1", 0, &err), 0);
	ck_assert_int_eq(mcpoffer_set(s, "web", "d1", 1, &err), 0);
	ck_assert_int_eq(mcpoffer_get(s, "db", "d1"), MCPOFFER_REJECTED);
	ck_assert_int_eq(mcpoffer_get(s, "web", "d1"), MCPOFFER_APPROVED);
	/* Another configuration of the same name is a new question. */
	ck_assert_int_eq(mcpoffer_get(s, "db", "d2"), MCPOFFER_NONE);
	ck_assert_int_eq(mcpoffer_set(s, "db", "d1", 1, &err), 0);
	ck_assert_int_eq(mcpoffer_get(s, "db", "d1"), MCPOFFER_APPROVED);
	store_close(s);
	s = tu_store_open(dir);
	ck_assert_int_eq(mcpoffer_get(s, "db", "d1"), MCPOFFER_APPROVED);
	ck_assert_int_eq(mcpoffer_get(s, "web", "d1"), MCPOFFER_APPROVED);
	store_close(s);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

static Suite *
mcpoffer_suite(void)
{
	Suite *s = suite_create("mcpoffer");
	TCase *tc = tcase_create("mcpoffer");

		tcase_add_test(tc, entry_follows_the_config_not_its_layout);
	tcase_add_test(tc, answers_are_kept_by_name_and_entry);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(mcpoffer_suite());
}
