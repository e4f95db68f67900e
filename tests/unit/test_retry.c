/*
 * Unit tests of llm/retry (the SDK retry policy) and llm/cancel.
 */
#include "config.h"

#include <curl/curl.h>
#include <pthread.h>
#include <unistd.h>

#include "util/cancel.h"
#include "llm/retry.h"
#include "testutil.h"
#include "util/clock.h"

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

START_TEST(server_delays_are_honoured_up_to_a_minute)
{
	time_t now = 1700000000;

	ck_assert_int_eq(retry_delay_ms(NULL, "1", 0, 0.0, now), 1000);
	ck_assert_int_eq(retry_delay_ms(NULL, "2.5", 1, 0.9, now), 2500);
	ck_assert_int_eq(retry_delay_ms("150", "9", 0, 0.0, now), 150);
	ck_assert_int_eq(retry_delay_ms(NULL, "60", 0, 0.0, now), 60000);
	/* An HTTP date 7 s ahead. */
	ck_assert_int_eq(retry_delay_ms(NULL, "Tue, 14 Nov 2023 22:13:27 GMT",
	    0, 0.0, 1700000000), 7000);
	/* Out of range or unreadable: the computed backoff instead. */
	ck_assert_int_eq(retry_delay_ms(NULL, "61", 0, 0.0, now), 500);
	ck_assert_int_eq(retry_delay_ms(NULL, "0", 0, 0.0, now), 500);
	ck_assert_int_eq(retry_delay_ms(NULL, "-3", 0, 0.0, now), 500);
	ck_assert_int_eq(retry_delay_ms(NULL, "soon", 1, 0.0, now), 1000);
	ck_assert_int_eq(retry_delay_ms("", "", 2, 0.0, now), 2000);
}
END_TEST

START_TEST(backoff_doubles_caps_and_jitters)
{
	ck_assert_int_eq(retry_delay_ms(NULL, NULL, 0, 0.0, 0), 500);
	ck_assert_int_eq(retry_delay_ms(NULL, NULL, 1, 0.0, 0), 1000);
	ck_assert_int_eq(retry_delay_ms(NULL, NULL, 3, 0.0, 0), 4000);
	ck_assert_int_eq(retry_delay_ms(NULL, NULL, 4, 0.0, 0), 8000);
	ck_assert_int_eq(retry_delay_ms(NULL, NULL, 50, 0.0, 0), 8000);
	/* Jitter shortens by at most a quarter. */
	ck_assert_int_eq(retry_delay_ms(NULL, NULL, 0, 0.999999, 0), 375);
	ck_assert_int_eq(retry_delay_ms(NULL, NULL, 4, 0.5, 0), 7000);
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
	tcase_add_test(tc, server_delays_are_honoured_up_to_a_minute);
	tcase_add_test(tc, backoff_doubles_caps_and_jitters);
	tcase_add_test(tc, cancel_cuts_a_sleep_short);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(retry_suite());
}
