/*
 * The names of an enumeration's values, kept in an array indexed by the
 * value: one lookup each way for every table of names in huddle
 * (message types, statuses, request kinds, events).
 */
#ifndef HUDDLE_UTIL_NAMES_H
#define HUDDLE_UTIL_NAMES_H

#include <stddef.h>

/* names[value], or "unknown" when value is outside the n names. */
const char *names_get(const char *const *names, size_t n, int value);

/* The value whose name is name (compared exactly), or -1 when none of
 * the n names is (or name is NULL). */
int names_find(const char *const *names, size_t n, const char *name);

#endif
