/*
 * The table-driven protocol engine (see protocol.h).
 *
 * Changes are made inside one store transaction and collected in an
 * outbox: the messages to wake recipients for and the request states to
 * announce. Only after the commit succeeds is the outbox flushed, so no one
 * is ever woken for, or shown, a change that did not happen.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "core/protocol.h"
#include "core/roster.h"
#include "core/task.h"
#include "core/taskboard.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/names.h"
#include "util/xmalloc.h"

struct protocol;
struct proto_outbox;

/* What approving a request does beyond its state change; runs inside the
 * deciding transaction, so the decision and its effect commit together. */
typedef int (*proto_effect_fn)(struct protocol *p, struct proto_outbox *o,
    const struct request *r, char **err);

struct proto_kind {
	const char	*name;
	enum msg_type	 request_msg;
	enum msg_type	 response_msg;
	const char	*text_field;	/* metadata key of the response text */
	unsigned	 answerers;
	int64_t		 timeout_ms;
	proto_effect_fn	 on_approve;
};

static void proto_read_all(sqlite3_stmt *, struct request **, size_t *,
    size_t *);
static int proto_lift_plan_gate(struct protocol *, struct proto_outbox *,
    const struct request *, char **);
static int proto_retire_target(struct protocol *, struct proto_outbox *,
    const struct request *, char **);

/* Adding a protocol is adding a row here (and its two message types). */
static const struct proto_kind proto_kinds[REQ_TYPE_COUNT] = {
	[REQ_SHUTDOWN] = {
		"shutdown", MSG_SHUTDOWN_REQUEST, MSG_SHUTDOWN_RESPONSE,
		"reason", PROTO_BY_TARGET, 60 * 1000, proto_retire_target,
	},
	[REQ_PLAN_APPROVAL] = {
		"plan", MSG_PLAN_APPROVAL_REQUEST, MSG_PLAN_APPROVAL_RESPONSE,
		"feedback", PROTO_BY_TARGET | PROTO_BY_USER, 30 * 60 * 1000,
		proto_lift_plan_gate,
	},
	[REQ_PERMISSION] = {
		"permission", MSG_PERMISSION_REQUEST, MSG_PERMISSION_RESPONSE,
		"feedback", PROTO_BY_USER, 10 * 60 * 1000, NULL,
	},
};

static const char *const req_status_names[REQ_STATUS_COUNT] = {
	[REQ_PENDING] = "pending",
	[REQ_APPROVED] = "approved",
	[REQ_REJECTED] = "rejected",
	[REQ_EXPIRED] = "expired",
	[REQ_CANCELLED] = "cancelled",
};

struct protocol {
	struct bus		*bus;
	struct store		*store;
	struct proto_kind	 kinds[REQ_TYPE_COUNT];
	struct listeners	 listeners;
};

/* What a transaction will announce once it has committed. */
struct proto_outbox {
	struct request		*reqs;
	size_t			 nreqs, capreqs;
	struct bus_outbox	 mail;
};

const char *
req_type_name(enum req_type type)
{
	if ((unsigned)type >= REQ_TYPE_COUNT)
		return "unknown";
	return proto_kinds[type].name;
}

const char *
req_status_name(enum req_status status)
{
	return names_get(req_status_names, REQ_STATUS_COUNT, (int)status);
}

enum msg_type
req_type_request_msg(enum req_type type)
{
	return proto_kinds[type].request_msg;
}

enum msg_type
req_type_response_msg(enum req_type type)
{
	return proto_kinds[type].response_msg;
}

int
req_type_parse(const char *name)
{
	int i;

	for (i = 0; i < REQ_TYPE_COUNT; i++) {
		if (name != NULL && strcmp(name, proto_kinds[i].name) == 0)
			return i;
	}
	return -1;
}

int
req_status_parse(const char *name)
{
	return names_find(req_status_names, REQ_STATUS_COUNT, name);
}

static int
proto_lift_plan_gate(struct protocol *p, struct proto_outbox *o,
    const struct request *r, char **err)
{
	return roster_approve_plan_tx(p->store, r->from, err);
}

struct protocol *
protocol_new(struct bus *bus)
{
	struct protocol *p = xcalloc(1, sizeof *p);

	p->bus = bus;
	p->store = bus_store(bus);
	memcpy(p->kinds, proto_kinds, sizeof p->kinds);
	return p;
}

void
protocol_free(struct protocol *p)
{
	free(p);
}

void
protocol_listen(struct protocol *p, protocol_listener_fn fn, void *ud)
{
	listeners_add(&p->listeners, fn, ud);
}

void
protocol_set_answerers(struct protocol *p, enum req_type type,
    unsigned answerers)
{
	p->kinds[type].answerers = answerers;
}

unsigned
protocol_answerers(struct protocol *p, enum req_type type)
{
	return p->kinds[type].answerers;
}

void
protocol_set_timeout(struct protocol *p, enum req_type type,
    int64_t timeout_ms)
{
	p->kinds[type].timeout_ms = timeout_ms;
}

static void
request_clear(struct request *r)
{
	free(r->from);
	free(r->to);
	free(r->body);
	free(r->response);
	free(r->decided_by);
	memset(r, 0, sizeof *r);
}

void
request_free(struct request *r)
{
	if (r == NULL)
		return;
	request_clear(r);
	free(r);
}

void
request_free_array(struct request *array, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		request_clear(&array[i]);
	free(array);
}

static void
request_copy(struct request *dst, const struct request *src)
{
	*dst = *src;
	dst->from = xstrdup_or_null(src->from);
	dst->to = xstrdup_or_null(src->to);
	dst->body = xstrdup_or_null(src->body);
	dst->response = xstrdup_or_null(src->response);
	dst->decided_by = xstrdup_or_null(src->decided_by);
}

#define PROTO_COLUMNS "id, type, sender, target, status, body, response," \
	" decided_by, created_at, expires_at, decided_at"

/* Reads a row of PROTO_COLUMNS; returns -1 for a row this build cannot
 * understand (written by a newer huddle). */
static int
proto_read_row(sqlite3_stmt *st, struct request *r)
{
	const char *id = (const char *)sqlite3_column_text(st, 0);
	int type = req_type_parse((const char *)sqlite3_column_text(st, 1));
	int status = req_status_parse(
	    (const char *)sqlite3_column_text(st, 4));

	memset(r, 0, sizeof *r);
	if (id == NULL || strlen(id) != PROTO_ID_SIZE - 1 || type < 0 ||
	    status < 0)
		return -1;
	memcpy(r->id, id, PROTO_ID_SIZE);
	r->type = type;
	r->status = status;
	r->from = store_column_text(st, 2);
	r->to = store_column_text(st, 3);
	r->body = store_column_text(st, 5);
	r->response = store_column_text(st, 6);
	r->decided_by = store_column_text(st, 7);
	r->created_at = sqlite3_column_int64(st, 8);
	r->expires_at = sqlite3_column_int64(st, 9);
	r->decided_at = sqlite3_column_int64(st, 10);
	/* A row huddle did not write whole (the store is a file others may
	 * reach) is reported and left alone, never used. */
	if (!roster_name_valid(r->from) || !roster_name_valid(r->to) ||
	    r->body == NULL || ((r->status == REQ_APPROVED ||
	    r->status == REQ_REJECTED) && r->decided_by == NULL) ||
	    (r->decided_by != NULL && !roster_name_valid(r->decided_by))) {
		log_printf("request %s: a row with missing or bad fields is "
		    "ignored", r->id);
		request_clear(r);
		return -1;
	}
	if (r->response == NULL)
		r->response = xstrdup("");
	return 0;
}

/* Inside a transaction (or under the store lock): loads request id. */
static int
proto_load_tx(struct store *s, const char *id, struct request *r)
{
	sqlite3_stmt *st = store_stmt(s, "SELECT " PROTO_COLUMNS
	    " FROM requests WHERE id = ?");
	int rc = -1;

	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		rc = proto_read_row(st, r);
	sqlite3_reset(st);
	return rc;
}

/* Inside a transaction: a fresh "req_" + 8 hex id not yet in the store. */
static void
proto_new_id(struct store *s, char id[PROTO_ID_SIZE])
{
	struct request taken;
	uint32_t v;

	for (;;) {
		if (getrandom(&v, sizeof v, 0) != sizeof v)
			v = (uint32_t)clock_mono_us() ^ (uint32_t)rand();
		snprintf(id, PROTO_ID_SIZE, "req_%08x", v);
		if (proto_load_tx(s, id, &taken) == -1)
			return;
		request_clear(&taken);
	}
}

/* Whether a request comes from outside the team: the person, or huddle
 * itself. */
static int
proto_from_outside(const char *from)
{
	return strcmp(from, MSG_USER) == 0 || strcmp(from, MSG_SYSTEM) == 0;
}

static int
proto_is_live(struct store *s, const char *name)
{
	int status = roster_status_tx(s, name);

	return status != -1 && status != MEMBER_TERMINATED;
}

/*
 * Inside a transaction: posts a message to `to` through the outbox. A
 * notice to the person, or to a member who is gone, is skipped: there is
 * no inbox to read it, and the state change itself is announced anyway.
 */
static int
proto_post_tx(struct protocol *p, struct proto_outbox *o, const char *from,
    const char *to, enum msg_type type, const char *content, json_t *meta,
    char **err)
{
	if (!proto_is_live(p->store, to))
		return 0;
	return bus_outbox_post_tx(&o->mail, p->store, from, to, type, content,
	    meta, err);
}

static void
proto_outbox_add(struct proto_outbox *o, const struct request *r)
{
	o->reqs = xgrow(o->reqs, &o->capreqs, o->nreqs + 1, sizeof *o->reqs);
	request_copy(&o->reqs[o->nreqs++], r);
}

/* Wakes and announces what a committed transaction did; frees it all. */
static void
proto_outbox_flush(struct protocol *p, struct proto_outbox *o,
    int committed)
{
	size_t i;

	bus_outbox_flush(p->bus, &o->mail, committed);
	for (i = 0; committed && i < o->nreqs; i++) {
		/* The person has no inbox to be told in: whoever waits
		 * for a request of theirs waits on its name. */
		if (strcmp(o->reqs[i].from, MSG_USER) == 0)
			bus_wake(p->bus, MSG_USER);
		listeners_tell(&p->listeners, &o->reqs[i]);
	}
	request_free_array(o->reqs, o->nreqs);
	memset(o, 0, sizeof *o);
}

int
protocol_request(struct protocol *p, enum req_type type, const char *from,
    const char *to, const char *body, char id_out[PROTO_ID_SIZE],
    char **err)
{
	const struct proto_kind *k = &p->kinds[type];
	struct proto_outbox o = { 0 };
	struct request r = { 0 };
	sqlite3_stmt *st;
	json_t *meta;
	int rc = -1;

	if (store_begin(p->store, err) == -1)
		return -1;
	/* A shutdown may come from the person (or from huddle, for the
	 * quit), and so may a permission: a command that a model wrote but
	 * the person's own /task done runs, or (from huddle) a project's
	 * MCP server offered to the person; a plan belongs to a member,
	 * whose gate approval acts on. */
	if (proto_from_outside(from) ? !(type == REQ_SHUTDOWN ||
	    type == REQ_PERMISSION) : !proto_is_live(p->store, from)) {
		*err = xasprintf("'%s' cannot ask for %s: not a live member of "
		    "the team", from, k->name);
		goto done;
	}
	/* A plan or a command is new text; a shutdown is bookkeeping that
	 * a full state still has room for (the quit's own). */
	if (type != REQ_SHUTDOWN && store_room(p->store, STORE_MESSAGE, err) ==
	    -1)
		goto done;
	proto_new_id(p->store, r.id);
	r.type = type;
	r.status = REQ_PENDING;
	r.from = (char *)from;
	r.to = (char *)to;
	r.body = (char *)(body ? body : "");
	r.created_at = clock_wall_ms();
	r.expires_at = k->timeout_ms > 0 ? r.created_at + k->timeout_ms : 0;

	st = store_stmt(p->store, "INSERT INTO requests (id, type, sender,"
	    " target, status, body, created_at, expires_at)"
	    " VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)");
	sqlite3_bind_text(st, 1, r.id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, k->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, from, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, to, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, r.body, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, r.created_at);
	if (r.expires_at > 0)
		sqlite3_bind_int64(st, 7, r.expires_at);
	if (store_step_done(p->store, st, err) == -1)
		goto done;

	/* The target must get the request: unlike a notice, a request to a
	 * member who is gone is an error for the one asking. */
	meta = json_pack("{s:s}", "request_id", r.id);
	rc = bus_outbox_post_tx(&o.mail, p->store, from, to, k->request_msg,
	    r.body, meta, err);
	json_decref(meta);
	if (rc == 0)
		proto_outbox_add(&o, &r);
done:
	if (store_commit(p->store, rc == 0, rc == 0 ? err : NULL) == -1)
		rc = -1;
	proto_outbox_flush(p, &o, rc == 0);
	store_unlock(p->store);
	if (rc == 0) {
		memcpy(id_out, r.id, PROTO_ID_SIZE);
		log_printf("request %s: %s %s -> %s", r.id, k->name, from, to);
	}
	return rc;
}

/*
 * Inside a transaction: moves pending request r to `status`, recording who
 * decided and why, and posts the outcome to the requester. The UPDATE only
 * matches a pending row, so the first decision wins even against a
 * concurrent one.
 */
static int
proto_decide_tx(struct protocol *p, struct proto_outbox *o,
    struct request *r, enum req_status status, const char *by,
    const char *text, char **err)
{
	const struct proto_kind *k = &p->kinds[r->type];
	sqlite3_stmt *st;
	json_t *meta;
	int rc;

	st = store_stmt(p->store, "UPDATE requests SET status = ?,"
	    " response = ?, decided_by = ?, decided_at = ?"
	    " WHERE id = ? AND status = 'pending'");
	sqlite3_bind_text(st, 1, req_status_name(status), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, text ? text : "", -1, SQLITE_STATIC);
	if (by != NULL)
		sqlite3_bind_text(st, 3, by, -1, SQLITE_STATIC);
	r->decided_at = clock_wall_ms();
	sqlite3_bind_int64(st, 4, r->decided_at);
	sqlite3_bind_text(st, 5, r->id, -1, SQLITE_STATIC);
	if (store_step_done(p->store, st, err) == -1)
		return -1;
	if (sqlite3_changes(store_db(p->store)) != 1) {
		*err = xasprintf("%s is no longer pending", r->id);
		return -1;
	}
	r->status = status;
	free(r->response);
	r->response = xstrdup(text ? text : "");
	free(r->decided_by);
	r->decided_by = xstrdup_or_null(by);

	meta = json_pack("{s:s, s:b, s:s}", "request_id", r->id, "approve",
	    status == REQ_APPROVED, k->text_field, r->response);
	if (status == REQ_EXPIRED || status == REQ_CANCELLED)
		json_object_set_new(meta, "status",
		    json_string(req_status_name(status)));
	rc = proto_post_tx(p, o, by ? by : MSG_SYSTEM, r->from,
	    k->response_msg, r->response, meta, err);
	json_decref(meta);
	if (rc == 0)
		proto_outbox_add(o, r);
	/* The effect comes after the answer, so the requester hears the
	 * decision before its consequences. */
	if (rc == 0 && status == REQ_APPROVED && k->on_approve != NULL)
		rc = k->on_approve(p, o, r, err);
	return rc;
}

/* Checks a response against request r; fills *msg when it does not fit. */
static enum proto_verdict
proto_judge(const struct protocol *p, const struct request *r,
    enum msg_type response_type, const char *from, char **msg)
{
	const struct proto_kind *k = &p->kinds[r->type];
	unsigned may = k->answerers;

	if (response_type != k->response_msg) {
		*msg = xasprintf("%s is a %s request: answer it with %s, not "
		    "%s", r->id, k->name, msg_type_name(k->response_msg),
		    msg_type_name(response_type));
		return PROTO_WRONG_TYPE;
	}
	if (!((may & PROTO_BY_TARGET && strcmp(from, r->to) == 0) ||
	    (may & PROTO_BY_USER && strcmp(from, MSG_USER) == 0))) {
		*msg = xasprintf("%s may not answer %s: %s requests are "
		    "answered by %s", from, r->id, k->name,
		    may == PROTO_BY_USER ? "the person at the keyboard" :
		    may == PROTO_BY_TARGET ? r->to :
		    "the lead or the person at the keyboard");
		return PROTO_WRONG_SENDER;
	}
	if (r->status != REQ_PENDING) {
		*msg = xasprintf("%s was already %s%s%s; this answer changes "
		    "nothing", r->id, req_status_name(r->status),
		    r->decided_by ? " by " : "",
		    r->decided_by ? r->decided_by : "");
		return PROTO_ALREADY_DECIDED;
	}
	return PROTO_DECIDED;
}

enum proto_verdict
protocol_respond(struct protocol *p, const char *id,
    enum msg_type response_type, const char *from, int approve,
    const char *text, char **msg)
{
	struct proto_outbox o = { 0 };
	struct request r;
	enum proto_verdict v;
	char *why = NULL;
	int ok;

	if (store_begin(p->store, &why) == -1) {
		v = PROTO_FAILED;
		goto done;
	}
	if (id == NULL || proto_load_tx(p->store, id, &r) == -1) {
		why = xasprintf("no request has the id '%s'", id ? id : "");
		store_end(p->store, 0, NULL);
		v = PROTO_UNKNOWN;
		goto done;
	}
	v = proto_judge(p, &r, response_type, from, &why);
	ok = v == PROTO_DECIDED && proto_decide_tx(p, &o, &r, approve ?
	    REQ_APPROVED : REQ_REJECTED, from, text, &why) == 0;
	if (store_commit(p->store, ok, ok ? &why : NULL) == -1 &&
	    v == PROTO_DECIDED)
		v = PROTO_FAILED;
	proto_outbox_flush(p, &o, v == PROTO_DECIDED);
	store_unlock(p->store);
	if (v == PROTO_DECIDED)
		why = xasprintf("%s %s", r.id, req_status_name(r.status));
	request_clear(&r);
done:
	if (v != PROTO_DECIDED)
		log_printf("response to %s from %s ignored: %s", id ? id : "?",
		    from, why ? why : "?");
	if (msg != NULL)
		*msg = why ? why : xstrdup("the store failed");
	else
		free(why);
	return v;
}

/*
 * Inside a transaction: loads the pending requests selected by st (which
 * returns PROTO_COLUMNS), then moves each to `status`.
 */
static int
proto_close_all_tx(struct protocol *p, struct proto_outbox *o,
    sqlite3_stmt *st, enum req_status status, const char *text,
    char **err)
{
	struct request *list = NULL;
	size_t n = 0, cap = 0, i;
	int rc = 0;

	proto_read_all(st, &list, &n, &cap);
	for (i = 0; i < n && rc == 0; i++)
		rc = proto_decide_tx(p, o, &list[i], status, NULL, text, err);
	request_free_array(list, n);
	return rc < 0 ? -1 : (int)n;
}

int
protocol_tick(struct protocol *p, int64_t now_ms)
{
	struct proto_outbox o = { 0 };
	sqlite3_stmt *st;
	char *err = NULL;
	int n;

	if (store_begin(p->store, &err) == -1) {
		log_printf("expiring requests: %s", err);
		free(err);
		return 0;
	}
	st = store_stmt(p->store, "SELECT " PROTO_COLUMNS " FROM requests"
	    " WHERE status = 'pending' AND expires_at IS NOT NULL"
	    " AND expires_at <= ? ORDER BY created_at");
	sqlite3_bind_int64(st, 1, now_ms);
	n = proto_close_all_tx(p, &o, st, REQ_EXPIRED,
	    "no answer before the deadline", &err);
	if (store_commit(p->store, n > 0, n > 0 ? &err : NULL) == -1 && n > 0)
		n = -1;
	proto_outbox_flush(p, &o, n > 0);
	store_unlock(p->store);
	if (n < 0) {
		log_printf("expiring requests: %s", err ? err : "?");
		n = 0;
	}
	free(err);
	return n;
}

int
protocol_cancel(struct protocol *p, const char *id, const char *why,
    char **err)
{
	struct proto_outbox o = { 0 };
	struct request r;
	int rc = -1;

	if (store_begin(p->store, err) == -1)
		return -1;
	if (proto_load_tx(p->store, id, &r) == -1)
		*err = xasprintf("no request has the id '%s'", id);
	else {
		if (r.status != REQ_PENDING)
			*err = xasprintf("%s is already %s", id,
			    req_status_name(r.status));
		else
			rc = proto_decide_tx(p, &o, &r, REQ_CANCELLED, NULL,
			    why, err);
		request_clear(&r);
	}
	rc = store_commit(p->store, rc == 0, rc == 0 ? err : NULL);
	proto_outbox_flush(p, &o, rc == 0);
	store_unlock(p->store);
	return rc;
}

/*
 * Inside a transaction: marks `name` terminated, cancels every pending
 * request it sent or had to answer, and tells the lead.
 */
static int
proto_terminate_tx(struct protocol *p, struct proto_outbox *o,
    const char *name, const char *why, char **err)
{
	sqlite3_stmt *st;
	char *text = xasprintf("%s has terminated", name);
	int rc;

	rc = roster_set_status_tx(p->store, name, MEMBER_TERMINATED, err);
	if (rc == 0) {
		st = store_stmt(p->store, "SELECT " PROTO_COLUMNS
		    " FROM requests WHERE status = 'pending'"
		    " AND (sender = ?1 OR target = ?1) ORDER BY created_at");
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		rc = proto_close_all_tx(p, o, st, REQ_CANCELLED, text, err);
	}
	if (rc >= 0 && strcmp(name, ROSTER_LEAD) != 0) {
		/* Its tasks stay in progress, its own; the lead learns
		 * which, to give them to someone else. */
		char *left = taskboard_left_text_tx(p->store, name);
		char *notice = xasprintf("%s%s%s", why && *why ? why : text,
		    left ? ". " : "", left ? left : "");

		rc = proto_post_tx(p, o, name, ROSTER_LEAD,
		    MSG_TEAMMATE_TERMINATED, notice, NULL, err);
		free(notice);
		free(left);
	}
	free(text);
	return rc < 0 ? -1 : 0;
}

/*
 * An approved shutdown ends the teammate in the same transaction: a crash
 * right after the answer cannot bring it back on --resume. Its thread
 * only finishes the tool round in hand.
 */
static int
proto_retire_target(struct protocol *p, struct proto_outbox *o,
    const struct request *r, char **err)
{
	/* The quit's request (from huddle) only stops the thread: the
	 * teammate stays a member, and --resume brings it back. */
	if (strcmp(r->from, MSG_SYSTEM) == 0)
		return 0;

	char *why = xasprintf("%s has terminated: approved shutdown %s%s%s",
	    r->to, r->id, r->response && *r->response ? ": " : "",
	    r->response ? r->response : "");
	int rc = proto_terminate_tx(p, o, r->to, why, err);

	free(why);
	return rc;
}

int
protocol_terminate(struct protocol *p, const char *name, const char *why,
    char **err)
{
	struct proto_outbox o = { 0 };
	int rc;

	if (store_begin(p->store, err) == -1)
		return -1;
	rc = proto_terminate_tx(p, &o, name, why, err);
	rc = store_commit(p->store, rc == 0, rc == 0 ? err : NULL);
	proto_outbox_flush(p, &o, rc == 0);
	store_unlock(p->store);
	return rc;
}

int
protocol_cancel_from(struct protocol *p, const char *name,
    enum req_type type, const char *why, char **err)
{
	struct proto_outbox o = { 0 };
	sqlite3_stmt *st;
	int n;

	if (store_begin(p->store, err) == -1)
		return -1;
	st = store_stmt(p->store, "SELECT " PROTO_COLUMNS " FROM requests"
	    " WHERE status = 'pending' AND sender = ? AND type = ?"
	    " ORDER BY created_at");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, p->kinds[type].name, -1, SQLITE_STATIC);
	n = proto_close_all_tx(p, &o, st, REQ_CANCELLED, why, err);
	if (store_commit(p->store, n >= 0, n >= 0 ? err : NULL) == -1)
		n = -1;
	proto_outbox_flush(p, &o, n >= 0);
	store_unlock(p->store);
	return n;
}

struct request *
protocol_get(struct protocol *p, const char *id)
{
	struct request *r = xcalloc(1, sizeof *r);

	store_lock(p->store);
	if (proto_load_tx(p->store, id, r) == -1) {
		request_clear(r);
		free(r);
		r = NULL;
	}
	store_unlock(p->store);
	return r;
}

/* Appends the rows of st (PROTO_COLUMNS) to *array. */
static void
proto_read_all(sqlite3_stmt *st, struct request **array, size_t *n,
    size_t *cap)
{
	while (sqlite3_step(st) == SQLITE_ROW) {
		*array = xgrow(*array, cap, *n + 1, sizeof **array);
		if (proto_read_row(st, &(*array)[*n]) == 0)
			(*n)++;
	}
	sqlite3_reset(st);
}

size_t
protocol_list(struct protocol *p, size_t decided, struct request **out)
{
	struct request *array = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *st;

	store_lock(p->store);
	st = store_stmt(p->store, "SELECT " PROTO_COLUMNS " FROM requests"
	    " WHERE status = 'pending' ORDER BY created_at, rowid");
	proto_read_all(st, &array, &n, &cap);
	st = store_stmt(p->store, "SELECT " PROTO_COLUMNS " FROM requests"
	    " WHERE status != 'pending' ORDER BY decided_at DESC, rowid DESC"
	    " LIMIT ?");
	sqlite3_bind_int64(st, 1, (sqlite3_int64)decided);
	proto_read_all(st, &array, &n, &cap);
	store_unlock(p->store);
	*out = array;
	return n;
}
