/*
 * The one gate every shell command a model wrote passes before it runs,
 * whoever wrote it (the lead or a teammate) and whatever runs it (a bash
 * call, a task's check): the risk policy reads it, and a command it flags
 * runs only once the person approves a permission request that says what
 * the command is, who wrote it, and why it was flagged. The project's
 * Claude Code settings narrow it further (tools/ccrules.h): a command a
 * deny rule matches never runs, one an ask rule matches asks even where
 * the policy would not.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/internal.h"
#include "agent/permit.h"
#include "agent/places.h"
#include "core/permbody.h"
#include "tools/ccrules.h"
#include "tools/policy.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* The sentence that refuses command when a deny rule of the project's
 * Claude Code settings matches it (malloc'd), or NULL. */
static char *
permit_denied(struct team *t, const char *command)
{
	char *rule = ccrules_bash(t->opts.claude_rules, CCRULES_DENY, command);
	char *why;

	if (rule == NULL)
		return NULL;
	why = xasprintf("refused by the deny rule %s", rule);
	free(rule);
	return why;
}

/* Whether the policy flags command at root, with *v (cleared by the
 * caller) saying why; without a sandbox every command is flagged, and
 * an ask rule of Claude Code's settings flags what it matches. */
static int
permit_judge(struct team *t, const char *root, const char *command,
    struct policy_verdict *v)
{
	char *rule;

	memset(v, 0, sizeof *v);
	if (t->sb.mode == SANDBOX_MISSING) {
		v->label = xstrdup("no sandbox");
		v->detail = xstrdup("no sandbox on this system: every command "
		    "asks");
		return 1;
	}
	if (policy_judge(t->policy, root, command, v))
		return 1;
	rule = ccrules_bash(t->opts.claude_rules, CCRULES_ASK, command);
	if (rule == NULL)
		return 0;
	v->label = xstrdup("ask rule");
	v->detail = xasprintf("matches the ask rule %s", rule);
	free(rule);
	return 1;
}

char *
permit_risk(struct team *t, const char *root, const char *command)
{
	struct policy_verdict v;
	char *why = NULL;

	if (permit_judge(t, root, command, &v))
		why = xstrdup(v.detail ? v.detail : "risky");
	policy_verdict_clear(&v);
	return why;
}

/* Waits, without an agent, for request id to be decided or cancel to
 * fire: the person's own /task done. NULL when cancelled or gone. */
static struct request *
permit_await(struct team *t, const char *id, struct cancel *cancel)
{
	struct request *r;

	for (;;) {
		/* Read the generation first: a decision after it wakes us. */
		uint64_t gen = bus_generation(t->core.bus, MSG_USER);

		if ((r = protocol_get(t->core.proto, id)) == NULL)
			return NULL;
		if (r->status != REQ_PENDING)
			return r;
		request_free(r);
		if (cancel == NULL || cancel_fired(cancel))
			return NULL;
		bus_wait_since(t->core.bus, MSG_USER, gen, -1, &cancel->fired);
	}
}

void
permit_forget(struct team *t)
{
	char *err = NULL;

	if (protocol_cancel_from(t->core.proto, MSG_USER, REQ_PERMISSION,
	    "huddle "
	    "restarted while the check waited; it was not run", &err) == -1) {
		log_printf("permission: %s", err);
		free(err);
	}
}

/* Puts the request b records to the person and waits for the answer:
 * 0 approved, or -1 with *why (malloc'd). A request nobody waits for
 * any more is withdrawn, saying what was `undone`. */
static int
permit_ask(struct team *t, struct agent *a, const struct permbody *b,
    struct cancel *cancel, const char *undone, char **why)
{
	char id[PROTO_ID_SIZE], *body, *err = NULL;
	struct request *r;
	int rc;

	body = permbody_make(b);
	rc = protocol_request(t->core.proto, REQ_PERMISSION, b->who,
	    ROSTER_LEAD,
	    body, id, &err);
	free(body);
	if (rc == -1) {
		*why = xasprintf("could not ask for permission: %s", err);
		free(err);
		return -1;
	}
	r = a != NULL ? agent_await(a, id, 0) : permit_await(t, id, cancel);
	if (r == NULL) {
		/* Nobody will wait for the answer any more. */
		char *text = xasprintf("stopped before the decision; %s",
		    undone);

		if (protocol_cancel(t->core.proto, id, text, &err) == -1)
			free(err);
		free(text);
		*why = xasprintf("stopped while waiting for permission (%s)",
		    id);
		return -1;
	}
	rc = r->status == REQ_APPROVED ? 0 : -1;
	if (rc == -1)
		*why = xasprintf("permission %s was %s%s%s%s%s", id,
		    req_status_name(r->status), r->decided_by ? " by " : "",
		    r->decided_by ? r->decided_by : "", r->response &&
		    *r->response ? ": " : "", r->response ? r->response : "");
	request_free(r);
	return rc;
}

int
permit_command(struct team *t, struct agent *a, const char *what,
    const char *command, const char *root, struct cancel *cancel,
    char **why)
{
	struct policy_verdict v;
	struct permbody b;
	int rc;

	/* A deny rule refuses at once: nobody is asked to overrule it. */
	if ((*why = permit_denied(t, command)) != NULL)
		return -1;
	if (!permit_judge(t, root, command, &v)) {
		policy_verdict_clear(&v);
		return 0;
	}
	/* The record every front end shows: what asks, the command
	 * verbatim, why and where it was flagged, where it runs, who. */
	b.tool = (char *)what;
	b.command = (char *)command;
	b.reason = v.label;
	b.detail = v.detail;
	b.directory = (char *)root;
	b.who = a != NULL ? a->name : (char *)MSG_USER;
	b.flag_start = v.start;
	b.flag_end = v.end;
	rc = permit_ask(t, a, &b, cancel, "the command was not run", why);
	policy_verdict_clear(&v);
	return rc;
}

int
permit_file(struct agent *a, const char *tool, const char *path,
    const char *rule, char **why)
{
	struct permbody b;
	char *detail = xasprintf("matches the ask rule %s", rule);
	int rc;

	memset(&b, 0, sizeof b);
	b.tool = (char *)tool;
	b.command = (char *)path;
	b.reason = (char *)"ask rule";
	b.detail = detail;
	b.directory = (char *)places_root(a);
	b.who = a->name;
	rc = permit_ask(a->team, a, &b, NULL, "the file was left alone", why);
	free(detail);
	return rc;
}
