/*
 * What the files of the agent layer share about a team and its agents:
 * team.c runs the team, agent.c is one agent's loop, tools.c its tools,
 * prompt.c its system prompt. Nothing outside src/agent/ includes this.
 */
#ifndef HUDDLE_AGENT_INTERNAL_H
#define HUDDLE_AGENT_INTERNAL_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "agent/checking.h"
#include "agent/context.h"
#include "agent/event.h"
#include "agent/mcptools.h"
#include "agent/places.h"
#include "agent/team.h"
#include "agent/toolset.h"
#include "core/bus.h"
#include "core/protocol.h"
#include "core/roster.h"
#include "core/store.h"
#include "core/task.h"
#include "core/wtrecord.h"
#include "tools/git.h"
#include "util/cancel.h"
#include "llm/catalog.h"
#include "llm/llm.h"

struct bash_options;
struct netgate;
struct policy;
struct profile;
struct role;
struct roles;
struct tool_output;

struct agent {
	struct team		*team;
	char			*name;
	char			*role;
	int			 is_lead;

	pthread_t		 thread;
	atomic_int		 stop;		/* end at the next boundary */
	atomic_int		 finished;	/* the thread has returned */
	atomic_int		 forced;	/* stopped by force: terminate */
	atomic_int		 interrupt;	/* end this turn, then idle */
	struct cancel		 cancel;	/* waits and commands */
	struct llm_client	*llm;		/* used by the thread only;
						 * others may llm_cancel it */
	char			 quit_req[PROTO_ID_SIZE]; /* asked at quit */
	char			*model_id;	/* the model it talks to */
	struct model_info	 model;		/* what the catalog says */

	/* Its context window (context.h). */
	struct context_window	 win;

	/* Owned by the agent's thread. */
	char			*task;		/* its first message, kept when
						 * the transcript is trimmed */
	char			*system;	/* its system prompt, fixed */
	json_t			*transcript;
	size_t			 answered;	/* transcript length when the
						 * model last ended a turn */
	int			 errored;	/* last call failed */
	char			*failure;	/* why, for the lead */
	int			 unfinished;	/* the turn was cut short by
					 * --max-rounds: failure says so */
	char			 quit_seen[PROTO_ID_SIZE]; /* the quit's
						 * request, found idle */
	int			 leaving;	/* approved its shutdown */
	int			 pausing;	/* that shutdown was the quit's:
						 * it is kept for --resume */
	char			*leave_reason;
	int			 worked;	/* a turn ran since idle */
	_Atomic enum member_status status;	/* set by its thread, and by
						 * the thread of a question
						 * (mcpask.c) */
	int			 autonomous;	/* takes tasks from the board */
	struct profile		*home;		/* where it works at home: the
						 * workdir, or its own
						 * worktree (teamsandbox.c) */
	char			*place;		/* the worktree its task names,
						 * where it works now; NULL:
						 * at home (places.c) */
	struct profile		*away;		/* that worktree's profile */
	dev_t			 place_dev;	/* the directory entered */
	ino_t			 place_ino;
	int64_t			 reminded;	/* the task it was last
						 * reminded of (tasks.c) */
	char			**mcp_servers;	/* NULL-terminated: the MCP
						 * servers it may use; NULL:
						 * all (mcptools.c) */
	json_t			*mcp_tools;	/* the MCP tools its requests
						 * list, fixed until its next
						 * compaction (mcptools.c) */
	int			 mcp_tools_at;	/* compactions then */
	/* Its role (roles.h), for a teammate spawned with a defined one:
	 * its prompt, tools and MCP servers. NULL: no role. */
	const struct role	*role_def;
	/* Its frame (frame.c), owned by its thread: its role's prompt and
	 * the instructions (added to its system prompt), the lead's roles
	 * text, the names of the tools its role leaves it (NULL: all);
	 * and the instruction files it holds, for /context, which the
	 * team's lock guards. */
	char			*frame_extras;
	char			*frame_roles;
	json_t			*frame_tools;
	char			*instr_sources;
};

/* How bash commands are confined. */
enum team_sandbox {
	SANDBOX_ON,		/* Landlock */
	SANDBOX_MISSING,	/* no Landlock: every command asks */
	SANDBOX_OFF		/* --no-sandbox */
};

/* The Landlock ruleset of one place (tools/ruleset.h). */
struct team_ruleset {
	char			*key;		/* the place and its port */
	struct ruleset		*rs;		/* held */
};

struct team {
	struct team_options	 opts;
	char			*workdir;
	char			*state;		/* the team's state folder */
	int			 lock_fd;	/* held while the team runs */
	char			*tmpdir;	/* the commands' TMPDIR */
	char			*outputs;	/* whole outputs' folder
						 * (teamoutputs.c) */
	char			*program;	/* huddle's, for reapers */
	enum team_sandbox	 sandbox;
	int			 sandbox_abi;
	char			**hidden;	/* from every command
						 * (tools/hidden.h) */
	pthread_mutex_t		 rulesets_lock;	/* what follows */
	struct team_ruleset	*rulesets;	/* one per place, shared
						 * by its profiles
						 * (teamsandbox.c) */
	size_t			 nrulesets;
	struct runlater		*runlater;	/* the workdir's run-later
						 * files at start */
	struct store		*store;
	struct bus		*bus;
	struct protocol		*proto;
	struct taskboard	*tasks;
	struct places		 places;	/* huddle's git (places.h) */
	struct evq		 events;
	void			*(*agent_thread)(void *); /* every agent's
						 * thread body: loop_main */
	struct policy		*policy;
	struct roles		*roles;		/* read at open (roles.h) */
	struct netgate		*netgate;	/* --network proxy, or NULL */
	int64_t			 epoch_us;	/* when opened */

	pthread_mutex_t		 lock;		/* the agents, closing and
						 * each agent's instr_sources;
						 * nothing else */
	struct agent		**agents;
	size_t			 nagents, capagents;

	atomic_int		 quitting;	/* no new teammates */
	int			 closing;	/* team_free: no new agents
						 * (under lock) */
	int64_t			 quit_deadline;	/* clock_mono_ms */
	int			 lead_stopping;
	pthread_mutex_t		 budget_lock;	/* max_cost */
	double			 max_cost;	/* 0: none */

	/* The checks of tasks the person completes (checking.h). */
	struct checking		 checks;

	/* The MCP servers (mcptools.h). */
	struct mcptools		 mcp;
};

/* team.c */

/* Asks an agent's thread to end: at its next boundary, or at once when
 * it is waiting, calling a model or running a command; forced marks it
 * stopped by force. */
void team_stop_agent(struct team *t, struct agent *a, int forced);

/* context.c */

/* Sets the agent's window and how it compacts, from its model and the
 * team's options. */
void context_init(struct agent *a);

/* The compaction trigger to give the LLM client (0: none). */
int64_t context_trigger(struct agent *a);

/* The tokens the next request would hold: the last call's count and an
 * estimate of what was appended since. */
int64_t context_tokens(struct agent *a);

/* Records a model call's count (before its reply is recorded). */
void context_counted(struct agent *a, const struct llm_usage *u);

/* Notes a compaction the server did in a reply. */
void context_server_compacted(struct agent *a, const struct llm_usage *u);

/*
 * Compacts on the client when the next request would pass the threshold,
 * when asked (/compact), or when `force` (the API refused a prompt too
 * long; `why` says so). Returns 0 (done, or not needed) or -1 when the
 * summary could not be had (the agent's pane says why).
 */
int context_compact(struct agent *a, int force, const char *why);

/* Learns the window from a refusal that names it ("prompt is too long:
 * N tokens > M maximum", "maximum context length is M tokens") when it is
 * smaller than the one assumed. */
void context_learn_window(struct agent *a, const struct llm_result *r);

/* Forgets, in memory, the entries before the model's view (the store
 * keeps them): a long session's memory does not grow with its rounds. */
void context_trim(struct agent *a);

/* Cuts a tool result larger than a tenth of the window to its head and
 * tail, with a note of what was left out and how to read it. */
void context_cut_result(struct agent *a, struct tool_output *o);

/*
 * Keeps a tool result's images within what one request may carry with
 * the images of the agent's view and of `pending` (this turn's results
 * so far, tool_result blocks): those past it are withheld, their lines
 * saying why (doc/mcp.md, "Images").
 */
void context_fit_images(struct agent *a, json_t *pending,
    struct tool_output *o);

/* checking.c */

/* Marks a check running at root, in a worktree, until checking_unmark: it
 * starts after any merge there and keeps one from starting. */
void checking_mark(struct team *t, const char *root);

/* The check at root (the same pointer) has ended. */
void checking_unmark(struct team *t, const char *root);

/* Whether a task's check runs in the worktree at root now (places_merge
 * asks under git_lock, under which a check in a worktree starts). */
int checking_at(struct team *t, const char *root);

/* places.c: where an agent's tools work — the working directory or a
 * git worktree of the team's (tools/worktree.c makes and removes them) */

/* Checks, once, that the workdir is the top of a git repository with a
 * commit (keeping its git directory). Returns 0 or -1 with *err. */
int places_git_repo(struct team *t, char **err);

/* Whether `name` is free for a new teammate: no board worktree has it
 * and no open task names one so. 0, or -1 with *err. */
int places_name_free(struct team *t, const char *name, char **err);

/* Whether tasks may name worktrees here (the workdir is a repository):
 * 0, or -1 with *err. */
int places_for_tasks(struct team *t, char **err);

/*
 * Moves agent a to where it works now: the worktree its in-progress task
 * names (made from the person's HEAD the first time a task needs it),
 * else its home. Call before a tool that works in a place. Returns 0, or
 * -1 with *err when that worktree cannot be had (missing, moved, or git
 * failed); a's place is then left as it was.
 */
int places_update(struct agent *a, char **err);

/* Where agent a's tools work now, and the profile they run from. */
const char *places_root(const struct agent *a);
const struct profile *places_profile(const struct agent *a);

/* Whether member name has a worktree of its own. */
int places_own(struct team *t, const char *name);

/* Sets agent a to work in its worktree (base: its base commit): its
 * root, and its own sandbox that hides the rest of the working tree.
 * Returns 0, or -1 with *err (a missing or moved worktree). */
int places_enter(struct agent *a, char **err);

/* Where task k's check runs: in the worktree it names, else where its
 * owner works at home. Returns the profile of that place (profile_free),
 * or NULL with *err (its worktree is missing). */
struct profile *places_of_task(struct team *t, const struct task *k,
    char **err);

/* After teammate name ended: its worktree is removed when it holds
 * nothing that is not merged, and kept (with a notice) otherwise. */
void places_retire(struct team *t, const char *name);

/* mcptools.c */

/* Makes the team's MCP servers from its options (none start yet).
 * Returns 0 or -1 with *err. */
int mcptools_open(struct team *t, char **err);

/* Stops the servers. */
void mcptools_close(struct team *t);

/* Appends the MCP tools agent a may call to list (a model request's
 * tools); a server not started yet starts now. */
void mcptools_list(struct agent *a, json_t *list);

/* Agent a's whole tool list: frame_tools's and the MCP tools, the latter
 * as they were at its first request since its last compaction. Called
 * from a's thread only. */
json_t *mcptools_for(struct agent *a);

/* Runs MCP tool `name` ("mcp__S__T") for a: asks the person unless the
 * settings allow it, then calls it. */
void mcptools_run(struct agent *a, const char *name, json_t *input,
    struct tool_output *out);
/* mcpoffers.c: a project's .mcp.json */

/* Reads the working tree's .mcp.json and what the person answered
 * before; notices name what is refused or ignored. Returns how many of
 * its servers may yet join (approved, or to be asked). */
size_t mcpoffers_open(struct team *t);

/* Adds the servers approved before to the team's set (made by then). */
void mcpoffers_start(struct team *t);

/* Offers the person each server not answered yet (a permission request
 * from huddle); an offer a previous run left pending is withdrawn
 * first and asked again. */
void mcpoffers_ask(struct team *t);

/* Takes in the decisions made since: an answer is kept in the store,
 * an approved server joins the set. */
void mcpoffers_settle(struct team *t);

/* Whether server name came from the project's .mcp.json (approved):
 * the settings' list of tools allowed without asking does not cover
 * it. */
int mcpoffers_is_project(struct team *t, const char *name);

/* /mcp's lines on offers not approved (malloc'd), or NULL. */
char *mcpoffers_text(struct team *t);

/* Frees what mcpoffers_open made. */
void mcpoffers_close(struct team *t);

/* frame.c */

/* Builds agent a's frame afresh from the files (a notice when the
 * instructions were cut) and keeps it. For a new conversation, and after
 * a compaction. */
void frame_build(struct agent *a);

/* At the agent's start, its transcript loaded: the frame kept for it
 * when its conversation is bound to one (--resume), else a new one. */
void frame_open(struct agent *a);

/* The tools agent a is given: toolset_for's, narrowed by its frame; for
 * the lead, spawn_teammate's description lists the team's roles. The
 * same for the whole of a's life (the prompt cache needs it). */
json_t *frame_tools(struct agent *a);

/* Whether a's frame offers tool name (all, when it names none). MCP
 * tools come and go with their servers: the role alone decides. */
int frame_offers(struct agent *a, const char *name);

/* Keeps the MCP tools (the definitions, a reference taken) that a's
 * conversation is now bound to, in a->mcp_tools and in its frame's file:
 * a resumed agent is offered them again, ready or not, until its next
 * compaction. */
void frame_keep_mcp(struct agent *a, json_t *tools);

/* prompt.c */

/* The system prompt of an agent (malloc'd). */
char *prompt_system(struct team *t, struct agent *a);

/* teamoutputs.c: the folder whole outputs are kept in (t->outputs),
 * made at the team's start: 0, or -1 with *err; and a kept output's
 * file, tmp, moved to its name for agent's call id (team_output_path)
 * with the oldest beyond the team's count removed: the path (malloc'd),
 * or NULL with tmp removed. */
int team_outputs_open(struct team *t, char **err);
char *team_output_keep(struct team *t, const char *agent, const char *id,
    const char *tmp);

#endif
