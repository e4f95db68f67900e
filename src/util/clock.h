/*
 * The two clocks huddle uses. Monotonic milliseconds measure intervals and
 * deadlines inside one process; wall-clock milliseconds are what the store
 * keeps, because they must mean the same thing after a restart.
 */
#ifndef HUDDLE_UTIL_CLOCK_H
#define HUDDLE_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Milliseconds on CLOCK_MONOTONIC. */
int64_t clock_mono_ms(void);
/* Microseconds on CLOCK_MONOTONIC (for benchmarks and latency figures). */
int64_t clock_mono_us(void);
/* Milliseconds since the Unix epoch. */
int64_t clock_wall_ms(void);
/* The CLOCK_MONOTONIC timespec of an absolute monotonic deadline in ms. */
struct timespec clock_mono_timespec(int64_t deadline_ms);

#endif
