/*
 * Numbers as people read them (see number.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/number.h"
#include "util/xmalloc.h"

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

int
number_duration_ms(const char *s, int64_t *ms)
{
	static const struct {
		const char	*unit;
		int64_t		 ms;
	} units[] = { { "", 1000 }, { "ms", 1 }, { "s", 1000 },
	    { "m", 60000 }, { "h", 3600000 } };
	char *end;
	long long n;
	size_t i;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno != 0 || n > 366LL * 86400000)
		return -1;
	for (i = 0; i < sizeof units / sizeof *units; i++) {
		if (strcmp(end, units[i].unit) != 0)
			continue;
		if (n > 366LL * 86400000 / units[i].ms)
			return -1;
		*ms = n * units[i].ms;
		return 0;
	}
	return -1;
}

char *
number_size(int64_t bytes)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes / 1024;
	size_t i = 0;

	if (bytes < 1024)
		return xasprintf("%" PRId64 " bytes", bytes < 0 ? 0 : bytes);
	while (i + 1 < sizeof units / sizeof *units && v >= 1024) {
		v /= 1024;
		i++;
	}
	return xasprintf(v < 10 ? "%.1f %s" : "%.0f %s", v, units[i]);
}
