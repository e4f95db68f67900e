/*
 * The event queue between agent threads and the main thread, and the
 * events' schema, constructors and accessors (see event.h). The wake pipe
 * carries at most one byte per batch: a push that finds the queue empty
 * writes it, evq_take drains it.
 */
#include "config.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/event.h"
#include "core/message.h"
#include "core/permbody.h"
#include "core/protocol.h"
#include "core/task.h"
#include "util/clock.h"
#include "util/names.h"
#include "util/xmalloc.h"

static const char *const event_type_names[EV_TYPE_COUNT] = {
	[EV_TEXT] = "text",
	[EV_THINKING] = "thinking",
	[EV_LLM_CALL] = "llm_call",
	[EV_TOOL_CALL] = "tool_call",
	[EV_TOOL_RESULT] = "tool_result",
	[EV_STATUS] = "status",
	[EV_MESSAGE] = "message",
	[EV_REQUEST] = "request",
	[EV_ERROR] = "error",
	[EV_RETRY] = "retry",
	[EV_USAGE] = "usage",
	[EV_SPAWNED] = "spawned",
	[EV_NOTICE] = "notice",
	[EV_BUDGET] = "budget",
	[EV_CONTEXT] = "context",
	[EV_TASK] = "task",
	[EV_COMPACTION] = "compaction",
};

const char *
event_type_name(enum event_type type)
{
	return names_get(event_type_names, EV_TYPE_COUNT, (int)type);
}

#define REQ	0
#define OPT	1

/* The schema: what each kind's data holds, in the order it is written. */
static const struct event_field event_fields[] = {
	{ EV_TEXT, "text", EVF_STRING, REQ },
	{ EV_THINKING, "text", EVF_STRING, OPT },
	{ EV_THINKING, "redacted", EVF_BOOLEAN, OPT },
	{ EV_LLM_CALL, "round", EVF_INTEGER, REQ },
	{ EV_TOOL_CALL, "tool", EVF_STRING, REQ },
	{ EV_TOOL_CALL, "id", EVF_STRING, REQ },
	{ EV_TOOL_CALL, "input", EVF_ANY, REQ },
	{ EV_TOOL_RESULT, "tool", EVF_STRING, REQ },
	{ EV_TOOL_RESULT, "id", EVF_STRING, REQ },
	{ EV_TOOL_RESULT, "is_error", EVF_BOOLEAN, REQ },
	{ EV_TOOL_RESULT, "output", EVF_STRING, REQ },
	{ EV_TOOL_RESULT, "whole", EVF_STRING, OPT },
	{ EV_STATUS, "status", EVF_STRING, REQ },
	{ EV_STATUS, "detail", EVF_STRING, OPT },
	{ EV_MESSAGE, "id", EVF_INTEGER, REQ },
	{ EV_MESSAGE, "from", EVF_STRING, REQ },
	{ EV_MESSAGE, "to", EVF_STRING, REQ },
	{ EV_MESSAGE, "type", EVF_STRING, REQ },
	{ EV_MESSAGE, "content", EVF_STRING, REQ },
	{ EV_MESSAGE, "metadata", EVF_OBJECT, REQ },
	{ EV_MESSAGE, "created_at", EVF_INTEGER, REQ },
	{ EV_REQUEST, "id", EVF_STRING, REQ },
	{ EV_REQUEST, "type", EVF_STRING, REQ },
	{ EV_REQUEST, "from", EVF_STRING, REQ },
	{ EV_REQUEST, "to", EVF_STRING, REQ },
	{ EV_REQUEST, "status", EVF_STRING, REQ },
	{ EV_REQUEST, "body", EVF_STRING, REQ },
	{ EV_REQUEST, "response", EVF_STRING, REQ },
	{ EV_REQUEST, "decided_by", EVF_STRING_NULL, REQ },
	{ EV_REQUEST, "created_at", EVF_INTEGER, REQ },
	{ EV_REQUEST, "expires_at", EVF_INTEGER, REQ },
	{ EV_REQUEST, "decided_at", EVF_INTEGER, REQ },
	{ EV_REQUEST, "permission", EVF_OBJECT, OPT },
	{ EV_ERROR, "message", EVF_STRING, REQ },
	{ EV_RETRY, "message", EVF_STRING, REQ },
	{ EV_RETRY, "attempt", EVF_INTEGER, REQ },
	{ EV_RETRY, "delay_ms", EVF_INTEGER, REQ },
	{ EV_RETRY, "discarded", EVF_BOOLEAN, OPT },
	{ EV_USAGE, "input_tokens", EVF_INTEGER, REQ },
	{ EV_USAGE, "output_tokens", EVF_INTEGER, REQ },
	{ EV_USAGE, "cache_write_tokens", EVF_INTEGER, REQ },
	{ EV_USAGE, "cache_read_tokens", EVF_INTEGER, REQ },
	{ EV_USAGE, "cost_usd", EVF_NUMBER, REQ },
	{ EV_USAGE, "model", EVF_STRING, REQ },
	{ EV_USAGE, "team_cost_usd", EVF_NUMBER, REQ },
	{ EV_SPAWNED, "role", EVF_STRING, REQ },
	{ EV_SPAWNED, "plan_required", EVF_BOOLEAN, REQ },
	{ EV_SPAWNED, "model", EVF_STRING, REQ },
	{ EV_SPAWNED, "autonomous", EVF_BOOLEAN, REQ },
	{ EV_SPAWNED, "worktree_base", EVF_STRING_NULL, OPT },
	{ EV_SPAWNED, "resumed", EVF_BOOLEAN, OPT },
	{ EV_NOTICE, "message", EVF_STRING, REQ },
	{ EV_NOTICE, "quiet", EVF_BOOLEAN, OPT },
	{ EV_NOTICE, "asked", EVF_INTEGER, OPT },
	{ EV_BUDGET, "team_cost_usd", EVF_NUMBER, REQ },
	{ EV_BUDGET, "max_cost_usd", EVF_NUMBER, REQ },
	{ EV_CONTEXT, "context_tokens", EVF_INTEGER, REQ },
	{ EV_CONTEXT, "context_window", EVF_INTEGER, REQ },
	{ EV_TASK, "id", EVF_STRING, REQ },
	{ EV_TASK, "subject", EVF_STRING, REQ },
	{ EV_TASK, "description", EVF_STRING, REQ },
	{ EV_TASK, "status", EVF_STRING, REQ },
	{ EV_TASK, "owner", EVF_STRING_NULL, REQ },
	{ EV_TASK, "owner_gone", EVF_BOOLEAN, REQ },
	{ EV_TASK, "blocked_by", EVF_ARRAY, REQ },
	{ EV_TASK, "blocked", EVF_BOOLEAN, REQ },
	{ EV_TASK, "created_by", EVF_STRING, REQ },
	{ EV_TASK, "result", EVF_STRING, REQ },
	{ EV_TASK, "verify", EVF_STRING_NULL, REQ },
	{ EV_TASK, "checked", EVF_STRING, REQ },
	{ EV_TASK, "created_at", EVF_INTEGER, REQ },
	{ EV_TASK, "updated_at", EVF_INTEGER, REQ },
	{ EV_TASK, "check_output", EVF_STRING, OPT },
	{ EV_TASK, "worktree", EVF_STRING, OPT },
	{ EV_TASK, "worktree_busy", EVF_BOOLEAN, OPT },
	{ EV_COMPACTION, "kind", EVF_STRING, REQ },
	{ EV_COMPACTION, "before", EVF_INTEGER, REQ },
	{ EV_COMPACTION, "after", EVF_INTEGER, REQ },
	{ EV_COMPACTION, "context_window", EVF_INTEGER, REQ },
};

static const char *const event_ftype_names[] = {
	[EVF_STRING] = "string",
	[EVF_STRING_NULL] = "string or null",
	[EVF_INTEGER] = "integer",
	[EVF_NUMBER] = "number",
	[EVF_BOOLEAN] = "boolean",
	[EVF_OBJECT] = "object",
	[EVF_ARRAY] = "array",
	[EVF_ANY] = "any",
};

const struct event_field *
event_schema(size_t *n)
{
	*n = sizeof event_fields / sizeof *event_fields;
	return event_fields;
}

const char *
event_ftype_name(enum event_ftype type)
{
	return names_get(event_ftype_names, sizeof event_ftype_names /
	    sizeof *event_ftype_names, (int)type);
}

/* Whether v is of type t. */
static int
event_ftype_is(enum event_ftype t, const json_t *v)
{
	switch (t) {
	case EVF_STRING:
		return json_is_string(v);
	case EVF_STRING_NULL:
		return json_is_string(v) || json_is_null(v);
	case EVF_INTEGER:
		return json_is_integer(v);
	case EVF_NUMBER:
		return json_is_number(v);
	case EVF_BOOLEAN:
		return json_is_boolean(v);
	case EVF_OBJECT:
		return json_is_object(v);
	case EVF_ARRAY:
		return json_is_array(v);
	case EVF_ANY:
		return v != NULL;
	}
	return 0;
}

int
event_check(enum event_type type, const json_t *data, char **err)
{
	size_t i, known = 0, n = sizeof event_fields / sizeof *event_fields;
	const struct event_field *f;
	const json_t *v;

	if (!json_is_object(data)) {
		*err = xasprintf("%s: its data is not an object",
		    event_type_name(type));
		return -1;
	}
	for (i = 0; i < n; i++) {
		f = &event_fields[i];
		if (f->kind != type)
			continue;
		if ((v = json_object_get(data, f->name)) == NULL) {
			if (f->optional)
				continue;
			*err = xasprintf("%s: no %s", event_type_name(type),
			    f->name);
			return -1;
		}
		known++;
		if (!event_ftype_is(f->type, v)) {
			*err = xasprintf("%s: %s is not of type %s",
			    event_type_name(type), f->name,
			    event_ftype_name(f->type));
			return -1;
		}
	}
	if (json_object_size(data) != known) {
		*err = xasprintf("%s: a field the schema does not name",
		    event_type_name(type));
		return -1;
	}
	return 0;
}

void
evq_init(struct evq *q)
{
	memset(q, 0, sizeof *q);
	pthread_mutex_init(&q->lock, NULL);
	if (pipe2(q->wake, O_NONBLOCK | O_CLOEXEC) == -1) {
		perror("huddle: pipe2");
		abort();
	}
}

void
evq_destroy(struct evq *q)
{
	event_free_list(q->head);
	close(q->wake[0]);
	close(q->wake[1]);
	pthread_mutex_destroy(&q->lock);
}

/* Appends e; the lock must be held. Returns 1 when the queue was empty. */
static int
evq_append(struct evq *q, struct event *e)
{
	int was_empty = q->head == NULL;

	if (was_empty)
		q->head = e;
	else
		q->tail->next = e;
	q->tail = e;
	return was_empty;
}

static void
evq_wake(struct evq *q)
{
	char b = 1;

	/* EAGAIN means a byte is already there: the reader will come. */
	if (write(q->wake[1], &b, 1) == -1) {
	}
}

/* Queues an event (data is stolen; NULL, which a failed json_pack
 * gives, means {}), waking the reader. */
static void
evq_push(struct evq *q, enum event_type type, const char *agent,
    json_t *data)
{
	struct event *e = xcalloc(1, sizeof *e);
	int wake;

	e->type = type;
	e->agent = xstrdup_or_null(agent);
	e->data = data ? data : json_object();
	e->at_us = clock_mono_us();
	pthread_mutex_lock(&q->lock);
	wake = evq_append(q, e);
	pthread_mutex_unlock(&q->lock);
	if (wake)
		evq_wake(q);
}

/* Joins text to the last event when that is of the same type from the
 * same agent and not taken yet; else queues it. */
static void
evq_push_text(struct evq *q, enum event_type type, const char *agent,
    const char *text, size_t len)
{
	struct event *t;
	char *joined;

	if (text == NULL)
		text = "", len = 0;
	pthread_mutex_lock(&q->lock);
	t = q->tail;
	if (t != NULL && t->type == type && t->agent != NULL &&
	    agent != NULL && strcmp(t->agent, agent) == 0) {
		const char *old = json_string_value(json_object_get(t->data,
		    "text"));

		joined = xasprintf("%s%.*s", old ? old : "", (int)len, text);
		json_object_set_new(t->data, "text", json_string(joined));
		free(joined);
		pthread_mutex_unlock(&q->lock);
		return;
	}
	pthread_mutex_unlock(&q->lock);
	evq_push(q, type, agent, json_pack("{s:s%}", "text", text, len));
}

/* --- the constructors ----------------------------------------------------- */

/* s, or "" for NULL. */
static const char *
str(const char *s)
{
	return s ? s : "";
}

/* The {message} of a notice or an error, formatted. */
static json_t *
event_vmessage(const char *fmt, va_list ap)
{
	char *msg;
	json_t *o;

	if (vasprintf(&msg, fmt, ap) < 0)
		abort();
	o = json_pack("{s:s}", "message", msg);
	free(msg);
	return o;
}

void
event_text(struct evq *q, const char *agent, const char *text, size_t len)
{
	evq_push_text(q, EV_TEXT, agent, text, len);
}

void
event_thinking(struct evq *q, const char *agent, const char *text,
    size_t len)
{
	evq_push_text(q, EV_THINKING, agent, text, len);
}

void
event_thinking_redacted(struct evq *q, const char *agent)
{
	evq_push(q, EV_THINKING, agent, json_pack("{s:b}", "redacted", 1));
}

void
event_llm_call(struct evq *q, const char *agent, int round)
{
	evq_push(q, EV_LLM_CALL, agent, json_pack("{s:i}", "round", round));
}

void
event_tool_call(struct evq *q, const char *agent, const char *tool,
    const char *id, const json_t *input)
{
	evq_push(q, EV_TOOL_CALL, agent, json_pack("{s:s, s:s, s:o}", "tool",
	    str(tool), "id", str(id), "input", input ? json_deep_copy(input) :
	    json_null()));
}

void
event_tool_result(struct evq *q, const char *agent, const char *tool,
    const char *id, int is_error, const char *output, const char *whole)
{
	json_t *d = json_pack("{s:s, s:s, s:b, s:s}", "tool", str(tool), "id",
	    str(id), "is_error", is_error, "output", str(output));

	if (whole != NULL)
		json_object_set_new(d, "whole", json_string(whole));
	evq_push(q, EV_TOOL_RESULT, agent, d);
}

void
event_status(struct evq *q, const char *agent, enum member_status status,
    const char *detail)
{
	json_t *data = json_pack("{s:s}", "status",
	    member_status_name(status));

	if (detail != NULL)
		json_object_set_new(data, "detail", json_string(detail));
	evq_push(q, EV_STATUS, agent, data);
}

void
event_message(struct evq *q, const struct message *m)
{
	evq_push(q, EV_MESSAGE, m->to, event_message_json(m));
}

void
event_request(struct evq *q, const struct request *r)
{
	evq_push(q, EV_REQUEST, r->to, event_request_json(r));
}

void
event_task(struct evq *q, const struct task *k)
{
	evq_push(q, EV_TASK, k->owner, event_task_json(k));
}

void
event_error(struct evq *q, const char *agent, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	evq_push(q, EV_ERROR, agent, event_vmessage(fmt, ap));
	va_end(ap);
}

void
event_retry(struct evq *q, const char *agent, const char *message,
    int attempt, int64_t delay_ms, int discarded)
{
	json_t *d = json_pack("{s:s, s:i, s:I}", "message", str(message),
	    "attempt", attempt, "delay_ms", (json_int_t)delay_ms);

	if (discarded)
		json_object_set_new(d, "discarded", json_true());
	evq_push(q, EV_RETRY, agent, d);
}

void
event_usage(struct evq *q, const char *agent, const struct member *m,
    const char *model, double team_cost)
{
	evq_push(q, EV_USAGE, agent, json_pack("{s:I, s:I, s:I, s:I, s:f, "
	    "s:s, s:f}", "input_tokens", (json_int_t)m->tokens_in,
	    "output_tokens", (json_int_t)m->tokens_out, "cache_write_tokens",
	    (json_int_t)m->cache_write, "cache_read_tokens",
	    (json_int_t)m->cache_read, "cost_usd", m->cost, "model",
	    str(model), "team_cost_usd", team_cost));
}

void
event_spawned(struct evq *q, const char *agent, const char *role,
    int plan_required, const char *model, int autonomous,
    const char *worktree_base)
{
	evq_push(q, EV_SPAWNED, agent, json_pack("{s:s, s:b, s:s, s:b, s:s?}",
	    "role", str(role), "plan_required", plan_required, "model",
	    str(model), "autonomous", autonomous, "worktree_base",
	    worktree_base));
}

void
event_relaunched(struct evq *q, const char *agent, const char *role,
    int plan_required, const char *model, int autonomous, int resumed)
{
	evq_push(q, EV_SPAWNED, agent, json_pack("{s:s, s:b, s:s, s:b, s:b}",
	    "role", str(role), "plan_required", plan_required, "model",
	    str(model), "autonomous", autonomous, "resumed", resumed));
}

void
event_notice(struct evq *q, const char *agent, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	evq_push(q, EV_NOTICE, agent, event_vmessage(fmt, ap));
	va_end(ap);
}

void
event_notice_quiet(struct evq *q, const char *agent, const char *message)
{
	evq_push(q, EV_NOTICE, agent, json_pack("{s:s, s:b}", "message",
	    str(message), "quiet", 1));
}

void
event_notice_asked(struct evq *q, const char *message, int asked)
{
	evq_push(q, EV_NOTICE, NULL, json_pack("{s:s, s:i}", "message",
	    str(message), "asked", asked));
}

void
evq_notice(void *q, const char *message)
{
	evq_push(q, EV_NOTICE, NULL, json_pack("{s:s}", "message",
	    str(message)));
}

void
event_budget(struct evq *q, const char *agent, double team_cost,
    double max_cost)
{
	evq_push(q, EV_BUDGET, agent, json_pack("{s:f, s:f}", "team_cost_usd",
	    team_cost, "max_cost_usd", max_cost));
}

void
event_context(struct evq *q, const char *agent, int64_t tokens,
    int64_t window)
{
	evq_push(q, EV_CONTEXT, agent, json_pack("{s:I, s:I}",
	    "context_tokens", (json_int_t)tokens, "context_window",
	    (json_int_t)window));
}

void
event_compaction(struct evq *q, const char *agent, const char *kind,
    int64_t before, int64_t after, int64_t window)
{
	evq_push(q, EV_COMPACTION, agent, json_pack("{s:s, s:I, s:I, s:I}",
	    "kind", str(kind), "before", (json_int_t)before, "after",
	    (json_int_t)after, "context_window", (json_int_t)window));
}

/* --- the data of messages, requests and tasks -------------------------- */

json_t *
event_message_json(const struct message *m)
{
	/* A copy: the sender frees its message on its own thread. */
	return json_pack("{s:I, s:s, s:s, s:s, s:s, s:o, s:I}", "id",
	    (json_int_t)m->id, "from", str(m->from), "to", str(m->to), "type",
	    msg_type_name(m->type), "content", str(m->content), "metadata",
	    m->metadata ? json_deep_copy(m->metadata) : json_object(),
	    "created_at", (json_int_t)m->created_at);
}

json_t *
event_request_json(const struct request *r)
{
	json_t *o = json_pack("{s:s, s:s, s:s, "
	    "s:s, s:s, s:s, s:s, s:s?, s:I, s:I, s:I}", "id", r->id, "type",
	    req_type_name(r->type), "from", str(r->from), "to", str(r->to),
	    "status", req_status_name(r->status), "body", str(r->body),
	    "response", str(r->response), "decided_by", r->decided_by,
	    "created_at", (json_int_t)r->created_at, "expires_at",
	    (json_int_t)r->expires_at, "decided_at",
	    (json_int_t)r->decided_at);

	event_request_fields(o, r);
	return o;
}

void
event_request_fields(json_t *o, const struct request *r)
{
	json_t *fields;

	if (o != NULL && r->type == REQ_PERMISSION &&
	    (fields = permbody_json(r->body)) != NULL)
		json_object_set_new(o, "permission", fields);
}

json_t *
event_task_json(const struct task *k)
{
	json_t *after = json_array(), *o;
	size_t i;
	char id[TASK_ID_SIZE];

	for (i = 0; i < k->nblocked_by; i++) {
		snprintf(id, sizeof id, "t%" PRId64, k->blocked_by[i]);
		json_array_append_new(after, json_string(id));
	}
	o = json_pack("{s:s, s:s, s:s, s:s, s:s?, s:b, s:o, s:b, s:s, s:s, "
	    "s:s?, s:s, s:I, s:I}", "id", k->id, "subject", str(k->subject),
	    "description", str(k->description), "status", task_status_name(
	    k->status), "owner", k->owner, "owner_gone", k->owner_gone,
	    "blocked_by", after, "blocked", k->blocked, "created_by",
	    str(k->created_by), "result", str(k->result), "verify", k->verify,
	    "checked", task_check_name(k->checked), "created_at",
	    (json_int_t)k->created_at, "updated_at",
	    (json_int_t)k->updated_at);
	if (k->checked == TASK_FAILED)
		json_object_set_new(o, "check_output",
		    json_string(k->check_output));
	if (k->worktree != NULL) {
		json_object_set_new(o, "worktree", json_string(k->worktree));
		json_object_set_new(o, "worktree_busy",
		    json_boolean(k->worktree_busy));
	}
	return o;
}

/* --- the accessors ------------------------------------------------------ */

const char *
event_str(const json_t *d, const char *key)
{
	const char *s = json_string_value(json_object_get(d, key));

	return s ? s : "";
}

int64_t
event_int(const json_t *d, const char *key)
{
	return (int64_t)json_integer_value(json_object_get(d, key));
}

double
event_num(const json_t *d, const char *key)
{
	return json_number_value(json_object_get(d, key));
}

int
event_bool(const json_t *d, const char *key)
{
	return json_is_true(json_object_get(d, key));
}

json_t *
event_obj(const json_t *d, const char *key)
{
	json_t *v = json_object_get(d, key);

	return json_is_object(v) ? v : NULL;
}

json_t *
event_array(const json_t *d, const char *key)
{
	json_t *v = json_object_get(d, key);

	return json_is_array(v) ? v : NULL;
}

struct event *
evq_take(struct evq *q)
{
	struct event *list;
	char buf[64];

	while (read(q->wake[0], buf, sizeof buf) > 0)
		;
	pthread_mutex_lock(&q->lock);
	list = q->head;
	q->head = q->tail = NULL;
	pthread_mutex_unlock(&q->lock);
	return list;
}

int
evq_fd(const struct evq *q)
{
	return q->wake[0];
}

void
event_free_list(struct event *e)
{
	struct event *next;

	for (; e != NULL; e = next) {
		next = e->next;
		free(e->agent);
		json_decref(e->data);
		free(e);
	}
}
