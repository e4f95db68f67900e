/*
 * An MCP server's questions to the person and a call's progress, for
 * the agent making the call (see mcpask.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/internal.h"
#include "agent/mcpask.h"
#include "core/permbody.h"
#include "mcp/elicit.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* Progress is shown at most this often in a pane. */
#define MCPASK_PROGRESS_MS	2000

/* The result that tells the server the person did not answer. */
static json_t *
mcpask_action(const char *action)
{
	return json_pack("{s:s}", "action", action);
}

/* Opens the request for a server's question; 0 with id, or -1. */
static int
mcpask_request(struct agent *a, const char *server, json_t *params,
    char id[PROTO_ID_SIZE])
{
	struct team *t = a->team;
	struct permbody b;
	char *body, *form, *reason, *err = NULL;
	int rc;

	form = mcp_elicit_form(params);
	reason = xasprintf("MCP server %s asks", server);
	memset(&b, 0, sizeof b);
	b.tool = (char *)MCPASK_TOOL;
	b.command = form;
	b.reason = reason;
	b.detail = (char *)"approve to accept with the defaults, or approve "
	    "with feedback name=value; … to answer; reject to decline";
	b.directory = (char *)"";
	b.who = a->name;
	body = permbody_make(&b);
	free(reason);
	free(form);
	rc = protocol_request(t->core.proto, REQ_PERMISSION, a->name,
	    ROSTER_LEAD,
	    body, id, &err);
	free(body);
	if (rc == -1) {
		event_notice(&t->core.events, a->name,
		    "MCP server %s asked the "
		    "person something, which could not be put to them: %s",
		    server, err);
		free(err);
	}
	return rc;
}

/* The caller's elicit: asks the person and waits for the answer. */
static json_t *
mcpask_elicit(void *ud, const char *server, json_t *params)
{
	struct mcpask *m = ud;
	struct agent *a = m->agent;
	struct team *t = a->team;
	char id[PROTO_ID_SIZE], *err = NULL;
	struct request *r;
	json_t *content, *out;

	if (mcpask_request(a, server, params, id) == -1)
		return mcpask_action("cancel");
	log_printf("%s: MCP server %s asks the person (%s)", a->name, server,
	    id);
	if ((r = agent_await_or(a, id, &m->abandoned)) == NULL) {
		if (protocol_cancel(t->core.proto, id,
		    "the call stopped before "
		    "the answer", &err) == -1)
			free(err);
		return mcpask_action("cancel");
	}
	if (r->status == REQ_REJECTED)
		out = mcpask_action("decline");
	else if (r->status != REQ_APPROVED)
		out = mcpask_action("cancel");
	else if ((content = mcp_elicit_answer(params, r->response,
	    &err)) == NULL) {
		/* The answer was given; it cannot be taken back, and a
		 * wrong one must not reach the server as if right. */
		event_notice(&t->core.events, a->name,
		    "your answer to %s did not "
		    "fit the form of MCP server %s (%s): it was told the "
		    "question was cancelled", id, server, err);
		free(err);
		out = mcpask_action("cancel");
	} else
		out = json_pack("{s:s, s:o}", "action", "accept", "content",
		    content);
	request_free(r);
	return out;
}

/* The caller's progress: a line in the pane, now and then. */
static void
mcpask_progress(void *ud, const char *server, const char *tool,
    double done, double total, const char *message)
{
	struct mcpask *m = ud;
	int64_t now = clock_mono_ms(), shown = atomic_load(&m->shown_ms);
	char *how;

	if (shown != 0 && now - shown < MCPASK_PROGRESS_MS)
		return;
	atomic_store(&m->shown_ms, now);
	how = total > 0 ? xasprintf("%.0f%%", 100 * done / total) :
	    xasprintf("%g", done);
	event_notice(&m->agent->team->core.events, m->agent->name, "%s on MCP "
	    "server %s: %s%s%.200s", tool, server, how, message ? " — " : "",
	    message ? message : "");
	free(how);
}

/* The caller's abandon: the call is over; a question still waiting for
 * the person is given up (and its request withdrawn). */
static void
mcpask_abandon(void *ud)
{
	struct mcpask *m = ud;

	atomic_store(&m->abandoned, 1);
	bus_wake(m->agent->team->core.bus, m->agent->name);
}

void
mcpask_init(struct mcpask *m, struct agent *a)
{
	memset(m, 0, sizeof *m);
	m->agent = a;
	atomic_init(&m->shown_ms, 0);
	atomic_init(&m->abandoned, 0);
	m->caller.elicit = mcpask_elicit;
	m->caller.progress = mcpask_progress;
	m->caller.abandon = mcpask_abandon;
	m->caller.ud = m;
}
