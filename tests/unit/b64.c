/*
 * Base64 for the tests (see b64.h).
 */
#include "config.h"

#include "b64.h"
#include "util/xmalloc.h"

char *
b64_encode(const unsigned char *b, size_t n)
{
	static const char tbl[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = xmalloc(n / 3 * 4 + 5), *o = out;
	size_t i;
	unsigned v;

	for (i = 0; i < n; i += 3) {
		v = (unsigned)b[i] << 16;
		if (i + 1 < n)
			v |= (unsigned)b[i + 1] << 8;
		if (i + 2 < n)
			v |= b[i + 2];
		*o++ = tbl[v >> 18];
		*o++ = tbl[v >> 12 & 63];
		*o++ = i + 1 < n ? tbl[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? tbl[v & 63] : '=';
	}
	*o = '\0';
	return out;
}
