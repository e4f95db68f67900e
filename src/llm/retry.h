/*
 * The retry policy of the official Anthropic SDKs, as pure functions: which
 * failures to retry, and how long to wait before the next attempt.
 */
#ifndef HUDDLE_LLM_RETRY_H
#define HUDDLE_LLM_RETRY_H

#include <stdint.h>
#include <time.h>

/*
 * Whether to retry an attempt that ended with HTTP `status` (0: no
 * response — a connection error or timeout). An `x-should-retry` header of
 * "true" or "false" decides first; then 408, 409, 429 and every status
 * >= 500 are retried, as are connection errors.
 */
int retry_should(long status, const char *x_should_retry);

/*
 * Milliseconds to wait before the next attempt, after `retries_taken`
 * retries. A `retry-after-ms` (milliseconds) or `retry-after` (seconds, or
 * an HTTP date relative to `now`) header is honoured when it gives more
 * than 0 and at most 60 s. Otherwise 0.5 s * 2^retries_taken, capped at
 * 8 s, shortened by jitter * 25 % (jitter in [0, 1)).
 */
int64_t retry_delay_ms(const char *retry_after_ms, const char *retry_after,
    int retries_taken, double jitter, time_t now);

#endif
