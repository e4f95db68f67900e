/*
 * How an MCP server's protocol (server.c) reaches the server: through a
 * transport, stdio (stdio.c: a process spoken to on its stdin and
 * stdout) or Streamable HTTP (http.c), behind the operations declared
 * here. A transport never calls the protocol: the server lends it a link
 * (its lock, its clock, and functions of its own) when it makes it, and
 * what the transport reads goes back through the link's functions.
 *
 * Locks: "io" below is the server's mutex for one exchange at a time;
 * "lock" the server's lock (link->lock), under which the transport keeps
 * the fields of its own that say so.
 */
#ifndef HUDDLE_MCP_TRANSPORT_H
#define HUDDLE_MCP_TRANSPORT_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/bash.h"
#include "util/cancel.h"

/* The lines of a stdio server's stderr kept, and the bytes of each. */
#define MCP_TAIL_LINES		20
#define MCP_TAIL_LINE_MAX	300

/* How long a message huddle sends unasked may take to go out. */
#define MCP_SEND_MS	10000

/*
 * How stdio servers are started: the options of a command (tools/bash.h:
 * the reaper, the sandbox, the environment), whose workdir is the
 * working tree; the caller keeps what they point to alive. When `begin`
 * is set, it is called before each start of a stdio server with a copy
 * of bo, which it may change for that start (its own sandbox profile,
 * environment entries: what it points to must live until `end`); it
 * returns 0 with *handle (given to `end` once the process has ended), or
 * -1 with *err, and the server does not start. When `asking` is set, it
 * tells whether the person is being asked something for the start of
 * handle (its network): while so, the start's clock stands still.
 * start_ms and probe_ms, when not 0, stand for MCP_START_MS and
 * MCP_PROBE_MS (server.h).
 */
struct mcp_launch {
	struct bash_options	 bo;
	int			(*begin)(void *ud, const char *name,
				    json_t *config, struct bash_options *bo,
				    void **handle, char **err);
	void			(*end)(void *ud, void *handle);
	int			(*asking)(void *ud, void *handle);
	/* Asks the person to sign in to HTTP server name (oauth.h),
	 * whose address's origin is origin (the host the token goes to),
	 * for resource, with scopes ("": none named), at the authorization
	 * server's page `at` (its address without the query), and waits
	 * for the answer, or cancel (may be NULL). Returns 1 when they
	 * said yes, 0 when they said no, -1 when nobody answered; *why
	 * may then say why. NULL: nobody can be asked, and a server that
	 * asks for a sign-in fails with a sentence. */
	int			(*signin)(void *ud, const char *name,
				    const char *origin, const char *resource,
				    const char *scopes, const char *at,
				    struct cancel *cancel, char **why);
	/* Once they said yes: opens url, huddle's loopback page that sends
	 * the browser on to the authorization server's (with its state:
	 * the browser alone gets that), in the person's browser, or shows
	 * it to them when none can be opened. */
	void			(*open)(void *ud, const char *name,
				    const char *url);
	const char		*tokens;	/* the store of sign-ins
						 * (tokens.h), or NULL: kept
						 * for this run only */
	void			*ud;
	int			 start_ms;	/* 0: MCP_START_MS */
	int			 probe_ms;	/* 0: MCP_PROBE_MS */
};

/* How an exchange ended. */
enum mcp_x {
	MCP_X_OK,
	MCP_X_RPC_ERROR,	/* the server answered with an error */
	MCP_X_TRANSPORT,	/* the server could not be reached or read */
	MCP_X_DEAD,		/* a stdio server's stdout closed */
	MCP_X_TIMEOUT,
	MCP_X_CANCELLED
};

struct mcp_link;

/* What an exchange waits for and what it got: a request's reply, or
 * nothing (id -1) while the transport reads what comes unasked. */
struct mcp_wait {
	struct mcp_link		*link;
	int64_t			 id;
	json_t			*result;	/* the reply's, a reference */
	json_t			*error;
	struct cancel		*cancel;	/* the person's, or NULL */
	int64_t			 deadline;	/* when to give up, not
						 * counting the time the
						 * person takes to answer */
	int64_t			 asked_base;	/* *link->asked_ms at the
						 * start */
	int			 own_stream;	/* the server's own stream */
	int			 handshake;	/* initialize: its answer
						 * gives the session */
	int64_t			 held_since;	/* the person is asked for
						 * the process's network since
						 * then (0: not) */
};

/*
 * What a server lends its transport, for as long as the server lives:
 * its own fields, and two functions of its protocol. The transport
 * frees none of it.
 */
struct mcp_link {
	const char		*name;		/* the server's */
	json_t			*config;	/* its .mcp.json entry */
	const struct mcp_launch	*launch;	/* may be NULL */
	pthread_mutex_t		*lock;		/* the server's lock */
	pthread_cond_t		*changed;	/* broadcast under lock when
						 * what the transport keeps
						 * under it changes */
	struct cancel		*stop;		/* fired when the server is
						 * freed */
	atomic_int		*asking;	/* questions to the person
						 * open now */
	atomic_llong		*asked_ms;	/* the time they took, in
						 * all (ms) */
	char			**version;	/* lock: the revision
						 * agreed, or NULL */

	/* Takes the text of one message (or batch) read for w: a line, a
	 * body, an event's data. Returns 1 when it held w's reply (which
	 * is then in w->result or w->error). */
	int			(*take)(struct mcp_wait *w, const char *text,
				    size_t len);
	/* When w gives up (monotonic clock, util/clock.h): its deadline,
	 * moved on by what stops its clock; read it again each time. */
	int64_t			(*until)(struct mcp_wait *w);
	void			*ud;		/* the server, for these */
};

/* A transport: each file's own struct begins with this one. */
struct mcp_transport {
	const struct mcp_transport_ops	*ops;
	struct mcp_link			*link;
};

/* The operations of a transport. Those that say so may be NULL. */
struct mcp_transport_ops {
	/* A transport for the server of link, started by nothing yet. */
	struct mcp_transport	*(*new)(struct mcp_link *link);

	/* Starts it (a stdio server's process; nothing for HTTP), io
	 * held. Returns 0, or -1 with *err. */
	int	(*start)(struct mcp_transport *t, char **err);

	/* Sends request text and reads until the reply w waits for, w's
	 * time (link->until) or w->cancel, handing every message read to
	 * link->take; io held. Returns how it ended (MCP_X_OK once the
	 * reply came), with *err (may stay NULL) a sentence on why not. */
	enum mcp_x	(*request)(struct mcp_transport *t, const char *text,
		    struct mcp_wait *w, char **err);

	/* Sends text (a notification, or a reply to the server's
	 * request) within MCP_SEND_MS or until cancel (may be NULL)
	 * fires; a failure is logged. `must` (the person's answer): wait
	 * for room rather than drop it. io held, or on the thread of the
	 * server's own stream. */
	void	(*send)(struct mcp_transport *t, const char *text,
		    struct cancel *cancel, int must);

	/* Reads what the server sent unasked, without waiting, handing it
	 * to link->take; io held. Returns -1 when the server has died.
	 * NULL: nothing comes but during a request or on its own stream. */
	int	(*drain)(struct mcp_transport *t);

	/* Opens, once the server is ready, the stream on which it sends
	 * unasked, for as long as its session lasts; io held. NULL: it
	 * has none. */
	void	(*listen)(struct mcp_transport *t);

	/* Whether the person is being asked something for this start of
	 * the server (the network of its process), so that its clock
	 * stands still; io held. NULL: never. */
	int	(*held)(struct mcp_transport *t);

	/* Ends the server's process or session; io held. */
	void	(*stop)(struct mcp_transport *t);

	/* The last lines of the server's stderr, as mcp_server_tail says
	 * (server.c). NULL: none are kept. */
	char	*(*tail)(struct mcp_transport *t, const char *indent);

	/* What /mcp says of the server's sign-in (oauth.h; malloc'd), or
	 * NULL. NULL op: it has none. */
	char	*(*signin_text)(struct mcp_transport *t);

	/* Forgets the server's sign-in; 1 when there was one. NULL: it has
	 * none. */
	int	(*logout)(struct mcp_transport *t);

	/* How the person is shown the transport: "stdio", or "http " and
	 * the scheme, host and port of its address (malloc'd). Takes no
	 * lock: the server may hold its own. */
	char	*(*label)(struct mcp_transport *t);

	/* Waits for its threads and frees it, once stopped; io not
	 * held. */
	void	(*free)(struct mcp_transport *t);
};

/* The transports, in stdio.c and http.c. */
extern const struct mcp_transport_ops mcp_stdio_ops;
extern const struct mcp_transport_ops mcp_http_ops;

#endif
