/*
 * One MCP server as huddle's client sees it: how to reach it (a command
 * that speaks on its stdin and stdout, or a Streamable HTTP endpoint),
 * the protocol revision agreed with it, and the tools it lists.
 *
 * A server is started in the background (mcp_server_start, or its first
 * listing), through the stateless revision's server/discover when it
 * answers that, else through the older initialize handshake; nobody
 * waits for it, and its tools are offered once it is ready. One exchange
 * runs at a time per server; the tool list is read without waiting for
 * one. A server that dies is marked so, told through the notice
 * callback, and started again at its next use;
 * notifications/tools/list_changed makes its list be read again. A
 * Streamable HTTP server of the handshake revisions, once ready, also
 * gets a GET stream of its own, read on a thread while its session
 * lasts, for what it sends unasked: notifications, and requests such as
 * a question to the person during a call. The
 * last MCP_TAIL_LINES lines a stdio server wrote on its stderr are kept,
 * cleaned of terminal escapes, for the person (the notice of a start
 * that failed, /mcp).
 *
 * The protocol is server.c's; the transports, stdio.c and http.c, are
 * reached through the operations of transport.h, which also declares
 * how stdio servers are started (struct mcp_launch).
 */
#ifndef HUDDLE_MCP_SERVER_H
#define HUDDLE_MCP_SERVER_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/transport.h"
#include "tools/bash.h"
#include "tools/tool.h"
#include "util/cancel.h"

/* The revisions spoken: the stateless one, and the handshake ones,
 * newest first. */
#define MCP_MODERN_VERSION	"2026-07-28"
#define MCP_LEGACY_VERSION	"2025-11-25"

/* How long a server may take to start and answer its first requests. */
#define MCP_START_MS		30000
/* How long a stdio server may leave server/discover unanswered before
 * it is taken for one that only knows the handshake. */
#define MCP_PROBE_MS		10000

/* Told when a server stops or cannot start: a sentence. */
typedef void (*mcp_notice_fn)(void *ud, const char *text);

/*
 * What the one who makes a call lends the server while it runs; any
 * member may be NULL.
 *
 * elicit asks the person the server's question (its elicitation/create
 * params, checked by mcp_elicit_check) and returns the result to send
 * back — {"action": "accept", "content": {…}}, "decline" or "cancel" —
 * never NULL; it may wait as long as the person takes, which the call's
 * timeout does not count.
 *
 * progress is told each notifications/progress of the call: how far
 * (total 0 when unknown) and the server's message (may be NULL).
 *
 * abandon is told, from the call's thread, when the call is over while a
 * question is still open (on the server's own stream): elicit must then
 * return soon (with "cancel").
 *
 * elicit and progress may be called on another thread than the call's,
 * but never both at once, nor after the call has returned.
 */
struct mcp_caller {
	json_t	*(*elicit)(void *ud, const char *server, json_t *params);
	void	 (*progress)(void *ud, const char *server, const char *tool,
		    double done, double total, const char *message);
	void	 (*abandon)(void *ud);
	void	*ud;
};

enum mcp_state {
	MCP_NEW,		/* not started yet */
	MCP_STARTING,		/* being started */
	MCP_READY,
	MCP_FAILED,		/* could not start: error says why */
	MCP_DEAD		/* stopped; started again at next use */
};

struct mcp_server {
	char			*name;
	json_t			*config;	/* its .mcp.json entry */
	int			 http;		/* Streamable HTTP, not stdio */
	const struct mcp_launch	*launch;
	mcp_notice_fn		 notice;
	void			*ud;
	struct mcp_link		 link;		/* what its transport is
						 * lent */
	struct mcp_transport	*transport;	/* stdio.c's or http.c's:
						 * io held for most of its
						 * operations (transport.h),
						 * and lock for its fields
						 * that say so */

	pthread_mutex_t		 io;		/* one exchange at a time;
						 * held for the fields
						 * below that say so */
	int64_t			 next_id;	/* io */

	struct cancel		 stop;		/* fired when freed: ends a
						 * background start */

	/* A question to the person from the server's own stream stops
	 * the call's clock: how many wait now, and the time they took in
	 * all (ms). */
	atomic_int		 asking;
	atomic_llong		 asked_ms;
	pthread_mutex_t		 asking_one;	/* one question at a time,
						 * and no progress beside */

	pthread_mutex_t		 lock;		/* the fields below */
	const struct mcp_caller	*caller;	/* the running call's (set
						 * with io held too), or
						 * NULL */
	const char		*calling;	/* the tool it calls */
	int64_t			 call_token;	/* its progress token */
	int			 caller_uses;	/* the own stream's thread
						 * is using caller */
	int			 told_question;	/* a question huddle cannot
						 * show was named, this call */
	pthread_cond_t		 changed;	/* state changed */
	pthread_t		 starter;	/* the background start */
	int			 starter_live;	/* started, not joined */
	int			 starter_done;	/* it has told what it had */
	enum mcp_state		 state;
	char			*error;		/* the last failure */
	char			*version;	/* the revision agreed */
	int			 modern;	/* the stateless revision */
	char			*info;		/* serverInfo: "name version" */
	json_t			*tools;		/* the listed tools */
	int			 stale;		/* list_changed seen */
	int			 told_tasks;	/* its task-only tools were
						 * named (once a life) */
	int			 starts;	/* how often started */
	char			*progress;	/* the running call's, for
						 * the person, or NULL */
};

/* The longest server name accepted. */
#define MCP_SERVER_NAME_MAX	32

/*
 * Whether name may name a server: 1 to MCP_SERVER_NAME_MAX letters,
 * digits, '_' or '-', without "__" (so that no two servers' tool names
 * can meet, nor an allow rule of one reach another).
 */
int mcp_server_name_ok(const char *name);

/*
 * Whether server name's configuration can be used (the rules of
 * mcp_server_new below): 0 with *http set (1: a Streamable HTTP server,
 * 0: stdio), or -1 with *err.
 */
int mcp_server_check(const char *name, json_t *config, int *http,
    char **err);

/*
 * A server called name from its configuration (copied): {"command",
 * "args", "env", "cwd" (absolute)} (stdio; "type": "stdio" optional) or
 * {"type": "http", "url", "headers"}. Nothing is started. Returns NULL
 * with *err for a configuration it cannot use, or a name
 * mcp_server_name_ok refuses.
 */
struct mcp_server *mcp_server_new(const char *name, json_t *config,
    const struct mcp_launch *launch, mcp_notice_fn notice, void *ud,
    char **err);

/* Stops the server (when running) and frees it. */
void mcp_server_free(struct mcp_server *s);

/*
 * Starts the server in the background when it was never started (its
 * state is MCP_STARTING until it is ready or failed: a failure is told
 * through the notice callback). Returns at once.
 */
void mcp_server_start(struct mcp_server *s);

/* Waits until the server is not starting (and the failure of its
 * background start told), or until deadline (on the monotonic clock,
 * util/clock.h). Returns its state. */
enum mcp_state mcp_server_wait(struct mcp_server *s, int64_t deadline);

/*
 * A copy of the server's tools (its tools/list entries), or NULL when it
 * has none to offer (not ready yet). With `start`, a server never
 * started is started in the background (mcp_server_start; nobody
 * waits), a stdio server that is not busy has its pending notifications
 * read, and a list known to have changed is read again when the server
 * is not busy.
 */
json_t *mcp_server_tools(struct mcp_server *s, int start);

/*
 * Calls tool `tool` with args (not stolen) for caller (may be NULL: the
 * server's questions are then declined): starts the server first when
 * it is not running; cancel (may be NULL) and timeout_s (0: 120) end the
 * wait, telling the server the request is cancelled. The call carries a
 * progress token. A Streamable HTTP answer whose stream the server
 * closes before the reply is resumed (a GET with Last-Event-ID after the
 * stream's retry time). The result's text is cut at about cap bytes (0:
 * none). Returns 0, or -1 with out an error.
 */
int mcp_server_call(struct mcp_server *s, const char *tool, json_t *args,
    const struct mcp_caller *caller, struct cancel *cancel, int timeout_s,
    size_t cap, struct tool_output *out);

/* Forgets the server's sign-in (oauth.h), in memory and in the person's
 * store: its next request that the server refuses asks the person
 * again. Returns 1 when there was one, 0 when not, -1 for a server that
 * does not sign in (stdio). */
int mcp_server_logout(struct mcp_server *s);

/* A few lines for the person: the server's transport, state, revision,
 * the progress of a call running, and tools (malloc'd). */
char *mcp_server_describe(struct mcp_server *s);

#endif
