/*
 * What an agent keeps of itself, for the loop (loop.c) and the tools to
 * call: its status, its errors, its transcript (stored first, then kept
 * in memory), its inbox taken into the transcript, its spend, and its
 * waits on a request's decision. Nothing here calls up to the loop.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/frame.h"
#include "agent/internal.h"
#include "agent/mcpask.h"
#include "core/permbody.h"
#include "core/transcript.h"
#include "tools/profile.h"
#include "util/log.h"
#include "util/xmalloc.h"

void
agent_set_status(struct agent *a, enum member_status status,
    const char *detail)
{
	struct team *t = a->team;
	char *err = NULL;

	if (atomic_exchange(&a->status, status) == status && detail == NULL)
		return;
	if (roster_set_status(t->core.store, a->name, status, &err) == -1) {
		log_printf("%s: status: %s", a->name, err);
		free(err);
	}
	event_status(&t->core.events, a->name, status, detail);
}

void agent_error(struct agent *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

void
agent_error(struct agent *a, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		abort();
	va_end(ap);

	log_printf("%s: %s", a->name, msg);
	event_error(&a->team->core.events, a->name, "%s", msg);
	free(msg);
}

void
agent_fail(struct agent *a, char *why)
{
	agent_error(a, "%s", why);
	free(a->turn.failure);
	a->turn.failure = why;
	a->turn.errored = 1;
}

int
agent_record(struct agent *a, json_t *entry)
{
	char *err = NULL;

	if (transcript_append(a->team->core.store, a->name, entry,
	    &err) == -1) {
		agent_fail(a, xasprintf("could not store the transcript: %s",
		    err));
		free(err);
		json_decref(entry);
		return -1;
	}
	json_array_append_new(a->turn.transcript, entry);
	return 0;
}

/* Whether a permission request's body is an MCP server's question to
 * the person (agent/mcpask.h). */
static int
agent_is_question(const char *body)
{
	struct permbody b;
	int q;

	if (body == NULL || permbody_parse(body, &b) == -1)
		return 0;
	q = strcmp(b.tool, MCPASK_TOOL) == 0;
	permbody_clear(&b);
	return q;
}

int
agent_persons_only(int permission, const char *from, const char *body)
{
	if (!permission)
		return 0;
	/* huddle's own (a project's MCP servers, a sign-in) are the
	 * person's to answer. */
	if (from != NULL && strcmp(from, MSG_SYSTEM) == 0)
		return 1;
	/* An MCP server's questions to the person: the server's own
	 * words, which are no model's to read. */
	return agent_is_question(body);
}

/* The lead's model hears a teammate's idle notice only when it waits for
 * that teammate, and a task's completion only when the board says it
 * waits for it (core/task.h); other messages always go in. Runs under the
 * store lock. */
static int
agent_lead_feed(void *ud, const struct message *m)
{
	struct agent *a = ud;

	if (m->type == MSG_TASK_COMPLETED)
		return json_is_true(json_object_get(m->metadata, "feed"));
	if (agent_persons_only(m->type == MSG_PERMISSION_REQUEST, m->from,
	    m->content))
		return 0;
	if (m->type != MSG_IDLE_NOTIFICATION)
		return 1;
	return roster_take_awaited_tx(a->team->core.store, m->from, m->id);
}

/* A teammate between turns is at a clean point: the quit's shutdown
 * request is answered without its model (loop.c), so it stays
 * out of the conversation and a resumed team starts no turn for it. Runs
 * under the store lock: it only notes the request's id. */
static int
agent_idle_feed(void *ud, const struct message *m)
{
	struct agent *a = ud;
	const char *id = json_string_value(json_object_get(m->metadata,
	    "request_id"));

	if (m->type != MSG_SHUTDOWN_REQUEST || strcmp(m->from, MSG_SYSTEM) !=
	    0 || id == NULL || strlen(id) >= sizeof a->turn.quit_seen)
		return 1;
	memcpy(a->turn.quit_seen, id, strlen(id) + 1);
	return 0;
}

int
agent_drain(struct agent *a, int between_turns, int *wakes)
{
	struct message *msgs;
	size_t n, i;
	int recorded = 0;
	char *err = NULL;
	bus_feed_fn feed = a->is_lead ? agent_lead_feed : between_turns ?
	    agent_idle_feed : NULL;

	if (bus_drain_filtered(a->team->core.bus, a->name, feed, a, &msgs, &n,
	    &err) == -1) {
		agent_error(a, "could not read the inbox: %s", err);
		free(err);
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (!msgs[i].recorded)
			continue;
		json_array_append_new(a->turn.transcript, bus_entry(&msgs[i]));
		recorded++;
		if (wakes != NULL && msgs[i].type != MSG_PERMISSION_RESPONSE)
			(*wakes)++;
	}
	message_free_array(msgs, n);
	if (recorded > 0) {
		a->turn.errored = 0;
		a->turn.unfinished = 0;
		free(a->turn.failure);
		a->turn.failure = NULL;
	}
	return recorded;
}

int
agent_take_inbox(struct agent *a)
{
	return agent_drain(a, 0, NULL);
}

/* Adds a call's usage and its price to the agent's sums in the store and
 * tells the front end the new totals. */
void
agent_count_usage(struct agent *a, const struct llm_usage *u)
{
	struct team *t = a->team;
	struct member *m;
	char *err = NULL;

	if (u->input == 0 && u->output == 0 && u->cache_write_5m == 0 &&
	    u->cache_write_1h == 0 && u->cache_read == 0 &&
	    llm_compaction_read(u) <= 0)
		return;
	/* A compaction on the server is billed like a call of its own. */
	if (roster_add_usage(t->core.store, a->name, u->input +
	    (u->compaction_input > 0 ? u->compaction_input : 0), u->output +
	    (u->compaction_output > 0 ? u->compaction_output : 0),
	    u->cache_write_5m + u->cache_write_1h +
	    (u->compaction_cache_write > 0 ? u->compaction_cache_write : 0),
	    u->cache_read + (u->compaction_cache_read > 0 ?
	    u->compaction_cache_read : 0),
	    catalog_cost(&a->model.prices, u), &err) == -1) {
		log_printf("%s: usage: %s", a->name, err);
		free(err);
	}
	if ((m = roster_get(t->core.store, a->name)) == NULL)
		return;
	event_usage(&t->core.events, a->name, m, a->model_id,
	    roster_team_cost(t->core.store));
	member_free(m);
}

/* agent_await, and agent_await_or when give_up is not NULL. */
static struct request *
agent_await_early(struct agent *a, const char *id, int early,
    atomic_int *give_up)
{
	struct team *t = a->team;
	struct request *r;

	agent_set_status(a, MEMBER_WAITING, id);
	for (;;) {
		uint64_t gen = bus_generation(t->core.bus, a->name);
		/* Count the inbox before reading the request: the decision
		 * and its message commit together, so a message that arrived
		 * first is never taken for one that came with the decision. */
		size_t waiting = early ? bus_pending(t->core.bus, a->name) : 0;

		if ((r = protocol_get(t->core.proto, id)) == NULL)
			return NULL;
		if (r->status != REQ_PENDING || waiting > 0)
			break;
		request_free(r);
		if (atomic_load(&a->run.stop) ||
		    atomic_load(&a->run.interrupt) ||
		    (give_up != NULL && atomic_load(give_up)))
			return NULL;
		bus_wait_since(t->core.bus, a->name, gen, -1, &a->run.stop);
	}
	agent_set_status(a, MEMBER_WORKING, NULL);
	return r;
}

struct request *
agent_await(struct agent *a, const char *id, int early)
{
	return agent_await_early(a, id, early, NULL);
}

struct request *
agent_await_or(struct agent *a, const char *id, atomic_int *give_up)
{
	return agent_await_early(a, id, 0, give_up);
}

void
agent_free(struct agent *a)
{
	size_t i;

	llm_client_free(a->run.llm);
	json_decref(a->mcp.tools);
	for (i = 0; a->mcp.servers != NULL && a->mcp.servers[i] != NULL; i++)
		free(a->mcp.servers[i]);
	free(a->mcp.servers);
	free(a->model_id);
	profile_free(a->at.home);
	free(a->at.name);
	profile_free(a->at.away);
	cancel_destroy(&a->run.cancel);
	json_decref(a->turn.transcript);
	free(a->turn.system);
	free(a->turn.task);
	free(a->turn.leave_reason);
	free(a->turn.failure);
	free(a->frame.sources);
	free(a->frame.extras);
	free(a->frame.roles);
	json_decref(a->frame.tools);
	free(a->name);
	free(a->role);
	free(a);
}

int
agent_plan_blocks(struct agent *a)
{
	struct member *m = roster_get(a->team->core.store, a->name);
	int blocked = m != NULL && m->plan_required && !m->plan_approved;

	member_free(m);
	return blocked;
}
