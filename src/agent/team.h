/*
 * The team: the lead and its teammates, each an agent loop in its own
 * thread, over one store, bus and protocol engine. This is the whole of
 * what a front end (the screen, or the JSONL stream of --headless) needs:
 * it starts the team, reads its events, passes on what the person types
 * and decides, ticks it once a second, and quits it.
 *
 * Every team_* function here is for the main thread.
 */
#ifndef HUDDLE_AGENT_TEAM_H
#define HUDDLE_AGENT_TEAM_H

#include <stdint.h>

#include "agent/event.h"
#include "core/protocol.h"
#include "core/roster.h"
#include "core/store.h"
#include "core/task.h"
#include "llm/catalog.h"
#include "llm/llm.h"
#include "tools/ccrules.h"
#include "tools/tmpuse.h"

struct agent;
struct tool_output;

/* What network commands get (--network). */
enum team_network {
	TEAM_NET_PROXY,		/* through huddle's proxy: each new host
				 * asks the person (agent/netgate.h) */
	TEAM_NET_OPEN,		/* all of it, directly */
	TEAM_NET_NONE		/* none */
};

struct team_options {
	const char		*workdir;	/* absolute and canonical */
	struct llm_config	 llm;		/* for every agent; its model
						 * is the lead's */
	const struct catalog	*catalog;	/* the models (required) */
	struct model_choice	 choice;	/* the person's overrides */
	const char		*teammate_model; /* NULL: the lead's */
	double			 max_cost;	/* US dollars; 0: no limit */
	int			 resume;
	int			 fresh;		/* --new: set the kept team
						 * aside first */
	const char		*team_name;	/* --team, or NULL */
	unsigned		 plan_review;	/* PROTO_BY_* for plans */
	int			 max_teammates;	/* default 8 */
	int			 max_rounds;	/* per turn; 0 (default): no
						 * limit */
	int			 compact_at;	/* percent of the window the
						 * prompt may fill; default 75
						 * (0 or 100: never compact) */
	int			 bash_timeout_s; /* default 120 */
	int64_t			 quit_timeout_ms; /* default 10 s */
	int64_t			 shutdown_timeout_ms; /* 0: the engine's */
	const char		*policy_path;	/* risk policy file, or NULL */
	const char		*state_base;	/* --state-dir, or NULL for
						 * $XDG_STATE_HOME/huddle */
	const char *const	*writable;	/* --writable DIRs (absolute) */
	size_t			 nwritable;
	const char *const	*readable;	/* --readable PATHs (absolute,
						 * canonical): let through
						 * though hidden */
	size_t			 nreadable;
	const char *const	*sockets;	/* --allow-socket PATHs */
	size_t			 nsockets;
	const char *const	*local;		/* --allow-local HOST:PORTs */
	size_t			 nlocal;
	long long		 max_procs;	/* per command; 0: none */
	long long		 max_memory;	/* bytes per process; 0: none */
	long long		 max_file_size;	/* bytes; 0: none */
	struct tmpuse		 tmp_max;	/* the TMPDIR's ceiling
						 * (tools/tmpuse.h) */
	enum team_network	 network;	/* default TEAM_NET_PROXY */
	int			 no_network;	/* network is TEAM_NET_NONE */
	int			 no_sandbox;	/* commands run unconfined */
	const char		*verify;	/* --verify: checks every task
						 * before it is completed */
	int			 autonomous;	/* --autonomous: every teammate
						 * takes tasks from the board */
	int			 worktrees;	/* --worktrees: every teammate
						 * in a git worktree */
	/* What the settings files say beyond the options (doc/settings.md);
	 * each NULL when absent. Only the person's own settings (or the
	 * command line) may fill the first two: they open gates. */
	const char		*config_dir;	/* the person's folder
						 * (util/configdir.h) */
	json_t			*mcp_servers;	/* name -> server, the shape
						 * of .mcp.json's mcpServers */
	const char		*mcp_origin;	/* where they came from, for
						 * /mcp ("settings", …) */
	json_t			*mcp_allow;	/* array of MCP tool names
						 * ("mcp__S__T", "mcp__S__*")
						 * that run without asking */
	json_t			*roles;		/* role name -> {"model": …}:
						 * the settings' word on roles */
	json_t			*instructions;	/* array of extra instruction
						 * files, relative to the
						 * working tree */
	/* Claude Code's settings files in the project (ccsettings.h):
	 * their deny and ask rules for every call of bash and the file
	 * tools, and what was read of them, a line per file, for a notice
	 * at the start; each NULL when none. */
	const struct ccrules	*claude_rules;
	const char		*claude_notice;
};

/* Fills o with the defaults above. */
void team_options_defaults(struct team_options *o);

struct team;

/*
 * Opens the team of workdir: its state folder (core/statedir.h) is found
 * or made, locked for this process, and its store opened; a team an older
 * huddle kept in <workdir>/.huddle is moved there first. A fresh start
 * needs a workdir with no team yet (the lead is created); --resume needs
 * one. Returns NULL with *err.
 */
struct team *team_open(const struct team_options *o, char **err);

/* Starts the lead and, on resume, every teammate that was not
 * terminated. Returns 0 or -1 with *err. */
int team_start(struct team *t, char **err);

/* The queue of events to show. */
struct evq *team_events(struct team *t);

struct store *team_store(struct team *t);
struct bus *team_bus(struct team *t);

/* What the quit's shutdown requests say. They come from MSG_SYSTEM: one
 * approved stops the teammate without ending it, so --resume brings it
 * back as it was. */
#define TEAM_QUIT_REASON "the person is quitting huddle; approve to stop " \
	"now: you will continue where you are when the team is resumed"

/* The reason a permission request still waiting for the person is
 * withdrawn with when the quit begins (the table marks such rows). */
#define TEAM_WITHDRAWN "withdrawn at quit"

/* The team's state folder. */
const char *team_state_dir(struct team *t);

/* Where the whole output of agent's tool call `id` is kept when it is
 * (teamoutputs.c): a path (malloc'd) that may not exist, or NULL for an
 * id that names no file. */
char *team_output_path(struct team *t, const char *agent, const char *id);

/* The TCP port of the team's network proxy on 127.0.0.1, or 0 when
 * commands do not go through one (--network open or none). */
int team_proxy_port(struct team *t);

/* What /mcp shows: the MCP servers, their states and tools. */
char *mcptools_text(struct team *t);

/* /mcp logout NAME: forgets the person's sign-in to server name (its
 * tokens, in memory and in their store); *msg a sentence for the person
 * (malloc'd). Returns 0, or -1 when there is no such HTTP server. */
int mcptools_logout(struct team *t, const char *name, char **msg);

/* The working directory (absolute). */
const char *team_workdir(struct team *t);

/* When the team was opened (clock_mono_us): the zero of event times. */
int64_t team_epoch_us(struct team *t);
struct protocol *team_protocol(struct team *t);

/* The person says `text` to member `to` (the lead by default). */
int team_say(struct team *t, const char *to, const char *text, char **err);

/*
 * Finds the request `target` names: a request's id; else the start of
 * the id (with or without "req_") of exactly one pending request that
 * waits for the person; else a teammate with exactly one such request.
 * Copies its id into id and returns 0; anything else (no match, or more
 * than one) is -1 with a sentence in *err that says what would match.
 */
int team_find_request(struct team *t, const char *target,
    char id[PROTO_ID_SIZE], char **err);

/*
 * The person approves or rejects the request `target` names (see
 * team_find_request; NULL: the oldest pending request that waits for the
 * person) with optional feedback. A target that names no single request
 * decides nothing. Returns the verdict; *msg always gets a sentence to
 * show, which names the request decided.
 */
enum proto_verdict team_decide(struct team *t, const char *target,
    int approve, const char *feedback, char **msg);

/*
 * The person rejects, with optional feedback, every pending request from
 * `name` that is theirs to answer (its permission and network requests,
 * its MCP offers when `name` is "system", its plans when the person
 * reviews plans); a request addressed to `name` (a shutdown) is not the
 * person's and stays. Each goes through the engine as team_decide's
 * does. Requests that arrive meanwhile keep waiting. Returns how many
 * were rejected; *msg always gets one sentence saying so.
 */
int team_reject_all(struct team *t, const char *name, const char *feedback,
    char **msg);

/* Raises (or lowers) the team's spending limit; 0 lifts it. Agents
 * waiting on the old limit go on. */
void team_set_budget(struct team *t, double max_cost);

/* The team's spending limit in US dollars (0: none) and its spend. */
double team_budget(struct team *t);
double team_cost(struct team *t);

/* The model member m talks to: the one it was given, else the team's. */
const char *team_model_of(struct team *t, const struct member *m);

/* The lead's model. */
const char *team_lead_model(struct team *t);

/* /roles' report: the team's roles and the files left out
 * (agent/roles.h's roles_json). */
json_t *team_roles_json(struct team *t);

/* A line for the person: how commands are confined; and the gist of it
 * in a few words (static). */
char *team_sandbox_text(struct team *t);
const char *team_sandbox_brief(struct team *t);

/* A line for the person: what the team has spent, and of what limit. */
char *team_budget_text(struct team *t);

/*
 * The person interrupts member `name`'s turn: its model call and running
 * command are cancelled, its remaining tool calls get error results, and
 * it waits for a message. Returns 0, or -1 with *err when it is not
 * working.
 */
int team_interrupt(struct team *t, const char *name, char **err);

/* The person asks member `name` to compact its conversation now: at its
 * next model call, or at once when it is idle. */
int team_compact(struct team *t, const char *name, char **err);

/* Member `name`'s context: the tokens its next request holds (as last
 * counted) and its window. Returns -1 when it does not run. */
int team_context(struct team *t, const char *name, int64_t *tokens,
    int64_t *window);

/* A line for the person on member `name`'s context window: how full, and
 * its last compaction. NULL when no such member runs. */
char *team_context_text(struct team *t, const char *name);

/* The team's task board. */
struct taskboard *team_taskboard(struct team *t);

/* The person adds a task that waits for the tasks `after` names, done
 * in `worktree` (NULL: where its owner works). Each of these returns 0
 * or -1, with a sentence to show in *msg. */
int team_task_add(struct team *t, const char *subject,
    const char *const *after, size_t nafter, const char *worktree,
    char **msg);

/* The person gives task `id` to a teammate. */
int team_task_assign(struct team *t, const char *id, const char *teammate,
    char **msg);

/* The person cancels or reopens task `id` (or completes it, when it has
 * no check). */
int team_task_move(struct team *t, const char *id, enum task_status status,
    char **msg);

/* The person completes task `id`: a task with a check is completed by a
 * thread of its own once the check passes, and a notice says how it
 * went. */
int team_task_done(struct team *t, const char *id, char **msg);

/* The person's view of teammate name's worktree: {name, branch, base,
 * files: [{path, added, removed}], added, removed, patch} — everything
 * it changed against its base, committed or not. NULL with *err. */
json_t *places_diff(struct team *t, const char *name, char **err);

/* Commits name's work on its branch and merges it into the branch of the
 * person's tree, only when that tree is clean; a conflict aborts and
 * changes nothing. Returns 0 (merged, or nothing to merge) or -1; *msg
 * says what happened. */
int places_merge(struct team *t, const char *name, char **msg);

/* Deletes the worktree and branch of teammate name, which must not be
 * running — only when confirmed; unconfirmed, *msg says what it would
 * delete and how to confirm (and -1 is returned). */
int places_discard(struct team *t, const char *name, int confirmed,
    char **msg);

/* {worktrees: [{name, status, branch, path, base, missing, dirty, ahead,
 * behind, merged, error?}]}. */
json_t *places_list(struct team *t);

/* The person asks teammate `name` to shut down (a shutdown request). */
int team_request_shutdown(struct team *t, const char *name, char **err);

/* Stops teammate `name` now: its model call and commands are cancelled,
 * its thread ends, and it is marked terminated. */
int team_force_stop(struct team *t, const char *name, char **err);

/* The one-second tick: expires requests, notices other processes' writes
 * and reaps agent and check threads that ended. */
void team_tick(struct team *t);

/*
 * Starts a graceful quit: a shutdown request to every live teammate; those
 * that have not stopped by the quit timeout are cancelled, then the lead
 * is stopped. Call team_quit_poll() on each pass until it returns 1.
 */
void team_quit_begin(struct team *t);
int team_quit_poll(struct team *t);

/* Milliseconds until the quit stops whoever is left (0 when due). */
int64_t team_quit_left_ms(struct team *t);

/*
 * Ends the quit now: every agent is told to stop (kept for --resume, its
 * unanswered shutdown request withdrawn). It returns at once; team_free
 * waits for the threads, which a running command keeps at most a few
 * seconds (tools/bash.h).
 */
void team_quit_force(struct team *t);

/* Whether a quit is under way. */
int team_quitting(struct team *t);

/* A teammate to spawn. */
struct spawn_request {
	const char	*name;
	const char	*role;
	const char	*prompt;	/* its first message, from the lead */
	const char	*model;		/* NULL: the team's for teammates */
	int		 plan_required;
	int		 autonomous;	/* it takes tasks from the board */
	int		 worktree;	/* it works in a worktree of its own */
	const char	*base;		/* its worktree's start (NULL: HEAD) */
};

/* Adds and starts a teammate (teamspawn.c), as the lead's
 * spawn_teammate does. Checks the name, the model and the team
 * size. Safe from any thread. */
int team_spawn(struct team *t, const struct spawn_request *s, char **err);

/* Stops every thread (cancelling what runs) and frees the team. */
void team_free(struct team *t);

/*
 * A member of the team that runs tool calls on the calling thread, with
 * no model and no thread of its own (teamtools.c): the tools checked
 * through the dispatch and gates an agent's turn uses, by the fuzzers
 * and tests. It works at its home (the working directory), with an
 * empty conversation and no role. Returns it, or NULL with *err.
 */
struct agent *team_tool_member(struct team *t, const char *name, char **err);

/* Runs one tool call as member a (tools.c): *out gets the result (clear
 * it with tool_output_clear). What the call leaves in the member's
 * conversation (read_inbox) or of its leaving (an approved shutdown) is
 * forgotten after it: each call starts as a new turn would. */
void team_tool_call(struct agent *a, const char *tool, json_t *input,
    struct tool_output *out);

/* Frees what team_tool_member made. */
void team_tool_member_free(struct agent *a);

/* The files of the working directory that run code when the person
 * works there later (a Makefile, .envrc, editor tasks, git attributes …)
 * and changed since the team started, as a sentence to show at quit
 * (malloc'd), or NULL when none did. */
char *team_sandbox_planted(struct team *t);

#endif
