/*
 * Allocation wrappers that abort on out-of-memory (see xmalloc.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xmalloc.h"

static void
xmalloc_die(size_t size)
{
	fprintf(stderr, "huddle: out of memory (%zu bytes)\n", size);
	abort();
}

void *
xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (p == NULL)
		xmalloc_die(size);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		xmalloc_die(n * size);
	return p;
}

void *
xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (p == NULL)
		xmalloc_die(size);
	return p;
}

void *
xgrow(void *array, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 8;

	if (need <= *cap)
		return array;
	while (n < need)
		n *= 2;
	*cap = n;
	return xrealloc(array, n * size);
}

char *
xappend(char *buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	buf = xgrow(buf, cap, *len + n + 1, 1);
	memcpy(buf + *len, s, n);
	*len += n;
	buf[*len] = '\0';
	return buf;
}

char *
xstrdup(const char *s)
{
	size_t len = strlen(s) + 1;

	return memcpy(xmalloc(len), s, len);
}

char *
xstrdup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		xmalloc_die(0);
	va_end(ap);
	return s;
}
