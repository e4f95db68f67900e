/*
 * UTF-8 validation. Text from models, tools and other processes is
 * untrusted; huddle stores and shows only valid UTF-8.
 */
#ifndef HUDDLE_UTIL_UTF8_H
#define HUDDLE_UTIL_UTF8_H

#include <stddef.h>

/* Returns the length of the valid UTF-8 sequence at s (1-4), or 0. */
size_t utf8_valid_len(const unsigned char *s, size_t avail);

/* Whether the NUL-terminated s is valid UTF-8 throughout. */
int utf8_valid(const char *s);

/*
 * Returns a malloc'd copy of s in which every byte that does not start a
 * valid UTF-8 sequence (overlongs, surrogates and > U+10FFFF included) is
 * replaced by U+FFFD.
 */
char *utf8_sanitize(const char *s);

/*
 * Returns a malloc'd one-line, printable copy of the first len bytes of s,
 * for quoting untrusted text in a message: tabs and line ends become
 * spaces, other control characters (C0, DEL and C1) are dropped, invalid
 * UTF-8 is repaired, and the result is cut to at most max bytes on a
 * character boundary.
 */
char *utf8_clean(const char *s, size_t len, size_t max);

#endif
