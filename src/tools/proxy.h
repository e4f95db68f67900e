/*
 * huddle's network proxy: an HTTP proxy on 127.0.0.1 through which the
 * commands of a team reach the network. It speaks CONNECT host:port (a
 * tunnel, for HTTPS and anything else) and plain HTTP with an absolute
 * URI (one request per connection, sent on with Connection: close). It
 * resolves names itself, so commands need no DNS.
 *
 * It resolves a name once, before anything else, and judges the
 * addresses it got, never the name's spelling: an address that reaches
 * this machine or its link (tools/netlocal.h), or the proxy itself, is
 * refused with a sentence, unless the owner's list of "host:port" entries
 * allows it (the proxy itself never). Then it asks its owner, through a
 * callback, with the credentials the client gave (Proxy-Authorization:
 * Basic), the host and port, and the address it will connect to: allow,
 * deny, or "ask" — then the connection waits until proxy_answer() says.
 * It connects only to the addresses it judged (no second lookup), and a
 * plain request's Host header is made from its URI. The proxy knows
 * nothing of agents or requests.
 *
 * One thread accepts; each connection has a thread of its own. Until it
 * has sent a head with credentials the owner takes (within
 * auth_timeout_ms) a connection sits in a small pool of its own; when
 * that is full, the oldest one that has sat there evict_after_ms (a fifth
 * of that time) is closed to make room. Once its credentials are taken it holds one of
 * max_conns slots, and the connections with the same credentials (one
 * command) hold at most `share` of them; a connection beyond its share is
 * refused with a sentence, one that finds every slot taken waits up to
 * slot_wait_ms for one, then is refused with a sentence. Nothing it does
 * blocks any other thread of huddle.
 */
#ifndef HUDDLE_TOOLS_PROXY_H
#define HUDDLE_TOOLS_PROXY_H

#include <stdint.h>

struct addrinfo;

#define PROXY_MAX_CONNS		64		/* default slots */
#define PROXY_SHARE		16		/* of them, one command's */
#define PROXY_MAX_UNAUTH	32		/* waiting for credentials */
#define PROXY_AUTH_TIMEOUT_MS	5000		/* to send them */
#define PROXY_SLOT_WAIT_MS	30000		/* for a free slot */
#define PROXY_HEAD_MAX		(16 * 1024)	/* a request's head */
#define PROXY_BUF_SIZE		(16 * 1024)	/* per direction */
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
	const char	*address;	/* the numeric address it will
					 * connect to (the first, if more) */
	const char	*place;		/* "this machine", "the local link"
					 * (allowed by the list), or NULL */
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

/* Whether user and password (either may be NULL) are credentials the
 * owner knows now; called on a connection's thread, no lock held. */
typedef int (*proxy_check_fn)(void *ud, const char *user,
    const char *password);

struct proxy_options {
	proxy_decide_fn	 decide;	/* required */
	void		*ud;
	proxy_check_fn	 check;		/* NULL: any credentials, or none */
	int		 max_conns;	/* 0: PROXY_MAX_CONNS */
	int		 share;		/* 0: PROXY_SHARE */
	int		 max_unauth;	/* 0: PROXY_MAX_UNAUTH */
	int		 auth_timeout_ms; /* 0: PROXY_AUTH_TIMEOUT_MS */
	int		 slot_wait_ms;	/* 0: PROXY_SLOT_WAIT_MS */
	int		 evict_after_ms; /* 0: a fifth of auth_timeout_ms */
	int		 connect_timeout_ms; /* 0: PROXY_CONNECT_TIMEOUT_MS */
	proxy_resolve_fn resolve;	/* NULL: getaddrinfo */
	void		*resolve_ud;
	const char *const *local;	/* "host:port" entries that may lead
					 * to this machine or its link */
	size_t		 nlocal;
};

struct proxy;

/* Starts a proxy on 127.0.0.1 on a port of the kernel's choosing (it
 * copies o's list). Returns NULL with *err, an entry of the list that is
 * not host:port among the reasons. */
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

/* How many connections are open now (authenticated or not). */
int proxy_connections(struct proxy *p);

/*
 * Closes every connection (tunnels and waits alike) and the listening
 * socket, waits for the threads and frees the proxy. A thread inside the
 * system's resolver finishes its lookup first. NULL is ignored.
 */
void proxy_close(struct proxy *p);

#endif
