/*
 * Agents join the team (see teamspawn.h): a teammate the lead spawns is
 * checked (the name, the model, the team's size), written to the store
 * with its first message in one transaction, and started; team_start
 * starts the members a resumed team had. An agent's thread runs the
 * team's crew.thread (loop.c's loop, set by team_open), so the tools
 * that spawn a teammate never call up to the loop that runs them.
 */
#include "core/wtrecord.h"
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/context.h"
#include "agent/internal.h"
#include "agent/places.h"
#include "agent/roles.h"
#include "agent/teamroles.h"
#include "agent/teamsandbox.h"
#include "agent/teamspawn.h"
#include "tools/profile.h"
#include "tools/worktree.h"
#include "util/log.h"
#include "util/xmalloc.h"

const char *
team_model_of(struct team *t, const struct member *m)
{
	if (m != NULL && !m->is_lead && m->model != NULL && *m->model != '\0')
		return m->model;
	if (m != NULL && !m->is_lead && t->opts.teammate_model != NULL)
		return t->opts.teammate_model;
	return t->opts.llm.model;
}

/* Fills cfg for talking to model `id` as the catalog and the person's
 * choice say; *info gets what the catalog knows of it, and the person's
 * price where it has none. A model nothing prices is refused while a
 * spending limit is set (one /budget set counts). */
static int
team_model_config(struct team *t, const char *id, struct model_info *info,
    struct llm_config *cfg, char **err)
{
	struct model_choice choice = t->opts.choice;

	*cfg = t->opts.llm;
	cfg->model = id;
	catalog_lookup(t->opts.catalog, id, info);
	if (t->opts.choice.context_window > 0)
		info->context_window = t->opts.choice.context_window;
	choice.budget = cfg->provider != LLM_SCRIPT && (choice.budget ||
	    team_budget(t) > 0);
	if (catalog_price(info, &choice, err) == -1)
		return -1;
	return catalog_configure(info, &choice, cfg, err);
}

/* Whether an agent of the team already talks to model `id`. */
static int
team_model_in_use(struct team *t, const char *id)
{
	size_t i;
	int found = 0;

	pthread_mutex_lock(&t->crew.lock);
	for (i = 0; i < t->crew.nagents && !found; i++)
		found = strcmp(t->crew.agents[i]->model_id, id) == 0;
	pthread_mutex_unlock(&t->crew.lock);
	return found;
}

int
team_launch(struct team *t, const char *name, const char *role, char **err)
{
	struct agent *a = xcalloc(1, sizeof *a);
	struct llm_config cfg;
	struct member *m = roster_get(t->core.store, name);
	int rc;

	a->team = t;
	a->name = xstrdup(name);
	a->role = xstrdup(role ? role : "");
	a->is_lead = strcmp(name, ROSTER_LEAD) == 0;
	a->role_def = a->is_lead ? NULL : roles_find(t->roles, a->role);
	a->status = m ? m->status : MEMBER_STARTING;
	a->turn.autonomous = m != NULL && m->autonomous;
	a->model_id = xstrdup(team_model_of(t, m));
	cancel_init(&a->run.cancel);
	/* A worktree gone missing or moved is reported, never made again
	 * over what may be work: its teammate does not start. */
	if (places_own(t, name) ? places_enter(a, err) == -1 :
	    (a->at.home = team_sandbox_profile(t, t->home.workdir, 0,
	    err)) == NULL) {
		member_free(m);
		agent_free(a);
		return -1;
	}
	member_free(m);
	if (team_model_config(t, a->model_id, &a->model, &cfg, err) == -1) {
		agent_free(a);
		return -1;
	}
	a->model.id = a->model_id;
	context_init(a);
	cfg.compact_trigger = context_trigger(a);
	/* Said once for each model the catalog lacks, with what huddle
	 * assumes of it. */
	if (!a->model.known && cfg.provider != LLM_SCRIPT &&
	    !team_model_in_use(t, a->model_id)) {
		char *msg = catalog_assumed(&a->model);

		event_notice(&t->core.events, a->name, "%s", msg);
		free(msg);
	}
	cfg.agent = a->name;
	a->run.llm = llm_client_new(&cfg);
	pthread_mutex_lock(&t->crew.lock);
	t->crew.agents = xgrow(t->crew.agents, &t->crew.capagents,
	    t->crew.nagents + 1,
	    sizeof *t->crew.agents);
	/* Started under the lock so a reaper never sees a half-made agent,
	 * and never once team_free has begun. */
	rc = t->crew.closing ? -1 : pthread_create(&a->run.thread, NULL,
	    t->crew.thread, a);
	if (rc == 0)
		t->crew.agents[t->crew.nagents++] = a;
	pthread_mutex_unlock(&t->crew.lock);
	if (rc != 0) {
		*err = xasprintf("cannot start a thread for %s", name);
		agent_free(a);
		return -1;
	}
	return 0;
}

static size_t
team_live_teammates(struct team *t)
{
	struct member *m;
	size_t n = roster_list(t->core.store, &m), i, live = 0;

	for (i = 0; i < n; i++)
		live += !m[i].is_lead && m[i].status != MEMBER_TERMINATED;
	member_free_array(m, n);
	return live;
}

int
team_spawn(struct team *t, const struct spawn_request *asked, char **err)
{
	struct spawn_request with_role, *s = &with_role;
	struct message task = { 0 };
	struct model_info info;
	struct llm_config cfg;
	const char *model;
	int autonomous, rc, git_held = 0;
	const char *refused;
	char *base = NULL;

	/* A role whose file was left out is not a free word with every
	 * tool: the spawn is refused, saying why. */
	if (asked->role != NULL && roles_find(t->roles, asked->role) == NULL &&
	    (refused = roles_refused(t->roles, asked->role)) != NULL) {
		*err = xasprintf("the role %s is defined in a file that could "
		    "not be used (%s): spawn it under a role that loads, or "
		    "have the file fixed", asked->role, refused);
		return -1;
	}
	/* A role defined for the team sets its model and gates. */
	team_role_apply(t, asked, &with_role);
	model = s->model ? s->model : t->opts.teammate_model;
	autonomous = s->autonomous || t->opts.autonomous;

	if (atomic_load(&t->quit.quitting)) {
		*err = xstrdup("the team is shutting down");
		return -1;
	}
	if (team_live_teammates(t) >= (size_t)t->opts.max_teammates) {
		*err = xasprintf("the team is full (%d teammates); shut one "
		    "down first", t->opts.max_teammates);
		return -1;
	}
	/* A model the person's choices cannot work with is refused here,
	 * before anything is written. */
	if (model != NULL && team_model_config(t, model, &info, &cfg,
	    err) == -1)
		return -1;
	/* A member's name and a worktree's are never the same but for its
	 * own. */
	if (places_name_free(t, s->name, err) == -1)
		return -1;
	/* Its worktree first (a name free for a member, and for a path and
	 * a branch): a store that fails takes it back. */
	if (s->worktree || t->opts.worktrees) {
		struct member *m = roster_get(t->core.store, s->name);

		if (m != NULL) {
			*err = xasprintf("a member named '%s' already exists",
			    s->name);
			member_free(m);
			return -1;
		}
		if (roster_check_name(s->name, err) == -1 ||
		    places_git_repo(t, err) == -1)
			return -1;
		/* Held until the worktree is recorded with its member: no
		 * one finds it unrecorded meanwhile (/discard's leftovers). */
		pthread_mutex_lock(&t->places.git_lock);
		git_held = 1;
		if (worktree_add(&t->places.git, t->home.workdir, s->name,
		    s->base,
		    &base, err) == -1) {
			pthread_mutex_unlock(&t->places.git_lock);
			return -1;
		}
	}
	/* The member and its task, its first message, commit together and
	 * before its thread starts: a crash at any point loses nothing. */
	if (store_begin(t->core.store, err) == -1)
		goto undo;
	rc = roster_add_tx(t->core.store, s->name, s->role, s->prompt,
	    s->plan_required, err);
	if (rc == 0 && base != NULL)
		rc = wtrecord_add_tx(t->core.store, s->name, base, s->name,
		    err);
	/* The lead hears when it is idle; an autonomous teammate's work
	 * is the board's, which tells the lead itself. */
	if (rc == 0 && !autonomous)
		rc = roster_set_awaited_tx(t->core.store, s->name, 1, err);
	if (rc == 0 && model != NULL)
		rc = roster_set_model_tx(t->core.store, s->name, model, err);
	if (rc == 0 && autonomous)
		rc = roster_set_autonomous_tx(t->core.store, s->name, err);
	if (rc == 0 && bus_post_tx(t->core.store, ROSTER_LEAD, s->name,
	    MSG_MESSAGE, s->prompt, NULL, &task, err) < 0)
		rc = -1;
	if (store_commit(t->core.store, rc == 0, rc == 0 ? err : NULL) == -1) {
		store_unlock(t->core.store);
		message_clear(&task);
		goto undo;
	}
	bus_wake(t->core.bus, s->name);
	bus_announce(t->core.bus, &task);
	store_unlock(t->core.store);
	if (git_held)
		pthread_mutex_unlock(&t->places.git_lock);
	message_clear(&task);
	event_spawned(&t->core.events, s->name, s->role, s->plan_required,
	    model ?
	    model : t->opts.llm.model, autonomous, base);
	free(base);
	return team_launch(t, s->name, s->role, err);
undo:
	if (base != NULL) {
		char *why = NULL;

		if (worktree_remove(&t->places.git, t->home.workdir, s->name, 1,
		    &why) == -1) {
			log_printf("%s: undoing its worktree: %s", s->name, why);
			free(why);
		}
		free(base);
	}
	if (git_held)
		pthread_mutex_unlock(&t->places.git_lock);
	return -1;
}
