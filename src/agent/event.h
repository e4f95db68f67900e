/*
 * Events are what the team reports to a front end (the screen or the
 * JSONL stream): text as a model writes it, tool calls and results,
 * status changes, messages, protocol requests, errors, usage.
 *
 * Agent threads push events onto an event queue; the main thread is woken
 * through one descriptor and takes the whole list at once (lock, swap,
 * unlock), then works on it without the lock. Text deltas from one agent
 * that arrive back to back are joined into one event, so a fast stream
 * costs the main thread one event per pass, not one per delta.
 */
#ifndef HUDDLE_AGENT_EVENT_H
#define HUDDLE_AGENT_EVENT_H

#include <jansson.h>
#include <pthread.h>
#include <stdint.h>

#include "core/roster.h"

struct message;
struct request;
struct task;

/* The kinds; their fields are the schema table's (event.c, and
 * doc/headless.md, which a test holds to it). */
enum event_type {
	EV_TEXT,		/* a piece of the model's reply */
	EV_THINKING,		/* a piece of its thinking, or a block the
				 * provider encrypted */
	EV_LLM_CALL,		/* a model call starts */
	EV_TOOL_CALL,
	EV_TOOL_RESULT,
	EV_STATUS,
	EV_MESSAGE,		/* a message through the bus */
	EV_REQUEST,		/* a protocol request made or changed */
	EV_ERROR,
	EV_RETRY,		/* a model call failed and will be retried */
	EV_USAGE,		/* the agent's totals and the team's cost */
	EV_SPAWNED,		/* a teammate made, or relaunched at start */
	EV_NOTICE,		/* from huddle itself */
	EV_BUDGET,		/* the team has spent its budget */
	EV_CONTEXT,		/* how full the agent's window is */
	EV_TASK,		/* a task made or changed; agent: its owner */
	EV_COMPACTION,		/* the agent's view was compacted */
	EV_TYPE_COUNT
};

/* A field's JSON type. */
enum event_ftype {
	EVF_STRING,
	EVF_STRING_NULL,	/* a string, or null */
	EVF_INTEGER,
	EVF_NUMBER,		/* an integer or a real */
	EVF_BOOLEAN,
	EVF_OBJECT,
	EVF_ARRAY,
	EVF_ANY			/* any JSON value, null too */
};

/* One row of the schema: a field of one kind of event. */
struct event_field {
	enum event_type	 kind;
	const char	*name;
	enum event_ftype type;
	int		 optional;	/* 1: the event may lack it */
};

struct event {
	enum event_type	 type;
	char		*agent;		/* who it is about; may be NULL */
	json_t		*data;		/* an object with the fields above */
	int64_t		 at_us;		/* clock_mono_us() when pushed */
	struct event	*next;
};

struct evq {
	pthread_mutex_t	 lock;
	struct event	*head;
	struct event	*tail;
	int		 wake[2];	/* [0] is readable while events wait */
};

/* "text", "tool_call", … — the names of the JSONL stream. */
const char *event_type_name(enum event_type type);

/* The schema: every field of every kind, grouped by kind (n rows). */
const struct event_field *event_schema(size_t *n);

/* "string", "integer", … as doc/headless.md writes a field's type. */
const char *event_ftype_name(enum event_ftype type);

/* 0 when data has exactly the fields the schema gives its kind, of their
 * types, and every required one; else -1 and why (*err, malloc'd). */
int event_check(enum event_type type, const json_t *data, char **err);

void evq_init(struct evq *q);
void evq_destroy(struct evq *q);

/* Takes every queued event, oldest first (free with event_free_list). */
struct event *evq_take(struct evq *q);

/* The descriptor to select() on. */
int evq_fd(const struct evq *q);

void event_free_list(struct event *e);

/*
 * The constructors: one per kind (notices have three), the only code that
 * makes an event's JSON. agent is whom the event is about (NULL: the
 * team); strings may be NULL, which makes them "" (a null for the fields
 * that may be null).
 */

/* A piece of streamed text, joined to the last event when that is text
 * from the same agent and the reader has not taken it yet. */
void event_text(struct evq *q, const char *agent, const char *text,
    size_t len);
/* The same for thinking; event_thinking_redacted tells an encrypted
 * block. */
void event_thinking(struct evq *q, const char *agent, const char *text,
    size_t len);
void event_thinking_redacted(struct evq *q, const char *agent);
void event_llm_call(struct evq *q, const char *agent, int round);
/* input is copied (NULL: null). */
void event_tool_call(struct evq *q, const char *agent, const char *tool,
    const char *id, const json_t *input);
/* whole: the file the whole output is kept in, or NULL. */
void event_tool_result(struct evq *q, const char *agent, const char *tool,
    const char *id, int is_error, const char *output, const char *whole);
/* detail may be NULL: the event has none. */
void event_status(struct evq *q, const char *agent,
    enum member_status status, const char *detail);
/* About m->to, r->to, k->owner. */
void event_message(struct evq *q, const struct message *m);
void event_request(struct evq *q, const struct request *r);
void event_task(struct evq *q, const struct task *k);
void event_error(struct evq *q, const char *agent, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A failed call's retry; discarded: the reply it had begun to stream is
 * void (the next attempt streams it anew). */
void event_retry(struct evq *q, const char *agent, const char *message,
    int attempt, int64_t delay_ms, int discarded);
/* m's totals, the model it calls, and the team's cost. */
void event_usage(struct evq *q, const char *agent, const struct member *m,
    const char *model, double team_cost);
/* A teammate made now; worktree_base NULL: it works in no worktree. */
void event_spawned(struct evq *q, const char *agent, const char *role,
    int plan_required, const char *model, int autonomous,
    const char *worktree_base);
/* A teammate of the roster launched at start (resumed: after --resume). */
void event_relaunched(struct evq *q, const char *agent, const char *role,
    int plan_required, const char *model, int autonomous, int resumed);
void event_notice(struct evq *q, const char *agent, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The notice of an agent's thread that ended, which no one is shown. */
void event_notice_quiet(struct evq *q, const char *agent,
    const char *message);
/* The quit's notice: how many teammates were asked to shut down. */
void event_notice_asked(struct evq *q, const char *message, int asked);
/* A notice from huddle; q is a struct evq *. Its shape fits a callback's
 * (say store_on_full). */
void evq_notice(void *q, const char *message);
void event_budget(struct evq *q, const char *agent, double team_cost,
    double max_cost);
void event_context(struct evq *q, const char *agent, int64_t tokens,
    int64_t window);
/* kind: "client" or "server". */
void event_compaction(struct evq *q, const char *agent, const char *kind,
    int64_t before, int64_t after, int64_t window);

/* The data of a message, a request and a task event, which the reports
 * (/requests, /tasks) and the screen's history use too. */
json_t *event_message_json(const struct message *m);
json_t *event_request_json(const struct request *r);
/* Adds a permission request's record to o as "permission". */
void event_request_fields(json_t *o, const struct request *r);
json_t *event_task_json(const struct task *k);

/*
 * The accessors a front end reads an event's data with (d may be NULL or
 * not an object): a missing field, or one of another type, reads as "",
 * 0, 0.0, false or NULL.
 */
const char *event_str(const json_t *d, const char *key);
int64_t event_int(const json_t *d, const char *key);
/* An integer or a real. */
double event_num(const json_t *d, const char *key);
int event_bool(const json_t *d, const char *key);
/* An object, an array, or NULL. */
json_t *event_obj(const json_t *d, const char *key);
json_t *event_array(const json_t *d, const char *key);

#endif
