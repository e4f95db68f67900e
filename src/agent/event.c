/*
 * The event queue between agent threads and the main thread (see
 * event.h). The wake pipe carries at most one byte per batch: a push that
 * finds the queue empty writes it, evq_take drains it.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/event.h"
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

void
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

void
evq_notice(void *q, const char *message)
{
	evq_push(q, EV_NOTICE, NULL, json_pack("{s:s}", "message", message));
}

void
evq_push_text(struct evq *q, enum event_type type, const char *agent,
    const char *text, size_t len)
{
	struct event *t;
	char *joined;

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
