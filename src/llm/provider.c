/*
 * What the providers share (see provider.h): reading a server's JSON as
 * real servers send it, an error body's first line, and the usage and
 * tool choice of the OpenAI-style APIs. The client in llm.c calls the
 * providers; they call down to this file, never up to the client.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "llm/provider.h"
#include "llm/turn.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

void
provider_error_text(struct llm_result *res, const char *body, size_t len)
{
	size_t start, end;

	/* Quote the first line that is not blank. */
	for (start = 0; start < len; start++) {
		if (body[start] == '\0' || strchr(" \t\r\n", body[start]) == NULL)
			break;
	}
	for (end = start; end < len; end++) {
		if (body[end] == '\n' || body[end] == '\r')
			break;
	}
	if (end == start)
		return;
	free(res->error_message);
	res->error_message = utf8_clean(body + start, end - start, 200);
}

/* Rewrites every \u0000 escape in JSON text to \ufffd, in place (the
 * same length). Escapes occur only in strings, so a plain scan that
 * steps over each escape's character is exact. */
static void
provider_denul(char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		if (s[i] != '\\' || i + 1 >= len) {
			i++;
			continue;
		}
		if (s[i + 1] == 'u' && i + 6 <= len &&
		    memcmp(s + i + 2, "0000", 4) == 0)
			memcpy(s + i + 2, "fffd", 4);
		i += 2;
	}
}

/* The tool_choice of an OpenAI-style request ("none" forbids tools, as a
 * compaction's summary asks; anything else is "auto": neither API of
 * OpenAI's is sent a forced choice). */
static const char *
provider_tool_choice(const struct llm_request *req)
{
	return req->tool_choice != NULL && strcmp(req->tool_choice, "none") ==
	    0 ? "none" : "auto";
}

char *
provider_body_text(json_t *root, json_t *tools, const struct llm_request *req)
{
	char *s;

	if (tools != NULL) {
		json_object_set_new(root, "tools", tools);
		json_object_set_new(root, "tool_choice",
		    json_string(provider_tool_choice(req)));
	}
	s = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	if (s == NULL)
		abort();	/* only out of memory: every value is valid */
	return s;
}

/* A count from a usage object, or -1 when it is not there. */
static int64_t
provider_count(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_integer(v) && json_integer_value(v) >= 0 ?
	    (int64_t)json_integer_value(v) : -1;
}

void
provider_usage(struct llm_turn *t, json_t *usage, const char *in,
    const char *out, const char *details)
{
	struct llm_usage u = { -1, -1, -1, -1, -1, -1, -1, -1, -1 };
	int64_t cached;

	if (!json_is_object(usage))
		return;
	u.input = provider_count(usage, in);
	u.output = provider_count(usage, out);
	cached = provider_count(json_object_get(usage, details),
	    "cached_tokens");
	if (u.input >= 0) {
		u.cache_read = cached > 0 && cached <= u.input ? cached : 0;
		u.input -= u.cache_read;
	}
	turn_usage(t, &u);
}

json_t *
provider_json(const char *data, size_t len, json_error_t *err)
{
	char *copy = xmalloc(len + 1), *clean;
	json_t *v;

	memcpy(copy, data, len);
	copy[len] = '\0';
	provider_denul(copy, len);
	if ((v = json_loadb(copy, len, 0, err)) == NULL &&
	    memchr(copy, '\0', len) == NULL) {
		/* Perhaps bytes that are not UTF-8: repair them, once. */
		clean = utf8_sanitize(copy);
		v = json_loads(clean, 0, NULL);
		free(clean);
	}
	free(copy);
	return v;
}

