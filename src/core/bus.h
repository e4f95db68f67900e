/*
 * The bus carries messages between members through durable inboxes.
 *
 * A message is committed to the store before bus_send() returns, and a
 * member blocked in bus_wait() is woken at once through a condition
 * variable: no polling happens inside the process. Messages written by
 * another process into the same store are noticed by bus_poll(), which the
 * main loop calls on its one-second tick.
 *
 * Draining an inbox marks its messages delivered and records each in the
 * recipient's transcript in one transaction, so a crash at any moment
 * leaves every message either still undelivered or already recorded.
 */
#ifndef HUDDLE_CORE_BUS_H
#define HUDDLE_CORE_BUS_H

#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/message.h"
#include "core/store.h"
#include "util/listeners.h"

struct bus;

/* Called after a message is committed, on the sending thread, with the
 * store's lock still held so that listeners hear messages in the order
 * they committed: a listener must not call into the store. `what` is the
 * struct message, valid only during the call. */
typedef listener_fn bus_listener_fn;

/* Creates a bus over an open store (not owned). */
struct bus *bus_new(struct store *s);

/* Frees the bus; no thread may be waiting on it. NULL is ignored. */
void bus_free(struct bus *bus);

/* The store the bus writes to. */
struct store *bus_store(struct bus *bus);

/* Registers a listener for every committed message. Call before any
 * thread sends; listeners cannot be removed. */
void bus_listen(struct bus *bus, bus_listener_fn fn, void *ud);

/*
 * Sends one message and wakes its recipient. Content longer than
 * MSG_MAX_CONTENT is kept cut (message_cap), on every path into an
 * inbox. `metadata` (an object, or NULL) is not stolen. Returns the
 * message id (> 0), or -1 with *err: the recipient is unknown or
 * terminated, the store failed, or (for a MSG_MESSAGE) the state is at
 * its ceiling (store_room).
 */
int64_t bus_send(struct bus *bus, const char *from, const char *to,
    enum msg_type type, const char *content, json_t *metadata, char **err);

/*
 * Sends `content` as a broadcast to every live member except the sender.
 * Returns the number of recipients, or -1 with *err.
 */
int bus_broadcast(struct bus *bus, const char *from, const char *content,
    char **err);

/*
 * Inside a transaction: checks that `to` is a live member and inserts the
 * message, filling *out (when not NULL) with a copy of what was stored. After
 * store_commit() and before store_unlock(), the caller wakes `to` with
 * bus_wake() and tells listeners with bus_announce(), so that they hear
 * messages in the order they committed. Returns the id, or -1 with *err.
 */
int64_t bus_post_tx(struct store *s, const char *from, const char *to,
    enum msg_type type, const char *content, json_t *metadata,
    struct message *out, char **err);

/* Wakes anything waiting on name's inbox. */
void bus_wake(struct bus *bus, const char *name);

/* Calls the listeners for a message committed by bus_post_tx(). */
void bus_announce(struct bus *bus, const struct message *m);

/*
 * Takes every undelivered message for `name`, oldest first, marks them
 * delivered and appends each (as message_render() shows it) to name's
 * transcript, all in one transaction. On success returns 0 with *out a
 * malloc'd array of *n messages (free with message_free_array; NULL when
 * *n is 0). Returns -1 with *err when the store failed; nothing is then
 * delivered.
 */
int bus_drain(struct bus *bus, const char *name, struct message **out,
    size_t *n, char **err);

/* Decides whether a drained message goes into the recipient's
 * transcript (non-zero) or is only marked delivered (0). */
typedef int (*bus_feed_fn)(void *ud, const struct message *m);

/*
 * bus_drain with a say in what is recorded: messages for which feed
 * returns 0 are marked delivered but left out of the transcript (the
 * front ends still saw them when they were sent). Each message's
 * `recorded` field tells which. feed NULL records everything. feed runs
 * inside the store's transaction: it must be quick and must not call the
 * store, the bus or the protocol engine.
 */
int bus_drain_filtered(struct bus *bus, const char *name, bus_feed_fn feed,
    void *ud, struct message **out, size_t *n, char **err);

/* The transcript entry that records message m (a new reference): a user
 * turn with m's readable line. */
json_t *bus_entry(const struct message *m);

/*
 * The last `last` messages sent to `name` since since_ms (wall clock),
 * delivered or not, oldest first: what its pane showed as they were sent
 * (after --resume). Returns 0 with *out (free with message_free_array),
 * or -1 with *err.
 */
int bus_history(struct bus *bus, const char *name, int64_t since_ms,
    size_t last, struct message **out, size_t *n, char **err);

/* Returns the number of undelivered messages for name (0 on error). */
size_t bus_pending(struct bus *bus, const char *name);

/*
 * Blocks until name's inbox has undelivered messages, bus_wake() is called
 * for it, *stop becomes non-zero (checked race-free: set it, then call
 * bus_wake), or the monotonic deadline (clock_mono_ms; -1 waits forever)
 * passes. Returns 1 when woken or messages wait, 0 at the deadline.
 */
int bus_wait(struct bus *bus, const char *name, int64_t deadline_ms,
    const atomic_int *stop);

/*
 * The wake-up generation of name's inbox: it changes with every message
 * committed to it and every bus_wake(). Read it, look at what you are
 * waiting for, then bus_wait_since() the value read: nothing that happens
 * after the read can be missed.
 */
uint64_t bus_generation(struct bus *bus, const char *name);

/*
 * Blocks until name's generation differs from gen, *stop is set (then
 * bus_wake), or the deadline passes — whether or not old messages wait.
 * Returns 1 when woken, 0 at the deadline.
 */
int bus_wait_since(struct bus *bus, const char *name, uint64_t gen,
    int64_t deadline_ms, const atomic_int *stop);

/*
 * Notices commits by other processes (PRAGMA data_version) and wakes every
 * waiter when there were any. Returns 1 when something changed, else 0.
 */
int bus_poll(struct bus *bus);

#endif
