/*
 * bench/bus: durable bus throughput and wake-up latency (doc/benchmarks.md).
 *
 * Prints messages/s for 1 writer and for 8 writers (each message committed
 * before bus_send returns, so it survives kill -9), the same with
 * power-loss durability (STORE_SYNC_FULL), and the latency from bus_send to
 * the return of a blocked bus_wait as p50/p99. Every run checks that no
 * message was lost or duplicated.
 *
 * usage: bench/bus [DIR]   (DIR: where to make the scratch store; /tmp)
 */
#include "config.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/bus.h"
#include "core/roster.h"
#include "core/store.h"
#include "util/clock.h"
#include "util/xmalloc.h"

#define BENCH_MESSAGES	40000

struct writer {
	struct bus	*bus;
	int		 index;
	int		 count;
};

static void
die(const char *what, char *err)
{
	fprintf(stderr, "bench/bus: %s: %s\n", what, err ? err : "?");
	exit(1);
}

static char *
scratch(const char *base)
{
	char *dir = xasprintf("%s/huddle-bench-XXXXXX", base);

	if (mkdtemp(dir) == NULL)
		die("mkdtemp", dir);
	return dir;
}

static void
cleanup(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	if (system(cmd) != 0)
		fprintf(stderr, "bench/bus: could not remove %s\n", dir);
	free(cmd);
}

static struct store *
team(const char *dir, int flags)
{
	char *err = NULL;
	struct store *s = store_open(dir, flags, &err);

	if (s == NULL)
		die("store_open", err);
	if (roster_add(s, "lead", "lead", "", 0, &err) == -1 ||
	    roster_add(s, "alice", "coder", "", 0, &err) == -1)
		die("roster_add", err);
	return s;
}

static void *
writer_thread(void *arg)
{
	struct writer *w = arg;
	char from[16], text[32];
	char *err = NULL;
	int i;

	snprintf(from, sizeof from, "w%d", w->index);
	for (i = 0; i < w->count; i++) {
		snprintf(text, sizeof text, "%d:%d", w->index, i);
		if (bus_send(w->bus, from, "lead", MSG_MESSAGE, text, NULL,
		    &err) < 0)
			die("bus_send", err);
	}
	return NULL;
}

/* Checks that the inbox holds each writer's messages once, in order. */
static void
verify(struct bus *bus, int writers, int each)
{
	struct message *msgs;
	int *next = xcalloc(writers, sizeof *next);
	char *err = NULL;
	size_t n, i;
	int w, seq;

	if (bus_drain(bus, "lead", &msgs, &n, &err) == -1)
		die("bus_drain", err);
	if (n != (size_t)writers * each) {
		fprintf(stderr, "bench/bus: %zu messages, want %d\n", n,
		    writers * each);
		exit(1);
	}
	for (i = 0; i < n; i++) {
		if (sscanf(msgs[i].content, "%d:%d", &w, &seq) != 2 ||
		    w < 0 || w >= writers || seq != next[w]++) {
			fprintf(stderr, "bench/bus: lost, duplicated or "
			    "reordered at %s\n", msgs[i].content);
			exit(1);
		}
	}
	message_free_array(msgs, n);
	free(next);
}

static double
throughput(const char *base, int writers, int flags)
{
	char *dir = scratch(base);
	struct store *s = team(dir, flags);
	struct bus *bus = bus_new(s);
	struct writer *w = xcalloc(writers, sizeof *w);
	pthread_t *th = xcalloc(writers, sizeof *th);
	int each = BENCH_MESSAGES / writers, i;
	int64_t start, took;

	if (flags & STORE_SYNC_FULL)
		each /= 10;
	start = clock_mono_us();
	for (i = 0; i < writers; i++) {
		w[i] = (struct writer){ bus, i, each };
		pthread_create(&th[i], NULL, writer_thread, &w[i]);
	}
	for (i = 0; i < writers; i++)
		pthread_join(th[i], NULL);
	took = clock_mono_us() - start;
	verify(bus, writers, each);
	bus_free(bus);
	store_close(s);
	cleanup(dir);
	free(dir);
	free(w);
	free(th);
	return (double)writers * each * 1e6 / (double)took;
}

/* --- wake-up latency ----------------------------------------------------- */

struct latency {
	struct bus	*bus;
	sem_t		 ready;		/* the waiter is about to wait again */
	int64_t		 woke_us;
	int		 rounds;
};

static void *
waiter_thread(void *arg)
{
	struct latency *l = arg;
	struct message *msgs;
	char *err = NULL;
	size_t n;
	int i;

	for (i = 0; i < l->rounds; i++) {
		sem_post(&l->ready);
		while (bus_wait(l->bus, "alice", -1, NULL) == 0)
			;
		l->woke_us = clock_mono_us();
		if (bus_drain(l->bus, "alice", &msgs, &n, &err) == -1)
			die("bus_drain", err);
		message_free_array(msgs, n);
	}
	sem_post(&l->ready);
	return NULL;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static void
wake_latency(const char *base, int rounds, double *p50, double *p99)
{
	char *dir = scratch(base);
	struct store *s = team(dir, 0);
	struct latency l = { .bus = bus_new(s), .rounds = rounds };
	int64_t *us = xcalloc(rounds, sizeof *us), sent;
	char *err = NULL;
	pthread_t th;
	int i;

	sem_init(&l.ready, 0, 0);
	pthread_create(&th, NULL, waiter_thread, &l);
	for (i = 0; i < rounds; i++) {
		sem_wait(&l.ready);
		/* Let the waiter block: we measure a wake-up, not a check
		 * that finds mail already there. */
		usleep(200);
		sent = clock_mono_us();
		if (bus_send(l.bus, "lead", "alice", MSG_MESSAGE, "ping", NULL,
		    &err) < 0)
			die("bus_send", err);
		sem_wait(&l.ready);
		us[i] = l.woke_us - sent;
		sem_post(&l.ready);
	}
	sem_wait(&l.ready);
	pthread_join(th, NULL);
	qsort(us, rounds, sizeof *us, cmp_i64);
	*p50 = us[rounds / 2] / 1000.0;
	*p99 = us[rounds * 99 / 100] / 1000.0;
	sem_destroy(&l.ready);
	bus_free(l.bus);
	store_close(s);
	cleanup(dir);
	free(dir);
	free(us);
}

int
main(int argc, char **argv)
{
	const char *base = argc > 1 ? argv[1] : "/tmp";
	double p50, p99;

	printf("bus: durable (survives kill -9) messages/s\n");
	printf("  1 writer    %8.0f msg/s\n", throughput(base, 1, 0));
	printf("  8 writers   %8.0f msg/s\n", throughput(base, 8, 0));
	printf("bus: power-loss durable (fsync per commit) messages/s\n");
	printf("  1 writer    %8.0f msg/s\n",
	    throughput(base, 1, STORE_SYNC_FULL));
	printf("  8 writers   %8.0f msg/s\n",
	    throughput(base, 8, STORE_SYNC_FULL));
	wake_latency(base, 1000, &p50, &p99);
	printf("bus: send -> blocked wait returns (1000 runs)\n");
	printf("  p50 %.3f ms  p99 %.3f ms\n", p50, p99);
	printf("no message lost or duplicated\n");
	return 0;
}
