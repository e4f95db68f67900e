/*
 * The OpenAI chat completions provider (--provider openai-chat), for the
 * servers that copy OpenAI's API: llama.cpp, Ollama, vLLM, DeepSeek,
 * OpenRouter. OpenAI's own endpoint has a provider of its own
 * (responses.c).
 *
 * Going out, the Messages-API conversation becomes chat messages: a
 * system message first, tool_use blocks become an assistant message's
 * tool_calls (their input a JSON *string*), and each tool_result becomes
 * a message of role "tool" that comes before the user's own text. A tool
 * message carries text only, so the images of the results (an MCP
 * tool's) follow them in a user message, each result's under a line that
 * names its call, before the user's own text. Coming
 * back, streamed chunks carry text deltas and tool-call fragments keyed by
 * the call's index; they are handed to a turn, text under index -1 so it
 * never meets a call's index. Reasoning servers (DeepSeek-style) add the
 * model's reasoning as reasoning_content (others call it reasoning); it
 * is kept as a block of its own and sent back with the message's tool
 * calls, which those servers require.
 *
 * The servers differ in small ways that are handled here rather than by
 * the caller: Ollama sends a whole call in one chunk and may reuse index 0
 * for parallel calls (the turn starts a new block when the id changes);
 * a call may come without an id (one is made up); servers report errors
 * mid-stream as a chunk holding an "error" object; and an error body may be
 * an HTML page from a proxy rather than JSON.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "llm/provider.h"
#include "llm/turn.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* The longest piece of a bad chunk or body quoted in an error message. */
#define OPENAI_QUOTE_CHUNK	80
#define OPENAI_QUOTE_BODY	200

/* A growing string; `parts` counts the pieces joined so far. */
struct openai_buf {
	char	*p;
	size_t	 len, cap;
	int	 parts;
};

static void
openai_buf_add(struct openai_buf *b, const char *s, size_t len)
{
	b->p = xappend(b->p, &b->len, &b->cap, s, len);
}

/* Appends a non-empty JSON string, after "\n\n" when it is not the first. */
static void
openai_buf_join(struct openai_buf *b, json_t *s)
{
	if (!json_is_string(s) || json_string_length(s) == 0)
		return;
	if (b->parts++ > 0)
		openai_buf_add(b, "\n\n", 2);
	openai_buf_add(b, json_string_value(s), json_string_length(s));
}

/* Joins content that is a string or an array of blocks: the text of its
 * "text" blocks. Other blocks are left out. */
static void
openai_buf_join_text(struct openai_buf *b, json_t *content)
{
	json_t *block;
	size_t i;

	if (json_is_string(content)) {
		openai_buf_join(b, content);
		return;
	}
	json_array_foreach(content, i, block) {
		const char *type = json_string_value(json_object_get(block,
		    "type"));

		if (type != NULL && strcmp(type, "text") == 0)
			openai_buf_join(b, json_object_get(block, "text"));
	}
}

/* A JSON string from a buffer (whose pieces were valid strings). */
static json_t *
openai_buf_json(struct openai_buf *b)
{
	json_t *s = json_stringn(b->len > 0 ? b->p : "", b->len);

	if (s == NULL)
		abort();	/* only out of memory: the text was valid */
	return s;
}

/* The string value at key in object o, or NULL. */
static const char *
openai_str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/*
 * Returns a malloc'd message saying that what (a chunk, the reply) is not
 * a JSON object: root is what it parsed to (NULL when it did not parse,
 * with the parser's complaint in jerr). Both the complaint, which quotes
 * the bad token, and the start of the data are quoted clean.
 */
static char *
openai_invalid(const char *what, json_t *root, json_error_t *jerr,
    const char *data, size_t len)
{
	char *quote = utf8_clean(data, len, OPENAI_QUOTE_CHUNK), *why, *m;

	if (root != NULL) {
		m = xasprintf("%s that is not a JSON object: %s", what, quote);
		free(quote);
		return m;
	}
	why = utf8_clean(jerr->text, strlen(jerr->text), OPENAI_QUOTE_BODY);
	m = xasprintf("%s that is not JSON (%s): %s", what, why, quote);
	free(why);
	free(quote);
	return m;
}

/* Marks res failed with status and type "invalid_response"; takes msg. */
static void
openai_fail(struct llm_result *res, enum llm_status status, char *msg)
{
	res->status = status;
	free(res->error_type);
	res->error_type = xstrdup("invalid_response");
	free(res->error_message);
	res->error_message = msg;
}

/*
 * Sets res->error_type and res->error_message from an error value: an
 * object {message, type, code} (type falls back to code) or a bare string.
 * A field found replaces the old value; one not found is left alone.
 * Returns 0, or -1 when err held no message.
 */
static int
openai_error_fields(json_t *err, struct llm_result *res)
{
	json_t *type, *code, *msg;
	char *t = NULL, *m = NULL;

	if (json_is_string(err))
		msg = err;
	else if (json_is_object(err)) {
		msg = json_object_get(err, "message");
		type = json_object_get(err, "type");
		code = json_object_get(err, "code");
		if (json_is_string(type) && json_string_length(type) > 0)
			t = utf8_clean(json_string_value(type),
			    json_string_length(type), OPENAI_QUOTE_BODY);
		else if (json_is_string(code) && json_string_length(code) > 0)
			t = utf8_clean(json_string_value(code),
			    json_string_length(code), OPENAI_QUOTE_BODY);
		else if (json_is_integer(code))
			t = xasprintf("%" JSON_INTEGER_FORMAT,
			    json_integer_value(code));
	} else
		return -1;
	if (json_is_string(msg))
		m = utf8_clean(json_string_value(msg),
		    json_string_length(msg), (size_t)-1);
	if (t != NULL) {
		free(res->error_type);
		res->error_type = t;
	}
	if (m == NULL)
		return -1;
	free(res->error_message);
	res->error_message = m;
	return 0;
}

/* Fills res from the "error" value of a 200 reply or a chunk. */
static void
openai_error(json_t *err, enum llm_status status, struct llm_result *res)
{
	res->status = status;
	if (openai_error_fields(err, res) == 0)
		return;
	free(res->error_message);
	res->error_message = xstrdup("the server reported an error without "
	    "a message");
}

/* The Messages-API stop reason for a finish_reason. */
static const char *
openai_stop_reason(const char *reason)
{
	if (strcmp(reason, "stop") == 0)
		return "end_turn";
	if (strcmp(reason, "tool_calls") == 0)
		return "tool_use";
	if (strcmp(reason, "length") == 0)
		return "max_tokens";
	/* The provider's filter stopped the reply: taken as a refusal. */
	if (strcmp(reason, "content_filter") == 0)
		return "refusal";
	return reason;
}

/*
 * Records a choice's finish_reason and the chunk's usage, when present.
 * prompt_tokens includes the cached part, which servers that cache report
 * in prompt_tokens_details.cached_tokens: it is split off as a cache
 * read, so the input counts only what was not cached, as on the Messages
 * API.
 */
static void
openai_finish_and_usage(struct llm_turn *t, json_t *choice, json_t *root)
{
	const char *reason = openai_str(choice, "finish_reason");

	if (reason != NULL && *reason != '\0')
		turn_stop_reason(t, openai_stop_reason(reason));
	provider_usage(t, json_object_get(root, "usage"), "prompt_tokens",
	    "completion_tokens", "prompt_tokens_details");
}

/* The reasoning a server sends beside the reply, under whichever name it
 * uses; NULL when there is none. */
static json_t *
openai_reasoning(json_t *obj, const char **field)
{
	static const char *const names[] = { "reasoning_content",
	    "reasoning" };
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		json_t *v = json_object_get(obj, names[i]);

		if (json_is_string(v) && json_string_length(v) > 0) {
			*field = names[i];
			return v;
		}
	}
	return NULL;
}

/* Hands the reasoning in obj (a delta or a message) to the turn. */
static void
openai_reasoning_to_turn(struct llm_turn *t, json_t *obj)
{
	const char *field;
	json_t *v = openai_reasoning(obj, &field);

	if (v != NULL)
		turn_reasoning(t, field, json_string_value(v),
		    json_string_length(v));
}

/* Hands a tool call's arguments to the turn: a string is JSON text (maybe
 * a fragment); some servers send the object itself. */
static void
openai_arguments(struct llm_turn *t, long index, json_t *args)
{
	if (json_is_string(args))
		turn_tool_input(t, index, json_string_value(args),
		    json_string_length(args));
	else if (json_is_object(args))
		turn_tool_input_json(t, index, args);
}

/* Starts the tool call at index, making up an id when it has none. */
static void
openai_tool_start(struct llm_turn *t, long index, const char *id,
    const char *name)
{
	char *made;

	if (id != NULL && *id != '\0') {
		turn_tool_start(t, index, id, name);
		return;
	}
	made = xasprintf("call_%ld", index);
	turn_tool_start(t, index, made, name);
	free(made);
}

/* A refusal (a delta's or a message's "refusal" text) is shown as the
 * reply's text and makes the reply a refusal. */
static void
openai_refusal(struct llm_turn *t, json_t *obj)
{
	json_t *v = json_object_get(obj, "refusal");

	if (!json_is_string(v) || json_string_length(v) == 0)
		return;
	turn_text(t, -1, json_string_value(v), json_string_length(v));
	turn_refused(t);
}

/* Adds a message's text (a string, or an array of content parts) to the
 * turn. */
static void
openai_text(struct llm_turn *t, json_t *content)
{
	json_t *part;
	size_t i;

	if (json_is_string(content)) {
		turn_text(t, -1, json_string_value(content),
		    json_string_length(content));
		return;
	}
	json_array_foreach(content, i, part) {
		json_t *text = json_object_get(part, "text");

		if (json_is_string(text))
			turn_text(t, -1, json_string_value(text),
			    json_string_length(text));
	}
}

/* --- the request ------------------------------------------------------ */

/* A role "tool" message for a tool_result block. */
static json_t *
openai_tool_message(json_t *block)
{
	struct openai_buf text = { 0 }, out = { 0 };
	const char *id = openai_str(block, "tool_use_id");
	json_t *m, *content;

	openai_buf_join_text(&text, json_object_get(block, "content"));
	if (json_is_true(json_object_get(block, "is_error")))
		openai_buf_add(&out, "Error: ", 7);
	openai_buf_add(&out, text.p != NULL ? text.p : "", text.len);
	content = openai_buf_json(&out);
	m = json_pack("{s:s, s:s, s:o}", "role", "tool", "tool_call_id",
	    id != NULL ? id : "", "content", content);
	free(text.p);
	free(out.p);
	return m;
}

/* An image block as a content part: its base64 in a data URL. */
static json_t *
openai_image_part(json_t *block)
{
	json_t *source = json_object_get(block, "source"), *part;
	const char *mime = openai_str(source, "media_type");
	const char *data = openai_str(source, "data");
	char *url;

	if (mime == NULL || data == NULL)
		return NULL;
	url = xasprintf("data:%s;base64,%s", mime, data);
	part = json_pack("{s:s, s:{s:s}}", "type", "image_url", "image_url",
	    "url", url);
	free(url);
	return part;
}

/* Appends to parts the images of a tool_result, after a line naming its
 * call. */
static void
openai_result_images(json_t *parts, json_t *block)
{
	json_t *b, *part, *images = json_array();
	const char *id = openai_str(block, "tool_use_id");
	char *line;
	size_t i;

	json_array_foreach(json_object_get(block, "content"), i, b) {
		const char *type = openai_str(b, "type");

		if (type != NULL && strcmp(type, "image") == 0 &&
		    (part = openai_image_part(b)) != NULL)
			json_array_append_new(images, part);
	}
	if (json_array_size(images) > 0) {
		line = xasprintf("[the image%s of the result of tool call %s, "
		    "which a tool message cannot carry:]",
		    json_array_size(images) == 1 ? "" : "s", id ? id : "");
		json_array_append_new(parts, json_pack("{s:s, s:s}", "type",
		    "text", "text", line));
		json_array_extend(parts, images);
		free(line);
	}
	json_decref(images);
}

/* Appends the messages for a user message: one per tool_result, then one
 * with the results' images and the text, if it has any. */
static void
openai_user(json_t *msgs, json_t *content)
{
	struct openai_buf text = { 0 };
	json_t *block, *parts = json_array();
	size_t i;

	json_array_foreach(content, i, block) {
		const char *type = openai_str(block, "type");

		if (type != NULL && strcmp(type, "tool_result") == 0) {
			json_array_append_new(msgs,
			    openai_tool_message(block));
			openai_result_images(parts, block);
		}
	}
	openai_buf_join_text(&text, content);
	if (json_array_size(parts) > 0) {
		if (text.len > 0)
			json_array_append_new(parts, json_pack("{s:s, s:o}",
			    "type", "text", "text", openai_buf_json(&text)));
		json_array_append_new(msgs, json_pack("{s:s, s:O}", "role",
		    "user", "content", parts));
	} else if (text.len > 0)
		json_array_append_new(msgs, json_pack("{s:s, s:o}", "role",
		    "user", "content", openai_buf_json(&text)));
	json_decref(parts);
	free(text.p);
}

/* An entry of tool_calls for a tool_use block. */
static json_t *
openai_tool_call(json_t *block)
{
	const char *id = openai_str(block, "id");
	const char *name = openai_str(block, "name");
	json_t *input = json_object_get(block, "input"), *call;
	char *args = NULL;

	if (input != NULL)
		args = json_dumps(input, JSON_COMPACT | JSON_ENCODE_ANY);
	call = json_pack("{s:s, s:s, s:{s:s, s:s}}", "id", id ? id : "",
	    "type", "function", "function", "name", name ? name : "",
	    "arguments", args != NULL ? args : "{}");
	free(args);
	return call;
}

/*
 * Appends the message for an assistant message, unless it is empty. The
 * reasoning the server sent goes back under the name it came with:
 * reasoning servers refuse tool calls sent back without it.
 */
static void
openai_assistant(json_t *msgs, json_t *content)
{
	struct openai_buf text = { 0 };
	json_t *calls = json_array(), *block, *m, *reasoning = NULL;
	const char *field = NULL;
	size_t i;

	json_array_foreach(content, i, block) {
		const char *type = openai_str(block, "type");

		if (type != NULL && strcmp(type, "tool_use") == 0)
			json_array_append_new(calls, openai_tool_call(block));
		else if (type != NULL && strcmp(type, "reasoning") == 0 &&
		    reasoning == NULL) {
			field = openai_str(block, "field");
			reasoning = json_object_get(block, "reasoning");
			if (field == NULL || !json_is_string(reasoning))
				reasoning = NULL;
		}
	}
	openai_buf_join_text(&text, content);
	if (text.len == 0 && json_array_size(calls) == 0) {
		json_decref(calls);
		return;
	}
	m = json_pack("{s:s, s:o}", "role", "assistant", "content",
	    text.len > 0 ? openai_buf_json(&text) : json_null());
	if (reasoning != NULL)
		json_object_set(m, field, reasoning);
	if (json_array_size(calls) > 0)
		json_object_set_new(m, "tool_calls", calls);
	else
		json_decref(calls);
	json_array_append_new(msgs, m);
	free(text.p);
}

/* The tools as functions, or NULL when there are none. */
static json_t *
openai_tools(json_t *tools)
{
	json_t *out = json_array(), *tool, *fn, *v;
	size_t i;

	json_array_foreach(tools, i, tool) {
		const char *name = openai_str(tool, "name");

		if (name == NULL)
			continue;
		fn = json_pack("{s:s}", "name", name);
		if (json_is_string(v = json_object_get(tool, "description")))
			json_object_set(fn, "description", v);
		if (json_is_object(v = json_object_get(tool, "input_schema")))
			json_object_set(fn, "parameters", v);
		json_array_append_new(out, json_pack("{s:s, s:o}", "type",
		    "function", "function", fn));
	}
	if (json_array_size(out) == 0) {
		json_decref(out);
		return NULL;
	}
	return out;
}

static struct curl_slist *
openai_headers(const struct llm_config *c, struct curl_slist *list)
{
	struct curl_slist *l;
	char *h;
	int n;

	if (c->api_key == NULL)
		return list;
	/* A key read from a file may end in a newline; nothing after a line
	 * break may reach the request, or it would be a header of its own. */
	n = (int)strcspn(c->api_key, "\r\n");
	if (n == 0)
		return list;
	h = xasprintf("Authorization: Bearer %.*s", n, c->api_key);
	l = curl_slist_append(list, h);
	free(h);
	if (l == NULL)
		abort();	/* out of memory, as in xmalloc */
	return l;
}

/*
 * Whether model is one of OpenAI's reasoning models (gpt-5 and later, the
 * o-series; "openai/" as routers name them), which refuse max_tokens:
 * they take max_completion_tokens. Other servers' models keep max_tokens,
 * which every compatible server reads.
 */
static int
openai_reasoning_model(const char *model)
{
	const char *p;

	if (model == NULL)
		return 0;
	if (strncmp(model, "openai/", 7) == 0)
		model += 7;
	if (model[0] == 'o' && model[1] >= '1' && model[1] <= '9')
		return 1;
	if (strncmp(model, "gpt-", 4) != 0)
		return 0;
	p = model + 4;
	return (p[0] >= '5' && p[0] <= '9') || (p[0] >= '1' && p[0] <= '9' &&
	    p[1] >= '0' && p[1] <= '9');
}

static char *
openai_body(const struct llm_config *c, const struct llm_request *req)
{
	json_t *root, *msgs = json_array(), *m;
	char *sys;
	size_t i;

	if (req->system != NULL && *req->system != '\0') {
		sys = utf8_sanitize(req->system);
		json_array_append_new(msgs, json_pack("{s:s, s:s}", "role",
		    "system", "content", sys));
		free(sys);
	}
	json_array_foreach(req->messages, i, m) {
		const char *role = openai_str(m, "role");
		json_t *content = json_object_get(m, "content");

		if (role == NULL)
			continue;
		if (strcmp(role, "user") == 0)
			openai_user(msgs, content);
		else if (strcmp(role, "assistant") == 0)
			openai_assistant(msgs, content);
	}

	root = json_pack("{s:s?}", "model", c->model);
	if (c->max_tokens > 0)
		json_object_set_new(root, openai_reasoning_model(c->model) ?
		    "max_completion_tokens" : "max_tokens",
		    json_integer(c->max_tokens));
	json_object_set_new(root, "stream", json_boolean(c->stream));
	if (c->stream)
		json_object_set_new(root, "stream_options",
		    json_pack("{s:b}", "include_usage", 1));
	json_object_set_new(root, "messages", msgs);
	return provider_body_text(root, openai_tools(req->tools), req);
}

/* --- the reply -------------------------------------------------------- */

/* Feeds the tool_calls of a streamed delta to the turn. */
static void
openai_tool_deltas(struct llm_turn *t, json_t *calls)
{
	json_t *call, *index, *fn;
	const char *id, *name;
	size_t i;
	long at;

	json_array_foreach(calls, i, call) {
		if (!json_is_object(call))
			continue;
		index = json_object_get(call, "index");
		at = json_is_integer(index) && json_integer_value(index) >= 0 ?
		    (long)json_integer_value(index) : (long)i;
		fn = json_object_get(call, "function");
		id = openai_str(call, "id");
		name = openai_str(fn, "name");

		/*
		 * A call starts with its id (and name). Without an id, a name
		 * marks the start: later fragments carry only arguments.
		 * Making up an id for a nameless fragment would split a call
		 * that did start with a real id.
		 */
		if ((id != NULL && *id != '\0') ||
		    (name != NULL && *name != '\0'))
			openai_tool_start(t, at, id, name);
		openai_arguments(t, at, json_object_get(fn, "arguments"));
	}
}

/* Whether data is blank (some servers send empty keep-alive events). */
static int
openai_blank(const char *data, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (strchr(" \t\r\n", data[i]) == NULL || data[i] == '\0')
			return 0;
	}
	return 1;
}

static int
openai_stream_event(struct llm_turn *t, const char *event, const char *data,
    size_t len, struct llm_result *res)
{
	json_t *root, *err, *choice, *delta;
	json_error_t jerr;

	(void)event;	/* these streams name no events: always "message" */
	if (len == 6 && memcmp(data, "[DONE]", 6) == 0)
		return PROVIDER_DONE;
	if (openai_blank(data, len))
		return PROVIDER_MORE;
	if ((root = provider_json(data, len, &jerr)) == NULL ||
	    !json_is_object(root)) {
		openai_fail(res, LLM_ERR_STREAM, openai_invalid("the stream "
		    "sent a chunk", root, &jerr, data, len));
		json_decref(root);
		return PROVIDER_FAIL;
	}
	if ((err = json_object_get(root, "error")) != NULL &&
	    !json_is_null(err)) {
		openai_error(err, LLM_ERR_STREAM, res);
		json_decref(root);
		return PROVIDER_FAIL;
	}

	/* The usage chunk has "choices": [], and choice is NULL. */
	choice = json_array_get(json_object_get(root, "choices"), 0);
	delta = json_object_get(choice, "delta");
	openai_reasoning_to_turn(t, delta);
	if (json_is_string(json_object_get(delta, "content")))
		openai_text(t, json_object_get(delta, "content"));
	openai_refusal(t, delta);
	openai_tool_deltas(t, json_object_get(delta, "tool_calls"));
	openai_finish_and_usage(t, choice, root);
	json_decref(root);
	return PROVIDER_MORE;
}

static int
openai_parse_body(struct llm_turn *t, const char *body, size_t len,
    struct llm_result *res)
{
	json_t *root, *err, *choice, *msg, *call, *fn;
	json_error_t jerr;
	size_t i;

	if ((root = provider_json(body, len, &jerr)) == NULL ||
	    !json_is_object(root)) {
		openai_fail(res, LLM_ERR_PARSE, openai_invalid("the server "
		    "sent a reply", root, &jerr, body, len));
		json_decref(root);
		return -1;
	}
	if ((err = json_object_get(root, "error")) != NULL &&
	    !json_is_null(err)) {
		openai_error(err, LLM_ERR_API, res);
		json_decref(root);
		return -1;
	}
	choice = json_array_get(json_object_get(root, "choices"), 0);
	if (!json_is_object(msg = json_object_get(choice, "message"))) {
		openai_fail(res, LLM_ERR_PARSE, xstrdup("the reply has no "
		    "choices[0].message"));
		json_decref(root);
		return -1;
	}

	openai_reasoning_to_turn(t, msg);
	openai_text(t, json_object_get(msg, "content"));
	openai_refusal(t, msg);
	json_array_foreach(json_object_get(msg, "tool_calls"), i, call) {
		fn = json_object_get(call, "function");
		openai_tool_start(t, (long)i, openai_str(call, "id"),
		    openai_str(fn, "name"));
		openai_arguments(t, (long)i, json_object_get(fn, "arguments"));
	}
	openai_finish_and_usage(t, choice, root);
	json_decref(root);
	return 0;
}

static void
openai_parse_error(const char *body, size_t len, struct llm_result *res)
{
	json_t *root, *err;

	if (body == NULL || len == 0)
		return;
	root = provider_json(body, len, NULL);
	if (json_is_object(root)) {
		/* {"error": {…}} as OpenAI and llama.cpp send it; older vLLM
		 * sends the error object bare; FastAPI sends "detail". */
		if ((err = json_object_get(root, "error")) == NULL ||
		    json_is_null(err))
			err = root;
		if (openai_error_fields(err, res) == 0 ||
		    openai_error_fields(json_object_get(root, "detail"),
		    res) == 0) {
			json_decref(root);
			return;
		}
	}
	json_decref(root);

	/* Not an error we know (an HTML page from a proxy, say). */
	provider_error_text(res, body, len);
}

const struct llm_provider provider_openai = {
	.name = "openai",
	.path = "/chat/completions",
	.headers = openai_headers,
	.body = openai_body,
	.stream_event = openai_stream_event,
	.parse_body = openai_parse_body,
	.parse_error = openai_parse_error
};
