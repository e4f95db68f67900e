/*
 * bench/handshake: protocol latencies of the real team (doc/benchmarks.md;
 * P2), with the script provider so that no network is involved.
 *
 * P1: a shutdown request is issued to an idle teammate → that teammate's
 *     next model call starts (its model refuses, so it stays for the next
 *     run).
 * P2: the person approves a teammate's plan → the teammate's next model
 *     call starts.
 *
 * Times are taken from the events the team reports (clock_mono_us at the
 * moment the agent thread starts its call). Prints p50/p99/max.
 *
 * usage: bench/handshake [RUNS]   (default 100)
 */
#include "config.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include "agent/team.h"
#include "llm/catalog.h"
#include "llm/script.h"
#include "tools/mountns.h"
#include "tools/reaper.h"
#include "util/clock.h"
#include "util/xmalloc.h"

static void
die(const char *what, const char *err)
{
	fprintf(stderr, "bench/handshake: %s: %s\n", what, err ? err : "?");
	exit(1);
}

/* A scenario: alice refuses RUNS shutdowns; bob submits RUNS plans. */
static char *
scenario(int runs)
{
	char *alice = xstrdup("{\"text\": \"ready\"}"), *bob = xstrdup(""), *t;
	char *lead;
	int i;

	for (i = 0; i < runs; i++) {
		t = xasprintf("%s, {\"tools\": [{\"name\": \"shutdown_response\","
		    " \"input\": {\"request_id\": \"{{request_id}}\", \"approve\":"
		    " false, \"reason\": \"busy\"}}]}, {\"text\": \"ok\"}", alice);
		free(alice);
		alice = t;
		t = xasprintf("%s%s{\"tools\": [{\"name\": \"submit_plan\", "
		    "\"input\": {\"plan\": \"step %d\"}}]}", bob, i ? ", " : "",
		    i);
		free(bob);
		bob = t;
	}
	/* The lead hears of plans and idle teammates: it says ok. */
	t = xstrdup("{\"text\": \"ok\"}");
	for (i = 0; i < runs + 8; i++) {
		char *more = xasprintf("%s, {\"text\": \"ok\"}", t);

		free(t);
		t = more;
	}
	lead = t;
	t = xasprintf("{\"agents\": {\"alice\": [%s], \"bob\": [%s, {\"text\":"
	    " \"done\"}], \"lead\": [%s]}}", alice, bob, lead);
	free(lead);
	free(alice);
	free(bob);
	return t;
}

struct bench {
	struct team	*team;
	struct event	*pending;	/* events not looked at yet */
};

/* Waits for the next event matching type/agent (and, for requests, a
 * status); returns its time. Other events are dropped. */
static int64_t
bench_wait(struct bench *b, enum event_type type, const char *agent,
    const char *status)
{
	int64_t deadline = clock_mono_ms() + 10000;

	for (;;) {
		struct event *e;

		while ((e = b->pending) != NULL) {
			int64_t at = e->at_us;
			int hit = e->type == type && (agent == NULL ||
			    (e->agent && strcmp(e->agent, agent) == 0)) &&
			    (status == NULL || strcmp(status,
			    json_string_value(json_object_get(e->data,
			    "status")) ?: "") == 0);

			b->pending = e->next;
			e->next = NULL;
			event_free_list(e);
			if (hit)
				return at;
		}
		if (clock_mono_ms() > deadline)
			die("waiting", event_type_name(type));
		{
			fd_set rd;
			struct timeval tv = { 0, 100000 };
			int fd = evq_fd(team_events(b->team));

			FD_ZERO(&rd);
			FD_SET(fd, &rd);
			select(fd + 1, &rd, NULL, NULL, &tv);
			b->pending = evq_take(team_events(b->team));
		}
	}
}

/* Waits until bob is blocked on a pending plan request. */
static void
bench_plan_pending(struct bench *b)
{
	int64_t deadline = clock_mono_ms() + 10000;

	for (;;) {
		struct request *r;
		struct member *m = roster_get(team_store(b->team), "bob");
		size_t n = protocol_list(team_protocol(b->team), 0, &r), i;
		int pending = 0;

		for (i = 0; i < n; i++)
			pending |= r[i].type == REQ_PLAN_APPROVAL;
		request_free_array(r, n);
		if (pending && m != NULL && m->status == MEMBER_WAITING) {
			member_free(m);
			return;
		}
		member_free(m);
		if (clock_mono_ms() > deadline)
			die("waiting", "bob's plan");
		usleep(200);
	}
}

static int
cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static void
report(const char *what, int64_t *us, int n)
{
	qsort(us, n, sizeof *us, cmp);
	printf("%s (%d runs)\n  p50 %.3f ms  p99 %.3f ms  max %.3f ms\n", what,
	    n, us[n / 2] / 1000.0, us[(n * 99) / 100] / 1000.0,
	    us[n - 1] / 1000.0);
}

int
main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 100, i;
	char dir[] = "/tmp/huddle-bench-XXXXXX", *err = NULL, *text, *cmd;
	struct team_options o;
	struct catalog *cat;
	struct bench b = { 0 };
	struct spawn_request alice = { .name = "alice", .role = "coder",
	    .prompt = "wait" };
	struct spawn_request bob = { .name = "bob", .role = "refactorer",
	    .prompt = "plan", .plan_required = 1 };
	int64_t *p1, *p2, start;

	/* Started again as huddle would be (no huddle-reaper lies beside
	 * this program): be that, never the benchmark. */
	if (argc > 1 && strcmp(argv[1], REAPER_ARG) == 0)
		return reaper_main(argc, argv);
	if (argc > 1 && strcmp(argv[1], MOUNTNS_HOLDER_ARG) == 0)
		return mountns_holder_main(argc, argv);
	if (runs < 1 || mkdtemp(dir) == NULL)
		die("setup", "bad RUNS or no /tmp");
	curl_global_init(CURL_GLOBAL_ALL);
	team_options_defaults(&o);
	if ((cat = catalog_load(NULL, &err)) == NULL)
		die("catalog", err);
	o.catalog = cat;
	o.workdir = dir;
	o.llm.provider = LLM_SCRIPT;
	o.llm.model = "script";
	/* bob's plans are all rounds of one turn. */
	o.max_rounds = runs + 10;
	text = scenario(runs);
	if ((o.llm.script = script_parse(text, &err)) == NULL)
		die("scenario", err);
	free(text);
	if ((b.team = team_open(&o, &err)) == NULL ||
	    team_start(b.team, &err) == -1 ||
	    team_spawn(b.team, &alice, &err) == -1 ||
	    team_spawn(b.team, &bob, &err) == -1)
		die("team", err);
	p1 = xcalloc(runs, sizeof *p1);
	p2 = xcalloc(runs, sizeof *p2);

	/* P1: alice idles; the request wakes her. */
	bench_wait(&b, EV_STATUS, "alice", "idle");
	for (i = 0; i < runs; i++) {
		start = clock_mono_us();
		if (team_request_shutdown(b.team, "alice", &err) == -1)
			die("shutdown request", err);
		p1[i] = bench_wait(&b, EV_LLM_CALL, "alice", NULL) - start;
		bench_wait(&b, EV_STATUS, "alice", "idle");
	}
	/* P2: bob waits on his plan; the approval wakes him. */
	for (i = 0; i < runs; i++) {
		enum proto_verdict v;
		char *msg = NULL;

		bench_plan_pending(&b);
		start = clock_mono_us();
		v = team_decide(b.team, NULL, 1, "", &msg);
		if (v != PROTO_DECIDED)
			die("approve", msg);
		free(msg);
		p2[i] = bench_wait(&b, EV_LLM_CALL, "bob", NULL) - start;
	}
	report("P1 shutdown request -> idle teammate's next model call", p1,
	    runs);
	report("P2 plan approval -> teammate's next model call", p2, runs);

	event_free_list(b.pending);
	team_free(b.team);
	script_free(o.llm.script);
	cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench/handshake: could not remove %s\n", dir);
	free(cmd);
	free(p1);
	free(p2);
	catalog_free(cat);
	curl_global_cleanup();
	return 0;
}
