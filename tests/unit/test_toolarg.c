/*
 * Unit tests of agent/toolarg.c: reading one field of a tool call's
 * input — present, missing (required or not), null, or of the wrong
 * type — with the tool error the model reads.
 */
#include "config.h"

#include <string.h>

#include "agent/toolarg.h"
#include "testutil.h"
#include "tools/tool.h"

/* Checks that o is a tool error whose text holds want, and clears it. */
static void
expect_error(struct tool_output *o, const char *want)
{
	ck_assert(o->is_error);
	ck_assert_ptr_nonnull(o->text);
	ck_assert_msg(strstr(o->text, want) != NULL, "'%s' lacks '%s'",
	    o->text, want);
	tool_output_clear(o);
}

START_TEST(strings)
{
	json_t *in = json_pack("{s:s, s:i, s:n, s:s}", "path", "a.c", "n", 3,
	    "nil", "empty", "");
	struct tool_output o = { 0 };
	const char *v = "unset";

	ck_assert_int_eq(toolarg_str(in, "path", 1, &v, &o), 0);
	ck_assert_str_eq(v, "a.c");
	ck_assert(!o.is_error && o.text == NULL);
	ck_assert_int_eq(toolarg_str(in, "empty", 1, &v, &o), 0);
	ck_assert_str_eq(v, "");

	/* Missing or null: NULL when optional, an error when required. */
	v = "unset";
	ck_assert_int_eq(toolarg_str(in, "other", 0, &v, &o), 0);
	ck_assert_ptr_null(v);
	v = "unset";
	ck_assert_int_eq(toolarg_str(in, "nil", 0, &v, &o), 0);
	ck_assert_ptr_null(v);
	ck_assert(!o.is_error);
	ck_assert_int_eq(toolarg_str(in, "other", 1, &v, &o), -1);
	expect_error(&o, "missing required field 'other' (a string)");
	ck_assert_int_eq(toolarg_str(in, "nil", 1, &v, &o), -1);
	expect_error(&o, "missing required field 'nil'");

	/* Of the wrong type, required or not. */
	ck_assert_int_eq(toolarg_str(in, "n", 0, &v, &o), -1);
	ck_assert_ptr_null(v);
	expect_error(&o, "field 'n' must be a string");
	json_decref(in);
}
END_TEST

START_TEST(booleans)
{
	json_t *in = json_pack("{s:b, s:b, s:s, s:i, s:n}", "yes", 1, "no", 0,
	    "word", "true", "one", 1, "nil");
	struct tool_output o = { 0 };
	int v = 7;

	ck_assert_int_eq(toolarg_bool(in, "yes", 1, &v, &o), 0);
	ck_assert_int_eq(v, 1);
	ck_assert_int_eq(toolarg_bool(in, "no", 1, &v, &o), 0);
	ck_assert_int_eq(v, 0);

	/* A missing optional one leaves the default. */
	v = 7;
	ck_assert_int_eq(toolarg_bool(in, "other", 0, &v, &o), 0);
	ck_assert_int_eq(toolarg_bool(in, "nil", 0, &v, &o), 0);
	ck_assert_int_eq(v, 7);
	ck_assert(!o.is_error);
	ck_assert_int_eq(toolarg_bool(in, "other", 1, &v, &o), -1);
	expect_error(&o, "missing required field 'other' (true or false)");

	/* "true" and 1 are not booleans. */
	ck_assert_int_eq(toolarg_bool(in, "word", 0, &v, &o), -1);
	expect_error(&o, "field 'word' must be true or false");
	ck_assert_int_eq(toolarg_bool(in, "one", 1, &v, &o), -1);
	expect_error(&o, "field 'one' must be true or false");
	ck_assert_int_eq(v, 7);
	json_decref(in);
}
END_TEST

START_TEST(whole_numbers)
{
	json_t *in = json_pack("{s:i, s:i, s:i, s:f, s:s, s:n}", "ten", 10,
	    "zero", 0, "neg", -1, "real", 1.5, "word", "3", "nil");
	struct tool_output o = { 0 };
	long v = 42;

	ck_assert_int_eq(toolarg_int(in, "ten", &v, &o), 0);
	ck_assert_int_eq(v, 10);
	ck_assert_int_eq(toolarg_int(in, "zero", &v, &o), 0);
	ck_assert_int_eq(v, 0);
	v = 42;
	ck_assert_int_eq(toolarg_int(in, "other", &v, &o), 0);
	ck_assert_int_eq(toolarg_int(in, "nil", &v, &o), 0);
	ck_assert_int_eq(v, 42);
	ck_assert(!o.is_error);
	ck_assert_int_eq(toolarg_int(in, "neg", &v, &o), -1);
	expect_error(&o, "field 'neg' must be a whole number >= 0");
	ck_assert_int_eq(toolarg_int(in, "real", &v, &o), -1);
	expect_error(&o, "field 'real' must be a whole number");
	ck_assert_int_eq(toolarg_int(in, "word", &v, &o), -1);
	expect_error(&o, "field 'word'");
	ck_assert_int_eq(v, 42);
	json_decref(in);
}
END_TEST

START_TEST(input_that_is_no_object_lacks_every_field)
{
	json_t *in = json_pack("[s]", "path");
	struct tool_output o = { 0 };
	const char *s = "unset";

	ck_assert_int_eq(toolarg_str(in, "path", 1, &s, &o), -1);
	expect_error(&o, "missing required field 'path'");
	ck_assert_int_eq(toolarg_str(NULL, "path", 0, &s, &o), 0);
	ck_assert_ptr_null(s);
	json_decref(in);
}
END_TEST

static Suite *
toolarg_suite(void)
{
	Suite *s = suite_create("toolarg");
	TCase *tc = tcase_create("toolarg");

	tcase_add_test(tc, strings);
	tcase_add_test(tc, booleans);
	tcase_add_test(tc, whole_numbers);
	tcase_add_test(tc, input_that_is_no_object_lacks_every_field);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(toolarg_suite());
}
