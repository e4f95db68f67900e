/*
 * SHA-256 (FIPS 180-4) of a buffer, as 64 lowercase hex digits: a digest
 * that two different texts cannot be made to share.
 */
#ifndef HUDDLE_UTIL_SHA256_H
#define HUDDLE_UTIL_SHA256_H

#include <stddef.h>

/* The hex digest of len bytes at data, NUL-terminated in out. */
void sha256_hex(const void *data, size_t len, char out[65]);

#endif
