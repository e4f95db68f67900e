/*
 * Monotonic and wall-clock time in milliseconds (see clock.h).
 */
#include "config.h"

#include "util/clock.h"

static int64_t
clock_read_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t
clock_mono_ms(void)
{
	return clock_read_ns(CLOCK_MONOTONIC) / 1000000;
}

int64_t
clock_mono_us(void)
{
	return clock_read_ns(CLOCK_MONOTONIC) / 1000;
}

int64_t
clock_wall_ms(void)
{
	return clock_read_ns(CLOCK_REALTIME) / 1000000;
}

struct timespec
clock_mono_timespec(int64_t deadline_ms)
{
	struct timespec ts;

	ts.tv_sec = deadline_ms / 1000;
	ts.tv_nsec = (deadline_ms % 1000) * 1000000;
	return ts;
}
