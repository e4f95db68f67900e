/*
 * UTF-8 validation. Text from models, tools and other processes is
 * untrusted; huddle stores and shows only valid UTF-8.
 */
#ifndef HUDDLE_UTIL_UTF8_H
#define HUDDLE_UTIL_UTF8_H

#include <stddef.h>

/* Returns the length of the valid UTF-8 sequence at s (1-4), or 0. */
size_t utf8_valid_len(const unsigned char *s, size_t avail);

/*
 * Returns a malloc'd copy of s in which every byte that does not start a
 * valid UTF-8 sequence (overlongs, surrogates and > U+10FFFF included) is
 * replaced by U+FFFD.
 */
char *utf8_sanitize(const char *s);

#endif
