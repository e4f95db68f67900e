/*
 * The SDK retry policy (see retry.h).
 */
#include "config.h"

#include <curl/curl.h>
#include <math.h>
#include <stdlib.h>
#include <strings.h>

#include "llm/retry.h"

int
retry_should(long status, const char *x_should_retry)
{
	if (x_should_retry != NULL) {
		if (strcasecmp(x_should_retry, "true") == 0)
			return 1;
		if (strcasecmp(x_should_retry, "false") == 0)
			return 0;
	}
	if (status == 0)
		return 1;
	return status == 408 || status == 409 || status == 429 ||
	    status >= 500;
}

/* Parses a whole number or decimal; returns -1 when s is not one. */
static double
retry_number(const char *s)
{
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return -1;
	v = strtod(s, &end);
	while (*end == ' ' || *end == '\t')
		end++;
	if (*end != '\0' || !isfinite(v))
		return -1;
	return v;
}

int64_t
retry_delay_ms(const char *retry_after_ms, const char *retry_after,
    int retries_taken, double jitter, time_t now)
{
	double ms = retry_number(retry_after_ms), seconds, base;
	time_t when;

	if (ms < 0 && retry_after != NULL) {
		seconds = retry_number(retry_after);
		if (seconds < 0 && (when = curl_getdate(retry_after, NULL)) !=
		    -1)
			seconds = (double)(when - now);
		ms = seconds < 0 ? -1 : seconds * 1000;
	}
	if (ms > 0 && ms <= 60000)
		return (int64_t)ms;
	if (retries_taken > 30)
		retries_taken = 30;
	base = fmin(0.5 * pow(2.0, retries_taken), 8.0);
	return (int64_t)(base * (1.0 - 0.25 * jitter) * 1000.0);
}
