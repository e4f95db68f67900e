/*
 * Unit tests of agent/history: a stored transcript becomes a history the
 * Messages API accepts.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/history.h"
#include "testutil.h"

static json_t *
j(const char *text)
{
	json_error_t e;
	json_t *v = json_loads(text, 0, &e);

	ck_assert_msg(v != NULL, "%s: %s", text, e.text);
	return v;
}

static void
check(const char *transcript, size_t max, const char *want)
{
	json_t *t = j(transcript), *w = j(want), *got;
	char *s;

	got = history_build(t, max);
	s = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);
	ck_assert_msg(json_equal(got, w), "got %s", s);
	free(s);
	json_decref(got);
	json_decref(w);
	json_decref(t);
}

#define U(text) "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"" text "\"}]}"
#define A(text) "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"" text "\"}]}"
#define USE(id) "{\"type\":\"tool_use\",\"id\":\"" id "\",\"name\":\"bash\",\"input\":{}}"
#define RES(id) "{\"type\":\"tool_result\",\"tool_use_id\":\"" id "\",\"content\":\"ok\"}"
#define TXT(t) "{\"type\":\"text\",\"text\":\"" t "\"}"

START_TEST(consecutive_turns_merge_and_results_lead)
{
	check("[" U("a") "," U("b") ","
	    "{\"role\":\"assistant\",\"content\":[" TXT("x") "," USE("t1") "]},"
	    U("inbox") ","
	    "{\"role\":\"user\",\"content\":[" RES("t1") "]}]", 0,
	    "[{\"role\":\"user\",\"content\":[" TXT("a") "," TXT("b") "]},"
	    "{\"role\":\"assistant\",\"content\":[" TXT("x") "," USE("t1") "]},"
	    "{\"role\":\"user\",\"content\":[" RES("t1") "," TXT("inbox")
	    "]}]");
}
END_TEST

START_TEST(blank_text_and_empty_messages_go)
{
	check("[" U("hi") ",{\"role\":\"assistant\",\"content\":[" TXT("  ")
	    "]}," A("") "," U("again") ",{\"role\":\"user\",\"content\":"
	    "\"plain\"}]", 0,
	    "[{\"role\":\"user\",\"content\":[" TXT("hi") "," TXT("again") ","
	    TXT("plain") "]}]");
}
END_TEST

START_TEST(unanswered_calls_get_an_error_result)
{
	json_t *t = j("[" U("go") ",{\"role\":\"assistant\",\"content\":["
	    USE("t1") "," USE("t2") "]},{\"role\":\"user\",\"content\":["
	    RES("t2") "]}," A("done") "]");
	json_t *h = history_build(t, 0), *results;

	ck_assert_uint_eq(json_array_size(h), 4);
	results = json_object_get(json_array_get(h, 2), "content");
	ck_assert_uint_eq(json_array_size(results), 2);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    results, 0), "tool_use_id")), "t1");
	ck_assert(json_is_true(json_object_get(json_array_get(results, 0),
	    "is_error")));
	json_decref(h);
	json_decref(t);

	/* Ending on calls without results: a user turn is added. */
	t = j("[" U("go") ",{\"role\":\"assistant\",\"content\":[" USE("t9")
	    "]}]");
	h = history_build(t, 0);
	ck_assert_uint_eq(json_array_size(h), 3);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    json_object_get(json_array_get(h, 2), "content"), 0),
	    "tool_use_id")), "t9");
	json_decref(h);
	json_decref(t);
}
END_TEST

START_TEST(stray_results_are_dropped)
{
	check("[" U("go") ",{\"role\":\"user\",\"content\":[" RES("nope")
	    "]}," A("ok") "]", 0,
	    "[{\"role\":\"user\",\"content\":[" TXT("go") "]}," A("ok") "]");
}
END_TEST

START_TEST(it_starts_with_a_user_turn)
{
	check("[" A("hello") "," U("hi") "]", 0, "[" U("hi") "]");
	check("[]", 0, "[]");
}
END_TEST

START_TEST(the_window_never_splits_a_call_from_its_result)
{
	json_t *t = json_array(), *h, *first;
	char buf[64];
	int i;

	for (i = 0; i < 50; i++) {
		snprintf(buf, sizeof buf, "t%d", i);
		json_array_append_new(t, json_pack("{s:s, s:[{s:s, s:s}]}",
		    "role", "user", "content", "type", "text", "text",
		    "question"));
		json_array_append_new(t, json_pack("{s:s, s:[{s:s, s:s, s:s, "
		    "s:{}}]}", "role", "assistant", "content", "type",
		    "tool_use", "id", buf, "name", "bash", "input"));
		json_array_append_new(t, json_pack("{s:s, s:[{s:s, s:s, s:s}]}",
		    "role", "user", "content", "type", "tool_result",
		    "tool_use_id", buf, "content", "result"));
		json_array_append_new(t, json_pack("{s:s, s:[{s:s, s:s}]}",
		    "role", "assistant", "content", "type", "text", "text",
		    "answer"));
	}
	h = history_build(t, 2000);
	ck_assert_uint_gt(json_array_size(h), 0);
	ck_assert_uint_lt(json_array_size(h), json_array_size(t));
	first = json_array_get(h, 0);
	ck_assert_str_eq(json_string_value(json_object_get(first, "role")),
	    "user");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    json_object_get(first, "content"), 0), "type")), "text");
	json_decref(h);
	json_decref(t);
}
END_TEST

START_TEST(unanswered_lists_the_last_turns_calls)
{
	json_t *t = j("[" U("go") ",{\"role\":\"assistant\",\"content\":["
	    TXT("x") "," USE("a") "," USE("b") "]}]"), *u;

	u = history_unanswered(t);
	ck_assert_uint_eq(json_array_size(u), 2);
	json_decref(u);
	json_array_append_new(t, j("{\"role\":\"user\",\"content\":[" RES("a")
	    "," RES("b") "]}"));
	u = history_unanswered(t);
	ck_assert_uint_eq(json_array_size(u), 0);
	json_decref(u);
	json_decref(t);
}
END_TEST

static Suite *
history_suite(void)
{
	Suite *s = suite_create("history");
	TCase *tc = tcase_create("history");

	tcase_add_test(tc, consecutive_turns_merge_and_results_lead);
	tcase_add_test(tc, blank_text_and_empty_messages_go);
	tcase_add_test(tc, unanswered_calls_get_an_error_result);
	tcase_add_test(tc, stray_results_are_dropped);
	tcase_add_test(tc, it_starts_with_a_user_turn);
	tcase_add_test(tc, the_window_never_splits_a_call_from_its_result);
	tcase_add_test(tc, unanswered_lists_the_last_turns_calls);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(history_suite());
}
