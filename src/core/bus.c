/*
 * Durable inboxes with immediate wake-up (see bus.h).
 *
 * Each inbox that someone has waited on gets a generation counter and a
 * condition variable. A sender commits first, then bumps the generation and
 * broadcasts. A waiter reads the generation *before* looking in the store,
 * so a message committed after that look always changes the generation it
 * sleeps on: no wake-up can fall between the look and the sleep.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/bus.h"
#include "core/roster.h"
#include "core/transcript.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

struct bus_inbox {
	char			*name;
	uint64_t		 gen;
	pthread_cond_t		 cond;
	struct bus_inbox	*next;
};

struct bus {
	struct store		*store;
	pthread_mutex_t		 lock;		/* inboxes and their gens */
	struct bus_inbox	*inboxes;
	int64_t			 data_version;	/* guarded by the store lock */
	struct listeners	 listeners;
};

static int64_t bus_data_version(struct store *s);

struct bus *
bus_new(struct store *s)
{
	struct bus *bus = xcalloc(1, sizeof *bus);

	bus->store = s;
	pthread_mutex_init(&bus->lock, NULL);
	store_lock(s);
	bus->data_version = bus_data_version(s);
	store_unlock(s);
	return bus;
}

void
bus_free(struct bus *bus)
{
	struct bus_inbox *in, *next;

	if (bus == NULL)
		return;
	for (in = bus->inboxes; in != NULL; in = next) {
		next = in->next;
		pthread_cond_destroy(&in->cond);
		free(in->name);
		free(in);
	}
	pthread_mutex_destroy(&bus->lock);
	free(bus);
}

struct store *
bus_store(struct bus *bus)
{
	return bus->store;
}

void
bus_listen(struct bus *bus, bus_listener_fn fn, void *ud)
{
	listeners_add(&bus->listeners, fn, ud);
}

void
bus_announce(struct bus *bus, const struct message *m)
{
	listeners_tell(&bus->listeners, m);
}

/* Finds name's inbox, creating it; bus->lock must be held. */
static struct bus_inbox *
bus_inbox(struct bus *bus, const char *name)
{
	struct bus_inbox *in;
	pthread_condattr_t attr;

	for (in = bus->inboxes; in != NULL; in = in->next) {
		if (strcmp(in->name, name) == 0)
			return in;
	}
	in = xcalloc(1, sizeof *in);
	in->name = xstrdup(name);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&in->cond, &attr);
	pthread_condattr_destroy(&attr);
	in->next = bus->inboxes;
	bus->inboxes = in;
	return in;
}

void
bus_wake(struct bus *bus, const char *name)
{
	struct bus_inbox *in;

	pthread_mutex_lock(&bus->lock);
	for (in = bus->inboxes; in != NULL; in = in->next) {
		if (strcmp(in->name, name) == 0) {
			in->gen++;
			pthread_cond_broadcast(&in->cond);
			break;
		}
	}
	pthread_mutex_unlock(&bus->lock);
}

int64_t
bus_post_tx(struct store *s, const char *from, const char *to,
    enum msg_type type, const char *content, json_t *metadata,
    struct message *out, char **err)
{
	char *clean = utf8_sanitize(content ? content : "");
	/* Whoever wrote it, an inbox keeps at most MSG_MAX_CONTENT of it. */
	char *text = message_cap(clean, NULL);
	char *meta = metadata ? json_dumps(metadata, JSON_COMPACT |
	    JSON_SORT_KEYS) : xstrdup("{}");
	int64_t now = clock_wall_ms(), id = -1;
	int status = roster_status_tx(s, to);
	sqlite3_stmt *st;

	free(clean);
	if (status == -1)
		*err = xasprintf("no member named '%s'", to);
	else if (status == MEMBER_TERMINATED)
		*err = xasprintf("'%s' has terminated and reads no messages",
		    to);
	else if (meta == NULL)
		*err = xstrdup("message metadata is not valid JSON");
	else {
		st = store_stmt(s, "INSERT INTO messages (sender, recipient,"
		    " type, content, metadata, created_at)"
		    " VALUES (?, ?, ?, ?, ?, ?)");
		sqlite3_bind_text(st, 1, from, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, to, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, msg_type_name(type), -1,
		    SQLITE_STATIC);
		sqlite3_bind_text(st, 4, text, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, meta, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 6, now);
		if (store_step_done(s, st, err) == 0)
			id = sqlite3_last_insert_rowid(store_db(s));
	}
	if (id > 0 && out != NULL) {
		out->id = id;
		out->from = xstrdup(from);
		out->to = xstrdup(to);
		out->type = type;
		out->content = text;
		out->metadata = json_loads(meta, 0, NULL);
		out->created_at = now;
		text = NULL;
	}
	free(text);
	free(meta);
	return id;
}

int64_t
bus_send(struct bus *bus, const char *from, const char *to,
    enum msg_type type, const char *content, json_t *metadata, char **err)
{
	struct message m = { 0 };
	int64_t id;

	if (store_begin(bus->store, err) == -1)
		return -1;
	/* A message is new text; a notice (an agent went idle) is
	 * bookkeeping a full state still has room for. */
	id = type == MSG_MESSAGE && store_room(bus->store, STORE_MESSAGE,
	    err) == -1 ? -1 : bus_post_tx(bus->store, from, to, type, content,
	    metadata, &m, err);
	if (store_commit(bus->store, id > 0, id > 0 ? err : NULL) == -1)
		id = -1;
	if (id > 0) {
		bus_wake(bus, to);
		bus_announce(bus, &m);
	}
	store_unlock(bus->store);
	message_clear(&m);
	return id;
}

int
bus_broadcast(struct bus *bus, const char *from, const char *content,
    char **err)
{
	struct message *sent = NULL;
	size_t nsent = 0, cap = 0, i;
	char **names = NULL;
	size_t nnames = 0, capnames = 0;
	sqlite3_stmt *st;
	int rc = 0;

	if (store_begin(bus->store, err) == -1)
		return -1;
	if (store_room(bus->store, STORE_MESSAGE, err) == -1) {
		store_end(bus->store, 0, NULL);
		return -1;
	}
	st = store_stmt(bus->store, "SELECT name FROM members"
	    " WHERE status != 'terminated' AND name != ? ORDER BY created_at,"
	    " rowid");
	sqlite3_bind_text(st, 1, from, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		names = xgrow(names, &capnames, nnames + 1, sizeof *names);
		names[nnames++] = store_column_text(st, 0);
	}
	sqlite3_reset(st);
	for (i = 0; i < nnames && rc == 0; i++) {
		sent = xgrow(sent, &cap, nsent + 1, sizeof *sent);
		memset(&sent[nsent], 0, sizeof *sent);
		if (bus_post_tx(bus->store, from, names[i], MSG_BROADCAST,
		    content, NULL, &sent[nsent], err) == -1)
			rc = -1;
		else
			nsent++;
	}
	if (store_commit(bus->store, rc == 0, rc == 0 ? err : NULL) == -1)
		rc = -1;
	for (i = 0; i < nsent && rc == 0; i++) {
		bus_wake(bus, sent[i].to);
		bus_announce(bus, &sent[i]);
	}
	store_unlock(bus->store);
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	message_free_array(sent, nsent);
	return rc == 0 ? (int)nsent : -1;
}

/* Reads the messages to `name` that st selects (id, sender, type,
 * content, metadata, created_at); the store lock must be held. */
static int
bus_read_rows(struct store *s, sqlite3_stmt *st, const char *name,
    struct message **out, size_t *n, char **err)
{
	struct message *array = NULL;
	size_t count = 0, cap = 0;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct message *m;
		int type = msg_type_parse(
		    (const char *)sqlite3_column_text(st, 2));
		const char *meta = (const char *)sqlite3_column_text(st, 4);

		/* The sender is what the model is told: a row huddle did
		 * not write, with no sender of a member's form, is left
		 * alone. */
		if (!roster_name_valid((const char *)sqlite3_column_text(st,
		    1))) {
			log_printf("message %lld to %s: a row with a bad "
			    "sender is ignored",
			    (long long)sqlite3_column_int64(st, 0), name);
			continue;
		}
		array = xgrow(array, &cap, count + 1, sizeof *array);
		m = &array[count++];
		m->id = sqlite3_column_int64(st, 0);
		m->from = store_column_text(st, 1);
		m->to = xstrdup(name);
		/* Another process may write a type this build does not
		 * know; deliver it as a plain message rather than lose it. */
		m->type = type < 0 ? MSG_MESSAGE : (enum msg_type)type;
		m->content = store_column_text(st, 3);
		if (m->content == NULL)
			m->content = xstrdup("");
		m->metadata = json_loads(meta ? meta : "{}", 0, NULL);
		if (!json_is_object(m->metadata)) {
			json_decref(m->metadata);
			m->metadata = json_object();
		}
		m->created_at = sqlite3_column_int64(st, 5);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		message_free_array(array, count);
		return store_fail(s, err, "reading an inbox");
	}
	*out = array;
	*n = count;
	return 0;
}

/* Reads name's undelivered messages; the store lock must be held. */
static int
bus_read_undelivered(struct store *s, const char *name,
    struct message **out, size_t *n, char **err)
{
	sqlite3_stmt *st = store_stmt(s, "SELECT id, sender, type, content,"
	    " metadata, created_at FROM messages WHERE recipient = ?"
	    " AND delivered_at IS NULL ORDER BY id");

	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	return bus_read_rows(s, st, name, out, n, err);
}

int
bus_history(struct bus *bus, const char *name, int64_t since_ms,
    size_t last, struct message **out, size_t *n, char **err)
{
	sqlite3_stmt *st;
	int rc;

	store_lock(bus->store);
	st = store_stmt(bus->store, "SELECT * FROM (SELECT id, sender, type,"
	    " content, metadata, created_at FROM messages WHERE recipient = ?"
	    " AND created_at >= ? ORDER BY id DESC LIMIT ?) ORDER BY id");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)since_ms);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)last);
	rc = bus_read_rows(bus->store, st, name, out, n, err);
	store_unlock(bus->store);
	return rc;
}

json_t *
bus_entry(const struct message *m)
{
	char *line = message_render(m);
	json_t *entry = transcript_user_text(line);

	free(line);
	return entry;
}

int
bus_drain(struct bus *bus, const char *name, struct message **out,
    size_t *n, char **err)
{
	return bus_drain_filtered(bus, name, NULL, NULL, out, n, err);
}

int
bus_drain_filtered(struct bus *bus, const char *name, bus_feed_fn feed,
    void *ud, struct message **out, size_t *n, char **err)
{
	struct store *s = bus->store;
	struct message *array = NULL;
	size_t count = 0, i;
	int rc;

	*out = NULL;
	*n = 0;
	if (store_begin(s, err) == -1)
		return -1;
	rc = bus_read_undelivered(s, name, &array, &count, err);
	for (i = 0; i < count && rc == 0; i++) {
		sqlite3_stmt *st;

		array[i].recorded = feed == NULL || feed(ud, &array[i]);
		if (array[i].recorded) {
			json_t *entry = bus_entry(&array[i]);

			rc = transcript_append_tx(s, name, entry, array[i].id,
			    err);
			json_decref(entry);
			if (rc == -1)
				break;
		}
		st = store_stmt(s, "UPDATE messages SET delivered_at = ?"
		    " WHERE id = ?");
		sqlite3_bind_int64(st, 1, clock_wall_ms());
		sqlite3_bind_int64(st, 2, array[i].id);
		rc = store_step_done(s, st, err);
	}
	if (store_end(s, rc == 0, rc == 0 ? err : NULL) == -1) {
		message_free_array(array, count);
		return -1;
	}
	*out = array;
	*n = count;
	return 0;
}

size_t
bus_pending(struct bus *bus, const char *name)
{
	sqlite3_stmt *st;
	size_t n = 0;

	store_lock(bus->store);
	st = store_stmt(bus->store, "SELECT COUNT(*) FROM messages"
	    " WHERE recipient = ? AND delivered_at IS NULL");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (size_t)sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	store_unlock(bus->store);
	return n;
}

uint64_t
bus_generation(struct bus *bus, const char *name)
{
	uint64_t gen;

	pthread_mutex_lock(&bus->lock);
	gen = bus_inbox(bus, name)->gen;
	pthread_mutex_unlock(&bus->lock);
	return gen;
}

int
bus_wait_since(struct bus *bus, const char *name, uint64_t gen,
    int64_t deadline_ms, const atomic_int *stop)
{
	struct bus_inbox *in;
	struct timespec ts = clock_mono_timespec(deadline_ms);
	int woke;

	pthread_mutex_lock(&bus->lock);
	in = bus_inbox(bus, name);
	while (in->gen == gen && (stop == NULL || !atomic_load(stop))) {
		if (deadline_ms < 0)
			pthread_cond_wait(&in->cond, &bus->lock);
		else if (pthread_cond_timedwait(&in->cond, &bus->lock,
		    &ts) != 0 && clock_mono_ms() >= deadline_ms)
			break;
	}
	woke = in->gen != gen || (stop != NULL && atomic_load(stop));
	pthread_mutex_unlock(&bus->lock);
	return woke;
}

int
bus_wait(struct bus *bus, const char *name, int64_t deadline_ms,
    const atomic_int *stop)
{
	uint64_t gen = bus_generation(bus, name);

	if ((stop != NULL && atomic_load(stop)) || bus_pending(bus, name) > 0)
		return 1;
	return bus_wait_since(bus, name, gen, deadline_ms, stop);
}

/* PRAGMA data_version; the store lock must be held. */
static int64_t
bus_data_version(struct store *s)
{
	sqlite3_stmt *st = store_stmt(s, "PRAGMA data_version");
	int64_t v = -1;

	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return v;
}

int
bus_poll(struct bus *bus)
{
	struct bus_inbox *in;
	int64_t v;
	int changed;

	store_lock(bus->store);
	v = bus_data_version(bus->store);
	changed = v != bus->data_version;
	bus->data_version = v;
	store_unlock(bus->store);
	if (!changed)
		return 0;
	pthread_mutex_lock(&bus->lock);
	for (in = bus->inboxes; in != NULL; in = in->next) {
		in->gen++;
		pthread_cond_broadcast(&in->cond);
	}
	pthread_mutex_unlock(&bus->lock);
	return 1;
}
