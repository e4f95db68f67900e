/*
 * What every file of the agent layer shares: the team (struct team) and
 * each of its agents (struct agent), which team.c opens, runs and frees.
 * A part of them with state of its own keeps it in a struct its header
 * declares (context.h, checking.h, frame.h, mcptools.h, places.h,
 * teamsandbox.h), and every file
 * declares its functions in a header of its own: loop.c is one agent's
 * loop, agent.c what an agent keeps of itself, tools.c how its tool calls
 * run, prompt.c its system prompt, teamstate.c what the team's parts
 * read of it. Nothing outside src/agent/ but the unit tests includes
 * this.
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
#include "agent/frame.h"
#include "agent/mcptools.h"
#include "agent/places.h"
#include "agent/teamsandbox.h"
#include "agent/team.h"
#include "core/protocol.h"
#include "core/roster.h"
#include "util/cancel.h"
#include "llm/catalog.h"

struct netgate;
struct policy;
struct profile;
struct role;
struct roles;

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
	struct agent_place	 at;		/* where it works (places.h) */
	int64_t			 reminded;	/* the task it was last
						 * reminded of (tasks.c) */
	struct agent_mcp	 mcp;		/* mcptools.h */
	/* Its role (roles.h), for a teammate spawned with a defined one:
	 * its prompt, tools and MCP servers. NULL: no role. */
	const struct role	*role_def;
	struct agent_frame	 frame;		/* frame.h */
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
	struct teamsandbox	 sb;		/* teamsandbox.h */
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
						 * each agent's frame.sources;
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

/* team.c: its own header, team.h, is the front end's; what it offers the
 * agent files alone is here. */

/* Asks an agent's thread to end: at its next boundary, or at once when
 * it is waiting, calling a model or running a command; forced marks it
 * stopped by force. */
void team_stop_agent(struct team *t, struct agent *a, int forced);

#endif
