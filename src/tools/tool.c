/*
 * Tool results (see tool.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tool.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

static int tool_set(struct tool_output *, int, const char *, va_list)
    __attribute__((format(printf, 3, 0)));

void
tool_output_clear(struct tool_output *o)
{
	free(o->text);
	o->text = NULL;
	json_decref(o->images);
	o->images = NULL;
	free(o->whole);
	o->whole = NULL;
	o->is_error = 0;
}

static int
tool_set(struct tool_output *o, int is_error, const char *fmt, va_list ap)
{
	va_list ap2;
	char *raw;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		n = 0;
	raw = xmalloc((size_t)n + 1);
	if (vsnprintf(raw, (size_t)n + 1, fmt, ap) < 0)
		raw[0] = '\0';

	tool_output_clear(o);
	o->is_error = is_error;
	o->text = utf8_sanitize(raw);
	free(raw);
	return is_error ? -1 : 0;
}

int
tool_error(struct tool_output *o, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = tool_set(o, 1, fmt, ap);
	va_end(ap);
	return rc;
}

int
tool_ok(struct tool_output *o, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = tool_set(o, 0, fmt, ap);
	va_end(ap);
	return rc;
}

void
tool_append(struct tool_output *o, const char *fmt, ...)
{
	va_list ap;
	char *more, *all;

	va_start(ap, fmt);
	if (vasprintf(&more, fmt, ap) < 0)
		abort();
	va_end(ap);
	all = xasprintf("%s%s", o->text ? o->text : "", more);
	free(more);
	free(o->text);
	o->text = all;
}

char *
tool_sanitize(const char *buf, size_t len, size_t *nuls)
{
	char *copy = xmalloc(len + 1), *out;
	size_t i, n = 0;

	/* 0xff never occurs in UTF-8, so utf8_sanitize turns it into U+FFFD
	 * like any other bad byte; NUL would end the string instead. */
	for (i = 0; i < len; i++) {
		if (buf[i] == '\0') {
			copy[i] = (char)0xff;
			n++;
		} else
			copy[i] = buf[i];
	}
	copy[len] = '\0';
	out = utf8_sanitize(copy);
	free(copy);
	if (nuls != NULL)
		*nuls = n;
	return out;
}

size_t
tool_trim_partial(const char *buf, size_t len)
{
	const unsigned char *u = (const unsigned char *)buf;
	size_t i = len, need;

	while (i > 0 && len - i < 3 && (u[i - 1] & 0xc0) == 0x80)
		i--;
	if (i == 0)
		return len;
	need = u[i - 1] >= 0xf0 ? 4 : u[i - 1] >= 0xe0 ? 3 :
	    u[i - 1] >= 0xc0 ? 2 : 1;
	return need > len - (i - 1) ? i - 1 : len;
}
