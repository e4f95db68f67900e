/*
 * Permission bodies (see permbody.h): written once by whoever asks,
 * read by the table, the hint line, the detail view and headless.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/permbody.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

#define PERMBODY_LEGACY		"bash: "
#define PERMBODY_LEGACY_SEP	" — "

static const char *
permbody_or(const char *s)
{
	return s != NULL ? s : "";
}

/* o[key] = s, made valid UTF-8 (JSON holds nothing else); whether s
 * was kept as it is. */
static int
permbody_set(json_t *o, const char *key, const char *s)
{
	char *clean = utf8_sanitize(permbody_or(s));
	int same = strcmp(clean, permbody_or(s)) == 0;

	json_object_set_new(o, key, json_string(clean));
	free(clean);
	return same;
}

char *
permbody_make(const struct permbody *b)
{
	const char *cmd = permbody_or(b->command);
	json_t *o = json_object();
	char *text, *copy;
	int same;

	permbody_set(o, "tool", b->tool);
	same = permbody_set(o, "command", cmd);
	permbody_set(o, "reason", b->reason);
	permbody_set(o, "detail", b->detail);
	permbody_set(o, "directory", b->directory);
	permbody_set(o, "who", b->who);
	if (same && b->flag_start < b->flag_end &&
	    b->flag_end <= strlen(cmd)) {
		json_object_set_new(o, "flagged", json_stringn(cmd +
		    b->flag_start, b->flag_end - b->flag_start));
		json_object_set_new(o, "flagged_at",
		    json_integer((json_int_t)b->flag_start));
	}
	text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (text == NULL)
		abort();
	copy = xstrdup(text);	/* the caller frees it with free() */
	free(text);
	return copy;
}

/* o[key] as a malloc'd string, "" when it is not one. */
static char *
permbody_field(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return xstrdup(s != NULL ? s : "");
}

/* The older text, "bash: COMMAND — REASON". */
static int
permbody_legacy(const char *body, struct permbody *b)
{
	const char *sep = NULL, *p;
	size_t skip = strlen(PERMBODY_LEGACY);

	if (strncmp(body, PERMBODY_LEGACY, skip) != 0)
		return -1;
	for (p = body + skip; (p = strstr(p, PERMBODY_LEGACY_SEP)) != NULL;
	    p++)
		sep = p;	/* the last: a command may hold one too */
	if (sep == NULL)
		return -1;
	b->tool = xstrdup("bash");
	b->command = xasprintf("%.*s", (int)((size_t)(sep - body) - skip),
	    body + skip);
	b->reason = xstrdup(sep + strlen(PERMBODY_LEGACY_SEP));
	b->detail = xstrdup(b->reason);
	b->directory = xstrdup("");
	b->who = xstrdup("");
	return 0;
}

int
permbody_parse(const char *body, struct permbody *b)
{
	json_t *o, *at;
	const char *flagged;
	size_t start, len;

	memset(b, 0, sizeof *b);
	if (body == NULL)
		return -1;
	if (body[0] != '{')
		return permbody_legacy(body, b);
	o = json_loads(body, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(o) || !json_is_string(json_object_get(o,
	    "command")) || !json_is_string(json_object_get(o, "tool"))) {
		json_decref(o);
		return -1;
	}
	b->tool = permbody_field(o, "tool");
	b->command = permbody_field(o, "command");
	b->reason = permbody_field(o, "reason");
	b->detail = permbody_field(o, "detail");
	b->directory = permbody_field(o, "directory");
	b->who = permbody_field(o, "who");
	/* The flagged part counts only where the command holds it. */
	flagged = json_string_value(json_object_get(o, "flagged"));
	at = json_object_get(o, "flagged_at");
	if (flagged != NULL && json_is_integer(at) &&
	    json_integer_value(at) >= 0) {
		start = (size_t)json_integer_value(at);
		len = strlen(flagged);
		if (len > 0 && start <= strlen(b->command) &&
		    len <= strlen(b->command) - start &&
		    memcmp(b->command + start, flagged, len) == 0) {
			b->flag_start = start;
			b->flag_end = start + len;
		}
	}
	json_decref(o);
	return 0;
}

json_t *
permbody_json(const char *body)
{
	struct permbody b;
	json_t *o;

	if (permbody_parse(body, &b) == -1)
		return NULL;
	o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "tool", b.tool,
	    "command", b.command, "reason", b.reason, "detail", b.detail,
	    "directory", b.directory, "who", b.who);
	if (o != NULL && b.flag_start < b.flag_end) {
		json_object_set_new(o, "flagged", json_stringn(b.command +
		    b.flag_start, b.flag_end - b.flag_start));
		json_object_set_new(o, "flagged_at",
		    json_integer((json_int_t)b.flag_start));
	}
	permbody_clear(&b);
	return o;
}

void
permbody_clear(struct permbody *b)
{
	free(b->tool);
	free(b->command);
	free(b->reason);
	free(b->detail);
	free(b->directory);
	free(b->who);
	memset(b, 0, sizeof *b);
}
