/*
 * JSON-RPC 2.0 messages and their line framing (see jsonrpc.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mcp/jsonrpc.h"
#include "util/xmalloc.h"

/* The compact text of o (stolen): one line, since jansson escapes every
 * newline inside strings. */
static char *
jsonrpc_dump(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT);

	json_decref(o);
	if (s == NULL)
		abort();
	return s;
}

char *
jsonrpc_request(int64_t id, const char *method, json_t *params)
{
	json_t *o = json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id",
	    (json_int_t)id, "method", method);

	if (params != NULL)
		json_object_set_new(o, "params", params);
	return jsonrpc_dump(o);
}

char *
jsonrpc_notification(const char *method, json_t *params)
{
	json_t *o = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method",
	    method);

	if (params != NULL)
		json_object_set_new(o, "params", params);
	return jsonrpc_dump(o);
}

char *
jsonrpc_error_reply(json_t *id, int code, const char *message)
{
	return jsonrpc_dump(json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc",
	    "2.0", "id", id != NULL ? id : json_null(), "error", "code", code,
	    "message", message));
}

char *
jsonrpc_result_reply(json_t *id, json_t *result)
{
	return jsonrpc_dump(json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0",
	    "id", id != NULL ? id : json_null(), "result", result));
}

void
jsonrpc_read(json_t *o, struct jsonrpc_msg *m)
{
	const char *v;

	memset(m, 0, sizeof *m);
	m->kind = JSONRPC_INVALID;
	if (!json_is_object(o))
		return;
	m->root = json_incref(o);
	v = json_string_value(json_object_get(o, "jsonrpc"));
	if (v == NULL || strcmp(v, "2.0") != 0)
		return;
	m->id = json_object_get(o, "id");
	if (m->id != NULL && !json_is_integer(m->id) &&
	    !json_is_string(m->id) && !json_is_null(m->id))
		return;
	m->method = json_string_value(json_object_get(o, "method"));
	m->params = json_object_get(o, "params");
	m->result = json_object_get(o, "result");
	m->error = json_object_get(o, "error");
	if (m->method != NULL)
		m->kind = m->id != NULL ? JSONRPC_REQUEST :
		    JSONRPC_NOTIFICATION;
	else if (m->id != NULL && (m->result != NULL ||
	    json_is_object(m->error)))
		m->kind = JSONRPC_RESPONSE;
}

int
jsonrpc_parse(const char *text, size_t len, struct jsonrpc_msg *m)
{
	json_t *o = json_loadb(text, len, 0, NULL);

	jsonrpc_read(o, m);
	json_decref(o);
	return o != NULL ? 0 : -1;
}

void
jsonrpc_msg_clear(struct jsonrpc_msg *m)
{
	json_decref(m->root);
	memset(m, 0, sizeof *m);
}

int
jsonrpc_is_reply_to(const struct jsonrpc_msg *m, int64_t id)
{
	return m->kind == JSONRPC_RESPONSE && json_is_integer(m->id) &&
	    json_integer_value(m->id) == id;
}

char *
jsonrpc_error_text(json_t *error)
{
	const char *msg = json_string_value(json_object_get(error,
	    "message"));
	json_t *code = json_object_get(error, "code");

	if (json_is_integer(code))
		return xasprintf("%s (code %lld)", msg ? msg : "error",
		    (long long)json_integer_value(code));
	return xstrdup(msg ? msg : "error");
}

int
jsonrpc_lines_feed(struct jsonrpc_lines *l, const char *data, size_t n)
{
	size_t have;

	if (l->overflow)
		return -1;
	/* Drop what was read, once per feed (not per line). */
	if (l->off > 0) {
		memmove(l->buf, l->buf + l->off, l->len - l->off);
		l->len -= l->off;
		l->off = 0;
	}
	have = l->len;
	if (have + n > JSONRPC_MAX_BUFFERED || (have + n > JSONRPC_MAX_LINE &&
	    memchr(data, '\n', n) == NULL &&
	    memchr(l->buf ? l->buf : "", '\n', have) == NULL)) {
		l->overflow = 1;
		return -1;
	}
	l->buf = xappend(l->buf, &l->len, &l->cap, data, n);
	return 0;
}

char *
jsonrpc_lines_next(struct jsonrpc_lines *l)
{
	char *start, *nl, *line;
	size_t n;

	while (l->off < l->len && (nl = memchr(start = l->buf + l->off, '\n',
	    l->len - l->off)) != NULL) {
		n = (size_t)(nl - start);
		l->off += n + 1;
		if (n > 0 && start[n - 1] == '\r')
			n--;
		if (strspn(start, " \t") >= n)
			continue;
		line = xmalloc(n + 1);
		memcpy(line, start, n);
		line[n] = '\0';
		return line;
	}
	return NULL;
}

void
jsonrpc_lines_clear(struct jsonrpc_lines *l)
{
	free(l->buf);
	memset(l, 0, sizeof *l);
}
