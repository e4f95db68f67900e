/*
 * huddle's network proxy (see proxy.h).
 *
 * A connection's life, on its own thread: read the request's head (up to
 * PROXY_HEAD_MAX, within auth_timeout_ms of its accept), parse the
 * request line and the headers, have the credentials checked and take a
 * slot, resolve the name (once), judge the addresses, ask the owner
 * whether it may go to host:port (and wait for the answer when the owner
 * must ask the person), connect to an address judged, then relay bytes
 * both ways until both sides are done. Every wait polls the proxy's stop
 * token too, so proxy_close ends them all at once.
 *
 * The counts (the unauthenticated pool, the slots, each command's share)
 * live under the proxy's lock; a connection is unlinked from the list
 * before its descriptors are closed, so the acceptor never touches a
 * descriptor that is gone.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tools/netlocal.h"
#include "tools/proxy.h"
#include "util/cancel.h"
#include "util/clock.h"
#include "util/xmalloc.h"

#define PROXY_STACK_SIZE	(256 * 1024)
#define PROXY_HOST_MAX		253
#define PROXY_REASON_MAX	400
#define PROXY_ADDRS_MAX		16	/* addresses of a name tried */
#define PROXY_SEND_TIMEOUT_MS	30000	/* to take an answer */

struct proxy_conn {
	struct proxy		*p;
	int			 fd;		/* the client */
	int			 up;		/* the host, or -1 */
	uint64_t		 ticket;
	int			 answer;	/* 0 none, 1 allow, -1 deny */
	char			*reason;	/* with a deny */
	int64_t			 born;		/* accepted, clock_mono_ms */
	int			 authed;	/* credentials taken */
	int			 evicted;	/* closed to make room */
	int			 slot;		/* holds a slot */
	char			*who;		/* "user:password", once
						 * authenticated */
	struct proxy_conn	*next;
};

struct proxy {
	struct proxy_options	 o;
	int			 lfd;
	int			 port;
	struct cancel		 stop;
	pthread_t		 acceptor;
	pthread_mutex_t		 lock;
	pthread_cond_t		 cond;		/* answers, threads ending */
	struct proxy_conn	*conns;
	int			 nconns;	/* threads */
	int			 nunauth;	/* in the unauthenticated pool */
	int			 nslots;	/* slots taken */
	char			**local;	/* o.local, copied */
	uint64_t		 next_ticket;
	int			 closing;
};

/* A parsed request head. */
struct proxy_req {
	char		*text;		/* the head, NUL-terminated, cut up */
	char		*method;
	char		*path;		/* origin form; NULL for CONNECT */
	char		*version;
	char		 host[PROXY_HOST_MAX + 1];
	int		 port;
	int		 is_connect;
	char		*user, *password;	/* malloc'd, or NULL */
	char		**lines;	/* headers to send on (plain HTTP) */
	size_t		 nlines;
};

/* Where a connection may go: the addresses judged, in order. */
struct proxy_dest {
	const struct addrinfo	*ai[PROXY_ADDRS_MAX];
	size_t			 n;
	char			 address[INET6_ADDRSTRLEN];
	const char		*place;		/* or NULL */
};

/* One direction of a relay. */
struct proxy_pipe {
	char		*buf;
	size_t		 cap, len, off;
	int		 eof;		/* the source is done */
	int		 shut;		/* the sink was told */
};

/* --- waiting and writing ------------------------------------------------- */

/* Waits for `events` on fd until deadline (clock_mono_ms; -1: none).
 * Returns 1 when ready, 0 on timeout, -1 when the proxy closes. */
static int
proxy_wait(struct proxy *p, int fd, short events, int64_t deadline)
{
	struct pollfd pf[2];
	int64_t left;
	int n;

	for (;;) {
		pf[0].fd = fd;
		pf[0].events = events;
		pf[1].fd = cancel_fd(&p->stop);
		pf[1].events = POLLIN;
		left = deadline < 0 ? -1 : deadline - clock_mono_ms();
		if (deadline >= 0 && left <= 0)
			return 0;
		n = poll(pf, 2, deadline < 0 ? -1 : (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (pf[1].revents & POLLIN) || cancel_fired(&p->stop))
			return -1;
		if (n > 0 && pf[0].revents != 0)
			return 1;
	}
}

/* Writes all of buf to a non-blocking socket. Returns 0 or -1. */
static int
proxy_send_all(struct proxy *p, int fd, const char *buf, size_t len)
{
	int64_t deadline = clock_mono_ms() + PROXY_SEND_TIMEOUT_MS;
	ssize_t n;

	while (len > 0) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
		    proxy_wait(p, fd, POLLOUT, deadline) == 1)
			continue;
		return -1;
	}
	return 0;
}

/* Sends an error response: "HTTP/1.1 code phrase: reason" and the reason
 * as the body. The reason is kept to printable ASCII on one line. */
static void
proxy_fail(struct proxy_conn *c, int code, const char *phrase,
    const char *reason)
{
	char clean[PROXY_REASON_MAX + 1], *text;
	size_t i, n = 0;

	for (i = 0; reason != NULL && reason[i] != '\0' &&
	    n < PROXY_REASON_MAX; i++) {
		unsigned char ch = (unsigned char)reason[i];

		clean[n++] = ch >= 0x20 && ch < 0x7f ? (char)ch : ' ';
	}
	clean[n] = '\0';
	text = xasprintf("HTTP/1.1 %d %s%s%s\r\nContent-Type: text/plain\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n%s\r\n"
	    "huddle proxy: %s\n", code, phrase, n ? ": " : "", clean,
	    strlen(clean) + 15, code == 407 ?
	    "Proxy-Authenticate: Basic realm=\"huddle\"\r\n" : "", clean);
	(void)proxy_send_all(c->p, c->fd, text, strlen(text));
	free(text);
}

/* --- parsing ----------------------------------------------------------------- */

/* Decodes standard base64 (with padding) into a malloc'd string, or
 * NULL when it is not base64 or decodes to a NUL. */
static char *
proxy_base64(const char *in)
{
	static const char alphabet[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t len = strlen(in), i, n = 0;
	unsigned acc = 0;
	int bits = 0;
	char *out;

	while (len > 0 && in[len - 1] == '=')
		len--;
	out = xmalloc(len + 1);
	for (i = 0; i < len; i++) {
		const char *at = in[i] ? strchr(alphabet, in[i]) : NULL;

		if (at == NULL)
			goto bad;
		acc = (acc << 6) | (unsigned)(at - alphabet);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n] = (char)((acc >> bits) & 0xff);
			if (out[n++] == '\0')
				goto bad;
		}
	}
	out[n] = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

/* Whether s is a host name (letters, digits, '.', '-', '_'). */
static int
proxy_name_ok(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len > PROXY_HOST_MAX || s[0] == '.' || s[0] == '-')
		return 0;
	for (i = 0; i < len; i++) {
		if (!isalnum((unsigned char)s[i]) && s[i] != '.' &&
		    s[i] != '-' && s[i] != '_')
			return 0;
	}
	return 1;
}

/* Parses "host", "host:port", "[v6]" or "[v6]:port" (len bytes) into
 * r->host (lower case) and r->port; a missing port is dflt (-1: needed).
 * Returns 0 or -1. */
static int
proxy_authority(const char *s, size_t len, int dflt, struct proxy_req *r)
{
	const char *hs = s, *colon = NULL;
	size_t hl, i;
	char ports[8];
	struct in6_addr a6;
	long port;
	char *end;

	if (len > 0 && s[0] == '[') {
		const char *close = memchr(s, ']', len);

		if (close == NULL)
			return -1;
		hs = s + 1;
		hl = (size_t)(close - hs);
		if (close + 1 < s + len) {
			if (close[1] != ':')
				return -1;
			colon = close + 1;
		}
		if (hl == 0 || hl > 45)
			return -1;
		memcpy(r->host, hs, hl);
		r->host[hl] = '\0';
		if (inet_pton(AF_INET6, r->host, &a6) != 1)
			return -1;
	} else {
		colon = memchr(s, ':', len);
		hl = colon != NULL ? (size_t)(colon - s) : len;
		if (!proxy_name_ok(s, hl))
			return -1;
		memcpy(r->host, s, hl);
		r->host[hl] = '\0';
	}
	for (i = 0; r->host[i] != '\0'; i++)
		r->host[i] = (char)tolower((unsigned char)r->host[i]);
	if (colon == NULL) {
		r->port = dflt;
		return dflt > 0 ? 0 : -1;
	}
	hl = (size_t)(s + len - colon - 1);
	if (hl == 0 || hl >= sizeof ports)
		return -1;
	memcpy(ports, colon + 1, hl);
	ports[hl] = '\0';
	if (strspn(ports, "0123456789") != hl)
		return -1;
	port = strtol(ports, &end, 10);
	if (port < 1 || port > 65535)
		return -1;
	r->port = (int)port;
	return 0;
}

/* Reads the credentials of "Basic base64(user:password)". */
static void
proxy_credentials(const char *value, struct proxy_req *r)
{
	char *plain, *colon;

	while (*value == ' ' || *value == '\t')
		value++;
	if (strncasecmp(value, "Basic ", 6) != 0)
		return;
	value += 6;
	while (*value == ' ')
		value++;
	if ((plain = proxy_base64(value)) == NULL)
		return;
	if ((colon = strchr(plain, ':')) != NULL) {
		*colon = '\0';
		free(r->user);
		free(r->password);
		r->user = xstrdup(plain);
		r->password = xstrdup(colon + 1);
	}
	free(plain);
}

/* Whether header line `line` is named `name`. */
static int
proxy_header_is(const char *line, const char *name)
{
	size_t n = strlen(name);

	return strncasecmp(line, name, n) == 0 && line[n] == ':';
}

static void
proxy_req_clear(struct proxy_req *r)
{
	free(r->text);
	free(r->user);
	free(r->password);
	free(r->lines);
	memset(r, 0, sizeof *r);
}

/*
 * Parses a head (len bytes up to and including the blank line) into r.
 * Returns 0, or -1 with *why saying what is wrong (static).
 */
static int
proxy_parse(const char *head, size_t len, struct proxy_req *r,
    const char **why)
{
	char *line, *next, *sp, *target, *auth;
	size_t alen;

	memset(r, 0, sizeof *r);
	r->text = xmalloc(len + 1);
	memcpy(r->text, head, len);
	r->text[len] = '\0';
	if (memchr(head, '\0', len) != NULL) {
		*why = "a NUL byte in the request";
		return -1;
	}
	line = r->text;
	if ((next = strstr(line, "\r\n")) == NULL) {
		*why = "no request line";
		return -1;
	}
	*next = '\0';
	next += 2;
	/* METHOD SP target SP HTTP/1.x */
	if ((sp = strchr(line, ' ')) == NULL || sp == line ||
	    sp - line > 20) {
		*why = "a malformed request line";
		return -1;
	}
	*sp = '\0';
	r->method = line;
	target = sp + 1;
	if ((sp = strchr(target, ' ')) == NULL || sp == target) {
		*why = "a malformed request line";
		return -1;
	}
	*sp = '\0';
	r->version = sp + 1;
	if (strcmp(r->version, "HTTP/1.1") != 0 &&
	    strcmp(r->version, "HTTP/1.0") != 0) {
		*why = "not HTTP/1.0 or HTTP/1.1";
		return -1;
	}
	if (strspn(r->method, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") !=
	    strlen(r->method)) {
		*why = "a malformed method";
		return -1;
	}
	if (strcmp(r->method, "CONNECT") == 0) {
		r->is_connect = 1;
		if (proxy_authority(target, strlen(target), -1, r) == -1) {
			*why = "CONNECT needs host:port";
			return -1;
		}
	} else {
		if (strncasecmp(target, "https://", 8) == 0) {
			*why = "https goes through CONNECT";
			return -1;
		}
		if (strncasecmp(target, "http://", 7) != 0) {
			*why = "not an absolute http:// URI";
			return -1;
		}
		auth = target + 7;
		alen = strcspn(auth, "/?#");
		if (memchr(auth, '@', alen) != NULL ||
		    proxy_authority(auth, alen, 80, r) == -1) {
			*why = "a malformed host in the URI";
			return -1;
		}
		r->path = auth + alen;
		if (strchr(r->path, '#') != NULL) {
			*why = "a fragment in the URI";
			return -1;
		}
	}
	/* The headers. */
	r->lines = xcalloc(len / 2 + 1, sizeof *r->lines);
	for (line = next; *line != '\0'; line = next) {
		if ((next = strstr(line, "\r\n")) == NULL) {
			*why = "a header without its end";
			return -1;
		}
		*next = '\0';
		next += 2;
		if (*line == '\0')
			break;
		sp = strchr(line, ':');
		if (sp == NULL || sp == line || *line == ' ' || *line == '\t' ||
		    strcspn(line, " \t") < (size_t)(sp - line)) {
			*why = "a malformed header";
			return -1;
		}
		if (proxy_header_is(line, "Proxy-Authorization"))
			proxy_credentials(sp + 1, r);
		/* The Host header is made from the URI that was judged:
		 * the client's own never goes on. */
		if (proxy_header_is(line, "Proxy-Authorization") ||
		    proxy_header_is(line, "Host") ||
		    proxy_header_is(line, "Proxy-Connection") ||
		    proxy_header_is(line, "Connection") ||
		    proxy_header_is(line, "Keep-Alive"))
			continue;
		r->lines[r->nlines++] = line;
	}
	return 0;
}

/* --- connecting ------------------------------------------------------------- */

/* Resolves r's host and port, once: what is judged is what is
 * connected to. Returns 0, or -1 with *why (malloc'd). A test's resolver
 * returns what freeaddrinfo frees. */
static int
proxy_resolve(struct proxy *p, const struct proxy_req *r,
    struct addrinfo **res, char **why)
{
	struct addrinfo hints;
	char port[8];
	int rc;

	*res = NULL;
	snprintf(port, sizeof port, "%d", r->port);
	if (p->o.resolve != NULL)
		rc = p->o.resolve(p->o.resolve_ud, r->host, r->port, res);
	else {
		memset(&hints, 0, sizeof hints);
		hints.ai_family = AF_UNSPEC;
		hints.ai_socktype = SOCK_STREAM;
		hints.ai_flags = AI_NUMERICSERV;
		rc = getaddrinfo(r->host, port, &hints, res);
	}
	if (rc != 0 || *res == NULL) {
		if (rc == 0)
			freeaddrinfo(*res);
		*res = NULL;
		*why = xasprintf("cannot resolve %s: %s", r->host, rc != 0 ?
		    gai_strerror(rc) : "no address");
		return -1;
	}
	return 0;
}

/* How many of the owner's entries there are. */
static size_t
proxy_nlocal(const struct proxy *p)
{
	size_t n = 0;

	while (p->local != NULL && p->local[n] != NULL)
		n++;
	return n;
}

/*
 * Judges the addresses res holds, keeping in d those a connection may go
 * to: never the proxy itself, never this machine or its link unless the
 * owner's list allows it for this host and port. Returns 0, or -1 with
 * *why (malloc'd) when none is left.
 */
static int
proxy_judge(struct proxy *p, const struct proxy_req *r,
    const struct addrinfo *res, struct proxy_dest *d, char **why)
{
	const struct addrinfo *ai, *first_local = NULL;
	enum netlocal_kind k, first_kind = NETLOCAL_REMOTE;
	char addr[INET6_ADDRSTRLEN];
	struct ifaddrs *own;
	int self = 0;

	memset(d, 0, sizeof *d);
	/* Without this machine's addresses nothing can be judged. */
	if (getifaddrs(&own) == -1) {
		*why = xasprintf("cannot list this machine's addresses: %s",
		    strerror(errno));
		return -1;
	}
	for (ai = res; ai != NULL && d->n < PROXY_ADDRS_MAX; ai = ai->ai_next) {
		if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)
			continue;
		k = netlocal_kind(ai->ai_addr, own);
		if (k != NETLOCAL_REMOTE && r->port == p->port) {
			self = 1;
			continue;
		}
		if (k != NETLOCAL_REMOTE && !netlocal_allowed((const char *
		    const *)p->local, proxy_nlocal(p), r->host, r->port,
		    ai->ai_addr)) {
			if (first_local == NULL) {
				first_local = ai;
				first_kind = k;
			}
			continue;
		}
		if (d->n == 0) {
			netlocal_text(ai->ai_addr, d->address,
			    sizeof d->address);
			d->place = k != NETLOCAL_REMOTE ? netlocal_words(k) :
			    NULL;
		}
		d->ai[d->n++] = ai;
	}
	freeifaddrs(own);
	if (d->n > 0)
		return 0;
	if (first_local == NULL && self)
		*why = xasprintf("%s port %d is huddle's proxy itself", r->host,
		    r->port);
	else if (first_local != NULL) {
		netlocal_text(first_local->ai_addr, addr, sizeof addr);
		*why = xasprintf("%s%s%s port %d is %s, %s: huddle's proxy "
		    "never leads there, whoever approves. Only the person can "
		    "allow it, with --allow-local HOST:PORT or \"allow-local\" "
		    "in their own settings; ask them, or use another host",
		    r->host, strcmp(addr, r->host) ? " at " : "",
		    strcmp(addr, r->host) ? addr : "", r->port,
		    first_kind == NETLOCAL_LINK ? "link-local" : "local",
		    netlocal_words(first_kind));
	} else
		*why = xasprintf("cannot resolve %s: no address", r->host);
	return -1;
}

/* Connects to the addresses of d, in order. Returns the socket, or -1
 * with *why (malloc'd). */
static int
proxy_connect(struct proxy_conn *c, const struct proxy_req *r,
    const struct proxy_dest *d, char **why)
{
	struct proxy *p = c->p;
	const struct addrinfo *ai;
	int fd = -1, rc, err = 0, e;
	socklen_t elen;
	int64_t deadline;
	size_t i;

	deadline = clock_mono_ms() + p->o.connect_timeout_ms;
	for (i = 0; i < d->n && fd == -1; i++) {
		ai = d->ai[i];
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, ai->ai_protocol);
		if (fd == -1) {
			err = errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		e = errno;
		if (e == EINPROGRESS) {
			rc = proxy_wait(p, fd, POLLOUT, deadline);
			if (rc == -1) {
				close(fd);
				fd = -1;
				err = ECANCELED;
				break;
			}
			elen = sizeof e;
			if (rc == 0)
				e = ETIMEDOUT;
			else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e,
			    &elen) == -1)
				e = errno;
			if (e == 0)
				break;
		}
		err = e;
		close(fd);
		fd = -1;
	}
	if (fd == -1)
		*why = xasprintf("cannot connect to %s port %d: %s", r->host,
		    r->port, strerror(err));
	return fd;
}

/* --- relaying ----------------------------------------------------------------- */

static void
proxy_pipe_init(struct proxy_pipe *q, const char *pre, size_t npre)
{
	memset(q, 0, sizeof *q);
	q->cap = npre > PROXY_BUF_SIZE ? npre : PROXY_BUF_SIZE;
	q->buf = xmalloc(q->cap);
	if (npre > 0)
		memcpy(q->buf, pre, npre);
	q->len = npre;
}

/* What to poll for on src (reading into q) and on dst (writing q). */
static short
proxy_want_read(const struct proxy_pipe *q)
{
	return q->len == 0 && !q->eof ? POLLIN : 0;
}

static short
proxy_want_write(const struct proxy_pipe *q)
{
	return q->len > 0 ? POLLOUT : 0;
}

/* Moves bytes of one direction as far as they go without blocking.
 * Returns 0, or -1 when the connection is broken. */
static int
proxy_pump(struct proxy_pipe *q, int src, int dst, short src_ev,
    short dst_ev)
{
	ssize_t n;

	if (q->len == 0 && !q->eof && (src_ev & (POLLIN | POLLHUP |
	    POLLERR))) {
		n = recv(src, q->buf, q->cap, 0);
		if (n > 0) {
			q->len = (size_t)n;
			q->off = 0;
		} else if (n == 0)
			q->eof = 1;
		else if (errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != EINTR)
			return -1;
	}
	if (q->len > 0 && (dst_ev & (POLLOUT | POLLERR | POLLHUP))) {
		n = send(dst, q->buf + q->off, q->len, MSG_NOSIGNAL);
		if (n > 0) {
			q->off += (size_t)n;
			q->len -= (size_t)n;
		} else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != EINTR)
			return -1;
	}
	if (q->eof && q->len == 0 && !q->shut) {
		shutdown(dst, SHUT_WR);
		q->shut = 1;
	}
	return 0;
}

/*
 * Relays between the client and the host until both directions are done,
 * either breaks, or the proxy closes. `pre` is what goes to the host
 * first. A plain request ends when its response has been passed on.
 */
static void
proxy_relay(struct proxy_conn *c, const char *pre, size_t npre, int plain)
{
	struct proxy_pipe up, down;	/* client->host, host->client */
	struct pollfd pf[3];
	short cev, uev;
	int n;

	proxy_pipe_init(&up, pre, npre);
	proxy_pipe_init(&down, NULL, 0);
	for (;;) {
		if ((up.shut && down.shut) || (plain && down.shut))
			break;
		cev = proxy_want_read(&up) | proxy_want_write(&down);
		uev = proxy_want_read(&down) | proxy_want_write(&up);
		/* A descriptor with nothing wanted is left out, so that a
		 * hang-up on it cannot spin the loop. */
		pf[0].fd = cev ? c->fd : -1;
		pf[0].events = cev;
		pf[1].fd = uev ? c->up : -1;
		pf[1].events = uev;
		pf[2].fd = cancel_fd(&c->p->stop);
		pf[2].events = POLLIN;
		pf[0].revents = pf[1].revents = pf[2].revents = 0;
		if (!cev && !uev)
			break;
		n = poll(pf, 3, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || pf[2].revents || cancel_fired(&c->p->stop))
			break;
		if (proxy_pump(&up, c->fd, c->up, pf[0].revents,
		    pf[1].revents) == -1 || proxy_pump(&down, c->up, c->fd,
		    pf[1].revents, pf[0].revents) == -1)
			break;
	}
	free(up.buf);
	free(down.buf);
}

/* --- one connection ----------------------------------------------------------- */

/* Whether the acceptor closed c's reading side to make room. */
static int
proxy_evicted(struct proxy_conn *c)
{
	int e;

	pthread_mutex_lock(&c->p->lock);
	e = c->evicted;
	pthread_mutex_unlock(&c->p->lock);
	return e;
}

/* Reads the head into buf (PROXY_HEAD_MAX). Returns its length (up to and
 * including the blank line) with *got all bytes read, 0 when the client
 * left, or -1 (with the error answered). */
static ssize_t
proxy_read_head(struct proxy_conn *c, char *buf, size_t *got)
{
	int64_t deadline = c->born + c->p->o.auth_timeout_ms;
	size_t len = 0;
	char *end;
	ssize_t n;
	int rc;

	*got = 0;
	for (;;) {
		rc = proxy_wait(c->p, c->fd, POLLIN, deadline);
		if (rc == 0) {
			char *why = xasprintf("no request with credentials "
			    "within %d ms: huddle's proxy closes a connection "
			    "that has not presented them by then",
			    c->p->o.auth_timeout_ms);

			proxy_fail(c, 408, "Request Timeout", why);
			free(why);
			return -1;
		}
		if (rc == -1)
			return 0;
		n = recv(c->fd, buf + len, PROXY_HEAD_MAX - len, 0);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n == 0 && proxy_evicted(c)) {
			proxy_fail(c, 503, "Service Unavailable", "closed: no "
			    "request with credentials came while other "
			    "connections waited for room in huddle's proxy; "
			    "send the request as soon as you connect");
			return -1;
		}
		if (n <= 0) {
			if (len > 0)
				proxy_fail(c, 400, "Bad Request", "the request "
				    "ended early");
			return len > 0 ? -1 : 0;
		}
		len += (size_t)n;
		/* The end may straddle two reads: look at it all. */
		if ((end = memmem(buf, len, "\r\n\r\n", 4)) != NULL) {
			*got = len;
			return end + 4 - buf;
		}
		if (len == PROXY_HEAD_MAX) {
			proxy_fail(c, 431, "Request Header Fields Too Large",
			    "the request head is too long");
			return -1;
		}
	}
}

/* The head to send to the host for a plain request (malloc'd). */
static char *
proxy_plain_head(const struct proxy_req *r, size_t *len)
{
	size_t i, cap = 64 + strlen(r->method) + strlen(r->path) +
	    strlen(r->host);
	char *out, *at;

	for (i = 0; i < r->nlines; i++)
		cap += strlen(r->lines[i]) + 2;
	out = xmalloc(cap + 64);
	at = out + sprintf(out, "%s %s%s %s\r\n", r->method,
	    *r->path == '/' ? "" : "/", r->path, r->version);
	at += sprintf(at, strchr(r->host, ':') ? "Host: [%s]" : "Host: %s",
	    r->host);
	if (r->port != 80)
		at += sprintf(at, ":%d", r->port);
	at += sprintf(at, "\r\n");
	for (i = 0; i < r->nlines; i++)
		at += sprintf(at, "%s\r\n", r->lines[i]);
	at += sprintf(at, "Connection: close\r\n\r\n");
	*len = (size_t)(at - out);
	return out;
}

/* Asks the owner; waits for an answer when it must. Returns 1 when the
 * connection may go on, 0 when it was refused (and answered). */
static int
proxy_decide(struct proxy_conn *c, const struct proxy_req *r,
    const struct proxy_dest *d)
{
	struct proxy *p = c->p;
	struct proxy_target t;
	enum proxy_verdict v;
	char *reason = NULL;
	int allow;

	pthread_mutex_lock(&p->lock);
	c->ticket = ++p->next_ticket;
	pthread_mutex_unlock(&p->lock);
	t.user = r->user;
	t.password = r->password;
	t.method = r->method;
	t.host = r->host;
	t.port = r->port;
	t.address = d->address;
	t.place = d->place;
	t.ticket = c->ticket;
	v = p->o.decide(p->o.ud, &t, &reason);
	if (v == PROXY_ALLOW) {
		free(reason);
		return 1;
	}
	if (v == PROXY_AUTH) {
		proxy_fail(c, 407, "Proxy Authentication Required", reason ?
		    reason : "no valid credentials for huddle's proxy");
		free(reason);
		return 0;
	}
	if (v == PROXY_ASK) {
		free(reason);
		reason = NULL;
		pthread_mutex_lock(&p->lock);
		while (c->answer == 0 && !p->closing)
			pthread_cond_wait(&p->cond, &p->lock);
		allow = c->answer > 0;
		reason = c->reason;
		c->reason = NULL;
		if (c->answer == 0)
			reason = xstrdup("huddle is closing");
		pthread_mutex_unlock(&p->lock);
		if (allow) {
			free(reason);
			return 1;
		}
	}
	proxy_fail(c, 403, "Forbidden", reason ? reason : "denied");
	free(reason);
	return 0;
}

/* Waits on the proxy's condition until deadline (clock_mono_ms). Under
 * the lock. */
static void
proxy_wait_until(struct proxy *p, int64_t deadline)
{
	struct timespec ts;
	int64_t ms;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ms = deadline - clock_mono_ms();
	if (ms <= 0)
		return;
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	(void)pthread_cond_timedwait(&p->cond, &p->lock, &ts);
}

/* How many connections with credentials who hold a share. Under the
 * lock. */
static int
proxy_share_of(struct proxy *p, const char *who)
{
	struct proxy_conn *c;
	int n = 0;

	for (c = p->conns; c != NULL; c = c->next)
		n += c->who != NULL && strcmp(c->who, who) == 0;
	return n;
}

/*
 * Takes r's credentials (the owner checks them) and a slot for c: out of
 * the unauthenticated pool, into the command's share. Returns 1, or 0
 * when c was refused (and answered with why).
 */
static int
proxy_admit(struct proxy_conn *c, const struct proxy_req *r)
{
	struct proxy *p = c->p;
	int64_t deadline = clock_mono_ms() + p->o.slot_wait_ms;
	char *who, *why = NULL;
	int mine;

	if (p->o.check != NULL && !p->o.check(p->o.ud, r->user,
	    r->password)) {
		proxy_fail(c, 407, "Proxy Authentication Required", "no valid "
		    "credentials for huddle's proxy: only the commands huddle "
		    "runs, while they run, may use it");
		return 0;
	}
	who = xasprintf("%s:%s", r->user ? r->user : "", r->password ?
	    r->password : "");
	pthread_mutex_lock(&p->lock);
	if (!c->evicted)
		p->nunauth--;
	c->authed = 1;
	pthread_cond_broadcast(&p->cond);
	if ((mine = proxy_share_of(p, who)) >= p->o.share) {
		why = xasprintf("this command already has %d connections "
		    "open through huddle's proxy, the most one command may "
		    "have: close some, or wait for them to end, then try "
		    "again", mine);
		free(who);
		goto refuse;
	}
	c->who = who;
	while (p->nslots >= p->o.max_conns && !p->closing &&
	    clock_mono_ms() < deadline)
		proxy_wait_until(p, deadline);
	if (p->nslots >= p->o.max_conns || p->closing) {
		why = xasprintf("all %d connections of huddle's proxy are in "
		    "use by the team's commands and none came free within "
		    "%d s: try again in a while", p->o.max_conns,
		    p->o.slot_wait_ms / 1000);
		goto refuse;
	}
	p->nslots++;
	c->slot = 1;
	pthread_mutex_unlock(&p->lock);
	return 1;
refuse:
	pthread_mutex_unlock(&p->lock);
	if (!cancel_fired(&p->stop))
		proxy_fail(c, 503, "Service Unavailable", why);
	free(why);
	return 0;
}

static void
proxy_serve(struct proxy_conn *c)
{
	struct proxy_req r;
	struct proxy_dest d;
	struct addrinfo *res = NULL;
	char *buf = xmalloc(PROXY_HEAD_MAX), *why = NULL, *head;
	const char *bad = NULL;
	size_t got, hlen;
	ssize_t n;

	memset(&r, 0, sizeof r);
	if ((n = proxy_read_head(c, buf, &got)) <= 0)
		goto done;
	if (proxy_parse(buf, (size_t)n, &r, &bad) == -1) {
		proxy_fail(c, 400, "Bad Request", bad);
		goto done;
	}
	if (!proxy_admit(c, &r))
		goto done;
	if (proxy_resolve(c->p, &r, &res, &why) == -1) {
		proxy_fail(c, 502, "Bad Gateway", why);
		goto done;
	}
	if (proxy_judge(c->p, &r, res, &d, &why) == -1) {
		proxy_fail(c, 403, "Forbidden", why);
		goto done;
	}
	if (!proxy_decide(c, &r, &d))
		goto done;
	if ((c->up = proxy_connect(c, &r, &d, &why)) == -1) {
		if (!cancel_fired(&c->p->stop))
			proxy_fail(c, 502, "Bad Gateway", why);
		goto done;
	}
	if (r.is_connect) {
		static const char ok[] =
		    "HTTP/1.1 200 Connection established\r\n\r\n";

		if (proxy_send_all(c->p, c->fd, ok, sizeof ok - 1) == 0)
			proxy_relay(c, buf + n, got - (size_t)n, 0);
	} else {
		head = proxy_plain_head(&r, &hlen);
		head = xrealloc(head, hlen + got - (size_t)n + 1);
		memcpy(head + hlen, buf + n, got - (size_t)n);
		proxy_relay(c, head, hlen + got - (size_t)n, 1);
		free(head);
	}
done:
	if (res != NULL)
		freeaddrinfo(res);
	free(why);
	free(buf);
	proxy_req_clear(&r);
}

/* The thread of one connection. Off the list (and its counts) first,
 * then its descriptors closed, then the thread counted out. */
static void *
proxy_conn_main(void *arg)
{
	struct proxy_conn *c = arg, **pp;
	struct proxy *p = c->p;

	proxy_serve(c);
	pthread_mutex_lock(&p->lock);
	for (pp = &p->conns; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	if (!c->authed && !c->evicted)
		p->nunauth--;
	if (c->slot)
		p->nslots--;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	close(c->fd);
	if (c->up != -1)
		close(c->up);
	free(c->reason);
	free(c->who);
	free(c);
	pthread_mutex_lock(&p->lock);
	p->nconns--;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* --- accepting ------------------------------------------------------------------ */

/*
 * Waits until the unauthenticated pool has room for one more, making it
 * when it must by closing the reading side of the oldest connection there
 * that has sat silent for evict_after_ms (its thread then answers it with
 * a sentence). A client that sends its
 * request as it connects is never the one closed. Returns 0, or -1 when
 * the proxy closes.
 */
static int
proxy_make_room(struct proxy *p)
{
	int64_t grace = p->o.evict_after_ms, now;
	struct proxy_conn *c, *oldest;
	int rc;

	pthread_mutex_lock(&p->lock);
	while (!p->closing && p->nunauth >= p->o.max_unauth) {
		oldest = NULL;
		for (c = p->conns; c != NULL; c = c->next) {
			if (!c->authed && !c->evicted && (oldest == NULL ||
			    c->born < oldest->born))
				oldest = c;
		}
		now = clock_mono_ms();
		if (oldest != NULL && now - oldest->born >= grace) {
			oldest->evicted = 1;
			p->nunauth--;
			shutdown(oldest->fd, SHUT_RD);
			break;
		}
		proxy_wait_until(p, oldest != NULL ? oldest->born + grace :
		    now + grace);
	}
	rc = p->closing ? -1 : 0;
	pthread_mutex_unlock(&p->lock);
	return rc;
}

/* Starts the thread of a connection just accepted, in the
 * unauthenticated pool. Returns 0, or -1 (fd is the caller's still). */
static int
proxy_start_conn(struct proxy *p, int fd, pthread_attr_t *attr)
{
	struct proxy_conn *c = xcalloc(1, sizeof *c), **pp;
	pthread_t th;

	c->p = p;
	c->fd = fd;
	c->up = -1;
	c->born = clock_mono_ms();
	pthread_mutex_lock(&p->lock);
	c->next = p->conns;
	p->conns = c;
	p->nconns++;
	p->nunauth++;
	pthread_mutex_unlock(&p->lock);
	if (pthread_create(&th, attr, proxy_conn_main, c) == 0)
		return 0;
	pthread_mutex_lock(&p->lock);
	for (pp = &p->conns; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	p->nconns--;
	if (!c->evicted)
		p->nunauth--;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	free(c);
	return -1;
}

static void *
proxy_accept_main(void *arg)
{
	static const char busy[] = "HTTP/1.1 503 Service Unavailable: "
	    "huddle's proxy cannot start a thread for this connection\r\n"
	    "Content-Length: 0\r\nConnection: close\r\n\r\n";
	struct proxy *p = arg;
	pthread_attr_t attr;
	int fd;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, PROXY_STACK_SIZE);
	while (proxy_wait(p, p->lfd, POLLIN, -1) == 1) {
		/* A client beyond the pool waits in the listening queue. */
		if (proxy_make_room(p) == -1)
			break;
		fd = accept4(p->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd == -1) {
			/* Out of descriptors: back off a little. */
			if (errno == EMFILE || errno == ENFILE)
				cancel_sleep(&p->stop, 100);
			continue;
		}
		if (proxy_start_conn(p, fd, &attr) == -1) {
			(void)send(fd, busy, sizeof busy - 1, MSG_NOSIGNAL |
			    MSG_DONTWAIT);
			close(fd);
		}
	}
	pthread_attr_destroy(&attr);
	return NULL;
}

/* --- the proxy ---------------------------------------------------------------------- */

/* Frees the copy of the owner's list. */
static void
proxy_free_local(struct proxy *p)
{
	size_t i;

	for (i = 0; p->local != NULL && p->local[i] != NULL; i++)
		free(p->local[i]);
	free(p->local);
}

struct proxy *
proxy_open(const struct proxy_options *o, char **err)
{
	struct proxy *p;
	struct sockaddr_in a;
	socklen_t alen = sizeof a;
	pthread_condattr_t ca;
	const char *why;
	size_t i;

	for (i = 0; i < o->nlocal; i++) {
		if (!netlocal_entry_ok(o->local[i], &why)) {
			*err = xasprintf("allow-local \"%s\" %s", o->local[i],
			    why);
			return NULL;
		}
	}
	p = xcalloc(1, sizeof *p);
	p->o = *o;
	if (p->o.max_conns <= 0)
		p->o.max_conns = PROXY_MAX_CONNS;
	if (p->o.share <= 0)
		p->o.share = PROXY_SHARE;
	if (p->o.max_unauth <= 0)
		p->o.max_unauth = PROXY_MAX_UNAUTH;
	if (p->o.auth_timeout_ms <= 0)
		p->o.auth_timeout_ms = PROXY_AUTH_TIMEOUT_MS;
	if (p->o.slot_wait_ms <= 0)
		p->o.slot_wait_ms = PROXY_SLOT_WAIT_MS;
	if (p->o.evict_after_ms <= 0)
		p->o.evict_after_ms = p->o.auth_timeout_ms / 5;
	if (p->o.connect_timeout_ms <= 0)
		p->o.connect_timeout_ms = PROXY_CONNECT_TIMEOUT_MS;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	p->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (p->lfd == -1 || bind(p->lfd, (struct sockaddr *)&a, sizeof a) ==
	    -1 || listen(p->lfd, 128) == -1 || getsockname(p->lfd,
	    (struct sockaddr *)&a, &alen) == -1) {
		*err = xasprintf("cannot start the network proxy: %s",
		    strerror(errno));
		if (p->lfd != -1)
			close(p->lfd);
		free(p);
		return NULL;
	}
	p->port = ntohs(a.sin_port);
	p->local = xcalloc(o->nlocal + 1, sizeof *p->local);
	for (i = 0; i < o->nlocal; i++)
		p->local[i] = xstrdup(o->local[i]);
	p->o.local = NULL;
	p->o.nlocal = 0;
	cancel_init(&p->stop);
	pthread_mutex_init(&p->lock, NULL);
	/* Timed waits count on the monotonic clock. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&p->acceptor, NULL, proxy_accept_main, p) != 0) {
		*err = xstrdup("cannot start the network proxy's thread");
		close(p->lfd);
		cancel_destroy(&p->stop);
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->cond);
		proxy_free_local(p);
		free(p);
		return NULL;
	}
	return p;
}

int
proxy_port(const struct proxy *p)
{
	return p->port;
}

void
proxy_answer(struct proxy *p, uint64_t ticket, int allow, const char *reason)
{
	struct proxy_conn *c;

	pthread_mutex_lock(&p->lock);
	for (c = p->conns; c != NULL; c = c->next) {
		if (c->ticket == ticket && c->answer == 0) {
			c->answer = allow ? 1 : -1;
			free(c->reason);
			c->reason = reason != NULL ? xstrdup(reason) : NULL;
			pthread_cond_broadcast(&p->cond);
			break;
		}
	}
	pthread_mutex_unlock(&p->lock);
}

int
proxy_connections(struct proxy *p)
{
	int n;

	pthread_mutex_lock(&p->lock);
	n = p->nconns;
	pthread_mutex_unlock(&p->lock);
	return n;
}

void
proxy_close(struct proxy *p)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->lock);
	p->closing = 1;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	cancel_fire(&p->stop);
	pthread_join(p->acceptor, NULL);
	pthread_mutex_lock(&p->lock);
	while (p->nconns > 0)
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
	close(p->lfd);
	cancel_destroy(&p->stop);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	proxy_free_local(p);
	free(p);
}
