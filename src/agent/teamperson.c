/*
 * What the person does to the team (see team.h): their words to an agent,
 * their decisions on requests (found by id, the start of one, or a
 * teammate's name; or all of one agent's at once), a shutdown asked or
 * forced, an interruption, a compaction asked for.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/internal.h"
#include "agent/netgate.h"
#include "agent/teamstate.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

int
team_say(struct team *t, const char *to, const char *text, char **err)
{
	return bus_send(t->core.bus, MSG_USER, to ? to : ROSTER_LEAD,
	    MSG_MESSAGE,
	    text, NULL, err) < 0 ? -1 : 0;
}

/* Whether r waits for the person. */
static int
team_for_person(struct team *t, const struct request *r)
{
	return r->status == REQ_PENDING &&
	    (protocol_answerers(t->core.proto, r->type) & PROTO_BY_USER) != 0;
}

int
team_find_request(struct team *t, const char *target,
    char id[PROTO_ID_SIZE], char **err)
{
	struct request *list, *r;
	const char *hit = NULL, *prefix = target;
	size_t n, i, by_id = 0, by_name = 0;
	char *q;

	if ((r = protocol_get(t->core.proto, target)) != NULL) {
		memcpy(id, r->id, PROTO_ID_SIZE);
		request_free(r);
		return 0;
	}
	if (strncmp(prefix, "req_", 4) == 0)
		prefix += 4;
	n = protocol_list(t->core.proto, 0, &list);
	for (i = 0; i < n; i++) {
		if (!team_for_person(t, &list[i]))
			continue;
		if (*prefix != '\0' && strncmp(list[i].id + 4, prefix,
		    strlen(prefix)) == 0 && by_id++ == 0)
			hit = list[i].id;
	}
	if (by_id == 0) {
		for (i = 0; i < n; i++) {
			if (team_for_person(t, &list[i]) &&
			    strcmp(list[i].from, target) == 0 &&
			    by_name++ == 0)
				hit = list[i].id;
		}
	}
	if (hit != NULL && by_id + by_name == 1)
		memcpy(id, hit, PROTO_ID_SIZE);
	request_free_array(list, n);
	if (hit != NULL && by_id + by_name == 1)
		return 0;
	q = utf8_clean(target, strlen(target), 40);
	if (by_id > 1)
		*err = xasprintf("nothing was decided: '%s' starts %zu ids of "
		    "requests waiting for you; give more of it (/requests "
		    "lists them)", q, by_id);
	else if (by_name > 1)
		*err = xasprintf("nothing was decided: %s has %zu requests "
		    "waiting for you; give an id (/requests lists them)", q,
		    by_name);
	else
		*err = xasprintf("nothing was decided: '%s' names no request; "
		    "give an id, the start of one, or a teammate with one "
		    "request waiting for you (/requests lists them)", q);
	free(q);
	return -1;
}

/* The person's answer to r, through the engine (durable, told to the
 * requester). */
static enum proto_verdict
team_respond(struct team *t, const struct request *r, int approve,
    const char *feedback, char **why)
{
	enum proto_verdict v;

	v = protocol_respond(t->core.proto, r->id,
	    req_type_response_msg(r->type),
	    MSG_USER, approve, feedback ? feedback : "", why);
	/* A host allowed for the whole team answers the others who asked
	 * for it: their requests are withdrawn. */
	netgate_withdraw_moot(t->netgate);
	/* A decided plan sends its teammate to work, or back to its plan:
	 * the lead hears when it is next idle. */
	if (v == PROTO_DECIDED && r->type == REQ_PLAN_APPROVAL)
		team_lead_waits(t, r->from);
	return v;
}

enum proto_verdict
team_decide(struct team *t, const char *target, int approve,
    const char *feedback, char **msg)
{
	struct request *list, *r;
	size_t n, i;
	enum proto_verdict v;
	char id[PROTO_ID_SIZE] = "", *why;

	if (target != NULL) {
		if (team_find_request(t, target, id, msg) == -1)
			return PROTO_UNKNOWN;
	} else {
		n = protocol_list(t->core.proto, 0, &list);
		for (i = 0; i < n && *id == '\0'; i++) {
			if (team_for_person(t, &list[i]))
				memcpy(id, list[i].id, PROTO_ID_SIZE);
		}
		request_free_array(list, n);
		if (*id == '\0') {
			*msg = xstrdup("no pending request waits for your "
			    "decision");
			return PROTO_UNKNOWN;
		}
	}
	/* A decided id still goes to the engine, which says why it changes
	 * nothing. */
	if ((r = protocol_get(t->core.proto, id)) == NULL) {
		*msg = xasprintf("no request has the id '%s'", id);
		return PROTO_UNKNOWN;
	}
	v = team_respond(t, r, approve, feedback, &why);
	if (v == PROTO_DECIDED)
		*msg = xasprintf("%s %s's %s (%s)", approve ? "approved" :
		    "rejected", r->from, req_type_name(r->type), id);
	else
		*msg = xasprintf("%s's %s (%s): %s", r->from,
		    req_type_name(r->type), id, why);
	free(why);
	request_free(r);
	return v;
}

/* The kinds team_reject_all counts, for its sentence. */
enum { TEAM_REJ_NETWORK, TEAM_REJ_PERMISSION, TEAM_REJ_PLAN, TEAM_REJ_N };

static int
team_reject_kind(const struct request *r)
{
	if (r->type == REQ_PLAN_APPROVAL)
		return TEAM_REJ_PLAN;
	return strncmp(r->body, NETGATE_PREFIX, strlen(NETGATE_PREFIX)) == 0 ?
	    TEAM_REJ_NETWORK : TEAM_REJ_PERMISSION;
}

/* "rejected mallory's 60 requests (58 network, 2 permission)", and
 * what was decided meanwhile (malloc'd). */
static char *
team_rejected_text(const char *who, const size_t n[TEAM_REJ_N],
    size_t late)
{
	static const char *const kind[TEAM_REJ_N] = { "network",
	    "permission", "plan" };
	char *text = NULL, *one;
	size_t len = 0, cap = 0, i, all = 0;

	for (i = 0; i < TEAM_REJ_N; i++)
		all += n[i];
	one = xasprintf("rejected %s's %zu request%s (", who, all,
	    all == 1 ? "" : "s");
	text = xappend(text, &len, &cap, one, strlen(one));
	free(one);
	for (i = 0; i < TEAM_REJ_N; i++) {
		if (n[i] == 0)
			continue;
		one = xasprintf("%s%zu %s", text[len - 1] == '(' ? "" : ", ",
		    n[i], kind[i]);
		text = xappend(text, &len, &cap, one, strlen(one));
		free(one);
	}
	one = late > 0 ? xasprintf("); %zu more %s decided meanwhile", late,
	    late == 1 ? "was" : "were") : xstrdup(")");
	text = xappend(text, &len, &cap, one, strlen(one));
	free(one);
	return text;
}

int
team_reject_all(struct team *t, const char *name, const char *feedback,
    char **msg)
{
	struct request *list;
	size_t n, i, done[TEAM_REJ_N] = { 0 }, late = 0, all = 0;
	char *why, *q = utf8_clean(name, strlen(name), 40);

	/* The requests waiting now; any that come while these are decided
	 * wait for the next time. */
	n = protocol_list(t->core.proto, 0, &list);
	for (i = 0; i < n; i++) {
		if (!team_for_person(t, &list[i]) ||
		    strcmp(list[i].from, name) != 0)
			continue;
		why = NULL;
		if (team_respond(t, &list[i], 0, feedback, &why) ==
		    PROTO_DECIDED) {
			done[team_reject_kind(&list[i])]++;
			all++;
		} else
			late++;
		free(why);
	}
	request_free_array(list, n);
	if (all == 0)
		*msg = xasprintf("nothing was rejected: no request of %s waits "
		    "for you", q);
	else
		*msg = team_rejected_text(q, done, late);
	free(q);
	return (int)all;
}

int
team_request_shutdown(struct team *t, const char *name, char **err)
{
	char id[PROTO_ID_SIZE];

	if (strcmp(name, ROSTER_LEAD) == 0) {
		*err = xstrdup("the lead stops when you quit (F10 or /quit)");
		return -1;
	}
	return protocol_request(t->core.proto, REQ_SHUTDOWN, MSG_USER, name,
	    "requested by the person", id, err);
}

int
team_force_stop(struct team *t, const char *name, char **err)
{
	struct agent *a = team_find(t, name);
	struct member *m;

	if (strcmp(name, ROSTER_LEAD) == 0) {
		*err = xstrdup("the lead stops when you quit (F10 or /quit)");
		return -1;
	}
	if (a != NULL) {
		team_stop_agent(t, a, 1);
		return 0;
	}
	/* No thread runs for it (it never started, or it ended): record
	 * the end directly. */
	if ((m = roster_get(t->core.store, name)) == NULL) {
		*err = xasprintf("no teammate named '%s'", name);
		return -1;
	}
	member_free(m);
	return protocol_terminate(t->core.proto, name, "stopped by force", err);
}

int
team_interrupt(struct team *t, const char *name, char **err)
{
	struct member *m = roster_get(t->core.store, name);
	struct agent *a = team_find(t, name);
	int busy = m != NULL && (m->status == MEMBER_WORKING ||
	    m->status == MEMBER_WAITING);

	member_free(m);
	if (a == NULL) {
		*err = xasprintf("no running member is called '%s'", name);
		return -1;
	}
	if (!busy) {
		*err = xasprintf("%s is not working", name);
		return -1;
	}
	/* The agent may be reaped only by this (the main) thread, so a
	 * stays valid here. */
	atomic_store(&a->run.interrupt, 1);
	cancel_fire(&a->run.cancel);
	llm_cancel(a->run.llm);
	bus_wake(t->core.bus, a->name);
	return 0;
}

int
team_compact(struct team *t, const char *name, char **err)
{
	struct agent *a = team_find(t, name);

	if (a == NULL) {
		*err = xasprintf("no running member is called '%s'", name);
		return -1;
	}
	atomic_store(&a->win.compact_asked, 1);
	bus_wake(t->core.bus, a->name);
	return 0;
}
