/*
 * A bare team for the agent layer's unit tests (see agentfix.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/roles.h"
#include "agentfix.h"
#include "tools/policy.h"
#include "util/clock.h"
#include "util/xmalloc.h"

void
af_open(struct agentfix *f)
{
	struct team *t = &f->team;
	char *dir;

	memset(f, 0, sizeof *f);
	tu_team_open(&f->tu);
	dir = tu_tmpdir();
	f->workdir = realpath(dir, NULL);
	ck_assert_ptr_nonnull(f->workdir);
	free(dir);

	team_options_defaults(&t->opts);
	t->opts.workdir = f->workdir;
	t->home.workdir = f->workdir;
	t->home.state = f->tu.dir;
	t->home.lock_fd = -1;
	t->core.store = f->tu.store;
	t->core.bus = f->tu.bus;
	t->core.proto = f->tu.proto;
	t->core.tasks = f->tu.tasks;
	t->policy = policy_default();
	t->sb.mode = SANDBOX_ON;
	t->home.epoch_us = clock_mono_us();
	pthread_mutex_init(&t->crew.lock, NULL);
	pthread_mutex_init(&t->places.git_lock, NULL);
	pthread_mutex_init(&t->places.repo_lock, NULL);
	pthread_mutex_init(&t->budget.lock, NULL);
	pthread_mutex_init(&t->checks.check_lock, NULL);
	cancel_init(&t->checks.check_cancel);
	evq_init(&t->core.events);
}

struct agent *
af_agent(struct agentfix *f, const char *name)
{
	struct team *t = &f->team;
	struct member *m = roster_get(t->core.store, name);
	struct agent *a = xcalloc(1, sizeof *a);

	ck_assert_msg(m != NULL, "%s is no member", name);
	a->team = t;
	a->name = xstrdup(name);
	a->role = xstrdup(m->role);
	a->is_lead = m->is_lead;
	a->status = m->status;
	a->turn.transcript = json_array();
	cancel_init(&a->run.cancel);
	member_free(m);
	pthread_mutex_lock(&t->crew.lock);
	t->crew.agents = xgrow(t->crew.agents, &t->crew.capagents,
	    t->crew.nagents + 1,
	    sizeof *t->crew.agents);
	t->crew.agents[t->crew.nagents++] = a;
	pthread_mutex_unlock(&t->crew.lock);
	return a;
}

struct event *
af_events(struct agentfix *f)
{
	return evq_take(&f->team.core.events);
}

size_t
af_count(struct event *list, enum event_type type, const char *agent,
    struct event **last)
{
	size_t n = 0;

	for (; list != NULL; list = list->next) {
		if (list->type != type || (agent != NULL && (list->agent ==
		    NULL || strcmp(list->agent, agent) != 0)))
			continue;
		n++;
		if (last != NULL)
			*last = list;
	}
	return n;
}

void
af_wait_request(struct agentfix *f, enum req_type type, const char *to,
    char id[PROTO_ID_SIZE])
{
	int64_t deadline = clock_mono_ms() + 10000;
	struct request *list;
	size_t n, i;
	int found;

	for (;;) {
		uint64_t gen = bus_generation(f->team.core.bus, to);

		n = protocol_list(f->team.core.proto, 0, &list);
		for (i = 0, found = 0; i < n && !found; i++) {
			if (list[i].type == type && list[i].status ==
			    REQ_PENDING && strcmp(list[i].to, to) == 0) {
				memcpy(id, list[i].id, PROTO_ID_SIZE);
				found = 1;
			}
		}
		request_free_array(list, n);
		if (found)
			return;
		ck_assert_msg(bus_wait_since(f->team.core.bus, to, gen,
		    deadline,
		    NULL) == 1, "no %s request to %s came", req_type_name(type),
		    to);
	}
}

void
af_close(struct agentfix *f)
{
	struct team *t = &f->team;
	size_t i;

	for (i = 0; i < t->crew.nagents; i++)
		agent_free(t->crew.agents[i]);
	free(t->crew.agents);
	free(t->checks.checking);
	/* team_sandbox_open's, freed by team_free */
	free(t->places.git.path);
	free(t->places.git_common);
	if (t->roles != NULL)
		roles_free(t->roles);
	policy_free(t->policy);
	evq_destroy(&t->core.events);
	cancel_destroy(&t->checks.check_cancel);
	pthread_mutex_destroy(&t->checks.check_lock);
	pthread_mutex_destroy(&t->budget.lock);
	pthread_mutex_destroy(&t->places.repo_lock);
	pthread_mutex_destroy(&t->places.git_lock);
	pthread_mutex_destroy(&t->crew.lock);
	tu_team_close(&f->tu);
	tu_rmtree(f->workdir);
	free(f->workdir);
}
