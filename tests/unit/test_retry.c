/*
 * Unit tests of llm/retry (the retry policy: which failures, how long
 * between attempts, for how long in all), util/number's durations, and
 * util/cancel.
 */
#include "config.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/cancel.h"
#include "llm/retry.h"
#include "testutil.h"
#include "util/clock.h"
#include "util/number.h"

START_TEST(which_failures_are_retried)
{
	static const long yes[] = { 0, 408, 409, 429, 500, 502, 503, 504, 529 };
	static const long no[] = { 400, 401, 403, 404, 413, 422 };
	size_t i;

	for (i = 0; i < sizeof yes / sizeof *yes; i++)
		ck_assert_msg(retry_should(yes[i], NULL), "%ld", yes[i]);
	for (i = 0; i < sizeof no / sizeof *no; i++)
		ck_assert_msg(!retry_should(no[i], NULL), "%ld", no[i]);
	/* x-should-retry decides first, either way. */
	ck_assert(!retry_should(500, "false"));
	ck_assert(!retry_should(429, "FALSE"));
	ck_assert(retry_should(400, "true"));
	ck_assert(retry_should(500, "maybe"));
}
END_TEST

START_TEST(which_broken_streams_are_retried)
{
	static const char *const yes[] = { "overloaded_error", "api_error",
	    "rate_limit_error", "timeout_error", "server_error",
	    "rate_limit_exceeded", "connection_error" };
	static const char *const no[] = { "invalid_response",
	    "invalid_request_error", "authentication_error", "cancelled",
	    "" };
	size_t i;

	for (i = 0; i < sizeof yes / sizeof *yes; i++)
		ck_assert_msg(retry_stream_error(yes[i]), "%s", yes[i]);
	for (i = 0; i < sizeof no / sizeof *no; i++)
		ck_assert_msg(!retry_stream_error(no[i]), "%s", no[i]);
	ck_assert(!retry_stream_error(NULL));
}
END_TEST

START_TEST(server_delays_are_read)
{
	time_t now = 1700000000;

	ck_assert_int_eq(retry_server_ms(NULL, "1", now), 1000);
	ck_assert_int_eq(retry_server_ms(NULL, "2.5", now), 2500);
	ck_assert_int_eq(retry_server_ms("150", "9", now), 150);
	ck_assert_int_eq(retry_server_ms(NULL, "60", now), 60000);
	/* Longer than a minute is honoured too: the budget decides. */
	ck_assert_int_eq(retry_server_ms(NULL, "120", now), 120000);
	/* An HTTP date 7 s ahead. */
	ck_assert_int_eq(retry_server_ms(NULL, "Tue, 14 Nov 2023 22:13:27 GMT",
	    1700000000), 7000);
	/* A zero retry-after-ms gives way to retry-after. */
	ck_assert_int_eq(retry_server_ms("0", "3", now), 3000);
	/* Nothing usable: -1, and the computed backoff applies. */
	ck_assert_int_eq(retry_server_ms(NULL, NULL, now), -1);
	ck_assert_int_eq(retry_server_ms(NULL, "0", now), -1);
	ck_assert_int_eq(retry_server_ms(NULL, "-3", now), -1);
	ck_assert_int_eq(retry_server_ms(NULL, "soon", now), -1);
	ck_assert_int_eq(retry_server_ms("", "", now), -1);
	ck_assert_int_eq(retry_server_ms("x", NULL, now), -1);
}
END_TEST

START_TEST(backoff_doubles_caps_and_jitters)
{
	static const int64_t want[] = { 500, 1000, 2000, 4000, 8000, 16000,
	    32000, 40000, 40000, 40000 };
	struct retry_policy p;
	unsigned int seed = 7;
	int i, n;

	retry_policy_defaults(&p);
	ck_assert_int_eq(p.cap_ms, 40000);
	ck_assert_int_eq(p.budget_ms, 10 * 60 * 1000);
	ck_assert_int_eq(p.max_retries, -1);
	for (n = 0; n < 10; n++)
		ck_assert_int_eq(retry_backoff_ms(&p, n, 0.0), want[n]);
	ck_assert_int_eq(retry_backoff_ms(&p, 50, 0.0), 40000);
	ck_assert_int_eq(retry_backoff_ms(&p, 100000, 0.0), 40000);
	/* Jitter shortens by at most a quarter, never lengthens. */
	ck_assert_int_eq(retry_backoff_ms(&p, 0, 0.999999), 375);
	ck_assert_int_eq(retry_backoff_ms(&p, 4, 0.5), 7000);
	ck_assert_int_eq(retry_backoff_ms(&p, 9, 0.5), 35000);
	for (i = 0; i < 1000; i++) {
		double j = (double)rand_r(&seed) / ((double)RAND_MAX + 1.0);
		int64_t d;

		n = i % 12;
		d = retry_backoff_ms(&p, n, j);
		ck_assert_int_le(d, n < 7 ? want[n] : 40000);
		ck_assert_int_ge(d, (n < 7 ? want[n] : 40000) * 3 / 4);
	}
	/* A smaller cap (--retry-max-delay) caps. */
	p.cap_ms = 50;
	ck_assert_int_eq(retry_backoff_ms(&p, 0, 0.0), 50);
	ck_assert_int_eq(retry_backoff_ms(&p, 5, 0.0), 50);
}
END_TEST

START_TEST(the_budget_bounds_the_retries)
{
	struct retry_policy p;
	int64_t elapsed = 0, d;
	int n = 0;

	retry_policy_defaults(&p);
	/* Without jitter: 0.5 + 1 + … + 32 s = 63.5 s, then 40 s waits,
	 * the last shortened so that it ends with the ten minutes. */
	while ((d = retry_next_ms(&p, n, elapsed, -1, 0.0)) != -1) {
		ck_assert_int_gt(d, 0);
		ck_assert_int_le(d, 40000);
		elapsed += d;
		n++;
		ck_assert_int_lt(n, 100);
	}
	ck_assert_int_eq(elapsed, 10 * 60 * 1000);
	ck_assert_int_eq(n, 7 + 13 + 1);
	/* Past the budget: give up. */
	ck_assert_int_eq(retry_next_ms(&p, 3, 600000, -1, 0.0), -1);
	ck_assert_int_eq(retry_next_ms(&p, 3, 700000, 10, 0.0), -1);
	/* The server's wait replaces the computed one, whatever its size,
	 * while it fits the budget; beyond it there is no point waiting. */
	ck_assert_int_eq(retry_next_ms(&p, 0, 0, 30000, 0.0), 30000);
	ck_assert_int_eq(retry_next_ms(&p, 6, 0, 20, 0.9), 20);
	ck_assert_int_eq(retry_next_ms(&p, 0, 0, 120000, 0.0), 120000);
	ck_assert_int_eq(retry_next_ms(&p, 0, 590000, 20000, 0.0), -1);
	/* A computed wait is cut to what is left. */
	ck_assert_int_eq(retry_next_ms(&p, 9, 599000, -1, 0.0), 1000);
	/* A count, when given, also bounds. */
	p.max_retries = 2;
	ck_assert_int_eq(retry_next_ms(&p, 1, 0, -1, 0.0), 1000);
	ck_assert_int_eq(retry_next_ms(&p, 2, 0, -1, 0.0), -1);
	ck_assert_int_eq(retry_next_ms(&p, 2, 0, 5, 0.0), -1);
	p.max_retries = 0;
	ck_assert_int_eq(retry_next_ms(&p, 0, 0, -1, 0.0), -1);
	/* No budget: never retry. */
	p.max_retries = -1;
	p.budget_ms = 0;
	ck_assert_int_eq(retry_next_ms(&p, 0, 0, -1, 0.0), -1);
	ck_assert_int_eq(retry_next_ms(&p, 0, 0, 10, 0.0), -1);
}
END_TEST

START_TEST(durations_are_read)
{
	int64_t ms = -2;

	ck_assert_int_eq(number_duration_ms("90s", &ms), 0);
	ck_assert_int_eq(ms, 90000);
	ck_assert_int_eq(number_duration_ms("10m", &ms), 0);
	ck_assert_int_eq(ms, 600000);
	ck_assert_int_eq(number_duration_ms("2h", &ms), 0);
	ck_assert_int_eq(ms, 7200000);
	ck_assert_int_eq(number_duration_ms("45", &ms), 0);
	ck_assert_int_eq(ms, 45000);
	ck_assert_int_eq(number_duration_ms("250ms", &ms), 0);
	ck_assert_int_eq(ms, 250);
	ck_assert_int_eq(number_duration_ms("0", &ms), 0);
	ck_assert_int_eq(ms, 0);
	ms = 5;
	ck_assert_int_eq(number_duration_ms("", &ms), -1);
	ck_assert_int_eq(number_duration_ms("m", &ms), -1);
	ck_assert_int_eq(number_duration_ms("10x", &ms), -1);
	ck_assert_int_eq(number_duration_ms("-5", &ms), -1);
	ck_assert_int_eq(number_duration_ms("1.5m", &ms), -1);
	ck_assert_int_eq(number_duration_ms(" 5", &ms), -1);
	ck_assert_int_eq(number_duration_ms("9999999h", &ms), -1);
	ck_assert_int_eq(number_duration_ms("99999999999999999999", &ms), -1);
	ck_assert_int_eq(ms, 5);
}
END_TEST

static void *
fire_later(void *arg)
{
	usleep(100 * 1000);
	cancel_fire(arg);
	return NULL;
}

START_TEST(cancel_cuts_a_sleep_short)
{
	struct cancel c;
	pthread_t th;
	int64_t start, took;

	cancel_init(&c);
	start = clock_mono_ms();
	ck_assert_int_eq(cancel_sleep(&c, 50), 0);
	ck_assert_int_ge(clock_mono_ms() - start, 50);

	start = clock_mono_ms();
	pthread_create(&th, NULL, fire_later, &c);
	ck_assert_int_eq(cancel_sleep(&c, 30000), -1);
	took = clock_mono_ms() - start;
	pthread_join(th, NULL);
	ck_assert_int_lt(took, 100 + 100);
	ck_assert(cancel_fired(&c));
	/* A fired token stays fired until reset. */
	ck_assert_int_eq(cancel_sleep(&c, 30000), -1);
	cancel_reset(&c);
	ck_assert(!cancel_fired(&c));
	ck_assert_int_eq(cancel_sleep(&c, 1), 0);
	cancel_destroy(&c);
}
END_TEST

static Suite *
retry_suite(void)
{
	Suite *s = suite_create("retry");
	TCase *tc = tcase_create("retry");

	tcase_add_test(tc, which_failures_are_retried);
	tcase_add_test(tc, which_broken_streams_are_retried);
	tcase_add_test(tc, server_delays_are_read);
	tcase_add_test(tc, backoff_doubles_caps_and_jitters);
	tcase_add_test(tc, the_budget_bounds_the_retries);
	tcase_add_test(tc, durations_are_read);
	tcase_add_test(tc, cancel_cuts_a_sleep_short);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(retry_suite());
}
