/*
 * Numbers as people read them.
 */
#ifndef HUDDLE_UTIL_NUMBER_H
#define HUDDLE_UTIL_NUMBER_H

#include <stddef.h>
#include <stdint.h>

/* Room for any int64_t with its separators. */
#define NUMBER_THOUSANDS_SIZE 32

/* Writes n with thousands separators ("41,200") into out (len bytes,
 * NUMBER_THOUSANDS_SIZE is always enough); returns out. */
char *number_thousands(int64_t n, char *out, size_t len);

/* A size in bytes as people read it, rounded: "312 bytes", "4.2 GiB",
 * "17 MiB" (malloc'd). */
char *number_size(int64_t bytes);

/* Reads a duration as people write one: a whole number of seconds, or
 * with a unit, "90s", "500ms", "10m", "2h". Returns 0 with *ms, or -1
 * when s is not one (or passes a year). */
int number_duration_ms(const char *s, int64_t *ms);

#endif
