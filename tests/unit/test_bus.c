/*
 * Unit tests of core/bus: sending, draining into transcripts, waking
 * waiters at once, other processes' writes, many concurrent writers, and a
 * process killed with SIGKILL in the middle of sends and drains.
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/bus.h"
#include "core/protocol.h"
#include "core/roster.h"
#include "core/transcript.h"
#include "testutil.h"
#include "util/clock.h"
#include "util/xmalloc.h"

START_TEST(send_then_drain)
{
	struct tu_team t;
	struct message *msgs;
	json_t *meta = json_pack("{s:s}", "k", "v"), *tr;
	char *err = NULL;
	size_t n;
	int64_t a, b;

	tu_team_open(&t);
	ck_assert_uint_eq(bus_pending(t.bus, "alice"), 0);
	a = bus_send(t.bus, "lead", "alice", MSG_MESSAGE, "first", meta, &err);
	b = bus_send(t.bus, "bob", "alice", MSG_MESSAGE, "second", NULL, &err);
	ck_assert_int_gt(a, 0);
	ck_assert_int_gt(b, a);
	ck_assert_uint_eq(bus_pending(t.bus, "alice"), 2);
	ck_assert_uint_eq(bus_pending(t.bus, "bob"), 0);

	ck_assert_int_eq(bus_drain(t.bus, "alice", &msgs, &n, &err), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(msgs[0].id, a);
	ck_assert_str_eq(msgs[0].from, "lead");
	ck_assert_str_eq(msgs[0].to, "alice");
	ck_assert_str_eq(msgs[0].content, "first");
	ck_assert_int_eq(msgs[0].type, MSG_MESSAGE);
	ck_assert(json_equal(msgs[0].metadata, meta));
	ck_assert_str_eq(msgs[1].from, "bob");
	ck_assert_int_eq(json_object_size(msgs[1].metadata), 0);
	message_free_array(msgs, n);

	/* The same messages are in alice's transcript, readable. */
	tr = transcript_load(t.store, "alice", &err);
	ck_assert_int_eq(json_array_size(tr), 2);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    json_object_get(json_array_get(tr, 1), "content"), 0), "text")),
	    "[message from bob] second");
	json_decref(tr);

	/* A second drain finds nothing: delivered once. */
	ck_assert_int_eq(bus_drain(t.bus, "alice", &msgs, &n, &err), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(msgs);
	ck_assert_uint_eq(bus_pending(t.bus, "alice"), 0);
	json_decref(meta);
	tu_team_close(&t);
}
END_TEST

START_TEST(send_to_unknown_or_terminated_is_an_error)
{
	struct tu_team t;
	char *err = NULL;

	tu_team_open(&t);
	ck_assert_int_eq(bus_send(t.bus, "lead", "carol", MSG_MESSAGE, "hi",
	    NULL, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "no member named 'carol'"));
	free(err);
	err = NULL;
	ck_assert_uint_eq(bus_pending(t.bus, "carol"), 0);

	ck_assert_int_eq(roster_set_status(t.store, "alice",
	    MEMBER_TERMINATED, &err), 0);
	ck_assert_int_eq(bus_send(t.bus, "lead", "alice", MSG_MESSAGE, "hi",
	    NULL, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "terminated"));
	free(err);
	ck_assert_uint_eq(bus_pending(t.bus, "alice"), 0);
	tu_team_close(&t);
}
END_TEST

START_TEST(invalid_utf8_is_repaired)
{
	struct tu_team t;
	struct message *msgs;
	char *err = NULL;
	size_t n;

	tu_team_open(&t);
	ck_assert_int_gt(bus_send(t.bus, "lead", "alice", MSG_MESSAGE,
	    "bad \xff byte", NULL, &err), 0);
	ck_assert_int_eq(bus_drain(t.bus, "alice", &msgs, &n, &err), 0);
	ck_assert_str_eq(msgs[0].content, "bad \xef\xbf\xbd byte");
	message_free_array(msgs, n);
	tu_team_close(&t);
}
END_TEST

/* An agent's text is kept up to MSG_MAX_CONTENT: the rest is cut on a
 * character boundary, with a note of how much, on every way into an
 * inbox (a message, a broadcast, a request). */
START_TEST(long_messages_are_cut_with_a_note)
{
	struct tu_team t;
	struct message *msgs;
	char *err = NULL, *big, *kept, id[PROTO_ID_SIZE];
	size_t n, cut, i, len = 1024 * 1024;

	/* Three-byte characters from the start, so the cut falls inside
	 * one: 65536 is not a multiple of 3. */
	big = xmalloc(len + 1);
	for (i = 0; i + 3 <= len; i += 3)
		memcpy(big + i, "\xe2\x82\xac", 3);
	big[i] = '\0';
	kept = message_cap(big, &cut);
	ck_assert_uint_eq(cut, i - 65535);
	ck_assert_int_eq(strncmp(kept, big, 65535), 0);
	ck_assert_ptr_nonnull(strstr(kept, "bytes cut: a message holds at "
	    "most 64 KiB"));
	free(kept);
	kept = message_cap("short", &cut);
	ck_assert_str_eq(kept, "short");
	ck_assert_uint_eq(cut, 0);
	free(kept);

	tu_team_open(&t);
	ck_assert_int_gt(bus_send(t.bus, "lead", "alice", MSG_MESSAGE, big,
	    NULL, &err), 0);
	ck_assert_int_eq(bus_broadcast(t.bus, "lead", big, &err), 2);
	ck_assert_int_eq(protocol_request(t.proto, REQ_PLAN_APPROVAL, "alice",
	    "lead", big, id, &err), 0);
	ck_assert_int_eq(bus_drain(t.bus, "alice", &msgs, &n, &err), 0);
	ck_assert_uint_eq(n, 2);
	for (i = 0; i < n; i++) {
		ck_assert_uint_lt(strlen(msgs[i].content), MSG_MAX_CONTENT +
		    100);
		ck_assert_ptr_nonnull(strstr(msgs[i].content, "bytes cut"));
	}
	message_free_array(msgs, n);
	ck_assert_int_eq(bus_drain(t.bus, "lead", &msgs, &n, &err), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_lt(strlen(msgs[0].content), MSG_MAX_CONTENT + 100);
	message_free_array(msgs, n);
	free(big);
	tu_team_close(&t);
}
END_TEST

START_TEST(broadcast_reaches_live_teammates_only)
{
	struct tu_team t;
	struct message *msgs;
	char *err = NULL;
	size_t n;

	tu_team_open(&t);
	ck_assert_int_eq(roster_add(t.store, "carol", "tester", "", 0, &err),
	    0);
	ck_assert_int_eq(roster_set_status(t.store, "carol",
	    MEMBER_TERMINATED, &err), 0);
	ck_assert_int_eq(bus_broadcast(t.bus, "lead", "standup", &err), 2);
	ck_assert_uint_eq(bus_pending(t.bus, "lead"), 0);
	ck_assert_uint_eq(bus_pending(t.bus, "carol"), 0);
	ck_assert_int_eq(bus_drain(t.bus, "bob", &msgs, &n, &err), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(msgs[0].type, MSG_BROADCAST);
	ck_assert_str_eq(msgs[0].content, "standup");
	message_free_array(msgs, n);
	ck_assert_uint_eq(bus_pending(t.bus, "alice"), 1);
	tu_team_close(&t);
}
END_TEST

struct seen {
	pthread_mutex_t	 lock;
	int		 count;
	char		 last_to[32];
};

static void
count_message(void *ud, const void *what)
{
	const struct message *m = what;
	struct seen *s = ud;

	pthread_mutex_lock(&s->lock);
	s->count++;
	snprintf(s->last_to, sizeof s->last_to, "%s", m->to);
	pthread_mutex_unlock(&s->lock);
}

START_TEST(listeners_hear_committed_messages_only)
{
	struct tu_team t;
	struct seen seen = { PTHREAD_MUTEX_INITIALIZER, 0, "" };
	char *err = NULL;

	tu_team_open(&t);
	bus_listen(t.bus, count_message, &seen);
	ck_assert_int_gt(bus_send(t.bus, "lead", "bob", MSG_MESSAGE, "x", NULL,
	    &err), 0);
	ck_assert_int_eq(seen.count, 1);
	ck_assert_str_eq(seen.last_to, "bob");
	ck_assert_int_eq(bus_send(t.bus, "lead", "nobody", MSG_MESSAGE, "x",
	    NULL, &err), -1);
	free(err);
	ck_assert_int_eq(seen.count, 1);
	tu_team_close(&t);
}
END_TEST

struct waiter {
	struct bus	*bus;
	const char	*name;
	int64_t		 deadline;
	atomic_int	*stop;
	int		 result;
	int64_t		 returned_us;
};

static void *
wait_thread(void *arg)
{
	struct waiter *w = arg;

	w->result = bus_wait(w->bus, w->name, w->deadline, w->stop);
	w->returned_us = clock_mono_us();
	return NULL;
}

/* Gives a waiter thread time to block; correctness never depends on it,
 * only the figure for "woke at once" does. */
static void
let_it_block(void)
{
	usleep(50 * 1000);
}

START_TEST(wait_wakes_at_once_on_send)
{
	struct tu_team t;
	struct waiter w = { 0 };
	pthread_t th;
	char *err = NULL;
	int64_t sent_us;

	tu_team_open(&t);
	w.bus = t.bus;
	w.name = "alice";
	w.deadline = clock_mono_ms() + 10000;
	pthread_create(&th, NULL, wait_thread, &w);
	let_it_block();
	sent_us = clock_mono_us();
	ck_assert_int_gt(bus_send(t.bus, "lead", "alice", MSG_MESSAGE, "go",
	    NULL, &err), 0);
	pthread_join(th, NULL);
	ck_assert_int_eq(w.result, 1);
	/* Woken by the send, not by the 10 s deadline or a poll. */
	ck_assert_int_lt(w.returned_us - sent_us, 500 * 1000);
	tu_team_close(&t);
}
END_TEST

START_TEST(wait_returns_at_once_when_mail_is_waiting)
{
	struct tu_team t;
	char *err = NULL;
	int64_t start;

	tu_team_open(&t);
	ck_assert_int_gt(bus_send(t.bus, "lead", "alice", MSG_MESSAGE, "hi",
	    NULL, &err), 0);
	start = clock_mono_ms();
	ck_assert_int_eq(bus_wait(t.bus, "alice", -1, NULL), 1);
	ck_assert_int_lt(clock_mono_ms() - start, 1000);
	tu_team_close(&t);
}
END_TEST

START_TEST(wait_times_out_at_the_deadline)
{
	struct tu_team t;
	int64_t start, took;

	tu_team_open(&t);
	start = clock_mono_ms();
	ck_assert_int_eq(bus_wait(t.bus, "alice", start + 150, NULL), 0);
	took = clock_mono_ms() - start;
	ck_assert_int_ge(took, 150);
	ck_assert_int_lt(took, 2000);
	/* A deadline in the past returns at once. */
	ck_assert_int_eq(bus_wait(t.bus, "alice", 0, NULL), 0);
	tu_team_close(&t);
}
END_TEST

START_TEST(stop_flag_and_wake_interrupt_a_wait)
{
	struct tu_team t;
	struct waiter w = { 0 };
	atomic_int stop = 0;
	pthread_t th;

	tu_team_open(&t);
	w.bus = t.bus;
	w.name = "bob";
	w.deadline = -1;
	w.stop = &stop;
	pthread_create(&th, NULL, wait_thread, &w);
	let_it_block();
	atomic_store(&stop, 1);
	bus_wake(t.bus, "bob");
	pthread_join(th, NULL);
	ck_assert_int_eq(w.result, 1);
	/* Already set: returns without blocking. */
	ck_assert_int_eq(bus_wait(t.bus, "bob", -1, &stop), 1);
	tu_team_close(&t);
}
END_TEST

START_TEST(poll_notices_another_connection)
{
	struct tu_team t;
	struct waiter w = { 0 };
	struct store *other;
	struct bus *other_bus;
	pthread_t th;
	char *err = NULL;

	tu_team_open(&t);
	ck_assert_int_eq(bus_poll(t.bus), 0);
	w.bus = t.bus;
	w.name = "alice";
	w.deadline = clock_mono_ms() + 10000;
	pthread_create(&th, NULL, wait_thread, &w);
	let_it_block();

	/* Another connection (as another process would) writes a message;
	 * its wake-up cannot reach our condition variables. */
	other = tu_store_open(t.dir);
	other_bus = bus_new(other);
	ck_assert_int_gt(bus_send(other_bus, "lead", "alice", MSG_MESSAGE,
	    "from afar", NULL, &err), 0);
	bus_free(other_bus);
	store_close(other);

	ck_assert_int_eq(bus_poll(t.bus), 1);
	pthread_join(th, NULL);
	ck_assert_int_eq(w.result, 1);
	ck_assert_uint_eq(bus_pending(t.bus, "alice"), 1);
	ck_assert_int_eq(bus_poll(t.bus), 0);
	tu_team_close(&t);
}
END_TEST

/* --- many writers into one inbox while it is drained ------------------- */

#define STRESS_WRITERS	8
#define STRESS_EACH	10000

struct writer {
	struct bus	*bus;
	int		 index;
	int		 failures;
};

static void *
writer_thread(void *arg)
{
	struct writer *w = arg;
	char from[16], text[32];
	char *err = NULL;
	int i;

	snprintf(from, sizeof from, "w%d", w->index);
	for (i = 0; i < STRESS_EACH; i++) {
		snprintf(text, sizeof text, "%d:%d", w->index, i);
		if (bus_send(w->bus, from, "lead", MSG_MESSAGE, text, NULL,
		    &err) < 0) {
			w->failures++;
			free(err);
			err = NULL;
		}
	}
	return NULL;
}

/* Checks one drained batch against the per-sender sequence so far. */
static void
check_batch(struct message *msgs, size_t n, int next[STRESS_WRITERS])
{
	size_t i;

	for (i = 0; i < n; i++) {
		int who, seq;

		ck_assert_int_eq(sscanf(msgs[i].content, "%d:%d", &who, &seq),
		    2);
		ck_assert_int_ge(who, 0);
		ck_assert_int_lt(who, STRESS_WRITERS);
		/* Exactly the next one from that sender: no loss, no
		 * duplicate, no reordering. */
		ck_assert_int_eq(seq, next[who]);
		next[who]++;
	}
}

START_TEST(eight_writers_one_drainer_lose_nothing)
{
	struct tu_team t;
	struct writer w[STRESS_WRITERS];
	pthread_t th[STRESS_WRITERS];
	int next[STRESS_WRITERS] = { 0 };
	size_t total = 0, n;
	struct message *msgs;
	char *err = NULL;
	json_t *tr;
	int i, done;

	tu_team_open(&t);
	for (i = 0; i < STRESS_WRITERS; i++) {
		w[i].bus = t.bus;
		w[i].index = i;
		w[i].failures = 0;
		pthread_create(&th[i], NULL, writer_thread, &w[i]);
	}
	do {
		done = total == STRESS_WRITERS * STRESS_EACH;
		if (!done)
			bus_wait(t.bus, "lead", clock_mono_ms() + 1000, NULL);
		ck_assert_int_eq(bus_drain(t.bus, "lead", &msgs, &n, &err), 0);
		check_batch(msgs, n, next);
		total += n;
		message_free_array(msgs, n);
	} while (!done);
	for (i = 0; i < STRESS_WRITERS; i++) {
		pthread_join(th[i], NULL);
		ck_assert_int_eq(w[i].failures, 0);
		ck_assert_int_eq(next[i], STRESS_EACH);
	}
	ck_assert_uint_eq(total, STRESS_WRITERS * STRESS_EACH);
	tr = transcript_load(t.store, "lead", &err);
	ck_assert_uint_eq(json_array_size(tr), STRESS_WRITERS * STRESS_EACH);
	json_decref(tr);
	tu_team_close(&t);
}
END_TEST

/* --- SIGKILL in the middle of sends and drains -------------------------- */

/* The child: sends and drains forever, reporting every acknowledged id on
 * the pipe, until it is killed. */
static void
crash_child(const char *dir, int report_fd)
{
	struct store *s;
	struct bus *bus;
	char *err = NULL;
	int64_t id;
	int i;

	s = store_open(dir, 0, &err);
	if (s == NULL)
		_exit(3);
	bus = bus_new(s);
	for (i = 0;; i++) {
		id = bus_send(bus, "lead", i % 3 ? "alice" : "bob",
		    MSG_MESSAGE, "payload", NULL, &err);
		if (id < 0)
			_exit(4);
		if (write(report_fd, &id, sizeof id) != sizeof id)
			_exit(5);
		if (i % 7 == 0) {
			struct message *msgs;
			size_t n;

			if (bus_drain(bus, i % 2 ? "alice" : "bob", &msgs, &n,
			    &err) == -1)
				_exit(6);
			message_free_array(msgs, n);
		}
	}
}

static int64_t
count_rows(struct store *s, const char *sql)
{
	sqlite3_stmt *st;
	int64_t n = -1;

	store_lock(s);
	ck_assert_int_eq(sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL),
	    SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	store_unlock(s);
	return n;
}

static int
message_exists(struct store *s, int64_t id)
{
	sqlite3_stmt *st;
	int found;

	store_lock(s);
	sqlite3_prepare_v2(store_db(s), "SELECT 1 FROM messages WHERE id = ?",
	    -1, &st, NULL);
	sqlite3_bind_int64(st, 1, id);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	store_unlock(s);
	return found;
}

START_TEST(sigkill_mid_send_and_drain_loses_nothing)
{
	struct tu_team t;
	int round;

	tu_team_open(&t);
	/* The parent's connection must not be shared with children. */
	protocol_free(t.proto);
	bus_free(t.bus);
	store_close(t.store);

	for (round = 0; round < 6; round++) {
		int64_t *acked = NULL, id;
		size_t nacked = 0, cap = 0, i;
		int fds[2], status;
		char *err = NULL;
		struct store *s;
		pid_t pid;

		ck_assert_int_eq(pipe(fds), 0);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			close(fds[0]);
			crash_child(t.dir, fds[1]);
		}
		close(fds[1]);
		/* Kill it after a different amount of work each round. */
		while (nacked < (size_t)(50 + round * 173) &&
		    read(fds[0], &id, sizeof id) == sizeof id) {
			acked = xgrow(acked, &cap, nacked + 1, sizeof *acked);
			acked[nacked++] = id;
		}
		usleep((useconds_t)(round * 1311 % 5000));
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		ck_assert(WIFSIGNALED(status));
		while (read(fds[0], &id, sizeof id) == sizeof id) {
			acked = xgrow(acked, &cap, nacked + 1, sizeof *acked);
			acked[nacked++] = id;
		}
		close(fds[0]);

		s = store_open(t.dir, 0, &err);
		ck_assert_msg(s != NULL, "reopen: %s", err ? err : "");
		ck_assert_int_eq(store_check_integrity(s, &err), 0);
		/* Every acknowledged send survived. */
		for (i = 0; i < nacked; i++)
			ck_assert_msg(message_exists(s, acked[i]),
			    "message %lld lost", (long long)acked[i]);
		/* Delivered <=> recorded exactly once in the transcript. */
		ck_assert_int_eq(count_rows(s, "SELECT COUNT(*) FROM messages m"
		    " WHERE (m.delivered_at IS NULL) = EXISTS (SELECT 1 FROM"
		    " transcripts t WHERE t.message_id = m.id)"), 0);
		ck_assert_int_eq(count_rows(s, "SELECT COUNT(*) FROM transcripts"
		    " t WHERE message_id IS NOT NULL AND NOT EXISTS (SELECT 1"
		    " FROM messages m WHERE m.id = t.message_id AND"
		    " m.delivered_at IS NOT NULL AND m.recipient = t.member)"),
		    0);
		store_close(s);
		free(acked);
	}
	/* tu_team_close frees these; they were closed above. */
	t.store = NULL;
	t.bus = NULL;
	t.proto = NULL;
	tu_team_close(&t);
}
END_TEST

static Suite *
bus_suite(void)
{
	Suite *s = suite_create("bus");
	TCase *tc = tcase_create("bus");
	TCase *stress = tcase_create("stress");

	tcase_add_test(tc, send_then_drain);
	tcase_add_test(tc, send_to_unknown_or_terminated_is_an_error);
	tcase_add_test(tc, invalid_utf8_is_repaired);
	tcase_add_test(tc, long_messages_are_cut_with_a_note);
	tcase_add_test(tc, broadcast_reaches_live_teammates_only);
	tcase_add_test(tc, listeners_hear_committed_messages_only);
	tcase_add_test(tc, wait_wakes_at_once_on_send);
	tcase_add_test(tc, wait_returns_at_once_when_mail_is_waiting);
	tcase_add_test(tc, wait_times_out_at_the_deadline);
	tcase_add_test(tc, stop_flag_and_wake_interrupt_a_wait);
	tcase_add_test(tc, poll_notices_another_connection);
	suite_add_tcase(s, tc);

	/* Sanitizer builds run these several times slower. */
	tcase_set_timeout(stress, 600);
	tcase_add_test(stress, eight_writers_one_drainer_lose_nothing);
	tcase_add_test(stress, sigkill_mid_send_and_drain_loses_nothing);
	suite_add_tcase(s, stress);
	return s;
}

int
main(void)
{
	return tu_run(bus_suite());
}
