/*
 * The OpenAI Responses API provider (POST {base}/responses), for OpenAI's
 * own endpoint and its reasoning models.
 *
 * Stateless: every request says `store: false` and carries the whole
 * conversation as input items, built from huddle's own history; to a
 * model that reasons it adds `include: ["reasoning.encrypted_content"]`
 * so that each reply's reasoning item comes back with its encrypted
 * content (a model that does not reason refuses that include). That item is kept
 * whole in the assistant message, as a block {"type": "openai_reasoning",
 * "item": {…}}, and goes back unchanged, before the output items that
 * followed it: the service refuses a function call (or message) sent back
 * with its id but without its reasoning item. Text and tool_use blocks
 * keep the id of the item they came from ("item_id") for the same reason.
 *
 * Going out: the system prompt is `instructions`; function tools are
 * sent with `strict: false`; a user message's
 * tool_result blocks become function_call_output items (their output a
 * string, or a list of an input_text and the result's images as
 * input_image data URLs when it has any) and its text a
 * user message; an assistant message's blocks become, in order, its
 * reasoning items, an assistant message and function_call items. Blocks
 * of other providers (thinking, chat-completions reasoning) are left out.
 * Coming back: the stream's events are keyed by output_index; text
 * deltas and whole function calls go to the turn, reasoning summaries are
 * reported as thinking, and response.completed gives the usage (cached
 * tokens split off as cache reads) and ends the reply.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "llm/provider.h"
#include "llm/turn.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

#define RESPONSES_BLOCK		"openai_reasoning"
#define RESPONSES_INCLUDE	"reasoning.encrypted_content"
#define RESPONSES_QUOTE		80

static const char *
responses_str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static int
responses_is(json_t *o, const char *key, const char *value)
{
	const char *s = responses_str(o, key);

	return s != NULL && strcmp(s, value) == 0;
}

/* A growing string of joined text pieces. */
struct responses_buf {
	char	*p;
	size_t	 len, cap;
};

static void
responses_add(struct responses_buf *b, json_t *s)
{
	if (!json_is_string(s) || json_string_length(s) == 0)
		return;
	if (b->len > 0)
		b->p = xappend(b->p, &b->len, &b->cap, "\n\n", 2);
	b->p = xappend(b->p, &b->len, &b->cap, json_string_value(s),
	    json_string_length(s));
}

/* The text of content that is a string or an array of text blocks. */
static void
responses_text_of(struct responses_buf *b, json_t *content)
{
	json_t *block;
	size_t i;

	if (json_is_string(content)) {
		responses_add(b, content);
		return;
	}
	json_array_foreach(content, i, block) {
		if (responses_is(block, "type", "text"))
			responses_add(b, json_object_get(block, "text"));
	}
}

static json_t *
responses_buf_json(struct responses_buf *b)
{
	json_t *s = json_stringn(b->len > 0 ? b->p : "", b->len);

	if (s == NULL)
		abort();	/* only out of memory: the pieces were valid */
	free(b->p);
	memset(b, 0, sizeof *b);
	return s;
}

/* --- the request ------------------------------------------------------ */

/* The image blocks of a tool_result's content as input_image parts (a
 * new array, empty when it has none). */
static json_t *
responses_images(json_t *content)
{
	json_t *parts = json_array(), *block, *source;
	const char *mime, *data;
	char *url;
	size_t i;

	json_array_foreach(content, i, block) {
		source = json_object_get(block, "source");
		mime = responses_str(source, "media_type");
		data = responses_str(source, "data");
		if (!responses_is(block, "type", "image") || mime == NULL ||
		    data == NULL)
			continue;
		url = xasprintf("data:%s;base64,%s", mime, data);
		json_array_append_new(parts, json_pack("{s:s, s:s}", "type",
		    "input_image", "image_url", url));
		free(url);
	}
	return parts;
}

/* A function_call_output item for a tool_result block: its output the
 * text, or the text and the images as a list of parts. */
static json_t *
responses_tool_output(json_t *block)
{
	struct responses_buf text = { 0 }, out = { 0 };
	const char *id = responses_str(block, "tool_use_id");
	json_t *item, *images, *output;

	responses_text_of(&text, json_object_get(block, "content"));
	if (json_is_true(json_object_get(block, "is_error")))
		out.p = xappend(out.p, &out.len, &out.cap, "Error: ", 7);
	if (text.len > 0)
		out.p = xappend(out.p, &out.len, &out.cap, text.p, text.len);
	free(text.p);
	images = responses_images(json_object_get(block, "content"));
	if (json_array_size(images) == 0)
		output = responses_buf_json(&out);
	else {
		output = json_array();
		if (out.len > 0)
			json_array_append_new(output, json_pack("{s:s, s:o}",
			    "type", "input_text", "text",
			    responses_buf_json(&out)));
		json_array_extend(output, images);
	}
	free(out.p);
	json_decref(images);
	item = json_pack("{s:s, s:s, s:o}", "type", "function_call_output",
	    "call_id", id != NULL ? id : "", "output", output);
	return item;
}

static void
responses_user(json_t *input, json_t *content)
{
	struct responses_buf text = { 0 };
	json_t *block;
	size_t i;

	json_array_foreach(content, i, block) {
		if (responses_is(block, "type", "tool_result"))
			json_array_append_new(input,
			    responses_tool_output(block));
	}
	responses_text_of(&text, content);
	if (text.len > 0)
		json_array_append_new(input, json_pack("{s:s, s:s, s:[{s:s, "
		    "s:o}]}", "type", "message", "role", "user", "content",
		    "type", "input_text", "text", responses_buf_json(&text)));
	free(text.p);
}

/* Adds an output item's id, when the block kept one and it may go. */
static void
responses_item_id(json_t *item, json_t *block, int ids)
{
	const char *id = responses_str(block, "item_id");

	if (ids && id != NULL && *id != '\0') {
		json_object_set_new(item, "id", json_string(id));
		json_object_set_new(item, "status", json_string("completed"));
	}
}

static json_t *
responses_call(json_t *block, int ids)
{
	const char *id = responses_str(block, "id");
	const char *name = responses_str(block, "name");
	json_t *input = json_object_get(block, "input"), *item;
	char *args = input != NULL ? json_dumps(input, JSON_COMPACT |
	    JSON_ENCODE_ANY) : NULL;

	item = json_pack("{s:s, s:s, s:s, s:s}", "type", "function_call",
	    "call_id", id ? id : "", "name", name ? name : "", "arguments",
	    args != NULL ? args : "{}");
	free(args);
	responses_item_id(item, block, ids);
	return item;
}

/* Whether an assistant message's reasoning items can all go back: each
 * needs its encrypted content, or ids would name items never stored. */
static int
responses_ids_may_go(json_t *content)
{
	json_t *block;
	size_t i;

	json_array_foreach(content, i, block) {
		if (responses_is(block, "type", RESPONSES_BLOCK) &&
		    !json_is_string(json_object_get(json_object_get(block,
		    "item"), "encrypted_content")))
			return 0;
	}
	return 1;
}

/*
 * The items of an assistant message, in its blocks' order: reasoning
 * items as received, the text as one assistant message (in the place of
 * its first text block), each tool_use as a function_call. A reasoning
 * item with nothing after it is left out (the service refuses it).
 */
static void
responses_assistant(json_t *input, json_t *content)
{
	struct responses_buf text = { 0 };
	json_t *items = json_array(), *block, *item, *msg = NULL, *text_block =
	    NULL;
	int ids = responses_ids_may_go(content);
	size_t i, n;

	json_array_foreach(content, i, block) {
		if (responses_is(block, "type", RESPONSES_BLOCK)) {
			item = json_object_get(block, "item");
			if (ids && json_is_object(item))
				json_array_append(items, item);
		} else if (responses_is(block, "type", "tool_use"))
			json_array_append_new(items, responses_call(block,
			    ids));
		else if (responses_is(block, "type", "text") &&
		    json_string_length(json_object_get(block, "text")) > 0) {
			responses_add(&text, json_object_get(block, "text"));
			if (msg == NULL) {
				msg = json_pack("{s:s, s:s}", "type",
				    "message", "role", "assistant");
				text_block = block;
				json_array_append(items, msg);
			}
		}
	}
	if (msg != NULL) {
		/* annotations is required of an output_text part sent
		 * back, empty or not. */
		json_object_set_new(msg, "content", json_pack("[{s:s, s:o, "
		    "s:[]}]", "type", "output_text", "text",
		    responses_buf_json(&text), "annotations"));
		responses_item_id(msg, text_block, ids);
		json_decref(msg);
	}
	free(text.p);
	n = json_array_size(items);
	for (i = 0; i < n; i++) {
		item = json_array_get(items, i);
		if (responses_is(item, "type", "reasoning") && (i + 1 == n ||
		    responses_is(json_array_get(items, i + 1), "type",
		    "reasoning")))
			continue;
		json_array_append(input, item);
	}
	json_decref(items);
}

/* The tools as Responses function tools, or NULL when there are none. */
static json_t *
responses_tools(json_t *tools)
{
	json_t *out = json_array(), *tool, *fn, *v;
	size_t i;

	json_array_foreach(tools, i, tool) {
		const char *name = responses_str(tool, "name");

		if (name == NULL)
			continue;
		/* Not strict: huddle's schemas have optional properties,
		 * which strict mode would make required. Said, not left to
		 * the service's default. */
		fn = json_pack("{s:s, s:s, s:b}", "type", "function", "name",
		    name, "strict", 0);
		if (json_is_string(v = json_object_get(tool, "description")))
			json_object_set(fn, "description", v);
		if (json_is_object(v = json_object_get(tool, "input_schema")))
			json_object_set(fn, "parameters", v);
		json_array_append_new(out, fn);
	}
	if (json_array_size(out) == 0) {
		json_decref(out);
		return NULL;
	}
	return out;
}

/* The request's "reasoning" object, or NULL to leave the model's own. */
static json_t *
responses_reasoning(const struct llm_config *c)
{
	json_t *r;

	if (!c->reasons)
		return NULL;
	if (c->thinking == LLM_THINKING_DISABLED)
		return json_pack("{s:s}", "effort", "none");
	if (c->thinking == LLM_THINKING_UNSET && c->reasoning_effort == NULL)
		return NULL;
	/* A summary of the reasoning, shown as thinking. */
	r = json_pack("{s:s}", "summary", "auto");
	if (c->reasoning_effort != NULL)
		json_object_set_new(r, "effort", json_string(
		    c->reasoning_effort));
	return r;
}

static char *
responses_body(const struct llm_config *c, const struct llm_request *req)
{
	json_t *root, *input = json_array(), *m, *reasoning;
	char *sys;
	size_t i;

	json_array_foreach(req->messages, i, m) {
		const char *role = responses_str(m, "role");
		json_t *content = json_object_get(m, "content");

		if (role != NULL && strcmp(role, "user") == 0)
			responses_user(input, content);
		else if (role != NULL && strcmp(role, "assistant") == 0) {
			if (json_is_string(content))
				content = json_pack("[{s:s, s:O}]", "type",
				    "text", "text", content);
			else
				json_incref(content);
			responses_assistant(input, content);
			json_decref(content);
		}
	}
	root = json_pack("{s:s?, s:o, s:b, s:b}", "model", c->model,
	    "input", input, "store", 0, "stream", c->stream);
	if (c->reasons)
		json_object_set_new(root, "include", json_pack("[s]",
		    RESPONSES_INCLUDE));
	if (req->system != NULL && *req->system != '\0') {
		sys = utf8_sanitize(req->system);
		json_object_set_new(root, "instructions", json_string(sys));
		free(sys);
	}
	if (c->max_tokens > 0)
		json_object_set_new(root, "max_output_tokens",
		    json_integer(c->max_tokens));
	if ((reasoning = responses_reasoning(c)) != NULL)
		json_object_set_new(root, "reasoning", reasoning);
	return provider_body_text(root, responses_tools(req->tools), req);
}

/* --- the reply -------------------------------------------------------- */

/* The stop reason and usage of a finished Response object. */
static void
responses_finish(struct llm_turn *t, json_t *resp)
{
	json_t *item, *part, *details = json_object_get(resp,
	    "incomplete_details");
	const char *reason = "end_turn";
	size_t i, k;
	int refused = 0;

	json_array_foreach(json_object_get(resp, "output"), i, item) {
		if (responses_is(item, "type", "function_call"))
			reason = "tool_use";
		/* A message that is a refusal makes the reply one. */
		json_array_foreach(json_object_get(item, "content"), k, part)
			if (responses_is(part, "type", "refusal"))
				refused = 1;
	}
	if (refused)
		reason = "refusal";
	if (responses_is(resp, "status", "incomplete"))
		reason = responses_is(details, "reason", "max_output_tokens") ?
		    "max_tokens" : responses_str(details, "reason") != NULL ?
		    responses_str(details, "reason") : "incomplete";
	turn_stop_reason(t, reason);
	provider_usage(t, json_object_get(resp, "usage"), "input_tokens",
	    "output_tokens", "input_tokens_details");
}

/* The summary texts of a reasoning item, reported as thinking. */
static void
responses_summary(struct llm_turn *t, json_t *item)
{
	json_t *part;
	size_t i;

	json_array_foreach(json_object_get(item, "summary"), i, part) {
		json_t *text = json_object_get(part, "text");

		if (json_is_string(text))
			turn_report_thinking(t, json_string_value(text),
			    json_string_length(text));
	}
}

/*
 * Hands a finished output item to the turn at index. Text is taken from
 * the item only when `text` says so (a stream sent it as deltas).
 */
static void
responses_item(struct llm_turn *t, long index, json_t *item, int text)
{
	const char *type = responses_str(item, "type"), *id =
	    responses_str(item, "id");
	struct responses_buf buf = { 0 };
	json_t *block, *part, *args;
	size_t i;

	if (type == NULL)
		return;
	if (strcmp(type, "reasoning") == 0) {
		block = json_pack("{s:s, s:O}", "type", RESPONSES_BLOCK, "item",
		    item);
		turn_block(t, index, block);
		json_decref(block);
	} else if (strcmp(type, "function_call") == 0) {
		block = json_pack("{s:s, s:s, s:s}", "type", "tool_use", "id",
		    responses_str(item, "call_id") ? responses_str(item,
		    "call_id") : "", "name", responses_str(item, "name") ?
		    responses_str(item, "name") : "");
		if (id != NULL)
			json_object_set_new(block, "item_id", json_string(id));
		turn_block(t, index, block);
		json_decref(block);
		args = json_object_get(item, "arguments");
		if (json_is_string(args))
			turn_tool_input(t, index, json_string_value(args),
			    json_string_length(args));
		else if (json_is_object(args))
			turn_tool_input_json(t, index, args);
	} else if (strcmp(type, "message") == 0 && text) {
		json_array_foreach(json_object_get(item, "content"), i, part) {
			if (responses_is(part, "type", "output_text"))
				responses_add(&buf, json_object_get(part,
				    "text"));
			else if (responses_is(part, "type", "refusal"))
				responses_add(&buf, json_object_get(part,
				    "refusal"));
		}
		block = json_pack("{s:s, s:o}", "type", "text", "text",
		    responses_buf_json(&buf));
		if (id != NULL)
			json_object_set_new(block, "item_id", json_string(id));
		turn_block(t, index, block);
		json_decref(block);
	}
}

static int
responses_fail(struct llm_result *res, enum llm_status status,
    const char *type, char *message)
{
	res->status = status;
	free(res->error_type);
	res->error_type = xstrdup(type);
	free(res->error_message);
	res->error_message = message;
	return PROVIDER_FAIL;
}

/* Fills res from an error object {code, message} (an error event's body
 * or a failed response's "error"). */
static int
responses_error(json_t *err, struct llm_result *res)
{
	const char *code = responses_str(err, "code");
	const char *msg = responses_str(err, "message");

	if (code == NULL)
		code = responses_str(err, "type");
	if (msg == NULL)
		msg = "the server reported an error without a message";
	return responses_fail(res, LLM_ERR_STREAM, code != NULL ? code :
	    "api_error", utf8_clean(msg, strlen(msg), (size_t)-1));
}

static int
responses_stream_event(struct llm_turn *t, const char *event,
    const char *data, size_t len, struct llm_result *res)
{
	json_t *ev, *v, *item;
	const char *type;
	long index;
	int rc = PROVIDER_MORE;

	(void)event;	/* the JSON's "type" names the event too */
	if ((ev = provider_json(data, len, NULL)) == NULL ||
	    !json_is_object(ev)) {
		char *quote = utf8_clean(data, len, RESPONSES_QUOTE);

		json_decref(ev);
		responses_fail(res, LLM_ERR_STREAM, "invalid_response",
		    xasprintf("malformed event in the stream: %s", quote));
		free(quote);
		return PROVIDER_FAIL;
	}
	if ((type = responses_str(ev, "type")) == NULL)
		type = "";
	index = (long)json_integer_value(json_object_get(ev, "output_index"));
	item = json_object_get(ev, "item");

	if (strcmp(type, "response.output_text.delta") == 0 ||
	    strcmp(type, "response.refusal.delta") == 0) {
		v = json_object_get(ev, "delta");
		if (json_is_string(v))
			turn_text(t, index, json_string_value(v),
			    json_string_length(v));
	} else if (strcmp(type, "response.reasoning_summary_text.delta") ==
	    0 || strcmp(type, "response.reasoning_text.delta") == 0) {
		v = json_object_get(ev, "delta");
		if (json_is_string(v))
			turn_report_thinking(t, json_string_value(v),
			    json_string_length(v));
	} else if (strcmp(type, "response.reasoning_summary_part.added") ==
	    0 && json_integer_value(json_object_get(ev, "summary_index")) > 0)
		turn_report_thinking(t, "\n\n", 2);
	else if (strcmp(type, "response.output_item.added") == 0) {
		/* A message's text block starts now, keeping its item id. */
		if (responses_is(item, "type", "message") &&
		    responses_str(item, "id") != NULL) {
			json_t *block = json_pack("{s:s, s:s, s:s}", "type",
			    "text", "text", "", "item_id", responses_str(item,
			    "id"));

			turn_block(t, index, block);
			json_decref(block);
		}
	} else if (strcmp(type, "response.output_item.done") == 0)
		responses_item(t, index, item, 0);
	else if (strcmp(type, "response.completed") == 0 ||
	    strcmp(type, "response.incomplete") == 0) {
		responses_finish(t, json_object_get(ev, "response"));
		rc = PROVIDER_DONE;
	} else if (strcmp(type, "response.failed") == 0)
		rc = responses_error(json_object_get(json_object_get(ev,
		    "response"), "error"), res);
	else if (strcmp(type, "error") == 0)
		rc = responses_error(json_is_object(json_object_get(ev,
		    "error")) ? json_object_get(ev, "error") : ev, res);
	/* Other events (created, deltas of arguments, parts) carry nothing
	 * the finished items do not. */
	json_decref(ev);
	return rc;
}

static int
responses_parse_body(struct llm_turn *t, const char *body, size_t len,
    struct llm_result *res)
{
	json_t *root = provider_json(body, len, NULL), *err, *item;
	size_t i;

	if (!json_is_object(root)) {
		char *quote = utf8_clean(body, len, RESPONSES_QUOTE);

		json_decref(root);
		responses_fail(res, LLM_ERR_PARSE, "invalid_response",
		    xasprintf("the server sent a reply that is not a JSON "
		    "object: %s", quote));
		free(quote);
		return -1;
	}
	if (json_is_object(err = json_object_get(root, "error"))) {
		responses_error(err, res);
		res->status = LLM_ERR_API;
		json_decref(root);
		return -1;
	}
	if (!json_is_array(json_object_get(root, "output"))) {
		json_decref(root);
		responses_fail(res, LLM_ERR_PARSE, "invalid_response",
		    xstrdup("the reply has no output"));
		return -1;
	}
	json_array_foreach(json_object_get(root, "output"), i, item) {
		if (responses_is(item, "type", "reasoning"))
			responses_summary(t, item);
		responses_item(t, (long)i, item, 1);
	}
	responses_finish(t, root);
	json_decref(root);
	return 0;
}

/* Error bodies are shaped as on chat completions: {"error": {…}}. */
static void
responses_parse_error(const char *body, size_t len, struct llm_result *res)
{
	provider_openai.parse_error(body, len, res);
}

static struct curl_slist *
responses_headers(const struct llm_config *c, struct curl_slist *list)
{
	return provider_openai.headers(c, list);
}

const struct llm_provider provider_responses = {
	.name = "responses",
	.path = "/responses",
	.headers = responses_headers,
	.body = responses_body,
	.stream_event = responses_stream_event,
	.parse_body = responses_parse_body,
	.parse_error = responses_parse_error
};
