/*
 * The retry policy, as pure functions: which failures to retry, and how
 * long to wait before the next attempt. Transient failures (overload,
 * rate limits, server errors, dropped connections) are retried with
 * capped exponential backoff and jitter for as long as a total budget of
 * time allows, so that an outage of minutes costs a wait, not the turn.
 */
#ifndef HUDDLE_LLM_RETRY_H
#define HUDDLE_LLM_RETRY_H

#include <stdint.h>
#include <time.h>

struct retry_policy {
	int64_t	 base_ms;	/* the first computed wait; 500 */
	int64_t	 cap_ms;	/* no computed wait is longer; 40,000 */
	int64_t	 budget_ms;	/* retry until this long after the call
				 * began; 0: never retry */
	int	 max_retries;	/* and at most this many times; -1: as
				 * many as the budget allows */
};

/* Fills p with the defaults above and a budget of RETRY_DEFAULT_FOR_MS. */
void retry_policy_defaults(struct retry_policy *p);

/* Ten minutes: an overload of a few minutes is outlasted. */
#define RETRY_DEFAULT_FOR_MS	(10 * 60 * 1000LL)
#define RETRY_DEFAULT_CAP_MS	40000

/*
 * Whether to retry an attempt that ended with HTTP `status` (0: no
 * response — a connection error or timeout). An `x-should-retry` header of
 * "true" or "false" decides first; then 408, 409, 429 and every status
 * >= 500 are retried, as are connection errors.
 */
int retry_should(long status, const char *x_should_retry);

/*
 * Whether a stream that failed after its 200 may be retried, by the
 * error it ended with: an error event of a passing kind
 * (overloaded_error, api_error, rate_limit_error, timeout_error;
 * OpenAI's server_error, rate_limit_exceeded) or a connection that broke or stalled
 * (connection_error, timeout_error). A stream the client could not read
 * (invalid_response) or a refusal of the request is final.
 */
int retry_stream_error(const char *error_type);

/*
 * The wait the server asked for, in milliseconds: a `retry-after-ms`
 * (milliseconds) or else a `retry-after` (seconds, or an HTTP date
 * relative to `now`) header that gives more than 0. -1 when neither does.
 */
int64_t retry_server_ms(const char *retry_after_ms, const char *retry_after,
    time_t now);

/*
 * The computed wait after `retries_taken` retries: base * 2^retries_taken,
 * capped at cap, shortened by jitter * 25 % (jitter in [0, 1)) so that
 * clients who failed together do not come back together.
 */
int64_t retry_backoff_ms(const struct retry_policy *p, int retries_taken,
    double jitter);

/*
 * The wait before the next attempt, or -1 to give up. `elapsed_ms` is the
 * time since the call began; `server_ms` the server's wait
 * (retry_server_ms), which replaces the computed one when it is not -1.
 * Gives up when max_retries are taken, when the budget is spent, or when
 * the server asks for a wait beyond it; a computed wait is shortened to
 * end with the budget, so the last attempt starts at its end.
 */
int64_t retry_next_ms(const struct retry_policy *p, int retries_taken,
    int64_t elapsed_ms, int64_t server_ms, double jitter);

#endif
