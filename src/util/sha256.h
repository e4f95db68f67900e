/*
 * SHA-256 (FIPS 180-4), for the one place huddle needs it: the S256 code
 * challenge of an OAuth sign-in (RFC 7636). None of the libraries huddle
 * links (libcurl, jansson, SQLite, ncurses) offers it to programs, so it
 * is written out here, small and checked against the standard's vectors
 * (tests/unit/test_oauth.c).
 */
#ifndef HUDDLE_UTIL_SHA256_H
#define HUDDLE_UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_SIZE	32

/* The digest of len bytes at data. */
void sha256(const void *data, size_t len, unsigned char out[SHA256_SIZE]);

#endif
