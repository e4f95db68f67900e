/*
 * huddle's network proxy: an HTTP proxy on 127.0.0.1 through which the
 * commands of a team reach the network. It speaks CONNECT host:port (a
 * tunnel, for HTTPS and anything else) and plain HTTP with an absolute
 * URI (one request per connection, sent on with Connection: close). It
 * resolves names itself, so commands need no DNS.
 *
 * Before it connects anywhere it asks its owner, through a callback, with
 * the credentials the client gave (Proxy-Authorization: Basic) and the
 * host and port: allow, deny, or "ask" — then the connection waits until
 * proxy_answer() says. The proxy knows nothing of agents or requests.
 *
 * One thread accepts; each connection has a thread of its own (at most
 * max_conns at once; beyond that a client gets 503). Nothing it does
 * blocks any other thread of huddle.
 */
#ifndef HUDDLE_TOOLS_PROXY_H
#define HUDDLE_TOOLS_PROXY_H

#include <stdint.h>

struct addrinfo;

#define PROXY_MAX_CONNS		64		/* default cap */
#define PROXY_HEAD_MAX		(16 * 1024)	/* a request's head */
#define PROXY_BUF_SIZE		(16 * 1024)	/* per direction */
#define PROXY_HEAD_TIMEOUT_MS	30000		/* to send a head */
#define PROXY_CONNECT_TIMEOUT_MS 15000		/* to reach the host */

/* What the owner says of a connection. */
enum proxy_verdict {
	PROXY_ALLOW,		/* connect */
	PROXY_DENY,		/* 403 with the reason */
	PROXY_AUTH,		/* 407: no or bad credentials */
	PROXY_ASK		/* wait for proxy_answer(ticket) */
};

/* A connection asking to go somewhere. Valid during the callback only. */
struct proxy_target {
	const char	*user;		/* from Proxy-Authorization, or NULL */
	const char	*password;	/* or NULL */
	const char	*method;	/* "CONNECT", "GET", ... */
	const char	*host;		/* a name (lower case) or an address
					 * (IPv6 without brackets) */
	int		 port;
	uint64_t	 ticket;	/* for proxy_answer after PROXY_ASK */
};

/*
 * Decides a connection; called on the connection's thread, with no lock
 * of the proxy held (it may call proxy_answer, even for this ticket). On
 * PROXY_DENY or PROXY_AUTH it may set *reason (malloc'd, one line).
 */
typedef enum proxy_verdict (*proxy_decide_fn)(void *ud,
    const struct proxy_target *t, char **reason);

/* Resolves host and port as getaddrinfo would (tests map names with it);
 * returns 0 or a getaddrinfo error code. */
typedef int (*proxy_resolve_fn)(void *ud, const char *host, int port,
    struct addrinfo **out);

struct proxy_options {
	proxy_decide_fn	 decide;	/* required */
	void		*ud;
	int		 max_conns;	/* 0: PROXY_MAX_CONNS */
	int		 head_timeout_ms; /* 0: PROXY_HEAD_TIMEOUT_MS */
	int		 connect_timeout_ms; /* 0: PROXY_CONNECT_TIMEOUT_MS */
	proxy_resolve_fn resolve;	/* NULL: getaddrinfo */
	void		*resolve_ud;
};

struct proxy;

/* Starts a proxy on 127.0.0.1 on a port of the kernel's choosing.
 * Returns NULL with *err. */
struct proxy *proxy_open(const struct proxy_options *o, char **err);

/* The TCP port it listens on. */
int proxy_port(const struct proxy *p);

/*
 * Answers the connection that waits with `ticket` (after PROXY_ASK):
 * allowed, it goes on; else it gets 403 with `reason` (may be NULL). An
 * unknown or gone ticket is ignored. Any thread.
 */
void proxy_answer(struct proxy *p, uint64_t ticket, int allow,
    const char *reason);

/* How many connections are open now. */
int proxy_connections(struct proxy *p);

/*
 * Closes every connection (tunnels and waits alike) and the listening
 * socket, waits for the threads and frees the proxy. A thread inside the
 * system's resolver finishes its lookup first. NULL is ignored.
 */
void proxy_close(struct proxy *p);

#endif
