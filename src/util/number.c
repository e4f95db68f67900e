/*
 * Numbers as people read them (see number.h).
 */
#include "config.h"

#include <stdio.h>

#include "util/number.h"

char *
number_thousands(int64_t n, char *out, size_t len)
{
	char digits[24];
	int nd = snprintf(digits, sizeof digits, "%lld", (long long)n), i;
	size_t o = 0;

	if (len == 0)
		return out;
	for (i = 0; i < nd && o + 2 < len; i++) {
		out[o++] = digits[i];
		if (digits[i] != '-' && (nd - i - 1) % 3 == 0 && i < nd - 1)
			out[o++] = ',';
	}
	out[o] = '\0';
	return out;
}
