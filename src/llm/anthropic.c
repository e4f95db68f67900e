/*
 * The Anthropic Messages API provider: POST {base}/v1/messages, streamed
 * (SSE) or whole. The conversation is already in this API's format, so
 * the body passes it through; reading a reply maps each stream event onto
 * the turn being assembled.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "llm/provider.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

#define ANTHROPIC_VERSION "2023-06-01"
/* Compaction on the server (doc/models.md, "Compaction"). */
#define ANTHROPIC_COMPACT_BETA	"compact-2026-01-12"
#define ANTHROPIC_COMPACT_EDIT	"compact_20260112"

static struct curl_slist *
anthropic_headers(const struct llm_config *c, struct curl_slist *list)
{
	if (c->api_key != NULL && *c->api_key != '\0') {
		char *h = xasprintf("x-api-key: %s", c->api_key);

		list = curl_slist_append(list, h);
		/* The key must not linger in freed memory longer than it
		 * must; libcurl keeps its own copy. */
		memset(h, 0, strlen(h));
		free(h);
	}
	/* As the SDKs do: a token goes as a Bearer, beside a key when both
	 * are set (gateways and proxies take it). */
	if (c->auth_token != NULL && *c->auth_token != '\0') {
		char *h = xasprintf("Authorization: Bearer %.*s",
		    (int)strcspn(c->auth_token, "\r\n"), c->auth_token);

		list = curl_slist_append(list, h);
		memset(h, 0, strlen(h));
		free(h);
	}
	if (c->compact_trigger > 0)
		list = curl_slist_append(list, "anthropic-beta: "
		    ANTHROPIC_COMPACT_BETA);
	return curl_slist_append(list, "anthropic-version: " ANTHROPIC_VERSION);
}

/* The request's "thinking" object for the config, or NULL for none:
 * with the display asked for wherever thinking shows. */
static json_t *
anthropic_thinking(const struct llm_config *c)
{
	json_t *t = NULL;

	switch (c->thinking) {
	case LLM_THINKING_ADAPTIVE:
		t = json_pack("{s:s}", "type", "adaptive");
		break;
	case LLM_THINKING_DISABLED:
		return json_pack("{s:s}", "type", "disabled");
	case LLM_THINKING_BETWEEN_TOOLS:
		/* Its type alone: no display, no budget (the API refuses
		 * any other field). */
		return json_pack("{s:s}", "type", "between_tools");
	case LLM_THINKING_BUDGET:
		t = json_pack("{s:s, s:i}", "type", "enabled",
		    "budget_tokens", c->thinking_budget);
		break;
	case LLM_THINKING_UNSET:
		return NULL;
	}
	if (c->thinking_display != NULL)
		json_object_set_new(t, "display", json_string(
		    c->thinking_display));
	return t;
}

/* The request's tool_choice, or NULL for the default: a forced choice
 * never goes to a model that refuses one (it gets "auto"). */
static json_t *
anthropic_tool_choice(const struct llm_config *c, const char *choice)
{
	if (choice == NULL)
		return NULL;
	if (!c->forced_tool_choice && strcmp(choice, "any") == 0)
		choice = "auto";
	return json_pack("{s:s}", "type", choice);
}

/*
 * The body passes the conversation through as it is: what was sent
 * before goes again byte for byte, and only new messages are added.
 * Caching is asked for with the top-level marker (automatic caching): the
 * breakpoint sits on the last block and moves forward with the
 * conversation, so each request reads what the one before it wrote. No
 * sampling parameter is ever sent; today's models refuse them.
 */
static char *
anthropic_body(const struct llm_config *c, const struct llm_request *req)
{
	json_t *body = json_pack("{s:s, s:i, s:O, s:b}", "model", c->model,
	    "max_tokens", c->max_tokens, "messages", req->messages, "stream",
	    c->stream);
	json_t *thinking = anthropic_thinking(c);
	char *text;

	if (req->system != NULL && *req->system != '\0')
		json_object_set_new(body, "system", json_string(req->system));
	if (req->tools != NULL && json_array_size(req->tools) > 0) {
		json_t *choice = anthropic_tool_choice(c, req->tool_choice);

		json_object_set(body, "tools", req->tools);
		if (choice != NULL)
			json_object_set_new(body, "tool_choice", choice);
	}
	if (thinking != NULL)
		json_object_set_new(body, "thinking", thinking);
	if (c->cache)
		json_object_set_new(body, "cache_control", json_pack("{s:s}",
		    "type", "ephemeral"));
	/* The server summarises the conversation when the prompt passes
	 * the trigger; the reply then starts with a compaction block. */
	if (c->compact_trigger > 0)
		json_object_set_new(body, "context_management", json_pack(
		    "{s:[{s:s, s:{s:s, s:I}}]}", "edits", "type",
		    ANTHROPIC_COMPACT_EDIT, "trigger", "type", "input_tokens",
		    "value", (json_int_t)c->compact_trigger));
	text = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	return text;
}

/* Fills the error fields from an API error object {type, message}. */
static void
anthropic_error_object(json_t *error, struct llm_result *res)
{
	const char *type = json_string_value(json_object_get(error, "type"));
	const char *msg = json_string_value(json_object_get(error,
	    "message"));

	free(res->error_type);
	free(res->error_message);
	res->error_type = xstrdup_or_null(type);
	res->error_message = xstrdup_or_null(msg);
}

/* A count from a usage object, or -1 when it is not there. */
static int64_t
anthropic_count(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_integer(v) && json_integer_value(v) >= 0 ?
	    (int64_t)json_integer_value(v) : -1;
}

/*
 * The compaction iterations of a usage object: the top-level counts leave
 * them out, though they are billed (Compaction, "Understanding usage").
 * -1 when the object has no iterations.
 */
static void
anthropic_iterations(json_t *usage, struct llm_usage *u)
{
	json_t *list = json_object_get(usage, "iterations"), *it;
	const char *type;
	int64_t n;
	size_t i;

	u->compaction_input = u->compaction_output = -1;
	u->compaction_cache_read = u->compaction_cache_write = -1;
	if (!json_is_array(list))
		return;
	u->compaction_input = u->compaction_output = 0;
	u->compaction_cache_read = u->compaction_cache_write = 0;
	json_array_foreach(list, i, it) {
		type = json_string_value(json_object_get(it, "type"));
		if (type == NULL || strcmp(type, "compaction") != 0)
			continue;
		if ((n = anthropic_count(it, "input_tokens")) > 0)
			u->compaction_input += n;
		if ((n = anthropic_count(it, "output_tokens")) > 0)
			u->compaction_output += n;
		/* The step reads the cache and writes it like any call,
		 * and is billed for it. */
		if ((n = anthropic_count(it, "cache_read_input_tokens")) > 0)
			u->compaction_cache_read += n;
		if ((n = anthropic_count(it,
		    "cache_creation_input_tokens")) > 0)
			u->compaction_cache_write += n;
	}
}

/*
 * Records a usage object: input_tokens is the uncached part of the input;
 * cache writes are split by TTL when the API says how (else they count as
 * 5-minute writes, the default TTL).
 */
static void
anthropic_usage(struct llm_turn *t, json_t *usage)
{
	json_t *split = json_object_get(usage, "cache_creation");
	struct llm_usage u;
	int64_t written = anthropic_count(usage,
	    "cache_creation_input_tokens");

	if (!json_is_object(usage))
		return;
	anthropic_iterations(usage, &u);
	u.input = anthropic_count(usage, "input_tokens");
	u.output = anthropic_count(usage, "output_tokens");
	u.cache_read = anthropic_count(usage, "cache_read_input_tokens");
	u.cache_write_5m = written;
	u.cache_write_1h = written >= 0 ? 0 : -1;
	if (json_is_object(split) && written >= 0) {
		int64_t h1 = anthropic_count(split,
		    "ephemeral_1h_input_tokens");

		if (h1 > 0 && h1 <= written) {
			u.cache_write_1h = h1;
			u.cache_write_5m = written - h1;
		}
	}
	turn_usage(t, &u);
}

static int
anthropic_stream_fail(struct llm_result *res, const char *type,
    char *message)
{
	res->status = LLM_ERR_STREAM;
	free(res->error_type);
	free(res->error_message);
	res->error_type = xstrdup(type);
	res->error_message = message;
	return PROVIDER_FAIL;
}

static int
anthropic_stream_event(struct llm_turn *t, const char *event,
    const char *data, size_t len, struct llm_result *res)
{
	json_t *ev, *block, *delta;
	const char *type, *dtype;
	long index;
	int rc = PROVIDER_MORE;

	if (strcmp(event, "ping") == 0)
		return PROVIDER_MORE;
	if ((ev = provider_json(data, len, NULL)) == NULL ||
	    !json_is_object(ev)) {
		char *quote = utf8_clean(data, len, 80);
		char *name = utf8_clean(event, strlen(event), 40);

		json_decref(ev);
		ev = NULL;
		anthropic_stream_fail(res, "invalid_response",
		    xasprintf("malformed %s event in the stream: %s", name,
		    quote));
		free(quote);
		free(name);
		return PROVIDER_FAIL;
	}
	/* The event name and the JSON type agree; trust the JSON. */
	type = json_string_value(json_object_get(ev, "type"));
	if (type == NULL)
		type = event;
	index = (long)json_integer_value(json_object_get(ev, "index"));

	if (strcmp(type, "message_start") == 0)
		anthropic_usage(t, json_object_get(json_object_get(ev,
		    "message"), "usage"));
	else if (strcmp(type, "content_block_start") == 0) {
		block = json_object_get(ev, "content_block");
		if (json_is_object(block))
			turn_block(t, index, block);
	} else if (strcmp(type, "content_block_delta") == 0) {
		json_t *s;

		delta = json_object_get(ev, "delta");
		dtype = json_string_value(json_object_get(delta, "type"));
		if (dtype == NULL)
			dtype = "";
		if (strcmp(dtype, "text_delta") == 0) {
			s = json_object_get(delta, "text");
			turn_text(t, index, json_string_value(s) ?
			    json_string_value(s) : "", json_string_length(s));
		} else if (strcmp(dtype, "input_json_delta") == 0) {
			s = json_object_get(delta, "partial_json");
			turn_tool_input(t, index, json_string_value(s) ?
			    json_string_value(s) : "", json_string_length(s));
		} else if (strcmp(dtype, "thinking_delta") == 0) {
			s = json_object_get(delta, "thinking");
			turn_thinking(t, index, json_string_value(s) ?
			    json_string_value(s) : "", json_string_length(s));
		} else if (strcmp(dtype, "citations_delta") == 0) {
			turn_citation(t, index, json_object_get(delta,
			    "citation"));
		} else if (strcmp(dtype, "signature_delta") == 0) {
			s = json_object_get(delta, "signature");
			turn_signature(t, index, json_string_value(s) ?
			    json_string_value(s) : "", json_string_length(s));
		} else if (json_is_object(delta))
			turn_block_delta(t, index, delta);
	} else if (strcmp(type, "message_delta") == 0) {
		turn_stop_reason(t, json_string_value(json_object_get(
		    json_object_get(ev, "delta"), "stop_reason")));
		/* Cumulative counts: they replace, not add. */
		anthropic_usage(t, json_object_get(ev, "usage"));
	} else if (strcmp(type, "message_stop") == 0)
		rc = PROVIDER_DONE;
	else if (strcmp(type, "error") == 0) {
		anthropic_error_object(json_object_get(ev, "error"), res);
		res->status = LLM_ERR_STREAM;
		if (res->error_message == NULL)
			res->error_message = xstrdup("error event in the "
			    "stream");
		rc = PROVIDER_FAIL;
	}
	/* ping, content_block_stop and events yet unknown: nothing to do. */
	json_decref(ev);
	return rc;
}

static int
anthropic_parse_body(struct llm_turn *t, const char *body, size_t len,
    struct llm_result *res)
{
	json_t *msg = provider_json(body, len, NULL), *content, *block;
	const char *type;
	size_t i;

	if (msg == NULL || !json_is_object(msg)) {
		json_decref(msg);
		res->status = LLM_ERR_PARSE;
		res->error_type = xstrdup("invalid_response");
		res->error_message = xstrdup("the reply is not valid JSON");
		return -1;
	}
	type = json_string_value(json_object_get(msg, "type"));
	if (type != NULL && strcmp(type, "error") == 0) {
		anthropic_error_object(json_object_get(msg, "error"), res);
		res->status = LLM_ERR_API;
		json_decref(msg);
		return -1;
	}
	content = json_object_get(msg, "content");
	if (!json_is_array(content)) {
		json_decref(msg);
		res->status = LLM_ERR_PARSE;
		res->error_type = xstrdup("invalid_response");
		res->error_message = xstrdup("the reply has no content");
		return -1;
	}
	/* Every block is kept as it came, thinking and unknown types too. */
	json_array_foreach(content, i, block) {
		if (json_is_object(block) && json_is_string(json_object_get(
		    block, "type")))
			turn_block(t, (long)i, block);
	}
	turn_stop_reason(t, json_string_value(json_object_get(msg,
	    "stop_reason")));
	anthropic_usage(t, json_object_get(msg, "usage"));
	json_decref(msg);
	return 0;
}

static void
anthropic_parse_error(const char *body, size_t len, struct llm_result *res)
{
	json_t *doc = provider_json(body, len, NULL);
	json_t *error = json_object_get(doc, "error");

	if (json_is_object(error))
		anthropic_error_object(error, res);
	else
		provider_error_text(res, body, len);
	json_decref(doc);
}

const struct llm_provider provider_anthropic = {
	.name = "anthropic",
	.path = "/v1/messages",
	.headers = anthropic_headers,
	.body = anthropic_body,
	.stream_event = anthropic_stream_event,
	.parse_body = anthropic_parse_body,
	.parse_error = anthropic_parse_error,
};
