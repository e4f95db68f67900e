/*
 * The retry policy (see retry.h).
 */
#include "config.h"

#include <curl/curl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "llm/retry.h"

void
retry_policy_defaults(struct retry_policy *p)
{
	p->base_ms = 500;
	p->cap_ms = RETRY_DEFAULT_CAP_MS;
	p->budget_ms = RETRY_DEFAULT_FOR_MS;
	p->max_retries = -1;
}

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

int
retry_stream_error(const char *error_type)
{
	static const char *const passing[] = { "overloaded_error",
	    "api_error", "rate_limit_error", "timeout_error", "server_error",
	    "rate_limit_exceeded", "connection_error" };
	size_t i;

	for (i = 0; error_type != NULL && i < sizeof passing /
	    sizeof *passing; i++) {
		if (strcmp(error_type, passing[i]) == 0)
			return 1;
	}
	return 0;
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
retry_server_ms(const char *retry_after_ms, const char *retry_after,
    time_t now)
{
	double ms = retry_number(retry_after_ms), seconds;
	time_t when;

	if (ms <= 0 && retry_after != NULL) {
		seconds = retry_number(retry_after);
		if (seconds < 0 && (when = curl_getdate(retry_after, NULL)) !=
		    -1)
			seconds = (double)(when - now);
		ms = seconds < 0 ? -1 : seconds * 1000;
	}
	if (ms <= 0)
		return -1;
	/* A day at most: longer is no wait anybody means. */
	return ms > 86400000.0 ? 86400000 : (int64_t)ms;
}

int64_t
retry_backoff_ms(const struct retry_policy *p, int retries_taken,
    double jitter)
{
	double base;

	if (retries_taken > 40)
		retries_taken = 40;
	if (retries_taken < 0)
		retries_taken = 0;
	base = fmin((double)p->base_ms * pow(2.0, retries_taken),
	    (double)p->cap_ms);
	if (jitter < 0 || jitter >= 1)
		jitter = 0;
	return (int64_t)(base * (1.0 - 0.25 * jitter));
}

int64_t
retry_next_ms(const struct retry_policy *p, int retries_taken,
    int64_t elapsed_ms, int64_t server_ms, double jitter)
{
	int64_t left = p->budget_ms - elapsed_ms, wait;

	if (p->max_retries >= 0 && retries_taken >= p->max_retries)
		return -1;
	if (left <= 0)
		return -1;
	if (server_ms > 0)
		return server_ms <= left ? server_ms : -1;
	wait = retry_backoff_ms(p, retries_taken, jitter);
	return wait < left ? wait : left;
}
