/*
 * Unit tests of the Anthropic provider: the request body, a recorded
 * stream re-fed at random chunk boundaries through the SSE parser, whole
 * replies, error events and error bodies.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "llm/provider.h"
#include "llm/sse.h"
#include "testutil.h"
#include "util/xmalloc.h"

/* A stream as the Messages API documents it (text, ping, then a tool
 * call). */
static const char recorded[] =
    "event: message_start\n"
    "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_014p\","
    "\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude\","
    "\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,"
    "\"usage\":{\"input_tokens\":472,\"output_tokens\":2}}}\n\n"
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":0,"
    "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
    "event: ping\n"
    "data: {\"type\": \"ping\"}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":0,"
    "\"delta\":{\"type\":\"text_delta\",\"text\":\"Okay, l\xc3\xa9t's check\"}}\n\n"
    "event: content_block_stop\n"
    "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":1,"
    "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01T1\","
    "\"name\":\"get_weather\",\"input\":{}}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":1,"
    "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":1,"
    "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":"
    "\"{\\\"location\\\": \\\"San Fra\"}}\n\n"
    "event: future_event_type\n"
    "data: {\"type\":\"future_event_type\"}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":1,"
    "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":"
    "\"ncisco, CA\\\"}\"}}\n\n"
    "event: content_block_stop\n"
    "data: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
    "event: message_delta\n"
    "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
    "\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":89}}\n\n"
    "event: message_stop\n"
    "data: {\"type\":\"message_stop\"}\n\n";

struct replay {
	struct llm_turn		*turn;
	struct llm_result	*res;
	int			 last;
	int			 events;
};

static int
replay_event(void *ud, const char *event, const char *data, size_t len)
{
	struct replay *r = ud;

	r->events++;
	r->last = provider_anthropic.stream_event(r->turn, event, data, len,
	    r->res);
	return r->last == PROVIDER_FAIL;
}

/* Feeds `stream` in chunks cut at random points (seeded), returns the
 * last provider verdict. */
static int
replay(const char *stream, unsigned seed, struct llm_result *res)
{
	struct replay r = { turn_new(NULL, NULL), res, PROVIDER_MORE, 0 };
	struct sse_parser *p = sse_new(replay_event, &r);
	size_t len = strlen(stream), at = 0;

	srand(seed);
	while (at < len) {
		size_t n = seed == 0 ? len : 1 + (size_t)rand() % 40;

		if (n > len - at)
			n = len - at;
		if (sse_feed(p, stream + at, n) != 0)
			break;
		at += n;
	}
	if (r.last == PROVIDER_DONE)
		turn_finish(r.turn, res);
	sse_free(p);
	turn_free(r.turn);
	return r.last;
}

/* Replays stream (replay) and fails the test unless it ends well with
 * the message want, naming the seed and what came; the result in res
 * (llm_result_clear). */
static void
replay_gives(const char *stream, unsigned seed, json_t *want,
    struct llm_result *res)
{
	char *got;

	ck_assert_int_eq(replay(stream, seed, res), PROVIDER_DONE);
	ck_assert_int_eq(res->status, LLM_OK);
	got = json_dumps(res->message, JSON_COMPACT);
	ck_assert_msg(json_equal(res->message, want), "seed %u: %s", seed,
	    got);
	free(got);
}

START_TEST(recorded_stream_at_any_chunking)
{
	json_t *want = json_loads("{\"role\":\"assistant\",\"content\":["
	    "{\"type\":\"text\",\"text\":\"Okay, l\xc3\xa9t's check\"},"
	    "{\"type\":\"tool_use\",\"id\":\"toolu_01T1\",\"name\":"
	    "\"get_weather\",\"input\":{\"location\":\"San Francisco, CA\"}}]}",
	    0, NULL);
	unsigned seed;

	ck_assert_ptr_nonnull(want);
	for (seed = 0; seed < 300; seed++) {
		struct llm_result res = { 0 };

		replay_gives(recorded, seed, want, &res);
		ck_assert_str_eq(res.stop_reason, "tool_use");
		/* message_delta's counts are cumulative: replaced. */
		ck_assert_int_eq(res.usage.input, 472);
		ck_assert_int_eq(res.usage.output, 89);
		llm_result_clear(&res);
	}
	json_decref(want);
}
END_TEST

/* A web search on the server: the call's input streams as JSON, its
 * result block comes whole, and the answer's citations stream as
 * deltas. */
static const char server_tool[] =
    "event: message_start\n"
    "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_2\","
    "\"type\":\"message\",\"role\":\"assistant\",\"content\":[],"
    "\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n"
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":0,"
    "\"content_block\":{\"type\":\"server_tool_use\",\"id\":"
    "\"srvtoolu_1\",\"name\":\"web_search\",\"input\":{}}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
    "{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"query\"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
    "{\"type\":\"input_json_delta\",\"partial_json\":"
    "\"\\\": \\\"huddle\\\"}\"}}\n\n"
    "event: content_block_stop\n"
    "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":1,"
    "\"content_block\":{\"type\":\"web_search_tool_result\","
    "\"tool_use_id\":\"srvtoolu_1\",\"content\":[{\"type\":"
    "\"web_search_result\",\"url\":\"https://e.x\",\"title\":\"E\","
    "\"encrypted_content\":\"abc\"}]}}\n\n"
    "event: content_block_stop\n"
    "data: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":2,"
    "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":"
    "{\"type\":\"citations_delta\",\"citation\":{\"type\":"
    "\"web_search_result_location\",\"url\":\"https://e.x\","
    "\"cited_text\":\"c\",\"encrypted_index\":\"i\"}}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":"
    "{\"type\":\"text_delta\",\"text\":\"It is a tool.\"}}\n\n"
    "event: content_block_stop\n"
    "data: {\"type\":\"content_block_stop\",\"index\":2}\n\n"
    "event: message_delta\n"
    "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
    "\"end_turn\"},\"usage\":{\"output_tokens\":9}}\n\n"
    "event: message_stop\n"
    "data: {\"type\":\"message_stop\"}\n\n";

START_TEST(server_tool_blocks_and_citations_stay_whole)
{
	json_t *want = json_loads("{\"role\":\"assistant\",\"content\":["
	    "{\"type\":\"server_tool_use\",\"id\":\"srvtoolu_1\",\"name\":"
	    "\"web_search\",\"input\":{\"query\":\"huddle\"}},"
	    "{\"type\":\"web_search_tool_result\",\"tool_use_id\":"
	    "\"srvtoolu_1\",\"content\":[{\"type\":\"web_search_result\","
	    "\"url\":\"https://e.x\",\"title\":\"E\",\"encrypted_content\":"
	    "\"abc\"}]},"
	    "{\"type\":\"text\",\"text\":\"It is a tool.\",\"citations\":"
	    "[{\"type\":\"web_search_result_location\",\"url\":\"https://e.x\","
	    "\"cited_text\":\"c\",\"encrypted_index\":\"i\"}]}]}", 0, NULL);
	unsigned seed;

	ck_assert_ptr_nonnull(want);
	for (seed = 0; seed < 100; seed++) {
		struct llm_result res = { 0 };

		/* No tool call of the client's own is made of it. */
		replay_gives(server_tool, seed, want, &res);
		llm_result_clear(&res);
	}
	json_decref(want);
}
END_TEST

START_TEST(error_event_mid_stream_fails_the_stream)
{
	static const char stream[] =
	    "event: message_start\n"
	    "data: {\"type\":\"message_start\",\"message\":{\"usage\":"
	    "{\"input_tokens\":1,\"output_tokens\":1}}}\n\n"
	    "event: content_block_delta\n"
	    "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
	    "{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n\n"
	    "event: error\n"
	    "data: {\"type\": \"error\", \"error\": {\"type\": "
	    "\"overloaded_error\", \"message\": \"Overloaded\"}}\n\n";
	struct llm_result res = { 0 };

	ck_assert_int_eq(replay(stream, 7, &res), PROVIDER_FAIL);
	ck_assert_int_eq(res.status, LLM_ERR_STREAM);
	ck_assert_str_eq(res.error_type, "overloaded_error");
	ck_assert_str_eq(res.error_message, "Overloaded");
	llm_result_clear(&res);
}
END_TEST

START_TEST(malformed_event_json_fails_the_stream)
{
	static const char stream[] =
	    "event: content_block_delta\n"
	    "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
	    "{\"type\":\"text_del\n\n";
	struct llm_result res = { 0 };

	ck_assert_int_eq(replay(stream, 3, &res), PROVIDER_FAIL);
	ck_assert_int_eq(res.status, LLM_ERR_STREAM);
	ck_assert_str_eq(res.error_type, "invalid_response");
	ck_assert_ptr_nonnull(strstr(res.error_message, "malformed"));
	llm_result_clear(&res);
}
END_TEST

START_TEST(body_passes_the_conversation_through)
{
	struct llm_config c;
	struct llm_request req = { 0 };
	json_t *body;
	char *text;

	llm_config_defaults(&c);
	c.model = "claude-x";
	c.max_tokens = 99;
	req.system = "be brief";
	req.messages = json_loads("[{\"role\":\"user\",\"content\":[{\"type\":"
	    "\"text\",\"text\":\"hi\"}]}]", 0, NULL);
	req.tools = json_loads("[{\"name\":\"bash\",\"description\":\"run\","
	    "\"input_schema\":{\"type\":\"object\"}}]", 0, NULL);
	text = provider_anthropic.body(&c, &req);
	body = json_loads(text, 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(body, "model")),
	    "claude-x");
	ck_assert_int_eq(json_integer_value(json_object_get(body,
	    "max_tokens")), 99);
	ck_assert(json_is_true(json_object_get(body, "stream")));
	ck_assert_str_eq(json_string_value(json_object_get(body, "system")),
	    "be brief");
	ck_assert(json_equal(json_object_get(body, "messages"), req.messages));
	ck_assert(json_equal(json_object_get(body, "tools"), req.tools));
	free(text);
	json_decref(body);

	/* No system, no tools, no stream: the keys are absent or false. */
	json_decref(req.tools);
	req.tools = NULL;
	req.system = NULL;
	c.stream = 0;
	text = provider_anthropic.body(&c, &req);
	body = json_loads(text, 0, NULL);
	ck_assert_ptr_null(json_object_get(body, "system"));
	ck_assert_ptr_null(json_object_get(body, "tools"));
	ck_assert(json_is_false(json_object_get(body, "stream")));
	free(text);
	json_decref(body);
	json_decref(req.messages);
}
END_TEST

/* A tool result with images (an MCP tool's) goes as the API takes it:
 * its content an array of the text and image blocks, base64 unchanged. */
START_TEST(body_carries_result_images_as_image_blocks)
{
	struct llm_config c;
	struct llm_request req = { 0 };
	json_t *body, *result;
	char *text;

	llm_config_defaults(&c);
	c.model = "claude-x";
	c.max_tokens = 99;
	req.messages = json_loads("[{\"role\":\"user\",\"content\":\"Look.\"},"
	    "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\","
	    "\"id\":\"toolu_1\",\"name\":\"mcp__b__shot\",\"input\":{}}]},"
	    "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
	    "\"tool_use_id\":\"toolu_1\",\"content\":[{\"type\":\"text\","
	    "\"text\":\"[image image/png 2x2, passed to the model]\"},"
	    "{\"type\":\"image\",\"source\":{\"type\":\"base64\","
	    "\"media_type\":\"image/png\",\"data\":\"iVBORw0KGgo=\"}}],"
	    "\"is_error\":false}]}]", 0, NULL);
	text = provider_anthropic.body(&c, &req);
	ck_assert_ptr_nonnull(strstr(text, "{\"type\":\"image\",\"source\":"
	    "{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":"
	    "\"iVBORw0KGgo=\"}}"));
	body = json_loads(text, 0, NULL);
	ck_assert(json_equal(json_object_get(body, "messages"), req.messages));
	result = json_array_get(json_object_get(json_array_get(
	    json_object_get(body, "messages"), 2), "content"), 0);
	ck_assert_uint_eq(json_array_size(json_object_get(result, "content")),
	    2);
	free(text);
	json_decref(body);
	json_decref(req.messages);
}
END_TEST

/* The thinking object with its display, between_tools, and the tool
 * choice: "none" as asked, a forced one only where the model takes it. */
START_TEST(body_carries_thinking_rules)
{
	struct llm_config c;
	struct llm_request req = { 0 };
	json_t *body, *want;
	char *text;

	llm_config_defaults(&c);
	c.model = "claude-x";
	c.thinking = LLM_THINKING_BETWEEN_TOOLS;
	c.thinking_display = "summarized";
	c.forced_tool_choice = 0;
	req.messages = json_loads("[{\"role\":\"user\",\"content\":\"hi\"}]",
	    0, NULL);
	req.tools = json_loads("[{\"name\":\"bash\",\"input_schema\":"
	    "{\"type\":\"object\"}}]", 0, NULL);
	req.tool_choice = "none";
	text = provider_anthropic.body(&c, &req);
	body = json_loads(text, 0, NULL);
	/* between_tools takes its type alone, even where a display is
	 * asked for: the API refuses any other field. */
	want = json_pack("{s:s}", "type", "between_tools");
	ck_assert(json_equal(json_object_get(body, "thinking"), want));
	json_decref(want);
	want = json_pack("{s:s}", "type", "none");
	ck_assert(json_equal(json_object_get(body, "tool_choice"), want));
	json_decref(want);
	free(text);
	json_decref(body);

	/* Disabled carries no display; a forced choice becomes auto. */
	c.thinking = LLM_THINKING_DISABLED;
	req.tool_choice = "any";
	text = provider_anthropic.body(&c, &req);
	body = json_loads(text, 0, NULL);
	ck_assert_ptr_null(json_object_get(json_object_get(body, "thinking"),
	    "display"));
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
	    body, "tool_choice"), "type")), "auto");
	free(text);
	json_decref(body);
	json_decref(req.messages);
	json_decref(req.tools);
}
END_TEST

START_TEST(headers_carry_key_and_version)
{
	struct llm_config c;
	struct curl_slist *h, *p;
	int key = 0, version = 0;

	llm_config_defaults(&c);
	c.api_key = "sk-test";
	h = provider_anthropic.headers(&c, NULL);
	for (p = h; p != NULL; p = p->next) {
		key += strcmp(p->data, "x-api-key: sk-test") == 0;
		version += strcmp(p->data, "anthropic-version: 2023-06-01") == 0;
	}
	ck_assert_int_eq(key, 1);
	ck_assert_int_eq(version, 1);
	curl_slist_free_all(h);
}
END_TEST

START_TEST(whole_reply_is_read)
{
	static const char body[] = "{\"id\":\"msg_1\",\"type\":\"message\","
	    "\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\","
	    "\"thinking\":\"hmm\"},{\"type\":\"text\",\"text\":\"Let me check.\"},"
	    "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_weather\","
	    "\"input\":{\"location\":\"Paris\"}}],\"stop_reason\":\"tool_use\","
	    "\"usage\":{\"input_tokens\":472,\"output_tokens\":89,"
	    "\"service_tier\":\"standard\"}}";
	struct llm_turn *t = turn_new(NULL, NULL);
	struct llm_result res = { 0 };
	json_t *content;

	ck_assert_int_eq(provider_anthropic.parse_body(t, body, strlen(body),
	    &res), 0);
	ck_assert_int_eq(turn_finish(t, &res), 0);
	content = json_object_get(res.message, "content");
	/* The thinking block is kept, first, as it came. */
	ck_assert_uint_eq(json_array_size(content), 3);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    content, 0), "thinking")), "hmm");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    content, 2), "name")), "get_weather");
	ck_assert_str_eq(res.stop_reason, "tool_use");
	ck_assert_int_eq(res.usage.output, 89);
	turn_free(t);
	llm_result_clear(&res);

	t = turn_new(NULL, NULL);
	ck_assert_int_eq(provider_anthropic.parse_body(t, "{\"id\":", 6, &res),
	    -1);
	ck_assert_int_eq(res.status, LLM_ERR_PARSE);
	turn_free(t);
	llm_result_clear(&res);
}
END_TEST

START_TEST(error_bodies_are_read)
{
	static const char api[] = "{\"type\":\"error\",\"error\":{\"type\":"
	    "\"rate_limit_error\",\"message\":\"Number of request tokens has "
	    "exceeded your per-minute rate limit\"},\"request_id\":\"req_011\"}";
	static const char html[] = "<html><head><title>413 Request Entity Too "
	    "Large</title></head>\r\n<body>nginx</body></html>";
	struct llm_result res = { 0 };

	provider_anthropic.parse_error(api, strlen(api), &res);
	ck_assert_str_eq(res.error_type, "rate_limit_error");
	ck_assert_ptr_nonnull(strstr(res.error_message, "per-minute"));
	llm_result_clear(&res);

	provider_anthropic.parse_error(html, strlen(html), &res);
	ck_assert_ptr_null(res.error_type);
	ck_assert_str_eq(res.error_message, "<html><head><title>413 Request "
	    "Entity Too Large</title></head>");
	llm_result_clear(&res);

	provider_anthropic.parse_error("", 0, &res);
	ck_assert_ptr_null(res.error_message);
}
END_TEST

START_TEST(error_line_names_status_type_message_and_id)
{
	struct llm_result res = { 0 };
	char *line;

	res.status = LLM_ERR_API;
	res.http_status = 429;
	res.error_type = xstrdup("rate_limit_error");
	res.error_message = xstrdup("slow down");
	res.request_id = xstrdup("req_abc");
	line = llm_result_error_line(&res);
	/* What the API said, then (for a failure that ended the call) what
	 * to check. */
	ck_assert_str_eq(line, "HTTP 429 rate_limit_error: slow down "
	    "(request-id req_abc); the API stayed busy or failing through "
	    "every retry: try again later, or give it longer (--retry-for)");
	free(line);
	llm_result_clear(&res);
	res.status = LLM_ERR_TRANSPORT;
	res.error_type = xstrdup("connection_error");
	line = llm_result_error_line(&res);
	ck_assert_str_eq(line, "connection_error");
	free(line);
	llm_result_clear(&res);
}
END_TEST

/* Today's models: signed thinking, redacted thinking, a block type of
 * the future, text, a tool call, and cache figures in the usage. */
static const char thinking_stream[] =
    "event: message_start\n"
    "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_2\","
    "\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude\","
    "\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":5,"
    "\"cache_creation_input_tokens\":300,\"cache_read_input_tokens\":"
    "4000,\"cache_creation\":{\"ephemeral_5m_input_tokens\":100,"
    "\"ephemeral_1h_input_tokens\":200},\"output_tokens\":1}}}\n\n"
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":0,"
    "\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\","
    "\"signature\":\"\"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":0,"
    "\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"The user "
    "w\u00e4nts\"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":0,"
    "\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\" the "
    "weather.\\n\"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":0,"
    "\"delta\":{\"type\":\"signature_delta\",\"signature\":"
    "\"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds\"}}\n\n"
    "event: content_block_stop\n"
    "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":1,"
    "\"content_block\":{\"type\":\"redacted_thinking\",\"data\":"
    "\"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP\"}}"
    "\n\n"
    "event: content_block_stop\n"
    "data: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":2,"
    "\"content_block\":{\"type\":\"future_block\",\"note\":\"a\","
    "\"extra\":{\"k\":[1,2]}}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":2,"
    "\"delta\":{\"type\":\"future_delta\",\"note\":\"bc\"}}\n\n"
    "event: content_block_stop\n"
    "data: {\"type\":\"content_block_stop\",\"index\":2}\n\n"
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":3,"
    "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":3,"
    "\"delta\":{\"type\":\"text_delta\",\"text\":\"Checking.\"}}\n\n"
    "event: content_block_stop\n"
    "data: {\"type\":\"content_block_stop\",\"index\":3}\n\n"
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":4,"
    "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_9\","
    "\"name\":\"bash\",\"input\":{}}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":4,"
    "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":"
    "\"{\\\"command\\\": \\\"ls\\\"}\"}}\n\n"
    "event: content_block_stop\n"
    "data: {\"type\":\"content_block_stop\",\"index\":4}\n\n"
    "event: message_delta\n"
    "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
    "\"tool_use\"},\"usage\":{\"output_tokens\":77}}\n\n"
    "event: message_stop\n"
    "data: {\"type\":\"message_stop\"}\n\n";

START_TEST(thinking_and_unknown_blocks_are_kept_as_received)
{
	json_t *want = json_loads("{\"role\":\"assistant\",\"content\":["
	    "{\"type\":\"thinking\",\"thinking\":\"The user w\u00e4nts the "
	    "weather.\\n\",\"signature\":\"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdj"
	    "rkzLoky3dl1pkiMOYds\"},"
	    "{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgBEgy3va3pzix/"
	    "LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP\"},"
	    "{\"type\":\"future_block\",\"note\":\"abc\",\"extra\":{\"k\":"
	    "[1,2]}},"
	    "{\"type\":\"text\",\"text\":\"Checking.\"},"
	    "{\"type\":\"tool_use\",\"id\":\"toolu_9\",\"name\":\"bash\","
	    "\"input\":{\"command\":\"ls\"}}]}", 0, NULL);
	unsigned seed;

	ck_assert_ptr_nonnull(want);
	for (seed = 0; seed < 200; seed++) {
		struct llm_result res = { 0 };

		replay_gives(thinking_stream, seed, want, &res);
		ck_assert_int_eq(res.usage.input, 5);
		ck_assert_int_eq(res.usage.output, 77);
		ck_assert_int_eq(res.usage.cache_read, 4000);
		ck_assert_int_eq(res.usage.cache_write_5m, 100);
		ck_assert_int_eq(res.usage.cache_write_1h, 200);
		llm_result_clear(&res);
	}
	json_decref(want);
}
END_TEST

START_TEST(whole_reply_keeps_every_block_byte_for_byte)
{
	static const char body[] = "{\"id\":\"msg_1\",\"type\":\"message\","
	    "\"role\":\"assistant\",\"content\":["
	    "{\"type\":\"thinking\",\"thinking\":\"a\\u0001b \\ud83d\\ude00\","
	    "\"signature\":\"c2lnbmF0dXJl+/==\"},"
	    "{\"type\":\"redacted_thinking\",\"data\":\"cmVkYWN0ZWQ=\"},"
	    "{\"type\":\"server_tool_use\",\"id\":\"srvtoolu_1\",\"name\":"
	    "\"web_search\",\"input\":{\"query\":\"q\"}},"
	    "{\"type\":\"text\",\"text\":\"ok\",\"citations\":[{\"url\":\"u\"}]}],"
	    "\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":3,"
	    "\"output_tokens\":4,\"cache_creation_input_tokens\":50,"
	    "\"cache_read_input_tokens\":60,\"iterations\":["
	    "{\"type\":\"compaction\",\"input_tokens\":700,"
	    "\"output_tokens\":80,\"cache_read_input_tokens\":9000,"
	    "\"cache_creation_input_tokens\":120},"
	    "{\"type\":\"message\",\"input_tokens\":3,"
	    "\"output_tokens\":4}]}}";
	json_t *doc = json_loads(body, 0, NULL);
	struct llm_turn *t = turn_new(NULL, NULL);
	struct llm_result res = { 0 };
	char *sent, *got;

	ck_assert_int_eq(provider_anthropic.parse_body(t, body, strlen(body),
	    &res), 0);
	ck_assert_int_eq(turn_finish(t, &res), 0);
	/* What goes back is what came, to the byte. */
	sent = json_dumps(json_object_get(doc, "content"), JSON_COMPACT |
	    JSON_SORT_KEYS);
	got = json_dumps(json_object_get(res.message, "content"),
	    JSON_COMPACT | JSON_SORT_KEYS);
	ck_assert_str_eq(got, sent);
	ck_assert_int_eq(res.usage.cache_write_5m, 50);
	ck_assert_int_eq(res.usage.cache_write_1h, 0);
	ck_assert_int_eq(res.usage.cache_read, 60);
	/* The compaction step's own tokens, its cache's included. */
	ck_assert_int_eq(res.usage.compaction_input, 700);
	ck_assert_int_eq(res.usage.compaction_output, 80);
	ck_assert_int_eq(res.usage.compaction_cache_read, 9000);
	ck_assert_int_eq(res.usage.compaction_cache_write, 120);
	free(sent);
	free(got);
	json_decref(doc);
	turn_free(t);
	llm_result_clear(&res);
}
END_TEST

START_TEST(body_asks_for_thinking_and_caching_and_nothing_else)
{
	struct llm_config c;
	struct llm_request req = { 0 };
	json_t *body, *prev;
	char *text;

	llm_config_defaults(&c);
	c.model = "claude-x";
	req.messages = json_loads("[{\"role\":\"user\",\"content\":\"hi\"},"
	    "{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\","
	    "\"thinking\":\"t\",\"signature\":\"s\"},{\"type\":\"tool_use\","
	    "\"id\":\"toolu_1\",\"name\":\"bash\",\"input\":{}}]},"
	    "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
	    "\"tool_use_id\":\"toolu_1\",\"content\":\"ok\"}]}]", 0, NULL);
	prev = json_deep_copy(req.messages);

	c.thinking = LLM_THINKING_ADAPTIVE;
	text = provider_anthropic.body(&c, &req);
	body = json_loads(text, 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
	    body, "thinking"), "type")), "adaptive");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
	    body, "cache_control"), "type")), "ephemeral");
	ck_assert_ptr_null(json_object_get(body, "temperature"));
	ck_assert_ptr_null(json_object_get(body, "top_p"));
	ck_assert_ptr_null(json_object_get(body, "top_k"));
	/* The messages are passed through untouched, the request's own
	 * copy too. */
	ck_assert(json_equal(json_object_get(body, "messages"), prev));
	ck_assert(json_equal(req.messages, prev));
	free(text);
	json_decref(body);

	c.thinking = LLM_THINKING_BUDGET;
	c.thinking_budget = 2048;
	c.cache = 0;
	text = provider_anthropic.body(&c, &req);
	body = json_loads(text, 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
	    body, "thinking"), "type")), "enabled");
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(
	    body, "thinking"), "budget_tokens")), 2048);
	ck_assert_ptr_null(json_object_get(body, "cache_control"));
	free(text);
	json_decref(body);

	c.thinking = LLM_THINKING_UNSET;
	text = provider_anthropic.body(&c, &req);
	body = json_loads(text, 0, NULL);
	ck_assert_ptr_null(json_object_get(body, "thinking"));
	free(text);
	json_decref(body);

	c.thinking = LLM_THINKING_DISABLED;
	text = provider_anthropic.body(&c, &req);
	body = json_loads(text, 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
	    body, "thinking"), "type")), "disabled");
	free(text);
	json_decref(body);
	json_decref(prev);
	json_decref(req.messages);
}
END_TEST

/* What servers send that jansson alone refuses: a \u0000 escape (it
 * would cut the text short), invalid UTF-8 (an error's text would be
 * lost). An escaped backslash before "u0000" is left alone. */
START_TEST(server_json_is_forgiven_nul_escapes_and_bad_utf8)
{
	static const char nul[] = "{\"t\":\"a\\u0000b\"}";
	static const char kept[] = "{\"t\":\"a\\\\u0000b\"}";
	static const char bad[] = "{\"m\":\"bad \xff here\"}";
	json_t *v;

	v = provider_json(nul, sizeof nul - 1, NULL);
	ck_assert_ptr_nonnull(v);
	ck_assert_str_eq(json_string_value(json_object_get(v, "t")),
	    "a\xef\xbf\xbd" "b");
	json_decref(v);
	v = provider_json(kept, sizeof kept - 1, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(v, "t")),
	    "a\\u0000b");
	json_decref(v);
	v = provider_json(bad, sizeof bad - 1, NULL);
	ck_assert_ptr_nonnull(v);
	ck_assert_str_eq(json_string_value(json_object_get(v, "m")),
	    "bad \xef\xbf\xbd here");
	json_decref(v);
	ck_assert_ptr_null(provider_json("{", 1, NULL));
}
END_TEST

static Suite *
anthropic_suite(void)
{
	Suite *s = suite_create("anthropic");
	TCase *tc = tcase_create("anthropic");

	tcase_add_test(tc, server_json_is_forgiven_nul_escapes_and_bad_utf8);
	tcase_add_test(tc, recorded_stream_at_any_chunking);
	tcase_add_test(tc, server_tool_blocks_and_citations_stay_whole);
	tcase_add_test(tc, error_event_mid_stream_fails_the_stream);
	tcase_add_test(tc, malformed_event_json_fails_the_stream);
	tcase_add_test(tc, body_passes_the_conversation_through);
	tcase_add_test(tc, body_carries_result_images_as_image_blocks);
	tcase_add_test(tc, body_carries_thinking_rules);
	tcase_add_test(tc, headers_carry_key_and_version);
	tcase_add_test(tc, whole_reply_is_read);
	tcase_add_test(tc, thinking_and_unknown_blocks_are_kept_as_received);
	tcase_add_test(tc, whole_reply_keeps_every_block_byte_for_byte);
	tcase_add_test(tc, body_asks_for_thinking_and_caching_and_nothing_else);
	tcase_add_test(tc, error_bodies_are_read);
	tcase_add_test(tc, error_line_names_status_type_message_and_id);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(anthropic_suite());
}
