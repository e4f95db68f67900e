/*
 * Unit tests of mcp/elicit: the forms a server may ask, the form as the
 * person reads it, and the person's answer made content — defaults for
 * what they left out, every value checked against its field.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mcp/elicit.h"
#include "testutil.h"
#include "util/xmalloc.h"

/* The form of the specification's own defaults example, with a
 * required field without default and bounds added. */
static json_t *
form(void)
{
	json_t *p = json_loads("{\"message\": \"Who are you?\", "
	    "\"requestedSchema\": {\"type\": \"object\", \"properties\": {"
	    "\"name\": {\"type\": \"string\", \"description\": \"User name\", "
	    "\"default\": \"John Doe\", \"maxLength\": 10},"
	    "\"age\": {\"type\": \"integer\", \"default\": 30, \"minimum\": 0},"
	    "\"score\": {\"type\": \"number\", \"default\": 95.5},"
	    "\"status\": {\"type\": \"string\", \"enum\": [\"active\", "
	    "\"inactive\"], \"default\": \"active\"},"
	    "\"verified\": {\"type\": \"boolean\", \"default\": true},"
	    "\"tags\": {\"type\": \"array\", \"items\": {\"anyOf\": ["
	    "{\"const\": \"a\", \"title\": \"A\"}, {\"const\": \"b\"}]}},"
	    "\"team\": {\"type\": \"string\", \"title\": \"Your team\"}},"
	    "\"required\": [\"team\"]}}", 0, NULL);

	ck_assert_ptr_nonnull(p);
	return p;
}

/* The content of answer as compact JSON with sorted keys (malloc'd), or
 * NULL with *err. */
static char *
answer(json_t *p, const char *text, char **err)
{
	json_t *c = mcp_elicit_answer(p, text, err);
	char *s;

	if (c == NULL)
		return NULL;
	s = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(c);
	return s;
}

/* Answers that must be refused, each with the word its sentence must
 * hold. */
static void
refused(json_t *p, const char *text, const char *word)
{
	char *err = NULL, *got = answer(p, text, &err);

	ck_assert_msg(got == NULL, "\"%s\" was taken: %s", text, got);
	ck_assert_msg(strstr(err, word) != NULL, "\"%s\": \"%s\" lacks "
	    "\"%s\"", text, err, word);
	free(err);
}

START_TEST(defaults_fill_what_the_person_leaves_out)
{
	json_t *p = form();
	char *err = NULL, *got;

	got = answer(p, "team=red", &err);
	ck_assert_str_eq(got, "{\"age\":30,\"name\":\"John Doe\","
	    "\"score\":95.5,\"status\":\"active\",\"team\":\"red\","
	    "\"verified\":true}");
	free(got);
	/* Pairs by ';' or line, typed by their fields; a JSON object the
	 * same. */
	got = answer(p, " team = blue ;age=41\nverified=no; tags=a, b\n",
	    &err);
	ck_assert_str_eq(got, "{\"age\":41,\"name\":\"John Doe\","
	    "\"score\":95.5,\"status\":\"active\",\"tags\":[\"a\",\"b\"],"
	    "\"team\":\"blue\",\"verified\":false}");
	free(got);
	got = answer(p, "{\"team\": \"x\", \"score\": 1, \"status\": "
	    "\"inactive\"}", &err);
	ck_assert_str_eq(got, "{\"age\":30,\"name\":\"John Doe\","
	    "\"score\":1,\"status\":\"inactive\",\"team\":\"x\","
	    "\"verified\":true}");
	free(got);
	json_decref(p);
}
END_TEST

START_TEST(answers_that_do_not_fit_are_refused)
{
	json_t *p = form();

	refused(p, "", "team is required");
	refused(p, NULL, "team is required");
	refused(p, "team=r; age=old", "whole number");
	refused(p, "team=r; age=-1", "out of its range");
	refused(p, "team=r; name=abcdefghijk", "too many");
	refused(p, "team=r; status=gone", "one of active, inactive");
	refused(p, "team=r; tags=a,c", "any of a, b");
	refused(p, "team=r; verified=maybe", "true or false");
	refused(p, "team=r; colour=blue", "no field \"colour\"");
	refused(p, "team", "not name=value");
	refused(p, "{\"team\": 3}", "team must be text");
	refused(p, "{\"team\": \"r\", \"x\": 1}", "no field \"x\"");
	refused(p, "{\"team\": ", "not a JSON object");
	json_decref(p);
}
END_TEST

START_TEST(the_form_reads_as_questions)
{
	json_t *p = form();
	char *text = mcp_elicit_form(p);

	ck_assert_msg(strncmp(text, "Who are you?\n", 13) == 0, "%s", text);
	ck_assert_ptr_nonnull(strstr(text, "name (text, optional; default "
	    "\"John Doe\"): User name\n"));
	ck_assert_ptr_nonnull(strstr(text, "age (a whole number, optional; "
	    "default 30)\n"));
	ck_assert_ptr_nonnull(strstr(text, "status (one of active, inactive, "
	    "optional; default \"active\")\n"));
	ck_assert_ptr_nonnull(strstr(text, "tags (any of a, b, separated by "
	    "',', optional)\n"));
	ck_assert_ptr_nonnull(strstr(text, "team (text, required): Your "
	    "team\n"));
	free(text);
	json_decref(p);
}
END_TEST

START_TEST(forms_huddle_cannot_show_are_named)
{
	static const char *const bad[] = {
		"{\"message\": \"m\", \"mode\": \"url\", \"url\": \"https://x\"}",
		"{\"requestedSchema\": {\"properties\": {}}}",
		"{\"message\": \"m\", \"requestedSchema\": {\"properties\": {"
		    "\"x\": {\"type\": \"object\"}}}}",
		"{\"message\": \"m\", \"requestedSchema\": {\"properties\": {"
		    "\"x\": {\"type\": \"string\", \"enum\": [1, 2]}}}}",
		NULL
	};
	json_t *p;
	char *err = NULL, *big;
	size_t i;

	for (i = 0; bad[i] != NULL; i++) {
		p = json_loads(bad[i], 0, NULL);
		ck_assert_ptr_nonnull(p);
		ck_assert_int_eq(mcp_elicit_check(p, &err), -1);
		ck_assert_ptr_nonnull(err);
		free(err);
		err = NULL;
		ck_assert_ptr_null(mcp_elicit_answer(p, "", &err));
		free(err);
		err = NULL;
		json_decref(p);
	}
	p = form();
	ck_assert_int_eq(mcp_elicit_check(p, &err), 0);
	/* A form is a few short questions: a long message, title or
	 * choice list is refused before anyone sees it. */
	big = xmalloc(5000);
	memset(big, 'm', 4999);
	big[4999] = '\0';
	json_object_set_new(p, "message", json_string(big));
	ck_assert_int_eq(mcp_elicit_check(p, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "message is longer"));
	free(err);
	json_object_set_new(p, "message", json_string("m"));
	json_object_set_new(json_object_get(json_object_get(json_object_get(
	    p, "requestedSchema"), "properties"), "team"), "title",
	    json_string(big));
	ck_assert_int_eq(mcp_elicit_check(p, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "\"team\" is too large"));
	free(err);
	free(big);
	json_decref(p);
}
END_TEST

static Suite *
elicit_suite(void)
{
	Suite *s = suite_create("elicit");
	TCase *tc = tcase_create("elicit");

	tcase_add_test(tc, defaults_fill_what_the_person_leaves_out);
	tcase_add_test(tc, answers_that_do_not_fit_are_refused);
	tcase_add_test(tc, the_form_reads_as_questions);
	tcase_add_test(tc, forms_huddle_cannot_show_are_named);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(elicit_suite());
}
