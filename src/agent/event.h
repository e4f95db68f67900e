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

enum event_type {
	EV_TEXT,		/* {text} a piece of the model's reply */
	EV_THINKING,		/* {text} a piece of the model's thinking,
				 * or {redacted: true} for an encrypted
				 * block */
	EV_LLM_CALL,		/* {round} a model call starts */
	EV_TOOL_CALL,		/* {tool, id, input} */
	EV_TOOL_RESULT,		/* {tool, id, is_error, output} */
	EV_STATUS,		/* {status, detail?} */
	EV_MESSAGE,		/* {id, from, to, type, content, metadata} */
	EV_REQUEST,		/* {id, type, from, to, status, body,
				 *  response, decided_by} */
	EV_ERROR,		/* {message} */
	EV_RETRY,		/* {message, attempt, delay_ms} */
	EV_USAGE,		/* the agent's totals {input_tokens,
				 * output_tokens, cache_write_tokens,
				 * cache_read_tokens, cost_usd, model} and
				 * the team's {team_cost_usd} */
	EV_SPAWNED,		/* {role, plan_required} */
	EV_NOTICE,		/* {message} from huddle itself */
	EV_BUDGET,		/* {team_cost_usd, max_cost_usd}: the team
				 * has spent its budget; the agent waits */
	EV_CONTEXT,		/* {context_tokens, context_window}: how
				 * full the agent's window is after a call */
	EV_TASK,		/* a task made or changed: {id, subject,
				 * description, status, owner?, owner_gone,
				 * blocked_by, blocked, created_by, result,
				 * verify?, checked, check_output?,
				 * created_at, updated_at}; agent: its
				 * owner */
	EV_COMPACTION,		/* {kind: "client"|"server", before, after,
				 * context_window}: its view was compacted */
	EV_TYPE_COUNT
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

void evq_init(struct evq *q);
void evq_destroy(struct evq *q);

/* Queues an event (data is stolen; NULL means {}), waking the reader. */
void evq_push(struct evq *q, enum event_type type, const char *agent,
    json_t *data);

/* Queues a notice {message} from huddle itself; q is a struct evq *. Its
 * shape fits a callback's (say store_on_full). */
void evq_notice(void *q, const char *message);

/* Queues a piece of streamed text (type EV_TEXT or EV_THINKING), joined
 * to the last event when that is of the same type from the same agent and
 * the reader has not taken it yet. */
void evq_push_text(struct evq *q, enum event_type type, const char *agent,
    const char *text, size_t len);

/* Takes every queued event, oldest first (free with event_free_list). */
struct event *evq_take(struct evq *q);

/* The descriptor to select() on. */
int evq_fd(const struct evq *q);

void event_free_list(struct event *e);

#endif
