/*
 * Unit tests of llm/openai: the chat completions request body built from a
 * Messages-API conversation, streamed chunks and whole replies read back
 * into an assistant message (with the Ollama and llama.cpp quirks), and
 * error bodies, JSON or not.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "llm/provider.h"
#include "llm/turn.h"
#include "testutil.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* What a turn reported while it was fed. */
struct seen {
	char	text[256];
	int	tools;
	char	tool_ids[128];	/* "id:name " for each tool start */
};

static void
record(void *ud, const struct llm_event *ev)
{
	struct seen *s = ud;
	size_t n;

	if (ev->type == LLM_EV_TEXT) {
		n = strlen(s->text);
		ck_assert_uint_lt(n + ev->len, sizeof s->text);
		memcpy(s->text + n, ev->text, ev->len);
		s->text[n + ev->len] = '\0';
	} else if (ev->type == LLM_EV_TOOL) {
		s->tools++;
		n = strlen(s->tool_ids);
		snprintf(s->tool_ids + n, sizeof s->tool_ids - n, "%s:%s ",
		    ev->tool_id, ev->tool_name);
	}
}

static void
config(struct llm_config *c, int stream)
{
	memset(c, 0, sizeof *c);
	c->provider = LLM_OPENAI;
	c->base_url = "http://127.0.0.1:1/v1";
	c->api_key = "sk-test";
	c->model = "qwen2.5-coder";
	c->max_tokens = 4096;
	c->stream = stream;
}

/* The body for messages (and tools, may be NULL), parsed back. */
static json_t *
body_for(const struct llm_config *c, const char *system, const char *msgs,
    const char *tools)
{
	struct llm_request req = { .system = system };
	char *s;
	json_t *j;

	req.messages = tu_json(msgs);
	req.tools = tools != NULL ? tu_json(tools) : NULL;
	s = provider_openai.body(c, &req);
	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_null(strchr(s, '\n'));	/* compact */
	j = tu_json(s);
	ck_assert(json_is_object(j));
	free(s);
	json_decref(req.messages);
	json_decref(req.tools);
	return j;
}

/* Feeds each chunk as one SSE "message" event; returns what the last one
 * returned. Every chunk but the last must return PROVIDER_MORE. */
static int
feed(struct llm_turn *t, struct llm_result *res, const char **chunks)
{
	int rc = PROVIDER_MORE;
	size_t i;

	for (i = 0; chunks[i] != NULL; i++) {
		ck_assert_msg(rc == PROVIDER_MORE, "chunk %zu after the end",
		    i);
		rc = provider_openai.stream_event(t, "message", chunks[i],
		    strlen(chunks[i]), res);
	}
	return rc;
}

/* Feeds one chunk. */
static int
event(struct llm_turn *t, const char *data, struct llm_result *res)
{
	return provider_openai.stream_event(t, "message", data, strlen(data),
	    res);
}

/* Feeds chunks, expects the stream to end with [DONE] and finish well,
 * and checks the message's content against want. */
static void
check_stream(const char **chunks, const char *want, const char *stop,
    struct seen *seen)
{
	struct llm_result res = { 0 };
	struct llm_turn *t = turn_new(record, seen);

	ck_assert_int_eq(feed(t, &res, chunks), PROVIDER_DONE);
	ck_assert_int_eq(turn_finish(t, &res), 0);
	ck_assert_int_eq(res.status, LLM_OK);
	ck_assert_str_eq(json_string_value(json_object_get(res.message,
	    "role")), "assistant");
	tu_json_check(json_object_get(res.message, "content"), want);
	ck_assert_str_eq(res.stop_reason, stop);
	turn_free(t);
	llm_result_clear(&res);
}

START_TEST(body_translates_a_whole_conversation)
{
	struct llm_config c;
	json_t *got;

	config(&c, 1);
	got = body_for(&c, "You are a coding agent.",
	    "[{\"role\":\"user\",\"content\":[{\"type\":\"text\","
	    "  \"text\":\"Read two files.\"}]},"
	    " {\"role\":\"assistant\",\"content\":["
	    "  {\"type\":\"thinking\",\"thinking\":\"hmm\"},"
	    "  {\"type\":\"text\",\"text\":\"Reading \\u00e9 both.\"},"
	    "  {\"type\":\"tool_use\",\"id\":\"call_a\",\"name\":\"read\","
	    "   \"input\":{\"path\":\"a.c\"}},"
	    "  {\"type\":\"text\",\"text\":\"And:\"},"
	    "  {\"type\":\"tool_use\",\"id\":\"call_b\",\"name\":\"read\","
	    "   \"input\":{\"path\":\"b\\\"c\",\"n\":[1,2]}}]},"
	    " {\"role\":\"user\",\"content\":["
	    "  {\"type\":\"text\",\"text\":\"Here.\"},"
	    "  {\"type\":\"tool_result\",\"tool_use_id\":\"call_a\","
	    "   \"content\":\"no such file\",\"is_error\":true},"
	    "  {\"type\":\"image\",\"source\":{}},"
	    "  {\"type\":\"tool_result\",\"tool_use_id\":\"call_b\","
	    "   \"content\":[{\"type\":\"text\",\"text\":\"line 1\"},"
	    "    {\"type\":\"image\"},{\"type\":\"text\",\"text\":\"line 2\"}],"
	    "   \"is_error\":false},"
	    "  {\"type\":\"text\",\"text\":\"Go on.\"}]}]",
	    "[{\"name\":\"read\",\"description\":\"Read a file\","
	    "  \"input_schema\":{\"type\":\"object\",\"properties\":"
	    "  {\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}}]");
	tu_json_check(got,
	    "{\"model\":\"qwen2.5-coder\",\"max_tokens\":4096,"
	    " \"stream\":true,\"stream_options\":{\"include_usage\":true},"
	    " \"messages\":["
	    "  {\"role\":\"system\",\"content\":\"You are a coding agent.\"},"
	    "  {\"role\":\"user\",\"content\":\"Read two files.\"},"
	    "  {\"role\":\"assistant\","
	    "   \"content\":\"Reading \\u00e9 both.\\n\\nAnd:\","
	    "   \"tool_calls\":["
	    "    {\"id\":\"call_a\",\"type\":\"function\",\"function\":"
	    "     {\"name\":\"read\","
	    "      \"arguments\":\"{\\\"path\\\":\\\"a.c\\\"}\"}},"
	    "    {\"id\":\"call_b\",\"type\":\"function\",\"function\":"
	    "     {\"name\":\"read\",\"arguments\":"
	    "      \"{\\\"path\\\":\\\"b\\\\\\\"c\\\",\\\"n\\\":[1,2]}\"}}]},"
	    "  {\"role\":\"tool\",\"tool_call_id\":\"call_a\","
	    "   \"content\":\"Error: no such file\"},"
	    "  {\"role\":\"tool\",\"tool_call_id\":\"call_b\","
	    "   \"content\":\"line 1\\n\\nline 2\"},"
	    "  {\"role\":\"user\",\"content\":\"Here.\\n\\nGo on.\"}],"
	    " \"tools\":[{\"type\":\"function\",\"function\":"
	    "  {\"name\":\"read\",\"description\":\"Read a file\","
	    "   \"parameters\":{\"type\":\"object\",\"properties\":"
	    "   {\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}}}],"
	    " \"tool_choice\":\"auto\"}");
	json_decref(got);
}
END_TEST

START_TEST(body_leaves_out_what_is_empty)
{
	struct llm_config c;
	json_t *got;

	/* Not streamed, no system prompt, empty tools; plain string
	 * content; an assistant with only a tool call gets content null;
	 * empty and unknown-only messages, unknown roles and a user message
	 * with only tool results produce nothing of their own. */
	config(&c, 0);
	got = body_for(&c, NULL,
	    "[{\"role\":\"user\",\"content\":\"hi\"},"
	    " {\"role\":\"assistant\",\"content\":[]},"
	    " {\"role\":\"assistant\",\"content\":[{\"type\":\"text\","
	    "  \"text\":\"\"},{\"type\":\"thinking\",\"thinking\":\"x\"}]},"
	    " {\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\","
	    "  \"id\":\"t1\",\"name\":\"ls\",\"input\":{}}]},"
	    " {\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
	    "  \"tool_use_id\":\"t1\",\"content\":\"\"}]},"
	    " {\"role\":\"user\",\"content\":\"\"},"
	    " {\"role\":\"developer\",\"content\":\"ignored\"},"
	    " {\"content\":\"no role\"},"
	    " {\"role\":\"assistant\",\"content\":\"done\"}]", "[]");
	tu_json_check(got,
	    "{\"model\":\"qwen2.5-coder\",\"max_tokens\":4096,"
	    " \"stream\":false,\"messages\":["
	    "  {\"role\":\"user\",\"content\":\"hi\"},"
	    "  {\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
	    "   {\"id\":\"t1\",\"type\":\"function\",\"function\":"
	    "    {\"name\":\"ls\",\"arguments\":\"{}\"}}]},"
	    "  {\"role\":\"tool\",\"tool_call_id\":\"t1\",\"content\":\"\"},"
	    "  {\"role\":\"assistant\",\"content\":\"done\"}]}");
	ck_assert_ptr_null(json_object_get(got, "tools"));
	ck_assert_ptr_null(json_object_get(got, "tool_choice"));
	ck_assert_ptr_null(json_object_get(got, "stream_options"));
	json_decref(got);

	/* No tools at all, and no messages. */
	got = body_for(&c, "", "[]", NULL);
	tu_json_check(got, "{\"model\":\"qwen2.5-coder\",\"max_tokens\":4096,"
	    " \"stream\":false,\"messages\":[]}");
	json_decref(got);
}
END_TEST

START_TEST(body_sends_result_images_in_a_user_message)
{
	struct llm_config c;
	json_t *got;

	/* A tool message takes text only: the images of call_a's result
	 * follow the tool messages of the turn, in one user message with
	 * the user's text, under a line naming the call. */
	config(&c, 0);
	got = body_for(&c, NULL,
	    "[{\"role\":\"user\",\"content\":\"Look.\"},"
	    " {\"role\":\"assistant\",\"content\":["
	    "  {\"type\":\"tool_use\",\"id\":\"call_a\",\"name\":\"shot\","
	    "   \"input\":{}},"
	    "  {\"type\":\"tool_use\",\"id\":\"call_b\",\"name\":\"ls\","
	    "   \"input\":{}}]},"
	    " {\"role\":\"user\",\"content\":["
	    "  {\"type\":\"tool_result\",\"tool_use_id\":\"call_a\","
	    "   \"content\":[{\"type\":\"text\",\"text\":\"two shots\"},"
	    "    {\"type\":\"image\",\"source\":{\"type\":\"base64\","
	    "     \"media_type\":\"image/png\",\"data\":\"iVBORw==\"}},"
	    "    {\"type\":\"image\",\"source\":{\"type\":\"base64\","
	    "     \"media_type\":\"image/jpeg\",\"data\":\"/9j/4A==\"}}],"
	    "   \"is_error\":false},"
	    "  {\"type\":\"tool_result\",\"tool_use_id\":\"call_b\","
	    "   \"content\":\"a.c\"},"
	    "  {\"type\":\"text\",\"text\":\"Go on.\"}]},"
	    " {\"role\":\"assistant\",\"content\":["
	    "  {\"type\":\"text\",\"text\":\"Seen.\"},"
	    "  {\"type\":\"tool_use\",\"id\":\"call_c\",\"name\":\"shot\","
	    "   \"input\":{}}]},"
	    " {\"role\":\"user\",\"content\":["
	    "  {\"type\":\"tool_result\",\"tool_use_id\":\"call_c\","
	    "   \"content\":[{\"type\":\"text\",\"text\":\"one\"},"
	    "    {\"type\":\"image\",\"source\":{\"type\":\"base64\","
	    "     \"media_type\":\"image/gif\",\"data\":\"R0lG\"}}]}]}]",
	    NULL);
	tu_json_check(json_object_get(got, "messages"),
	    "[{\"role\":\"user\",\"content\":\"Look.\"},"
	    " {\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
	    "  {\"id\":\"call_a\",\"type\":\"function\",\"function\":"
	    "   {\"name\":\"shot\",\"arguments\":\"{}\"}},"
	    "  {\"id\":\"call_b\",\"type\":\"function\",\"function\":"
	    "   {\"name\":\"ls\",\"arguments\":\"{}\"}}]},"
	    " {\"role\":\"tool\",\"tool_call_id\":\"call_a\","
	    "  \"content\":\"two shots\"},"
	    " {\"role\":\"tool\",\"tool_call_id\":\"call_b\","
	    "  \"content\":\"a.c\"},"
	    " {\"role\":\"user\",\"content\":["
	    "  {\"type\":\"text\",\"text\":\"[the images of the result of "
	    "tool call call_a, which a tool message cannot carry:]\"},"
	    "  {\"type\":\"image_url\",\"image_url\":"
	    "   {\"url\":\"data:image/png;base64,iVBORw==\"}},"
	    "  {\"type\":\"image_url\",\"image_url\":"
	    "   {\"url\":\"data:image/jpeg;base64,/9j/4A==\"}},"
	    "  {\"type\":\"text\",\"text\":\"Go on.\"}]},"
	    " {\"role\":\"assistant\",\"content\":\"Seen.\",\"tool_calls\":["
	    "  {\"id\":\"call_c\",\"type\":\"function\",\"function\":"
	    "   {\"name\":\"shot\",\"arguments\":\"{}\"}}]},"
	    " {\"role\":\"tool\",\"tool_call_id\":\"call_c\","
	    "  \"content\":\"one\"},"
	    " {\"role\":\"user\",\"content\":["
	    "  {\"type\":\"text\",\"text\":\"[the image of the result of "
	    "tool call call_c, which a tool message cannot carry:]\"},"
	    "  {\"type\":\"image_url\",\"image_url\":"
	    "   {\"url\":\"data:image/gif;base64,R0lG\"}}]}]");
	json_decref(got);
}
END_TEST

START_TEST(headers_carry_the_key_only_when_set)
{
	struct llm_config c;
	struct curl_slist *l;

	config(&c, 1);
	ck_assert_str_eq(provider_openai.path, "/chat/completions");
	l = provider_openai.headers(&c, NULL);
	ck_assert_ptr_nonnull(l);
	ck_assert_str_eq(l->data, "Authorization: Bearer sk-test");
	ck_assert_ptr_null(l->next);
	curl_slist_free_all(l);

	/* A trailing newline (a key read from a file) never reaches the
	 * request. */
	c.api_key = "sk-file\nX-Injected: 1";
	l = provider_openai.headers(&c, NULL);
	ck_assert_str_eq(l->data, "Authorization: Bearer sk-file");
	ck_assert_ptr_null(l->next);
	curl_slist_free_all(l);

	c.api_key = "";
	ck_assert_ptr_null(provider_openai.headers(&c, NULL));
	c.api_key = NULL;
	ck_assert_ptr_null(provider_openai.headers(&c, NULL));
}
END_TEST

START_TEST(stream_of_the_documented_example)
{
	/* A chat completions stream as documented, chunk for chunk. */
	static const char *chunks[] = {
	    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\","
	    "\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,"
	    "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
	    "\"finish_reason\":null}]}",
	    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\","
	    "\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,"
	    "\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\","
	    "\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
	    "\"arguments\":\"\"}}]},\"finish_reason\":null}]}",
	    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\","
	    "\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,"
	    "\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
	    "{\"arguments\":\"{\\\"location\\\":\\\"Paris\\\"}\"}}]},"
	    "\"finish_reason\":null}]}",
	    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\","
	    "\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,"
	    "\"delta\":{},\"finish_reason\":\"tool_calls\"}]}",
	    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\","
	    "\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":"
	    "{\"prompt_tokens\":10,\"completion_tokens\":5,"
	    "\"total_tokens\":15}}",
	    "[DONE]",
	    NULL
	};
	struct seen seen = { 0 };
	struct llm_result res = { 0 };
	struct llm_turn *t = turn_new(record, &seen);

	ck_assert_int_eq(feed(t, &res, chunks), PROVIDER_DONE);
	ck_assert_int_eq(turn_finish(t, &res), 0);
	tu_json_check(res.message, "{\"role\":\"assistant\",\"content\":["
	    "{\"type\":\"tool_use\",\"id\":\"call_1\",\"name\":\"get_weather\","
	    "\"input\":{\"location\":\"Paris\"}}]}");
	ck_assert_str_eq(res.stop_reason, "tool_use");
	ck_assert_int_eq(res.usage.input, 10);
	ck_assert_int_eq(res.usage.output, 5);
	ck_assert_int_eq(seen.tools, 1);
	ck_assert_str_eq(seen.tool_ids, "call_1:get_weather ");
	ck_assert_str_eq(seen.text, "");
	turn_free(t);
	llm_result_clear(&res);
}
END_TEST

START_TEST(stream_of_text_keeps_utf8_whole)
{
	static const char *chunks[] = {
	    "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}",
	    "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Gr\\u00fc\"},"
	    "\"finish_reason\":null}]}",
	    "{\"choices\":[{\"index\":0,\"delta\":{\"content\":"
	    "\"\xc3\x9f" "e \xf0\x9f\x8c\x8d\"}}]}",
	    "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\ud83d"
	    "\\ude00!\"},\"unknown\":{\"x\":1}}],"
	    "\"system_fingerprint\":\"fp\"}",
	    "{\"choices\":[{\"index\":0,\"delta\":{},"
	    "\"finish_reason\":\"stop\"}],\"usage\":null}",
	    "[DONE]",
	    NULL
	};
	struct seen seen = { 0 };

	check_stream(chunks, "[{\"type\":\"text\",\"text\":"
	    "\"Gr\xc3\xbc\xc3\x9f" "e \xf0\x9f\x8c\x8d\xf0\x9f\x98\x80!\"}]",
	    "end_turn", &seen);
	ck_assert_str_eq(seen.text,
	    "Gr\xc3\xbc\xc3\x9f" "e \xf0\x9f\x8c\x8d\xf0\x9f\x98\x80!");
	ck_assert_int_eq(seen.tools, 0);
}
END_TEST

START_TEST(stream_of_a_whole_call_in_one_chunk)
{
	/* Ollama: text, then the call complete in one chunk with its finish
	 * reason; no usage chunk. */
	static const char *chunks[] = {
	    "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Let me look."
	    "\"}}]}",
	    "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{"
	    "\"id\":\"call_x1\",\"index\":0,\"type\":\"function\","
	    "\"function\":{\"name\":\"ls\",\"arguments\":"
	    "\"{\\\"dir\\\":\\\"src\\\"}\"}}]},"
	    "\"finish_reason\":\"tool_calls\"}]}",
	    "[DONE]",
	    NULL
	};
	struct seen seen = { 0 };

	check_stream(chunks, "[{\"type\":\"text\",\"text\":\"Let me look.\"},"
	    "{\"type\":\"tool_use\",\"id\":\"call_x1\",\"name\":\"ls\","
	    "\"input\":{\"dir\":\"src\"}}]", "tool_use", &seen);
	ck_assert_str_eq(seen.tool_ids, "call_x1:ls ");
}
END_TEST

START_TEST(stream_of_parallel_calls_interleaved)
{
	static const char *chunks[] = {
	    "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":["
	    "{\"index\":0,\"id\":\"c0\",\"type\":\"function\",\"function\":"
	    "{\"name\":\"read\",\"arguments\":\"\"}}]}}]}",
	    "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":["
	    "{\"index\":1,\"id\":\"c1\",\"type\":\"function\",\"function\":"
	    "{\"name\":\"grep\",\"arguments\":\"{\\\"pat\"}}]}}]}",
	    "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":["
	    "{\"index\":0,\"function\":{\"arguments\":"
	    "\"{\\\"path\\\":\"}}]}}]}",
	    /* Two fragments in one delta. */
	    "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":["
	    "{\"index\":1,\"function\":{\"arguments\":\"\\\":\\\"x\\\"}\"}},"
	    "{\"index\":0,\"function\":{\"arguments\":\"\\\"a.c\\\"\"}}]}}]}",
	    "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":["
	    "{\"index\":0,\"function\":{\"arguments\":\"}\"}}]}}]}",
	    "{\"choices\":[{\"index\":0,\"delta\":{},"
	    "\"finish_reason\":\"tool_calls\"}]}",
	    "{\"choices\":[],\"usage\":{\"prompt_tokens\":7,"
	    "\"completion_tokens\":3}}",
	    "[DONE]",
	    NULL
	};
	struct seen seen = { 0 };

	check_stream(chunks,
	    "[{\"type\":\"tool_use\",\"id\":\"c0\",\"name\":\"read\","
	    "  \"input\":{\"path\":\"a.c\"}},"
	    " {\"type\":\"tool_use\",\"id\":\"c1\",\"name\":\"grep\","
	    "  \"input\":{\"pat\":\"x\"}}]", "tool_use", &seen);
	ck_assert_int_eq(seen.tools, 2);
	ck_assert_str_eq(seen.tool_ids, "c0:read c1:grep ");
}
END_TEST

START_TEST(stream_reusing_index_zero_makes_two_calls)
{
	/* Ollama's parallel calls: index 0 twice, with different ids. */
	static const char *chunks[] = {
	    "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":["
	    "{\"index\":0,\"id\":\"call_a\",\"function\":{\"name\":\"read\","
	    "\"arguments\":\"{\\\"path\\\":\\\"a\\\"}\"}}]}}]}",
	    "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":["
	    "{\"index\":0,\"id\":\"call_b\",\"function\":{\"name\":\"read\","
	    "\"arguments\":\"{\\\"path\\\":\\\"b\\\"}\"}}]}}]}",
	    "{\"choices\":[{\"index\":0,\"delta\":{},"
	    "\"finish_reason\":\"tool_calls\"}]}",
	    "[DONE]",
	    NULL
	};
	struct seen seen = { 0 };

	check_stream(chunks,
	    "[{\"type\":\"tool_use\",\"id\":\"call_a\",\"name\":\"read\","
	    "  \"input\":{\"path\":\"a\"}},"
	    " {\"type\":\"tool_use\",\"id\":\"call_b\",\"name\":\"read\","
	    "  \"input\":{\"path\":\"b\"}}]", "tool_use", &seen);
	ck_assert_str_eq(seen.tool_ids, "call_a:read call_b:read ");
}
END_TEST

START_TEST(stream_call_without_id_gets_one)
{
	/* Text and a call at index 0 must not mix: text is kept apart. A
	 * call that never sends an id is called call_<index>; its own
	 * finish reason, "length", and an unknown one pass through. */
	static const char *chunks[] = {
	    "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}",
	    "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":["
	    "{\"index\":0,\"function\":{\"name\":\"ls\",\"arguments\":\"{\"}}"
	    "]}}]}",
	    "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\" more\","
	    "\"tool_calls\":[{\"index\":0,\"id\":null,\"function\":"
	    "{\"arguments\":\"}\"}}]}}]}",
	    "{\"choices\":[{\"index\":0,\"delta\":{},"
	    "\"finish_reason\":\"length\"}]}",
	    "[DONE]",
	    NULL
	};
	static const char *filtered[] = {
	    "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"},"
	    "\"finish_reason\":\"content_filter\"}]}",
	    "[DONE]",
	    NULL
	};
	struct seen seen = { 0 };

	check_stream(chunks,
	    "[{\"type\":\"text\",\"text\":\"ok more\"},"
	    " {\"type\":\"tool_use\",\"id\":\"call_0\",\"name\":\"ls\","
	    "  \"input\":{}}]", "max_tokens", &seen);
	ck_assert_str_eq(seen.tool_ids, "call_0:ls ");
	ck_assert_str_eq(seen.text, "ok more");

	memset(&seen, 0, sizeof seen);
	/* The provider's filter stopped it: taken as a refusal. */
	check_stream(filtered, "[{\"type\":\"text\",\"text\":\"x\"}]",
	    "refusal", &seen);
}
END_TEST

START_TEST(stream_done_and_empty_chunks)
{
	struct llm_result res = { 0 };
	struct llm_turn *t = turn_new(NULL, NULL);

	ck_assert_int_eq(event(t, "[DONE]", &res), PROVIDER_DONE);
	/* The usage chunk and keep-alives change nothing but usage. */
	ck_assert_int_eq(event(t, "{\"choices\":[]}", &res), PROVIDER_MORE);
	ck_assert_int_eq(event(t, "", &res), PROVIDER_MORE);
	ck_assert_int_eq(event(t, "{\"error\":null,\"choices\":null}",
	    &res), PROVIDER_MORE);
	ck_assert_uint_eq(turn_block_count(t), 0);
	ck_assert_int_eq(res.status, LLM_OK);
	ck_assert_ptr_null(res.error_message);
	ck_assert_int_eq(turn_finish(t, &res), 0);
	tu_json_check(res.message, "{\"role\":\"assistant\",\"content\":[]}");
	ck_assert_str_eq(res.stop_reason, "end_turn");
	turn_free(t);
	llm_result_clear(&res);
}
END_TEST

START_TEST(stream_malformed_chunk_fails)
{
	struct llm_result res = { 0 };
	struct llm_turn *t = turn_new(NULL, NULL);
	char junk[600], zs[81];

	/* Long, with an escape sequence and a bad byte: the message quotes
	 * a short, clean piece of it. */
	memset(junk, 'z', sizeof junk - 1);
	junk[sizeof junk - 1] = '\0';
	memcpy(junk, "{\"choices\":\x1b[2J\xff", 16);
	ck_assert_int_eq(event(t, junk, &res), PROVIDER_FAIL);
	ck_assert_int_eq(res.status, LLM_ERR_STREAM);
	ck_assert_str_eq(res.error_type, "invalid_response");
	ck_assert_ptr_nonnull(strstr(res.error_message, "not JSON"));
	ck_assert_ptr_nonnull(strstr(res.error_message,
	    "{\"choices\":[2J\xef\xbf\xbdzzz"));
	ck_assert_ptr_null(strchr(res.error_message, '\x1b'));
	ck_assert_uint_lt(strlen(res.error_message), 300);
	memset(zs, 'z', sizeof zs - 1);
	zs[sizeof zs - 1] = '\0';
	ck_assert_ptr_null(strstr(res.error_message, zs));
	llm_result_clear(&res);

	/* Valid JSON that is not an object fails too. */
	ck_assert_int_eq(event(t, "[1,2]", &res), PROVIDER_FAIL);
	ck_assert_int_eq(res.status, LLM_ERR_STREAM);
	ck_assert_str_eq(res.error_type, "invalid_response");
	ck_assert_ptr_nonnull(strstr(res.error_message, "[1,2]"));
	llm_result_clear(&res);

	/* A truncated chunk. */
	ck_assert_int_eq(event(t, "{\"choices\":[{\"delta\":{\"content\":"
	    "\"a", &res), PROVIDER_FAIL);
	ck_assert_int_eq(res.status, LLM_ERR_STREAM);
	llm_result_clear(&res);
	turn_free(t);
}
END_TEST

START_TEST(stream_error_chunk_fails_with_its_message)
{
	static const char *chunks[] = {
	    "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"par\"}}]}",
	    "{\"error\":{\"message\":\"the model crashed\","
	    "\"type\":\"server_error\",\"code\":500}}",
	    NULL
	};
	struct llm_result res = { 0 };
	struct llm_turn *t = turn_new(NULL, NULL);

	ck_assert_int_eq(feed(t, &res, chunks), PROVIDER_FAIL);
	ck_assert_int_eq(res.status, LLM_ERR_STREAM);
	ck_assert_str_eq(res.error_type, "server_error");
	ck_assert_str_eq(res.error_message, "the model crashed");
	turn_free(t);
	llm_result_clear(&res);

	/* A bare string, and an error without a message. */
	t = turn_new(NULL, NULL);
	ck_assert_int_eq(event(t, "{\"error\":\"out of\\nmemory\"}", &res),
	    PROVIDER_FAIL);
	ck_assert_int_eq(res.status, LLM_ERR_STREAM);
	ck_assert_ptr_null(res.error_type);
	ck_assert_str_eq(res.error_message, "out of memory");
	llm_result_clear(&res);
	ck_assert_int_eq(event(t, "{\"error\":{\"code\":503}}", &res),
	    PROVIDER_FAIL);
	ck_assert_int_eq(res.status, LLM_ERR_STREAM);
	ck_assert_str_eq(res.error_type, "503");
	ck_assert_ptr_nonnull(res.error_message);
	turn_free(t);
	llm_result_clear(&res);
}
END_TEST

START_TEST(stream_invalid_arguments_fail_at_the_end)
{
	static const char *chunks[] = {
	    "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":["
	    "{\"index\":0,\"id\":\"c0\",\"function\":{\"name\":\"ls\","
	    "\"arguments\":\"{\\\"dir\\\": src}\"}}]},"
	    "\"finish_reason\":\"tool_calls\"}]}",
	    "[DONE]",
	    NULL
	};
	static const char *not_object[] = {
	    "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":["
	    "{\"index\":0,\"id\":\"c0\",\"function\":{\"name\":\"ls\","
	    "\"arguments\":\"[1]\"}}]}}]}",
	    "[DONE]",
	    NULL
	};
	struct llm_result res = { 0 };
	struct llm_turn *t = turn_new(NULL, NULL);

	ck_assert_int_eq(feed(t, &res, chunks), PROVIDER_DONE);
	ck_assert_int_eq(turn_finish(t, &res), -1);
	ck_assert_int_eq(res.status, LLM_ERR_PARSE);
	ck_assert_ptr_null(res.message);
	ck_assert_ptr_nonnull(strstr(res.error_message, "c0"));
	turn_free(t);
	llm_result_clear(&res);

	t = turn_new(NULL, NULL);
	ck_assert_int_eq(feed(t, &res, not_object), PROVIDER_DONE);
	ck_assert_int_eq(turn_finish(t, &res), -1);
	ck_assert_int_eq(res.status, LLM_ERR_PARSE);
	turn_free(t);
	llm_result_clear(&res);
}
END_TEST

START_TEST(parse_body_of_text_and_of_tool_calls)
{
	static const char text[] =
	    "{\"id\":\"chatcmpl-9\",\"object\":\"chat.completion\","
	    "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
	    "\"content\":\"Hello \\u00e9\"},\"finish_reason\":\"stop\"}],"
	    "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":2,"
	    "\"total_tokens\":14}}";
	static const char calls[] =
	    "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
	    "\"content\":null,\"tool_calls\":["
	    "{\"id\":\"call_q7\",\"type\":\"function\",\"function\":"
	    "{\"name\":\"read\",\"arguments\":\"{\\\"path\\\":\\\"a\\\"}\"}},"
	    "{\"type\":\"function\",\"function\":{\"name\":\"ls\","
	    "\"arguments\":\"\"}},"
	    "{\"id\":\"call_3\",\"function\":{\"name\":\"grep\","
	    "\"arguments\":{\"pat\":\"x\"}}}]},"
	    "\"finish_reason\":\"tool_calls\"}]}";
	struct seen seen = { 0 };
	struct llm_result res = { 0 };
	struct llm_turn *t = turn_new(record, &seen);

	ck_assert_int_eq(provider_openai.parse_body(t, text, strlen(text),
	    &res), 0);
	ck_assert_int_eq(turn_finish(t, &res), 0);
	tu_json_check(res.message, "{\"role\":\"assistant\",\"content\":["
	    "{\"type\":\"text\",\"text\":\"Hello \\u00e9\"}]}");
	ck_assert_str_eq(res.stop_reason, "end_turn");
	ck_assert_int_eq(res.usage.input, 12);
	ck_assert_int_eq(res.usage.output, 2);
	ck_assert_str_eq(seen.text, "Hello \xc3\xa9");
	turn_free(t);
	llm_result_clear(&res);

	memset(&seen, 0, sizeof seen);
	t = turn_new(record, &seen);
	ck_assert_int_eq(provider_openai.parse_body(t, calls, strlen(calls),
	    &res), 0);
	ck_assert_int_eq(turn_finish(t, &res), 0);
	tu_json_check(json_object_get(res.message, "content"),
	    "[{\"type\":\"tool_use\",\"id\":\"call_q7\",\"name\":\"read\","
	    "  \"input\":{\"path\":\"a\"}},"
	    " {\"type\":\"tool_use\",\"id\":\"call_1\",\"name\":\"ls\","
	    "  \"input\":{}},"
	    " {\"type\":\"tool_use\",\"id\":\"call_3\",\"name\":\"grep\","
	    "  \"input\":{\"pat\":\"x\"}}]");
	ck_assert_str_eq(res.stop_reason, "tool_use");
	ck_assert_int_eq(res.usage.input, 0);
	ck_assert_str_eq(seen.tool_ids, "call_q7:read call_1:ls call_3:grep ");
	turn_free(t);
	llm_result_clear(&res);
}
END_TEST

START_TEST(parse_body_error_in_a_200)
{
	static const char body[] = "{\"error\":{\"message\":\"context "
	    "length exceeded\",\"type\":\"invalid_request_error\","
	    "\"code\":\"context_length_exceeded\"}}";
	struct llm_result res = { 0 };
	struct llm_turn *t = turn_new(NULL, NULL);

	ck_assert_int_eq(provider_openai.parse_body(t, body, strlen(body),
	    &res), -1);
	ck_assert_int_eq(res.status, LLM_ERR_API);
	ck_assert_str_eq(res.error_type, "invalid_request_error");
	ck_assert_str_eq(res.error_message, "context length exceeded");
	ck_assert_uint_eq(turn_block_count(t), 0);
	turn_free(t);
	llm_result_clear(&res);
}
END_TEST

START_TEST(parse_body_garbage_fails)
{
	static const char *bodies[] = {
	    "<html><body>502 Bad Gateway</body></html>",
	    "",
	    "{\"choices\":[{\"index\":0,\"message\":",
	    "[]",
	    "{\"id\":\"x\"}",
	    "{\"choices\":[]}",
	    "{\"choices\":[{\"index\":0,\"message\":\"hi\"}]}",
	    NULL
	};
	struct llm_result res = { 0 };
	struct llm_turn *t;
	size_t i;

	for (i = 0; bodies[i] != NULL; i++) {
		t = turn_new(NULL, NULL);
		ck_assert_msg(provider_openai.parse_body(t, bodies[i],
		    strlen(bodies[i]), &res) == -1, "accepted %s", bodies[i]);
		ck_assert_int_eq(res.status, LLM_ERR_PARSE);
		ck_assert_str_eq(res.error_type, "invalid_response");
		ck_assert_ptr_nonnull(res.error_message);
		ck_assert_uint_eq(turn_block_count(t), 0);
		turn_free(t);
		llm_result_clear(&res);
	}
}
END_TEST

START_TEST(parse_error_of_json_bodies)
{
	static const char openai[] = "{\"error\":{\"message\":\"Incorrect "
	    "API key provided\",\"type\":\"invalid_request_error\","
	    "\"param\":null,\"code\":\"invalid_api_key\"}}";
	static const char by_code[] = "{\"error\":{\"message\":\"Rate limit "
	    "reached\",\"type\":null,\"code\":\"rate_limit_exceeded\"}}";
	static const char llamacpp[] = "{\"error\":{\"code\":400,\"message\":"
	    "\"the request exceeds the available context size\","
	    "\"type\":\"invalid_request_error\"}}";
	static const char vllm[] = "{\"object\":\"error\",\"message\":"
	    "\"The model `x` does not exist.\",\"type\":\"NotFoundError\","
	    "\"param\":null,\"code\":404}";
	struct llm_result res = { 0 };

	provider_openai.parse_error(openai, strlen(openai), &res);
	ck_assert_str_eq(res.error_type, "invalid_request_error");
	ck_assert_str_eq(res.error_message, "Incorrect API key provided");

	/* New values replace old ones. */
	provider_openai.parse_error(by_code, strlen(by_code), &res);
	ck_assert_str_eq(res.error_type, "rate_limit_exceeded");
	ck_assert_str_eq(res.error_message, "Rate limit reached");
	llm_result_clear(&res);

	provider_openai.parse_error(llamacpp, strlen(llamacpp), &res);
	ck_assert_str_eq(res.error_type, "invalid_request_error");
	ck_assert_str_eq(res.error_message,
	    "the request exceeds the available context size");
	llm_result_clear(&res);

	provider_openai.parse_error(vllm, strlen(vllm), &res);
	ck_assert_str_eq(res.error_type, "NotFoundError");
	ck_assert_str_eq(res.error_message, "The model `x` does not exist.");
	ck_assert_int_eq(res.status, LLM_OK);	/* the client sets it */
	llm_result_clear(&res);
}
END_TEST

START_TEST(parse_error_of_other_bodies)
{
	static const char html[] = "\r\n<html><head><title>502 Bad Gateway"
	    "</title></head>\r\n<body>nginx</body></html>\r\n";
	static const char prefix[] = "Bad\x1b[31m \0gate\xc2\x9b" "1m\xfe"
	    " way\t";
	static const char want[] = "Bad[31m gate1m\xef\xbf\xbd way ";
	struct llm_result res = { 0 };
	char big[1000], *clean;
	size_t i;

	provider_openai.parse_error(html, strlen(html), &res);
	ck_assert_ptr_null(res.error_type);
	ck_assert_str_eq(res.error_message,
	    "<html><head><title>502 Bad Gateway</title></head>");
	llm_result_clear(&res);

	/* Empty and blank bodies leave both alone. */
	provider_openai.parse_error("", 0, &res);
	ck_assert_ptr_null(res.error_type);
	ck_assert_ptr_null(res.error_message);
	provider_openai.parse_error(" \r\n", 3, &res);
	ck_assert_ptr_null(res.error_message);

	/* One long line with control characters, a NUL, a C1 control and
	 * invalid UTF-8: at most 200 clean bytes, and the euro sign that
	 * the limit would cut (bytes 198..200) is left out whole. */
	memset(big, 'a', sizeof big);
	memcpy(big, prefix, sizeof prefix - 1);
	memcpy(big + 198, "\xe2\x82\xac", 3);
	provider_openai.parse_error(big, sizeof big, &res);
	ck_assert_ptr_null(res.error_type);
	ck_assert_uint_le(strlen(res.error_message), 200);
	ck_assert_int_eq(strncmp(res.error_message, want, strlen(want)), 0);
	ck_assert_uint_eq(strlen(res.error_message),
	    198 - (sizeof prefix - 1) + strlen(want));
	ck_assert_ptr_null(strstr(res.error_message, "\xe2"));
	clean = utf8_sanitize(res.error_message);
	ck_assert_str_eq(clean, res.error_message);
	free(clean);
	for (i = 0; res.error_message[i] != '\0'; i++)
		ck_assert_uint_ge((unsigned char)res.error_message[i], 0x20);
	llm_result_clear(&res);

	/* JSON that is no error we know is quoted like text. */
	provider_openai.parse_error("{\"ok\":true}", 11, &res);
	ck_assert_ptr_null(res.error_type);
	ck_assert_str_eq(res.error_message, "{\"ok\":true}");
	llm_result_clear(&res);
}
END_TEST

START_TEST(reasoning_is_kept_and_sent_back_with_the_tool_calls)
{
	static const char *chunks[] = {
	    "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":"
	    "[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,"
	    "\"reasoning_content\":\"Need the \"}}]}",
	    "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":"
	    "[{\"index\":0,\"delta\":{\"reasoning_content\":\"listing.\"}}]}",
	    "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":"
	    "[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":"
	    "\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"bash\","
	    "\"arguments\":\"{}\"}}]}}]}",
	    "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":"
	    "[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}",
	    "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":"
	    "[],\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":9,"
	    "\"prompt_tokens_details\":{\"cached_tokens\":896}}}",
	    "[DONE]",
	    NULL
	};
	struct seen seen = { 0 };
	struct llm_result res = { 0 };
	struct llm_turn *t = turn_new(record, &seen);
	struct llm_config c;
	json_t *msgs, *got;
	char *dump;

	ck_assert_int_eq(feed(t, &res, chunks), PROVIDER_DONE);
	ck_assert_int_eq(turn_finish(t, &res), 0);
	tu_json_check(json_object_get(res.message, "content"),
	    "[{\"type\":\"reasoning\",\"field\":\"reasoning_content\","
	    "\"reasoning\":\"Need the listing.\"},"
	    "{\"type\":\"tool_use\",\"id\":\"call_1\",\"name\":\"bash\","
	    "\"input\":{}}]");
	/* The cached part of the prompt is a cache read, not input. */
	ck_assert_int_eq(res.usage.input, 104);
	ck_assert_int_eq(res.usage.cache_read, 896);
	ck_assert_int_eq(res.usage.output, 9);

	/* The next request carries the reasoning back under its name. */
	msgs = json_pack("[{s:s, s:s}, O, {s:s, s:[{s:s, s:s, s:s}]}]",
	    "role", "user", "content", "go", res.message, "role", "user",
	    "content", "type", "tool_result", "tool_use_id", "call_1",
	    "content", "ok");
	dump = json_dumps(msgs, JSON_COMPACT);
	config(&c, 1);
	got = body_for(&c, NULL, dump, NULL);
	tu_json_check(json_array_get(json_object_get(got, "messages"), 1),
	    "{\"role\":\"assistant\",\"content\":null,"
	    "\"reasoning_content\":\"Need the listing.\",\"tool_calls\":"
	    "[{\"id\":\"call_1\",\"type\":\"function\",\"function\":"
	    "{\"name\":\"bash\",\"arguments\":\"{}\"}}]}");
	free(dump);
	json_decref(got);
	json_decref(msgs);
	turn_free(t);
	llm_result_clear(&res);

	/* A whole reply naming it "reasoning" keeps that name. */
	t = turn_new(NULL, NULL);
	{
		static const char body[] = "{\"choices\":[{\"index\":0,"
		    "\"message\":{\"role\":\"assistant\",\"content\":\"hi\","
		    "\"reasoning\":\"short\"},\"finish_reason\":\"stop\"}]}";

		ck_assert_int_eq(provider_openai.parse_body(t, body,
		    strlen(body), &res), 0);
	}
	ck_assert_int_eq(turn_finish(t, &res), 0);
	tu_json_check(json_object_get(res.message, "content"),
	    "[{\"type\":\"reasoning\",\"field\":\"reasoning\","
	    "\"reasoning\":\"short\"},{\"type\":\"text\",\"text\":\"hi\"}]");
	turn_free(t);
	llm_result_clear(&res);
}
END_TEST

static Suite *
openai_suite(void)
{
	Suite *s = suite_create("openai");
	TCase *req = tcase_create("request");
	TCase *stream = tcase_create("stream");
	TCase *reply = tcase_create("reply");

	tcase_add_test(req, body_translates_a_whole_conversation);
	tcase_add_test(req, body_leaves_out_what_is_empty);
	tcase_add_test(req, body_sends_result_images_in_a_user_message);
	tcase_add_test(req, headers_carry_the_key_only_when_set);
	suite_add_tcase(s, req);

	tcase_add_test(stream, stream_of_the_documented_example);
	tcase_add_test(stream, stream_of_text_keeps_utf8_whole);
	tcase_add_test(stream, stream_of_a_whole_call_in_one_chunk);
	tcase_add_test(stream, stream_of_parallel_calls_interleaved);
	tcase_add_test(stream, stream_reusing_index_zero_makes_two_calls);
	tcase_add_test(stream, stream_call_without_id_gets_one);
	tcase_add_test(stream, stream_done_and_empty_chunks);
	tcase_add_test(stream, stream_malformed_chunk_fails);
	tcase_add_test(stream, stream_error_chunk_fails_with_its_message);
	tcase_add_test(stream, stream_invalid_arguments_fail_at_the_end);
	suite_add_tcase(s, stream);

	tcase_add_test(reply, parse_body_of_text_and_of_tool_calls);
	tcase_add_test(reply, parse_body_error_in_a_200);
	tcase_add_test(reply, parse_body_garbage_fails);
	tcase_add_test(reply, parse_error_of_json_bodies);
	tcase_add_test(reply, parse_error_of_other_bodies);
	tcase_add_test(reply, reasoning_is_kept_and_sent_back_with_the_tool_calls);
	suite_add_tcase(s, reply);
	return s;
}

int
main(void)
{
	return tu_run(openai_suite());
}
