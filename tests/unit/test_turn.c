/*
 * Unit tests of llm/turn: assembling an assistant message from deltas.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "llm/turn.h"
#include "testutil.h"
#include "util/xmalloc.h"

struct heard {
	char	text[256];
	int	tools;
};

static void
hear(void *ud, const struct llm_event *ev)
{
	struct heard *h = ud;

	if (ev->type == LLM_EV_TEXT)
		strncat(h->text, ev->text, ev->len);
	else if (ev->type == LLM_EV_TOOL)
		h->tools++;
}

static json_t *
expect(const char *text)
{
	json_error_t e;
	json_t *v = json_loads(text, 0, &e);

	ck_assert_msg(v != NULL, "%s", e.text);
	return v;
}

static void
check_message(struct llm_result *res, const char *want_json)
{
	json_t *want = expect(want_json);
	char *got = json_dumps(res->message, JSON_SORT_KEYS);

	ck_assert_msg(json_equal(res->message, want), "got %s", got);
	free(got);
	json_decref(want);
}

START_TEST(text_and_tools_assemble_in_order)
{
	struct heard h = { "", 0 };
	struct llm_turn *t = turn_new(hear, &h);
	struct llm_result res = { 0 };

	turn_text(t, 0, "Let me ", 7);
	turn_text(t, 0, "check.", 6);
	turn_tool_start(t, 1, "toolu_1", "bash");
	turn_tool_input(t, 1, "", 0);
	turn_tool_input(t, 1, "{\"comm", 6);
	turn_tool_input(t, 1, "and\": \"ls\"}", 11);
	turn_tool_start(t, 2, "toolu_2", "read_inbox");
	turn_stop_reason(t, "tool_use");
	turn_usage(t, &(struct llm_usage){ 100, 1, -1, -1, -1, -1, -1, -1,
	    -1 });
	turn_usage(t, &(struct llm_usage){ -1, 42, -1, -1, -1, -1, -1, -1,
	    -1 });
	ck_assert_int_eq(turn_finish(t, &res), 0);
	ck_assert_int_eq(res.status, LLM_OK);
	check_message(&res, "{\"role\":\"assistant\",\"content\":["
	    "{\"type\":\"text\",\"text\":\"Let me check.\"},"
	    "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"bash\","
	    "\"input\":{\"command\":\"ls\"}},"
	    "{\"type\":\"tool_use\",\"id\":\"toolu_2\",\"name\":\"read_inbox\","
	    "\"input\":{}}]}");
	ck_assert_str_eq(res.stop_reason, "tool_use");
	ck_assert_int_eq(res.usage.input, 100);
	ck_assert_int_eq(res.usage.output, 42);
	ck_assert_str_eq(h.text, "Let me check.");
	ck_assert_int_eq(h.tools, 2);
	turn_free(t);
	llm_result_clear(&res);
}
END_TEST

/* On a model that writes its words between tool calls in thinking: the
 * thinking block a call follows is reported as text, the others as
 * thinking, and every block is kept as it came. */
START_TEST(words_in_thinking_before_a_call_are_text)
{
	struct heard h = { "", 0 };
	struct llm_turn *t = turn_new(hear, &h);
	struct llm_result res = { 0 };
	json_t *start = json_pack("{s:s, s:s, s:s}", "type", "thinking",
	    "thinking", "", "signature", "");

	turn_words_in_thinking(t, 1);
	turn_block(t, 0, start);
	turn_thinking(t, 0, "Weighing it.", 12);
	turn_signature(t, 0, "s0", 2);
	turn_block(t, 1, start);
	turn_thinking(t, 1, "I write a.txt.", 14);
	turn_signature(t, 1, "s1", 2);
	ck_assert_str_eq(h.text, "");
	turn_tool_start(t, 2, "toolu_1", "bash");
	ck_assert_str_eq(h.text, "I write a.txt.");
	ck_assert_int_eq(turn_finish(t, &res), 0);
	check_message(&res, "{\"role\":\"assistant\",\"content\":["
	    "{\"type\":\"thinking\",\"thinking\":\"Weighing it.\","
	    "\"signature\":\"s0\"},"
	    "{\"type\":\"thinking\",\"thinking\":\"I write a.txt.\","
	    "\"signature\":\"s1\"},"
	    "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"bash\","
	    "\"input\":{}}]}");
	json_decref(start);
	turn_free(t);
	llm_result_clear(&res);
}
END_TEST

START_TEST(empty_text_is_left_out_and_default_stop_is_end_turn)
{
	struct llm_turn *t = turn_new(NULL, NULL);
	struct llm_result res = { 0 };

	turn_text(t, 0, "", 0);
	ck_assert_uint_eq(turn_block_count(t), 0);
	ck_assert_int_eq(turn_finish(t, &res), 0);
	check_message(&res, "{\"role\":\"assistant\",\"content\":[]}");
	ck_assert_str_eq(res.stop_reason, "end_turn");
	turn_free(t);
	llm_result_clear(&res);
}
END_TEST

START_TEST(reused_index_with_new_id_starts_a_new_call)
{
	struct llm_turn *t = turn_new(NULL, NULL);
	struct llm_result res = { 0 };

	turn_tool_start(t, 0, "call_a", "bash");
	turn_tool_input(t, 0, "{\"command\":\"a\"}", 15);
	turn_tool_start(t, 0, "call_a", "bash");	/* repeated: same call */
	turn_tool_start(t, 0, "call_b", "bash");
	turn_tool_input(t, 0, "{\"command\":\"b\"}", 15);
	ck_assert_int_eq(turn_finish(t, &res), 0);
	check_message(&res, "{\"role\":\"assistant\",\"content\":["
	    "{\"type\":\"tool_use\",\"id\":\"call_a\",\"name\":\"bash\","
	    "\"input\":{\"command\":\"a\"}},"
	    "{\"type\":\"tool_use\",\"id\":\"call_b\",\"name\":\"bash\","
	    "\"input\":{\"command\":\"b\"}}]}");
	turn_free(t);
	llm_result_clear(&res);
}
END_TEST

START_TEST(bad_tool_input_is_a_parse_error)
{
	static const char *const bad[] = { "{\"a\":", "[1,2]", "\"text\"" };
	size_t i;

	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct llm_turn *t = turn_new(NULL, NULL);
		struct llm_result res = { 0 };

		turn_tool_start(t, 0, "toolu_x", "bash");
		turn_tool_input(t, 0, bad[i], strlen(bad[i]));
		ck_assert_int_eq(turn_finish(t, &res), -1);
		ck_assert_int_eq(res.status, LLM_ERR_PARSE);
		ck_assert_ptr_null(res.message);
		ck_assert_ptr_nonnull(strstr(res.error_message, "toolu_x"));
		turn_free(t);
		llm_result_clear(&res);
	}
}
END_TEST

START_TEST(whole_input_is_taken_as_given)
{
	struct llm_turn *t = turn_new(NULL, NULL);
	struct llm_result res = { 0 };
	json_t *input = json_pack("{s:i}", "n", 3);

	turn_tool_start(t, 4, "toolu_4", "x");
	turn_tool_input_json(t, 4, input);
	json_decref(input);
	ck_assert_int_eq(turn_finish(t, &res), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(
	    json_array_get(json_object_get(res.message, "content"), 0),
	    "input"), "n")), 3);
	turn_free(t);
	llm_result_clear(&res);
}
END_TEST

static Suite *
turn_suite(void)
{
	Suite *s = suite_create("turn");
	TCase *tc = tcase_create("turn");

	tcase_add_test(tc, text_and_tools_assemble_in_order);
	tcase_add_test(tc, empty_text_is_left_out_and_default_stop_is_end_turn);
	tcase_add_test(tc, reused_index_with_new_id_starts_a_new_call);
	tcase_add_test(tc, bad_tool_input_is_a_parse_error);
	tcase_add_test(tc, whole_input_is_taken_as_given);
	tcase_add_test(tc, words_in_thinking_before_a_call_are_text);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(turn_suite());
}
