/*
 * Unit tests of llm/responses: the Responses API request built from a
 * Messages-API conversation (stateless, reasoning items passed back
 * unchanged before what followed them), a streamed reply read back into
 * an assistant message that keeps its reasoning item whole, a whole
 * reply, and errors.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "llm/provider.h"
#include "llm/turn.h"
#include "testutil.h"
#include "util/xmalloc.h"

/* What a turn reported while it was fed. */
struct seen {
	char	text[256];
	char	thinking[256];
	int	tools;
};

static void
append(char *buf, size_t size, const char *s, size_t len)
{
	size_t n = strlen(buf);

	ck_assert_uint_lt(n + len, size);
	memcpy(buf + n, s, len);
	buf[n + len] = '\0';
}

static void
record(void *ud, const struct llm_event *ev)
{
	struct seen *s = ud;

	if (ev->type == LLM_EV_TEXT)
		append(s->text, sizeof s->text, ev->text, ev->len);
	else if (ev->type == LLM_EV_THINKING)
		append(s->thinking, sizeof s->thinking, ev->text, ev->len);
	else if (ev->type == LLM_EV_TOOL)
		s->tools++;
}

static void
config(struct llm_config *c, int stream)
{
	memset(c, 0, sizeof *c);
	c->provider = LLM_RESPONSES;
	c->base_url = "http://127.0.0.1:1/v1";
	c->api_key = "sk-test";
	c->model = "gpt-5.4";
	c->max_tokens = 4096;
	c->stream = stream;
	c->reasons = 1;
	c->reasoning_effort = "medium";
}

/* The reasoning item a model sent, as huddle keeps it. */
#define ITEM "{\"type\":\"reasoning\",\"id\":\"rs_1\",\"summary\":[]," \
	"\"encrypted_content\":\"gAAA-opaque\"}"

START_TEST(body_is_stateless_and_passes_reasoning_back)
{
	struct llm_request req = { .system = "Be brief.", .tool_choice = NULL };
	struct llm_config c;
	json_t *got, *input;
	char *s;

	config(&c, 1);
	req.messages = tu_json(
	    "[{\"role\":\"user\",\"content\":\"Write a.txt\"},"
	    " {\"role\":\"assistant\",\"content\":["
	    "  {\"type\":\"openai_reasoning\",\"item\":" ITEM "},"
	    "  {\"type\":\"text\",\"text\":\"Writing.\",\"item_id\":\"msg_1\"},"
	    "  {\"type\":\"tool_use\",\"id\":\"call_1\",\"name\":\"write\","
	    "   \"input\":{\"path\":\"a.txt\"},\"item_id\":\"fc_1\"}]},"
	    " {\"role\":\"user\",\"content\":["
	    "  {\"type\":\"tool_result\",\"tool_use_id\":\"call_1\","
	    "   \"content\":\"done\"}]}]");
	req.tools = tu_json("[{\"name\":\"write\",\"description\":\"Write\","
	    "\"input_schema\":{\"type\":\"object\"}}]");
	s = provider_responses.body(&c, &req);
	got = tu_json(s);
	free(s);
	ck_assert(json_is_false(json_object_get(got, "store")));
	tu_json_check(json_object_get(got, "include"),
	    "[\"reasoning.encrypted_content\"]");
	tu_json_check(json_object_get(got, "instructions"), "\"Be brief.\"");
	tu_json_check(json_object_get(got, "max_output_tokens"), "4096");
	tu_json_check(json_object_get(got, "tools"),
	    "[{\"type\":\"function\",\"name\":\"write\",\"strict\":false,"
	    "\"description\":\"Write\",\"parameters\":{\"type\":\"object\"}}]");
	tu_json_check(json_object_get(got, "tool_choice"), "\"auto\"");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
	    got, "reasoning"), "effort")), "medium");
	/* The reasoning item first, exactly as received, then what
	 * followed it, then the tool's output. */
	input = json_object_get(got, "input");
	ck_assert_uint_eq(json_array_size(input), 5);
	tu_json_check(json_array_get(input, 1), ITEM);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    input, 2), "id")), "msg_1");
	tu_json_check(json_object_get(json_array_get(input, 2), "content"),
	    "[{\"type\":\"output_text\",\"text\":\"Writing.\","
	    "\"annotations\":[]}]");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    input, 3), "type")), "function_call");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    input, 3), "call_id")), "call_1");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    input, 4), "type")), "function_call_output");
	json_decref(got);

	/* A summary request forbids tools. */
	req.tool_choice = "none";
	s = provider_responses.body(&c, &req);
	got = tu_json(s);
	free(s);
	tu_json_check(json_object_get(got, "tool_choice"), "\"none\"");
	json_decref(got);

	/* A model that does not reason (gpt-4.1) is asked for no reasoning:
	 * it refuses the include and an effort on every call. */
	c.model = "gpt-4.1";
	c.reasons = 0;
	s = provider_responses.body(&c, &req);
	got = tu_json(s);
	free(s);
	ck_assert_ptr_null(json_object_get(got, "include"));
	ck_assert_ptr_null(json_object_get(got, "reasoning"));
	json_decref(got);
	json_decref(req.messages);
	json_decref(req.tools);
}
END_TEST

START_TEST(result_images_go_in_the_function_call_output)
{
	struct llm_request req = { .system = NULL };
	struct llm_config c;
	json_t *got;
	char *s;

	/* An output with images is a list: the text (an error's with its
	 * prefix), then each image as a data URL; one without stays a
	 * string. */
	config(&c, 1);
	req.messages = tu_json(
	    "[{\"role\":\"user\",\"content\":\"Look.\"},"
	    " {\"role\":\"assistant\",\"content\":["
	    "  {\"type\":\"tool_use\",\"id\":\"call_1\",\"name\":\"shot\","
	    "   \"input\":{}},"
	    "  {\"type\":\"tool_use\",\"id\":\"call_2\",\"name\":\"ls\","
	    "   \"input\":{}}]},"
	    " {\"role\":\"user\",\"content\":["
	    "  {\"type\":\"tool_result\",\"tool_use_id\":\"call_1\","
	    "   \"content\":[{\"type\":\"text\",\"text\":\"a shot\"},"
	    "    {\"type\":\"image\",\"source\":{\"type\":\"base64\","
	    "     \"media_type\":\"image/webp\",\"data\":\"UklGRg==\"}}],"
	    "   \"is_error\":true},"
	    "  {\"type\":\"tool_result\",\"tool_use_id\":\"call_2\","
	    "   \"content\":[{\"type\":\"text\",\"text\":\"a.c\"}]}]}]");
	s = provider_responses.body(&c, &req);
	got = tu_json(s);
	free(s);
	tu_json_check(json_object_get(got, "input"),
	    "[{\"type\":\"message\",\"role\":\"user\",\"content\":"
	    "  [{\"type\":\"input_text\",\"text\":\"Look.\"}]},"
	    " {\"type\":\"function_call\",\"call_id\":\"call_1\","
	    "  \"name\":\"shot\",\"arguments\":\"{}\"},"
	    " {\"type\":\"function_call\",\"call_id\":\"call_2\","
	    "  \"name\":\"ls\",\"arguments\":\"{}\"},"
	    " {\"type\":\"function_call_output\",\"call_id\":\"call_1\","
	    "  \"output\":[{\"type\":\"input_text\","
	    "   \"text\":\"Error: a shot\"},"
	    "   {\"type\":\"input_image\","
	    "    \"image_url\":\"data:image/webp;base64,UklGRg==\"}]},"
	    " {\"type\":\"function_call_output\",\"call_id\":\"call_2\","
	    "  \"output\":\"a.c\"}]");
	json_decref(got);
	json_decref(req.messages);
}
END_TEST

static int
event(struct llm_turn *t, const char *data, struct llm_result *res)
{
	return provider_responses.stream_event(t, "message", data,
	    strlen(data), res);
}

START_TEST(a_stream_keeps_the_reasoning_item_whole)
{
	static const char *events[] = {
	    "{\"type\":\"response.created\",\"response\":{\"id\":\"r1\"}}",
	    "{\"type\":\"response.output_item.added\",\"output_index\":0,"
	    " \"item\":{\"type\":\"reasoning\",\"id\":\"rs_1\"}}",
	    "{\"type\":\"response.reasoning_summary_text.delta\","
	    " \"output_index\":0,\"delta\":\"Plan: write.\"}",
	    "{\"type\":\"response.output_item.done\",\"output_index\":0,"
	    " \"item\":" ITEM "}",
	    "{\"type\":\"response.output_item.added\",\"output_index\":1,"
	    " \"item\":{\"type\":\"message\",\"id\":\"msg_1\"}}",
	    "{\"type\":\"response.output_text.delta\",\"output_index\":1,"
	    " \"delta\":\"Writ\"}",
	    "{\"type\":\"response.output_text.delta\",\"output_index\":1,"
	    " \"delta\":\"ing.\"}",
	    "{\"type\":\"response.output_item.done\",\"output_index\":1,"
	    " \"item\":{\"type\":\"message\",\"id\":\"msg_1\",\"content\":"
	    " [{\"type\":\"output_text\",\"text\":\"Writing.\"}]}}",
	    "{\"type\":\"response.function_call_arguments.delta\","
	    " \"output_index\":2,\"delta\":\"{\\\"pa\"}",
	    "{\"type\":\"response.output_item.done\",\"output_index\":2,"
	    " \"item\":{\"type\":\"function_call\",\"id\":\"fc_1\","
	    " \"call_id\":\"call_1\",\"name\":\"write\","
	    " \"arguments\":\"{\\\"path\\\":\\\"a.txt\\\"}\"}}",
	    NULL };
	struct seen seen = { "", "", 0 };
	struct llm_result res = { 0 };
	struct llm_turn *t = turn_new(record, &seen);
	json_t *content;
	size_t i;

	for (i = 0; events[i] != NULL; i++)
		ck_assert_int_eq(event(t, events[i], &res), PROVIDER_MORE);
	ck_assert_int_eq(event(t, "{\"type\":\"response.completed\","
	    "\"response\":{\"status\":\"completed\",\"output\":["
	    "{\"type\":\"function_call\"}],\"usage\":{\"input_tokens\":"
	    "1000,\"output_tokens\":50,\"input_tokens_details\":"
	    "{\"cached_tokens\":800}}}}", &res), PROVIDER_DONE);
	ck_assert_int_eq(turn_finish(t, &res), 0);
	ck_assert_int_eq(res.status, LLM_OK);
	ck_assert_str_eq(seen.text, "Writing.");
	ck_assert_str_eq(seen.thinking, "Plan: write.");
	ck_assert_int_eq(seen.tools, 1);
	ck_assert_str_eq(res.stop_reason, "tool_use");
	content = json_object_get(res.message, "content");
	ck_assert_uint_eq(json_array_size(content), 3);
	tu_json_check(json_object_get(json_array_get(content, 0), "item"),
	    ITEM);
	tu_json_check(json_array_get(content, 1), "{\"type\":\"text\","
	    "\"text\":\"Writing.\",\"item_id\":\"msg_1\"}");
	tu_json_check(json_object_get(json_array_get(content, 2), "input"),
	    "{\"path\":\"a.txt\"}");
	/* The cached part of the input is a cache read, as on Messages. */
	ck_assert_int_eq(res.usage.input, 200);
	ck_assert_int_eq(res.usage.cache_read, 800);
	ck_assert_int_eq(res.usage.output, 50);
	turn_free(t);
	llm_result_clear(&res);
}
END_TEST

START_TEST(errors_are_the_servers)
{
	struct seen seen = { "", "", 0 };
	struct llm_result res = { 0 };
	struct llm_turn *t = turn_new(record, &seen);
	const char *body = "{\"error\":{\"message\":\"Item 'rs_1' of type "
	    "'reasoning' was provided without its required following item.\","
	    "\"type\":\"invalid_request_error\",\"code\":null}}";

	ck_assert_int_eq(event(t, "{\"type\":\"response.failed\",\"response\":"
	    "{\"error\":{\"code\":\"server_error\",\"message\":\"boom\"}}}",
	    &res), PROVIDER_FAIL);
	ck_assert_str_eq(res.error_type, "server_error");
	ck_assert_str_eq(res.error_message, "boom");
	llm_result_clear(&res);
	ck_assert_int_eq(event(t, "not json", &res), PROVIDER_FAIL);
	ck_assert_ptr_nonnull(strstr(res.error_message, "not json"));
	llm_result_clear(&res);
	provider_responses.parse_error(body, strlen(body), &res);
	ck_assert_ptr_nonnull(strstr(res.error_message, "rs_1"));
	llm_result_clear(&res);
	turn_free(t);
}
END_TEST

START_TEST(a_whole_reply_reads_the_same)
{
	const char *body = "{\"status\":\"completed\",\"output\":["
	    ITEM ",{\"type\":\"message\",\"id\":\"msg_2\",\"content\":["
	    "{\"type\":\"output_text\",\"text\":\"Done.\"}]}],"
	    "\"usage\":{\"input_tokens\":10,\"output_tokens\":2}}";
	struct seen seen = { "", "", 0 };
	struct llm_result res = { 0 };
	struct llm_turn *t = turn_new(record, &seen);
	struct llm_config c;

	config(&c, 0);
	ck_assert_int_eq(provider_responses.parse_body(t, body, strlen(body),
	    &res), 0);
	ck_assert_int_eq(turn_finish(t, &res), 0);
	ck_assert_str_eq(res.stop_reason, "end_turn");
	ck_assert_uint_eq(json_array_size(json_object_get(res.message,
	    "content")), 2);
	ck_assert_int_eq(res.usage.input, 10);
	turn_free(t);
	llm_result_clear(&res);
}
END_TEST

static Suite *
responses_suite(void)
{
	Suite *s = suite_create("responses");
	TCase *tc = tcase_create("responses");

	tcase_add_test(tc, body_is_stateless_and_passes_reasoning_back);
	tcase_add_test(tc, result_images_go_in_the_function_call_output);
	tcase_add_test(tc, a_stream_keeps_the_reasoning_item_whole);
	tcase_add_test(tc, errors_are_the_servers);
	tcase_add_test(tc, a_whole_reply_reads_the_same);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(responses_suite());
}
