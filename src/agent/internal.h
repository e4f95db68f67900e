/*
 * What every file of the agent layer shares: the team (struct team) and
 * each of its agents (struct agent), which team.c opens, runs and frees.
 * Each is a handful of parts, a struct each: the small ones here (an
 * agent's thread, the team's home, core, crew, quit and budget), the
 * others in the header of the file that owns them (loop.h, context.h,
 * checking.h, frame.h, mcptools.h, places.h, teamsandbox.h). Every file
 * declares its functions in a header of its own. Nothing outside
 * src/agent/ but the unit tests includes this.
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
#include "agent/loop.h"
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

/* An agent's thread and how others stop it: set by teamspawn.c and read
 * by anyone; the thread's own fields say so. */
struct agent_run {
	pthread_t		 thread;
	atomic_int		 stop;		/* end at the next boundary */
	atomic_int		 finished;	/* the thread has returned */
	atomic_int		 forced;	/* stopped by force: terminate */
	atomic_int		 interrupt;	/* end this turn, then idle */
	struct cancel		 cancel;	/* waits and commands */
	struct llm_client	*llm;		/* used by the thread only;
						 * others may llm_cancel it */
	char			 quit_req[PROTO_ID_SIZE]; /* asked at quit */
};

struct agent {
	struct team		*team;
	char			*name;
	char			*role;
	int			 is_lead;
	/* Its role (roles.h), for a teammate spawned with a defined one:
	 * its prompt, tools and MCP servers. NULL: no role. */
	const struct role	*role_def;
	char			*model_id;	/* the model it talks to */
	struct model_info	 model;		/* what the catalog says */
	struct agent_run	 run;
	struct agent_turn	 turn;
	_Atomic enum member_status status;	/* set by its thread, and by
						 * the thread of a question
						 * (mcpask.c) */
	struct context_window	 win;		/* context.h */
	struct agent_place	 at;		/* where it works (places.h) */
	struct agent_mcp	 mcp;		/* mcptools.h */
	struct agent_frame	 frame;		/* frame.h */
};

/* Where the team lives: set by team_open, then read only. */
struct team_home {
	char			*workdir;
	char			*state;		/* the team's state folder */
	int			 lock_fd;	/* held while the team runs */
	char			*outputs;	/* whole outputs' folder
						 * (teamoutputs.c) */
	char			*program;	/* huddle's, for reapers */
	int64_t			 epoch_us;	/* when opened */
};

/* The core layer's parts the team runs on (src/core/), opened by
 * team_open: each locks itself (the store's lock). */
struct team_core {
	struct store		*store;
	struct bus		*bus;
	struct protocol		*proto;
	struct taskboard	*tasks;
	struct evq		 events;
};

/* The team's agents (team.c, teamspawn.c). */
struct team_crew {
	pthread_mutex_t		 lock;		/* the agents, closing and
						 * each agent's frame.sources;
						 * nothing else */
	struct agent		**agents;
	size_t			 nagents, capagents;
	int			 closing;	/* team_free: no new agents
						 * (under lock) */
	void			*(*thread)(void *); /* every agent's
						 * thread body: loop_main */
};

/* A quit under way (teamquit.c). */
struct team_quit {
	atomic_int		 quitting;	/* no new teammates */
	int64_t			 deadline;	/* clock_mono_ms */
	int			 lead_stopping;
};

/* --max-cost (teamstate.c). */
struct team_budget {
	pthread_mutex_t		 lock;
	double			 max_cost;	/* 0: none */
};

struct team {
	struct team_options	 opts;
	struct team_home	 home;
	struct team_core	 core;
	struct team_crew	 crew;
	struct teamsandbox	 sb;		/* teamsandbox.h */
	struct places		 places;	/* huddle's git (places.h) */
	struct policy		*policy;
	struct roles		*roles;		/* read at open (roles.h) */
	struct netgate		*netgate;	/* --network proxy, or NULL */
	struct team_quit	 quit;
	struct team_budget	 budget;
	struct checking		 checks;	/* checking.h */
	struct mcptools		 mcp;		/* mcptools.h */
};

/* team.c: its own header, team.h, is the front end's; what it offers the
 * agent files alone is here. */

/* Asks an agent's thread to end: at its next boundary, or at once when
 * it is waiting, calling a model or running a command; forced marks it
 * stopped by force. */
void team_stop_agent(struct team *t, struct agent *a, int forced);

/* agent.c: whether a permission request (permission: its type is one)
 * from `from` with body is the person's alone, never any model's to
 * read: huddle's own (an offer of a project's MCP server, a sign-in,
 * which holds an address for the person's browser) or an MCP server's
 * question to the person. The lead's feed and the state a compacted
 * conversation is given both leave it out. */
int agent_persons_only(int permission, const char *from, const char *body);

#endif
