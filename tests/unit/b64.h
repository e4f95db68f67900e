/*
 * Base64 for the tests that feed huddle images (the MCP unit tests and
 * the image fuzz target): written apart from huddle's own reader
 * (util/image.h), so that the reader is checked against another hand.
 */
#ifndef HUDDLE_TESTS_B64_H
#define HUDDLE_TESTS_B64_H

#include <stddef.h>

/* The base64 of the n bytes at b, padded, NUL-terminated (free it). */
char *b64_encode(const unsigned char *b, size_t n);

#endif
