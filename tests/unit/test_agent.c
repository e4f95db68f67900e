/*
 * Unit tests of agent/agent.c on a bare team (agentfix.h), with agents
 * that have no thread: the transcript stored then kept, the inbox taken
 * in (what the lead's model and an idle teammate hear of it), the waits
 * on a request's decision (decided by another thread through the
 * protocol engine), the spend, the plan gate and the status.
 */
#include "config.h"

#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/teamstate.h"
#include "agentfix.h"
#include "core/transcript.h"
#include "util/clock.h"
#include "util/xmalloc.h"

/* The stored status of member name. */
static enum member_status
stored_status(struct agentfix *f, const char *name)
{
	struct member *m = roster_get(f->team.core.store, name);
	enum member_status st;

	ck_assert_ptr_nonnull(m);
	st = m->status;
	member_free(m);
	return st;
}

/* The stored transcript of name. */
static json_t *
stored(struct agentfix *f, const char *name)
{
	char *err = NULL;
	json_t *t = transcript_load(f->team.core.store, name, &err);

	ck_assert_msg(t != NULL, "%s", err);
	return t;
}

START_TEST(record_stores_then_keeps)
{
	struct agentfix f;
	struct agent *a;
	struct event *ev, *last = NULL;
	json_t *t, *entry;

	af_open(&f);
	a = af_agent(&f, "alice");
	ck_assert_int_eq(agent_record(a, transcript_user_text("first")), 0);
	ck_assert_int_eq(agent_record(a, transcript_user_text("second")), 0);
	ck_assert_uint_eq(json_array_size(a->turn.transcript), 2);
	t = stored(&f, "alice");
	ck_assert(json_equal(t, a->turn.transcript));
	json_decref(t);

	/* The store refuses it: nothing is kept, the agent has failed. */
	store_set_ceiling(f.team.core.store, 4096);
	entry = transcript_user_text("third");
	ck_assert_int_eq(agent_record(a, entry), -1);
	ck_assert_uint_eq(json_array_size(a->turn.transcript), 2);
	ck_assert(a->turn.errored);
	ck_assert_ptr_nonnull(a->turn.failure);
	ck_assert_ptr_nonnull(strstr(a->turn.failure, "could not store the "
	    "transcript"));
	ev = af_events(&f);
	ck_assert_uint_eq(af_count(ev, EV_ERROR, "alice", &last), 1);
	ck_assert_str_eq(event_str(last->data, "message"), a->turn.failure);
	event_free_list(ev);
	store_set_ceiling(f.team.core.store, STORE_CEILING);
	t = stored(&f, "alice");
	ck_assert_uint_eq(json_array_size(t), 2);
	json_decref(t);
	af_close(&f);
}
END_TEST

/* Whether some entry of transcript t holds text. */
static int
holds(json_t *t, const char *text)
{
	char *dump = json_dumps(t, 0);
	int found = strstr(dump, text) != NULL;

	free(dump);
	return found;
}

START_TEST(drain_takes_the_inbox_in)
{
	struct agentfix f;
	struct agent *a;
	char id[PROTO_ID_SIZE], *err = NULL, *msg = NULL;
	int wakes = 0;
	json_t *t;

	af_open(&f);
	a = af_agent(&f, "alice");
	a->turn.errored = 1;
	a->turn.unfinished = 1;
	a->turn.failure = xstrdup("the model failed");
	ck_assert_int_eq(agent_drain(a, 0, &wakes), 0);
	ck_assert(a->turn.errored);	/* nothing came: it stays failed */

	/* A permission alice asked for, decided by the person: its answer
	 * is recorded but wakes nobody (her tool call had it). */
	ck_assert_int_eq(protocol_request(f.team.core.proto, REQ_PERMISSION,
	    "alice", "lead", "rm -rf build", id, &err), 0);
	ck_assert_int_eq(protocol_respond(f.team.core.proto, id,
	    MSG_PERMISSION_RESPONSE, MSG_USER, 1, "fine", &msg),
	    PROTO_DECIDED);
	free(msg);
	ck_assert_int_gt(bus_send(f.team.core.bus, "bob", "alice", MSG_MESSAGE,
	    "BOB-SAYS-HI", NULL, &err), 0);
	ck_assert_int_eq(agent_drain(a, 0, &wakes), 2);
	ck_assert_int_eq(wakes, 1);
	ck_assert_uint_eq(json_array_size(a->turn.transcript), 2);
	ck_assert(holds(a->turn.transcript, "BOB-SAYS-HI"));
	/* A message clears the failure. */
	ck_assert(!a->turn.errored && !a->turn.unfinished);
	ck_assert_ptr_null(a->turn.failure);
	/* What it took is stored, and delivered once. */
	t = stored(&f, "alice");
	ck_assert(json_equal(t, a->turn.transcript));
	json_decref(t);
	ck_assert_int_eq(agent_take_inbox(a), 0);
	ck_assert_uint_eq(bus_pending(f.team.core.bus, "alice"), 0);

	ck_assert_int_gt(bus_send(f.team.core.bus, "lead", "alice", MSG_MESSAGE,
	    "LEAD-SAYS", NULL, &err), 0);
	ck_assert_int_eq(agent_take_inbox(a), 1);
	ck_assert(holds(a->turn.transcript, "LEAD-SAYS"));
	af_close(&f);
}
END_TEST

START_TEST(the_lead_hears_an_idle_notice_it_waits_for)
{
	struct agentfix f;
	struct agent *lead;
	char *err = NULL;
	int wakes = 0;

	af_open(&f);
	lead = af_agent(&f, "lead");
	ck_assert(lead->is_lead);
	ck_assert_int_gt(bus_send(f.team.core.bus, "alice", "lead",
	    MSG_IDLE_NOTIFICATION, "IDLE-ONE", NULL, &err), 0);
	ck_assert_int_eq(agent_drain(lead, 0, &wakes), 0);
	ck_assert_int_eq(wakes, 0);
	ck_assert(!holds(lead->turn.transcript, "IDLE-ONE"));
	ck_assert_uint_eq(bus_pending(f.team.core.bus, "lead"), 0);

	team_lead_waits(&f.team, "alice");
	ck_assert_int_gt(bus_send(f.team.core.bus, "alice", "lead",
	    MSG_IDLE_NOTIFICATION, "IDLE-TWO", NULL, &err), 0);
	ck_assert_int_gt(bus_send(f.team.core.bus, "bob", "lead",
	    MSG_IDLE_NOTIFICATION, "IDLE-BOB", NULL, &err), 0);
	ck_assert_int_eq(agent_drain(lead, 0, &wakes), 1);
	ck_assert_int_eq(wakes, 1);
	ck_assert(holds(lead->turn.transcript, "IDLE-TWO"));
	ck_assert(!holds(lead->turn.transcript, "IDLE-BOB"));
	/* One notice answers one wait. */
	ck_assert_int_gt(bus_send(f.team.core.bus, "alice", "lead",
	    MSG_IDLE_NOTIFICATION, "IDLE-THREE", NULL, &err), 0);
	ck_assert_int_eq(agent_drain(lead, 0, NULL), 0);
	af_close(&f);
}
END_TEST

START_TEST(between_turns_the_quit_is_noted_not_heard)
{
	struct agentfix f;
	struct agent *a;
	char id[PROTO_ID_SIZE], *err = NULL;

	af_open(&f);
	a = af_agent(&f, "alice");
	ck_assert_int_eq(protocol_request(f.team.core.proto, REQ_SHUTDOWN,
	    MSG_SYSTEM, "alice", "the person quits", id, &err), 0);
	ck_assert_int_eq(agent_drain(a, 1, NULL), 0);
	ck_assert_str_eq(a->turn.quit_seen, id);
	ck_assert_uint_eq(json_array_size(a->turn.transcript), 0);

	/* The lead's shutdown request is the model's to answer. */
	memset(a->turn.quit_seen, 0, sizeof a->turn.quit_seen);
	ck_assert_int_eq(protocol_request(f.team.core.proto, REQ_SHUTDOWN,
	    "lead",
	    "alice", "done, thanks", id, &err), 0);
	ck_assert_int_eq(agent_drain(a, 1, NULL), 1);
	ck_assert_str_eq(a->turn.quit_seen, "");
	af_close(&f);
}
END_TEST

/* A thread that decides a request once the agent shows it waits (its
 * status event), or sends it a message instead. */
struct decider {
	struct agentfix	*f;
	const char	*id;
	int		 approve;
	int		 message;	/* send alice a message, decide nothing */
	enum proto_verdict verdict;
};

static void *
decide_when_waiting(void *arg)
{
	struct decider *d = arg;
	struct pollfd p = { evq_fd(&d->f->team.core.events), POLLIN, 0 };
	char *msg = NULL;

	/* The agent's status change is the first event pushed. */
	ck_assert_int_eq(poll(&p, 1, 10000), 1);
	if (d->message) {
		ck_assert_int_gt(bus_send(d->f->team.core.bus, "bob", "alice",
		    MSG_MESSAGE, "meanwhile", NULL, &msg), 0);
		return NULL;
	}
	d->verdict = protocol_respond(d->f->team.core.proto, d->id,
	    MSG_PERMISSION_RESPONSE, MSG_USER, d->approve, d->approve ?
	    "go" : "no", &msg);
	free(msg);
	return NULL;
}

/* Alice asks the lead's permission to "make install"; the request's id
 * in id. */
static void
alice_asks(struct agentfix *f, char id[PROTO_ID_SIZE])
{
	char *err = NULL;

	ck_assert_int_eq(protocol_request(f->team.core.proto, REQ_PERMISSION,
	    "alice", "lead", "make install", id, &err), 0);
}

START_TEST(await_returns_the_decision_made_elsewhere)
{
	struct agentfix f;
	struct agent *a;
	struct decider d = { 0 };
	struct request *r;
	struct event *ev, *e;
	char id[PROTO_ID_SIZE];
	pthread_t th;
	int n = 0;

	af_open(&f);
	a = af_agent(&f, "alice");
	alice_asks(&f, id);
	d.f = &f;
	d.id = id;
	d.approve = 0;
	pthread_create(&th, NULL, decide_when_waiting, &d);
	r = agent_await(a, id, 0);
	pthread_join(th, NULL);
	ck_assert_int_eq(d.verdict, PROTO_DECIDED);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(r->id, id);
	ck_assert_int_eq(r->status, REQ_REJECTED);
	ck_assert_str_eq(r->response, "no");
	ck_assert_str_eq(r->decided_by, MSG_USER);
	request_free(r);
	/* It waited, then works again: in the store and on the screen. */
	ck_assert_int_eq(a->status, MEMBER_WORKING);
	ck_assert_int_eq(stored_status(&f, "alice"), MEMBER_WORKING);
	ev = af_events(&f);
	for (e = ev; e != NULL; e = e->next) {
		if (e->type != EV_STATUS)
			continue;
		ck_assert_str_eq(e->agent, "alice");
		if (n++ == 0) {
			ck_assert_str_eq(event_str(e->data, "status"),
			    "waiting");
			ck_assert_str_eq(event_str(e->data, "detail"), id);
		} else
			ck_assert_str_eq(event_str(e->data, "status"),
			    "working");
	}
	ck_assert_int_eq(n, 2);
	event_free_list(ev);
	af_close(&f);
}
END_TEST

START_TEST(await_early_returns_on_a_message)
{
	struct agentfix f;
	struct agent *a;
	struct decider d = { 0 };
	struct request *r;
	char id[PROTO_ID_SIZE];
	pthread_t th;

	af_open(&f);
	a = af_agent(&f, "alice");
	alice_asks(&f, id);
	d.f = &f;
	d.id = id;
	d.message = 1;
	pthread_create(&th, NULL, decide_when_waiting, &d);
	r = agent_await(a, id, 1);
	pthread_join(th, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->status, REQ_PENDING);
	ck_assert_uint_eq(bus_pending(f.team.core.bus, "alice"), 1);
	request_free(r);
	af_close(&f);
}
END_TEST

START_TEST(await_ends_when_stopped_or_unknown)
{
	struct agentfix f;
	struct agent *a;
	struct request *r;
	char id[PROTO_ID_SIZE];

	af_open(&f);
	a = af_agent(&f, "alice");
	ck_assert_ptr_null(agent_await(a, "req_deadbeef", 0));
	alice_asks(&f, id);
	atomic_store(&a->run.stop, 1);
	ck_assert_ptr_null(agent_await(a, id, 0));
	atomic_store(&a->run.stop, 0);
	atomic_store(&a->run.interrupt, 1);
	ck_assert_ptr_null(agent_await(a, id, 0));
	/* The request is left for whoever stopped it to withdraw. */
	r = protocol_get(f.team.core.proto, id);
	ck_assert_int_eq(r->status, REQ_PENDING);
	request_free(r);
	af_close(&f);
}
END_TEST

START_TEST(usage_adds_tokens_and_price)
{
	struct agentfix f;
	struct agent *a;
	struct llm_usage u = { 0 };
	struct member *m;
	struct event *ev, *last = NULL;

	af_open(&f);
	a = af_agent(&f, "alice");
	a->model_id = xstrdup("model-a");
	a->model.prices.input = 3;	/* dollars a million tokens */
	a->model.prices.output = 15;
	a->model.prices.cache_read = 0.3;
	a->model.prices.cache_write_5m = 3.75;

	/* Nothing used, nothing told. */
	agent_count_usage(a, &u);
	ev = af_events(&f);
	ck_assert_ptr_null(ev);

	u.input = 1000;
	u.output = 200;
	agent_count_usage(a, &u);
	/* A compaction on the server: billed like a call of its own, its
	 * cache read and written included. */
	u.compaction_input = 500;
	u.compaction_output = 100;
	u.compaction_cache_read = 10000;
	u.compaction_cache_write = 2000;
	u.cache_read = 40;
	agent_count_usage(a, &u);
	m = roster_get(f.team.core.store, "alice");
	ck_assert_int_eq(m->tokens_in, 2500);
	ck_assert_int_eq(m->tokens_out, 500);
	ck_assert_int_eq(m->cache_read, 10040);
	ck_assert_int_eq(m->cache_write, 2000);
	/* 0.006, then 0.006 + 40 x 0.3 + 500 x 3 + 100 x 15 + 10000 x 0.3
	 * + 2000 x 3.75 (a millionth of a dollar each). */
	ck_assert_double_eq_tol(m->cost, 0.006 + 0.019512, 1e-9);
	member_free(m);
	ev = af_events(&f);
	ck_assert_uint_eq(af_count(ev, EV_USAGE, "alice", &last), 2);
	ck_assert_int_eq(event_int(last->data, "input_tokens"), 2500);
	ck_assert_str_eq(event_str(last->data, "model"), "model-a");
	ck_assert_double_eq_tol(event_num(last->data, "team_cost_usd"),
	    0.025512, 1e-9);
	event_free_list(ev);
	af_close(&f);
}
END_TEST

START_TEST(the_plan_gate_holds_until_approved)
{
	struct agentfix f;
	struct agent *alice, *bob;
	char id[PROTO_ID_SIZE], *err = NULL, *msg = NULL;

	af_open(&f);
	alice = af_agent(&f, "alice");
	bob = af_agent(&f, "bob");
	ck_assert(!agent_plan_blocks(alice));
	ck_assert(agent_plan_blocks(bob));
	ck_assert_int_eq(protocol_request(f.team.core.proto, REQ_PLAN_APPROVAL,
	    "bob", "lead", "1. refactor", id, &err), 0);
	ck_assert(agent_plan_blocks(bob));
	ck_assert_int_eq(protocol_respond(f.team.core.proto, id,
	    MSG_PLAN_APPROVAL_RESPONSE, "lead", 1, "ok", &msg), PROTO_DECIDED);
	free(msg);
	ck_assert(!agent_plan_blocks(bob));
	af_close(&f);
}
END_TEST

START_TEST(status_is_stored_and_shown_once)
{
	struct agentfix f;
	struct agent *a;
	struct event *ev, *last = NULL;

	af_open(&f);
	a = af_agent(&f, "alice");
	agent_set_status(a, MEMBER_IDLE, NULL);
	agent_set_status(a, MEMBER_IDLE, NULL);	/* no change */
	ck_assert_int_eq(stored_status(&f, "alice"), MEMBER_IDLE);
	ev = af_events(&f);
	ck_assert_uint_eq(af_count(ev, EV_STATUS, "alice", &last), 1);
	ck_assert_str_eq(event_str(last->data, "status"), "idle");
	ck_assert_ptr_null(json_object_get(last->data, "detail"));
	event_free_list(ev);
	/* The same status with a detail is told again. */
	agent_set_status(a, MEMBER_IDLE, "waits for t3");
	agent_set_status(a, MEMBER_ERROR, NULL);
	ck_assert_int_eq(stored_status(&f, "alice"), MEMBER_ERROR);
	ev = af_events(&f);
	ck_assert_uint_eq(af_count(ev, EV_STATUS, "alice", NULL), 2);
	ck_assert_str_eq(event_str(ev->data, "detail"), "waits for t3");
	event_free_list(ev);
	af_close(&f);
}
END_TEST

static Suite *
agent_suite(void)
{
	Suite *s = suite_create("agent");
	TCase *tc = tcase_create("agent");

	tcase_add_test(tc, record_stores_then_keeps);
	tcase_add_test(tc, drain_takes_the_inbox_in);
	tcase_add_test(tc, the_lead_hears_an_idle_notice_it_waits_for);
	tcase_add_test(tc, between_turns_the_quit_is_noted_not_heard);
	tcase_add_test(tc, await_returns_the_decision_made_elsewhere);
	tcase_add_test(tc, await_early_returns_on_a_message);
	tcase_add_test(tc, await_ends_when_stopped_or_unknown);
	tcase_add_test(tc, usage_adds_tokens_and_price);
	tcase_add_test(tc, the_plan_gate_holds_until_approved);
	tcase_add_test(tc, status_is_stored_and_shown_once);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(agent_suite());
}
