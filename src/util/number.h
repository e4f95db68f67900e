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

#endif
