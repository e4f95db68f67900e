/*
 * The team (see team.h): opening it, starting and reaping its agents,
 * the tick, closing it. Spawning a teammate is teamspawn.c's, what the
 * team's parts read of it teamstate.c's; what the person does is
 * teamperson.c's; the orderly quit is teamquit.c's.
 *
 * Each part of the team has a lock of its own (internal.h, checking.h,
 * places.h): the agents' (the list of agents), the budget's, the
 * checks', the repository's first check and the worktrees' (git_lock).
 * The agents' lock is never held while calling the store, the bus, git
 * or an agent, so it cannot take part in a deadlock; git_lock is taken
 * before the checks' lock.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/internal.h"
#include "agent/loop.h"
#include "agent/mcpoffers.h"
#include "agent/mcptools.h"
#include "agent/netgate.h"
#include "agent/permit.h"
#include "agent/places.h"
#include "agent/roles.h"
#include "agent/teamoutputs.h"
#include "agent/teamroles.h"
#include "agent/teamsandbox.h"
#include "agent/teamspawn.h"
#include "agent/teamstate.h"
#include "agent/teamtasks.h"
#include "agent/teamwithdraw.h"
#include "core/statedir.h"
#include "core/taskboard.h"
#include "tools/bash.h"
#include "tools/confine.h"
#include "tools/profile.h"
#include "tools/policy.h"
#include "tools/reaper.h"
#include "tools/worktree.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/number.h"
#include "util/xmalloc.h"

void
team_options_defaults(struct team_options *o)
{
	memset(o, 0, sizeof *o);
	llm_config_defaults(&o->llm);
	o->plan_review = PROTO_BY_TARGET | PROTO_BY_USER;
	o->max_teammates = 8;
	o->max_rounds = 0;	/* none: the budget, Esc and the person guard */
	o->compact_at = 75;
	o->bash_timeout_s = 120;
	o->max_procs = CONFINE_DEFAULT_PROCS;
	o->max_memory = CONFINE_DEFAULT_MEMORY;
	o->max_file_size = CONFINE_DEFAULT_FILE_SIZE;
	o->tmp_max.bytes = TMPUSE_DEFAULT_BYTES;
	o->tmp_max.files = TMPUSE_DEFAULT_FILES;
	o->quit_timeout_ms = 10000;
}

/* --- events from the core layers ------------------------------------------ */

static void
team_on_message(void *ud, const void *what)
{
	const struct message *m = what;
	struct team *t = ud;

	event_message(&t->core.events, m);
}

static void
team_on_request(void *ud, const void *what)
{
	const struct request *r = what;
	struct team *t = ud;

	event_request(&t->core.events, r);
}

/* The board tells its changes with the store's lock held, in the order
 * they committed (doc/architecture.md), so front ends end on a task's
 * newest state without sorting anything out here. */
static void
team_on_task(void *ud, const void *what)
{
	const struct task *k = what;
	struct team *t = ud;

	event_task(&t->core.events, k);
}

/* --- opening ------------------------------------------------------------------- */

/* Whether path is dir or lies beneath it. */
static int
team_beneath(const char *path, const char *dir)
{
	size_t len = strlen(dir);

	while (len > 1 && dir[len - 1] == '/')
		len--;
	return strncmp(path, dir, len) == 0 && (path[len] == '/' ||
	    path[len] == '\0' || len == 1);
}

/* The state must not lie where tools may write: the working directory
 * and the directories the person made writable. */
static int
team_check_state(struct team *t, char **err)
{
	size_t i;

	if (team_beneath(t->home.state, t->home.workdir)) {
		*err = xasprintf("the team's state folder %s lies inside the "
		    "working directory, where tools write; choose another "
		    "--state-dir", t->home.state);
		return -1;
	}
	for (i = 0; i < t->opts.nwritable; i++) {
		if (team_beneath(t->home.state, t->opts.writable[i])) {
			*err = xasprintf("the team's state folder %s lies "
			    "inside --writable %s; choose another --state-dir",
			    t->home.state, t->opts.writable[i]);
			return -1;
		}
	}
	return 0;
}

/* --new: the team kept in the working tree, if any, is set aside under
 * a name, which a notice gives with the way back to it (and *aside, for
 * an error that ends the start after it). */
static int
team_set_aside(struct team *t, const char *base, char **aside,
    char **err)
{
	int rc = statedir_set_aside(base, t->home.workdir, aside, err);

	if (rc == 1)
		event_notice(&t->core.events, NULL,
		    "the team kept in %s is set "
		    "aside as %s: huddle --resume --team %s continues it "
		    "(huddle --teams lists them)", t->home.workdir, *aside,
		    *aside);
	return rc == -1 ? -1 : 0;
}

/* A notice, on the screen as in --headless, that model `id` retires
 * soon (a retired one never gets this far: catalog_configure refuses
 * it). */
static void
team_notice_retiring(struct team *t, const char *id)
{
	struct model_info m;
	char *msg = NULL;

	if (t->opts.catalog == NULL || id == NULL)
		return;
	catalog_lookup(t->opts.catalog, id, &m);
	if (catalog_life(&m, time(NULL), &msg) == CATALOG_RETIRING)
		event_notice(&t->core.events, NULL, "%s; choose another with "
		    "--model NAME", msg);
	free(msg);
}

struct team *
team_open(const struct team_options *o, char **err)
{
	struct team *t = xcalloc(1, sizeof *t);
	struct member *members;
	char *base, *notice = NULL, *aside = NULL;
	const char *s, *nl;
	size_t n;

	t->opts = *o;
	t->budget.max_cost = o->max_cost;
	t->home.lock_fd = -1;
	t->home.epoch_us = clock_mono_us();
	t->home.workdir = xstrdup(o->workdir);
	t->opts.workdir = t->home.workdir;
	pthread_mutex_init(&t->crew.lock, NULL);
	cancel_init(&t->checks.check_cancel);
	pthread_mutex_init(&t->places.git_lock, NULL);
	pthread_mutex_init(&t->places.repo_lock, NULL);
	pthread_mutex_init(&t->budget.lock, NULL);
	pthread_mutex_init(&t->checks.check_lock, NULL);
	evq_init(&t->core.events);
	t->crew.thread = loop_main;
	/* The state lives out of the workdir, in a folder of the team's
	 * own, locked for this process before anything is read. */
	if ((base = statedir_base(o->state_base, err)) == NULL)
		goto fail;
	if (o->fresh && team_set_aside(t, base, &aside, err) == -1) {
		free(base);
		goto fail;
	}
	t->home.state = statedir_team(base, t->home.workdir, o->team_name, err);
	free(base);
	if (t->home.state == NULL || team_check_state(t, err) == -1 ||
	    (t->home.lock_fd = statedir_lock(t->home.state, err)) == -1 ||
	    team_outputs_open(t, err) == -1 ||
	    team_sandbox_open(t, err) == -1 ||
	    statedir_stray(t->home.state, t->home.workdir, &notice, err) == -1)
		goto fail;
	if (notice != NULL) {
		event_notice(&t->core.events, NULL, "%s", notice);
		free(notice);
	}
	team_notice_retiring(t, o->llm.model);
	/* One notice per Claude Code file: what it narrows, what not. */
	for (s = o->claude_notice; s != NULL && *s != '\0'; s = nl ? nl + 1 :
	    NULL) {
		nl = strchr(s, '\n');
		event_notice(&t->core.events, NULL, "%.*s", nl ? (int)(nl - s) :
		    (int)strlen(s), s);
	}
	if (o->teammate_model != NULL)
		team_notice_retiring(t, o->teammate_model);
	if ((t->core.store = store_open(t->home.state, 0, err)) == NULL)
		goto fail;
	store_on_full(t->core.store, evq_notice, &t->core.events);
	n = roster_list(t->core.store, &members);
	member_free_array(members, n);
	if (o->resume && n == 0) {
		*err = xasprintf("there is no team%s%s%s to resume for %s (its "
		    "state would be in %s; huddle --teams lists the teams "
		    "kept)", o->team_name ? " called '" : "", o->team_name ?
		    o->team_name : "", o->team_name ? "'" : "", t->home.workdir,
		    t->home.state);
		goto fail;
	}
	if (!o->resume && n > 0) {
		*err = o->team_name != NULL ? xasprintf("a team called '%s' "
		    "already works in %s: --resume --team %s continues it, "
		    "or choose another name", o->team_name, t->home.workdir,
		    o->team_name) : xasprintf("a team already works in %s: "
		    "--resume continues it, --new sets it aside and starts "
		    "a fresh one", t->home.workdir);
		goto fail;
	}
	if (!o->resume && roster_add(t->core.store, ROSTER_LEAD, "lead", "", 0,
	    err) == -1)
		goto fail;
	if (o->policy_path != NULL) {
		if ((t->policy = policy_load(o->policy_path, err)) == NULL)
			goto fail;
	} else
		t->policy = policy_default();
	/* Roles: read once, so the lead's tools stay the same for its life
	 * (roles.h). */
	if (team_roles_open(t, err) == -1)
		goto fail;
	t->core.bus = bus_new(t->core.store);
	t->core.proto = protocol_new(t->core.bus);
	protocol_set_answerers(t->core.proto, REQ_PLAN_APPROVAL,
	    o->plan_review);
	if (o->shutdown_timeout_ms > 0)
		protocol_set_timeout(t->core.proto, REQ_SHUTDOWN,
		    o->shutdown_timeout_ms);
	t->core.tasks = taskboard_new(t->core.bus);
	/* Its listener goes first: a network request is noted before a
	 * front end can decide it. */
	if (o->network == TEAM_NET_PROXY && (t->netgate =
	    netgate_open(t->core.proto, o->local, o->nlocal, err)) == NULL)
		goto fail;
	/* Outside a git repository --worktrees says so at once. */
	if (o->worktrees && places_git_repo(t, err) == -1)
		goto fail;
	if (mcptools_open(t, err) == -1)
		goto fail;
	bus_listen(t->core.bus, team_on_message, t);
	protocol_listen(t->core.proto, team_on_request, t);
	taskboard_listen(t->core.tasks, team_on_task, t);
	free(aside);
	return t;
fail:
	/* The person learns where the kept team went, start or not. */
	if (aside != NULL) {
		char *was = *err;

		*err = xasprintf("%s (the team kept there was set aside as %s: "
		    "huddle --resume --team %s continues it)", was, aside,
		    aside);
		free(was);
	}
	free(aside);
	team_free(t);
	return NULL;
}

/* --- agents --------------------------------------------------------------------- */

char *
team_budget_text(struct team *t)
{
	double max = team_budget(t), spent = team_cost(t);

	if (max <= 0)
		return xasprintf("the team has spent $%.2f; no limit is set",
		    spent);
	return xasprintf("the team has spent $%.2f of its $%.2f limit%s",
	    spent, max, spent >= max ? ": no new model call starts until "
	    "you raise it (/budget USD)" : "");
}

int
team_context(struct team *t, const char *name, int64_t *tokens,
    int64_t *window)
{
	struct agent *a = team_find(t, name);

	if (a == NULL)
		return -1;
	*tokens = atomic_load(&a->win.ctx_tokens);
	*window = a->win.window;
	return 0;
}

char *
team_context_text(struct team *t, const char *name)
{
	struct agent *a = team_find(t, name);
	int64_t tokens, window, before, after, at;
	char used[NUMBER_THOUSANDS_SIZE], of[NUMBER_THOUSANDS_SIZE];
	char b[NUMBER_THOUSANDS_SIZE], f[NUMBER_THOUSANDS_SIZE], *text, *last;
	char *instr;
	int n;

	if (a == NULL)
		return NULL;
	tokens = atomic_load(&a->win.ctx_tokens);
	window = a->win.window;
	n = atomic_load(&a->win.compactions);
	before = atomic_load(&a->win.last_before);
	after = atomic_load(&a->win.last_after);
	at = atomic_load(&a->win.last_at);
	number_thousands(tokens, used, sizeof used);
	number_thousands(window, of, sizeof of);
	number_thousands(before, b, sizeof b);
	number_thousands(after, f, sizeof f);
	last = n == 0 ? xstrdup("not compacted yet") : xasprintf("compacted "
	    "%d time%s, the last %lld s ago: %s → %s tokens", n, n == 1 ? "" :
	    "s", (long long)((clock_wall_ms() - at) / 1000), b, f);
	/* The instruction files its prompt holds (instructions.h). */
	pthread_mutex_lock(&t->crew.lock);
	instr = xstrdup(a->frame.sources && *a->frame.sources ?
	    a->frame.sources : "none");
	pthread_mutex_unlock(&t->crew.lock);
	text = xasprintf("%s: %s of %s tokens in its window (%lld%%), "
	    "compacts past %lld%% %s · %s · instructions: %s", name, used, of,
	    window > 0 ? (long long)(tokens * 100 / window) : 0LL,
	    (long long)t->opts.compact_at, a->win.server_compaction ?
	    "on the server" : "itself", last, instr);
	free(last);
	free(instr);
	return text;
}

int
team_start(struct team *t, char **err)
{
	struct member *m;
	size_t n, i;
	int rc = 0;

	permit_forget(t);
	team_quit_told(t);
	mcpoffers_ask(t);
	n = roster_list(t->core.store, &m);
	for (i = 0; i < n && rc == 0; i++) {
		if (m[i].status == MEMBER_TERMINATED)
			continue;
		if (!m[i].is_lead)
			event_relaunched(&t->core.events, m[i].name, m[i].role,
			    m[i].plan_required, team_model_of(t, &m[i]),
			    m[i].autonomous, t->opts.resume);
		rc = team_launch(t, m[i].name, m[i].role, err);
		/* A teammate that cannot start (its worktree is gone) is
		 * reported; the others go on. */
		if (rc == -1 && !m[i].is_lead) {
			event_error(&t->core.events, m[i].name,
			    "not started: %s",
			    *err);
			free(*err);
			*err = NULL;
			rc = 0;
		}
	}
	member_free_array(m, n);
	return rc;
}

void
team_stop_agent(struct team *t, struct agent *a, int forced)
{
	if (forced)
		atomic_store(&a->run.forced, 1);
	atomic_store(&a->run.stop, 1);
	cancel_fire(&a->run.cancel);
	llm_cancel(a->run.llm);
	bus_wake(t->core.bus, a->name);
}

/* Joins and frees the agents whose threads have ended. */
static void
team_reap(struct team *t)
{
	struct agent *done[64];
	size_t i, j, n = 0;

	pthread_mutex_lock(&t->crew.lock);
	for (i = j = 0; i < t->crew.nagents; i++) {
		if (atomic_load(&t->crew.agents[i]->run.finished) && n < 64)
			done[n++] = t->crew.agents[i];
		else
			t->crew.agents[j++] = t->crew.agents[i];
	}
	t->crew.nagents = j;
	pthread_mutex_unlock(&t->crew.lock);
	for (i = 0; i < n; i++) {
		pthread_join(done[i]->run.thread, NULL);
		/* Ended for good: its worktree goes if nothing is lost. */
		if (done[i]->status == MEMBER_TERMINATED && !done[i]->is_lead)
			places_retire(t, done[i]->name);
		agent_free(done[i]);
	}
}

/* --- time ------------------------------------------------------------------ */

void
team_tick(struct team *t)
{
	protocol_tick(t->core.proto, clock_wall_ms());
	/* A host allowed for the whole team by an answer whose request
	 * was noted late (netgate.c: the asker settles it) makes others
	 * moot after the answer's own withdrawal ran: they go here. */
	netgate_withdraw_moot(t->netgate);
	bus_poll(t->core.bus);
	team_reap(t);
	team_reap_checkers(t, 0);
}

void
team_free(struct team *t)
{
	size_t i;

	if (t == NULL)
		return;
	pthread_mutex_lock(&t->crew.lock);
	t->crew.closing = 1;
	pthread_mutex_unlock(&t->crew.lock);
	/* No agent can be added now; the list only shrinks here. */
	for (i = 0; i < t->crew.nagents; i++)
		team_stop_agent(t, t->crew.agents[i], 0);
	for (i = 0; i < t->crew.nagents; i++) {
		pthread_join(t->crew.agents[i]->run.thread, NULL);
		agent_free(t->crew.agents[i]);
	}
	free(t->crew.agents);
	/* No checker can be added now either. */
	pthread_mutex_lock(&t->checks.check_lock);
	t->checks.checks_closed = 1;
	pthread_mutex_unlock(&t->checks.check_lock);
	team_reap_checkers(t, 1);
	free(t->checks.checkers);
	free(t->checks.checking);
	cancel_destroy(&t->checks.check_cancel);
	mcptools_close(t);
	/* What escaped a command whose reaper it killed ends with us. */
	bash_sweep_orphans(BASH_GRACE_MS);
	taskboard_free(t->core.tasks);
	netgate_close(t->netgate);
	protocol_free(t->core.proto);
	bus_free(t->core.bus);
	store_close(t->core.store);
	/* Its TMPDIR is in the team's folder: gone before the lock. */
	team_sandbox_close(t);
	/* Last, so that no other huddle opens the store while this one
	 * still has it open. */
	if (t->home.lock_fd != -1)
		close(t->home.lock_fd);
	profile_free(t->places.git_profile);
	free(t->places.git_common);
	free(t->home.outputs);
	git_clear(&t->places.git);
	policy_free(t->policy);
	roles_free(t->roles);
	evq_destroy(&t->core.events);
	pthread_mutex_destroy(&t->crew.lock);
	pthread_mutex_destroy(&t->places.git_lock);
	pthread_mutex_destroy(&t->places.repo_lock);
	pthread_mutex_destroy(&t->budget.lock);
	pthread_mutex_destroy(&t->checks.check_lock);
	free(t->home.workdir);
	free(t->home.state);
	free(t);
}
