/*
 * Allocation that cannot fail. huddle treats running out of memory as
 * fatal: every x* function aborts with a message instead of returning NULL,
 * so callers never carry an out-of-memory path of their own.
 */
#ifndef HUDDLE_UTIL_XMALLOC_H
#define HUDDLE_UTIL_XMALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
/* Grows *array to hold at least `need` elements of `size` bytes, doubling. */
void *xgrow(void *array, size_t *cap, size_t need, size_t size);
/* Appends n bytes of s to the string buf (len bytes long, cap allocated),
 * keeping it NUL-terminated; returns the string, perhaps moved. */
char *xappend(char *buf, size_t *len, size_t *cap, const char *s, size_t n);
char *xstrdup(const char *s);
/* Returns a malloc'd copy of s, or NULL when s is NULL. */
char *xstrdup_or_null(const char *s);
/* Returns a malloc'd formatted string; the caller frees it. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
