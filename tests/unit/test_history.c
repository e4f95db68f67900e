/*
 * Unit tests of agent/history: a stored transcript becomes a history the
 * Messages API accepts.
 */
#include "config.h"

#include <stdio.h>
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
check(const char *transcript, const char *want)
{
	json_t *t = j(transcript), *w = j(want), *got;
	char *s;

	got = history_build(t);
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
	    "{\"role\":\"user\",\"content\":[" RES("t1") "]}]",
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
	    "\"plain\"}]",
	    "[{\"role\":\"user\",\"content\":[" TXT("hi") "," TXT("again") ","
	    TXT("plain") "]}]");
}
END_TEST

START_TEST(unanswered_calls_get_an_error_result)
{
	json_t *t = j("[" U("go") ",{\"role\":\"assistant\",\"content\":["
	    USE("t1") "," USE("t2") "]},{\"role\":\"user\",\"content\":["
	    RES("t2") "]}," A("done") "]");
	json_t *h = history_build(t), *results;

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
	h = history_build(t);
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
	    "]}," A("ok") "]",
	    "[{\"role\":\"user\",\"content\":[" TXT("go") "]}," A("ok") "]");
}
END_TEST

START_TEST(it_starts_with_a_user_turn)
{
	check("[" A("hello") "," U("hi") "]", "[" U("hi") "]");
	check("[]", "[]");
}
END_TEST

/* Whether history `a` is a prefix of history `b`: every message of a but
 * the last is in b unchanged, and a's last message starts b's message at
 * that place (more user entries may have joined it). */
static int
is_prefix(json_t *a, json_t *b)
{
	size_t n = json_array_size(a), i, k;
	json_t *la, *lb;

	if (n == 0)
		return 1;
	if (json_array_size(b) < n)
		return 0;
	for (i = 0; i + 1 < n; i++) {
		if (!json_equal(json_array_get(a, i), json_array_get(b, i)))
			return 0;
	}
	la = json_array_get(a, n - 1);
	lb = json_array_get(b, n - 1);
	if (!json_equal(json_object_get(la, "role"), json_object_get(lb,
	    "role")))
		return 0;
	la = json_object_get(la, "content");
	lb = json_object_get(lb, "content");
	if (json_array_size(lb) < json_array_size(la))
		return 0;
	for (k = 0; k < json_array_size(la); k++) {
		if (!json_equal(json_array_get(la, k), json_array_get(lb, k)))
			return 0;
	}
	return 1;
}

/* An assistant reply of today's models: thinking, maybe text, maybe
 * calls (ids from *next). */
static json_t *
random_reply(unsigned *seed, int *next, int *calls)
{
	json_t *content = json_array();
	int k, n;
	char id[32];

	if (rand_r(seed) % 4 != 0)
		json_array_append_new(content, json_pack("{s:s, s:s, s:s}",
		    "type", "thinking", "thinking", "hmm", "signature",
		    "sig"));
	if (rand_r(seed) % 5 == 0)
		json_array_append_new(content, json_pack("{s:s, s:s}",
		    "type", "redacted_thinking", "data", "opaque"));
	switch (rand_r(seed) % 3) {
	case 0:
		json_array_append_new(content, json_pack("{s:s, s:s}",
		    "type", "text", "text", "Working."));
		break;
	case 1:
		json_array_append_new(content, json_pack("{s:s, s:s}",
		    "type", "text", "text", " "));
		break;
	}
	n = (int)(rand_r(seed) % 3);
	for (k = 0; k < n; k++) {
		snprintf(id, sizeof id, "toolu_%d", (*next)++);
		json_array_append_new(content, json_pack("{s:s, s:s, s:s, "
		    "s:{}}", "type", "tool_use", "id", id, "name", "bash",
		    "input"));
	}
	*calls = n;
	return json_pack("{s:s, s:o}", "role", "assistant", "content",
	    content);
}

/*
 * The history is append-only: an agent's transcript grows the way the
 * agent loop grows it (messages, replies, tool results, messages taken in
 * between), and at every point where a request is made its history starts
 * with the history of the request before. Random runs, many seeds.
 */
START_TEST(each_request_extends_the_one_before)
{
	unsigned seed;

	for (seed = 1; seed <= 60; seed++) {
		unsigned s = seed;
		json_t *t = json_array(), *prev = NULL, *h;
		int next = 0, step, pending = 0, requests = 0;

		for (step = 0; step < 40; step++) {
			int r = (int)(rand_r(&s) % 10), k;

			if (pending > 0) {
				/* The calls of the last reply are answered,
				 * maybe with a message taken in between (the
				 * read_inbox tool records it first). */
				json_t *results = json_array();

				if (r == 0)
					json_array_append_new(t, j(U("inbox")));
				for (k = pending; k > 0; k--) {
					char id[32];

					snprintf(id, sizeof id, "toolu_%d",
					    next - k);
					json_array_append_new(results, json_pack(
					    "{s:s, s:s, s:s}", "type",
					    "tool_result", "tool_use_id", id,
					    "content", "ok"));
				}
				json_array_append_new(t, json_pack("{s:s, s:o}",
				    "role", "user", "content", results));
				pending = 0;
				if (r == 1)
					json_array_append_new(t, j(U("later")));
			} else if (r < 4 || json_array_size(t) == 0 ||
			    strcmp(json_string_value(json_object_get(
			    json_array_get(t, json_array_size(t) - 1),
			    "role")), "assistant") == 0)
				json_array_append_new(t, j(U("message")));
			/* A request; most get a reply, some fail. */
			h = history_build(t);
			if (prev != NULL)
				ck_assert_msg(is_prefix(prev, h), "seed %u step "
				    "%d: request %d rewrote history", seed,
				    step, requests);
			json_decref(prev);
			prev = h;
			requests++;
			if (rand_r(&s) % 8 != 0)
				json_array_append_new(t, random_reply(&s,
				    &next, &pending));
		}
		json_decref(prev);
		json_decref(t);
	}
}
END_TEST

START_TEST(thinking_and_unknown_blocks_go_back_unchanged)
{
#define THINK "{\"type\":\"thinking\",\"thinking\":\"  \",\"signature\":\"s\"}"
#define OTHER "{\"type\":\"future\",\"x\":[1,{}]}"

	check("[" U("go") ",{\"role\":\"assistant\",\"content\":[" THINK
	    "," OTHER "," TXT("x") "," USE("t1") "]},{\"role\":\"user\","
	    "\"content\":[" RES("t1") "]}]",
	    "[" U("go") ",{\"role\":\"assistant\",\"content\":[" THINK
	    "," OTHER "," TXT("x") "," USE("t1") "]},{\"role\":\"user\","
	    "\"content\":[" RES("t1") "]}]");
#undef THINK
#undef OTHER
}
END_TEST

START_TEST(a_client_compaction_starts_the_view)
{
	long block;
	json_t *t;

	/* The view starts at the last entry huddle marked compacted; the
	 * mark itself is never sent. */
	check("[" U("task") "," A("one") "," U("summary one") "," A("two") ","
	    "{\"role\":\"user\",\"content\":[{\"type\":\"text\","
	    "\"text\":\"summary two\"}],\"compaction\":{\"kind\":"
	    "\"client\"}}," A("three") "," U("go on") "]",
	    "[" U("summary two") "," A("three") "," U("go on") "]");
	t = j("[" U("a") ",{\"role\":\"user\",\"content\":[],"
	    "\"compaction\":{}}]");
	ck_assert_uint_eq(history_view_start(t, &block), 1);
	ck_assert_int_eq(block, -1);
	json_decref(t);
}
END_TEST

START_TEST(a_server_compaction_block_starts_the_view)
{
	long block;
	json_t *t;

	/* The API ignores what comes before its compaction block, the
	 * blocks before it in the same reply too: they are left out, and
	 * the view may then start with the assistant's reply. */
	check("[" U("task") "," A("one") "," U("more") ","
	    "{\"role\":\"assistant\",\"content\":["
	    "{\"type\":\"text\",\"text\":\"before\"},"
	    "{\"type\":\"compaction\",\"content\":\"S\"},"
	    "{\"type\":\"thinking\",\"thinking\":\"t\","
	    "\"signature\":\"x\"},"
	    "{\"type\":\"text\",\"text\":\"after\"}]}," U("next") "]",
	    "[{\"role\":\"assistant\",\"content\":["
	    "{\"type\":\"compaction\",\"content\":\"S\"},"
	    "{\"type\":\"thinking\",\"thinking\":\"t\","
	    "\"signature\":\"x\"},"
	    "{\"type\":\"text\",\"text\":\"after\"}]}," U("next") "]");
	t = j("[" U("a") ",{\"role\":\"assistant\",\"content\":["
	    "{\"type\":\"text\",\"text\":\"b\"},{\"type\":"
	    "\"compaction\",\"content\":\"S\"}]}]");
	ck_assert_uint_eq(history_view_start(t, &block), 1);
	ck_assert_int_eq(block, 1);
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
	tcase_add_test(tc, each_request_extends_the_one_before);
	tcase_add_test(tc, thinking_and_unknown_blocks_go_back_unchanged);
	tcase_add_test(tc, unanswered_lists_the_last_turns_calls);
	tcase_add_test(tc, a_client_compaction_starts_the_view);
	tcase_add_test(tc, a_server_compaction_block_starts_the_view);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(history_suite());
}
