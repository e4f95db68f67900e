/*
 * The loopback listener of a sign-in (see redirect.h). The port is bound
 * when the sign-in begins (the redirect URI names it) but listened on
 * only once the person said yes: until then a connection is refused, not
 * queued to be served first. Up to MCP_REDIRECT_CONNS connections are
 * read at once, each with a short limit of its own, so that a stray
 * connection that says nothing, or says it slowly, cannot hold the
 * sign-in up.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mcp/redirect.h"
#include "util/clock.h"
#include "util/xmalloc.h"

/* How long one connection may take to send its request line, and how
 * much of it is read. */
#define MCP_REDIRECT_READ_MS	5000
#define MCP_REDIRECT_MAX	8192
/* How many connections are read at once; one more waits in the
 * kernel's queue until one of them ends. */
#define MCP_REDIRECT_CONNS	8

struct mcp_redirect {
	int	 fd;
	char	*uri;
	char	*start;		/* the start page's URI */
	char	*start_path;	/* its path */
	int	 started;	/* it was served */
};

struct mcp_redirect *
mcp_redirect_open(char **err)
{
	struct mcp_redirect *r;
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;
	unsigned char nonce[8];
	size_t i;
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd == -1) {
		*err = xasprintf("socket: %s", strerror(errno));
		return NULL;
	}
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = 0;
	if (bind(fd, (struct sockaddr *)&sin, sizeof sin) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1) {
		*err = xasprintf("a port on 127.0.0.1: %s", strerror(errno));
		close(fd);
		return NULL;
	}
	r = xcalloc(1, sizeof *r);
	r->fd = fd;
	r->uri = xasprintf("http://127.0.0.1:%d" MCP_REDIRECT_PATH,
	    ntohs(sin.sin_port));
	/* The start page's path is not guessed: only who was shown it
	 * finds it. */
	if (getrandom(nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce) {
		*err = xstrdup("getrandom failed");
		mcp_redirect_close(r);
		return NULL;
	}
	r->start_path = xstrdup("/start/");
	for (i = 0; i < sizeof nonce; i++) {
		char *n = xasprintf("%s%02x", r->start_path, nonce[i]);

		free(r->start_path);
		r->start_path = n;
	}
	r->start = xasprintf("http://127.0.0.1:%d%s", ntohs(sin.sin_port),
	    r->start_path);
	return r;
}

int
mcp_redirect_listen(struct mcp_redirect *r, char **err)
{
	if (listen(r->fd, MCP_REDIRECT_CONNS) == -1) {
		*err = xasprintf("listening on 127.0.0.1: %s", strerror(errno));
		return -1;
	}
	return 0;
}

const char *
mcp_redirect_uri(const struct mcp_redirect *r)
{
	return r->uri;
}

const char *
mcp_redirect_start_uri(const struct mcp_redirect *r)
{
	return r->start;
}

void
mcp_redirect_close(struct mcp_redirect *r)
{
	if (r == NULL)
		return;
	close(r->fd);
	free(r->uri);
	free(r->start);
	free(r->start_path);
	free(r);
}

/* The value of a hex digit, or -1. */
static int
mcp_redirect_hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *
mcp_redirect_param(const char *query, const char *name)
{
	size_t n = strlen(name), i, k;
	const char *p, *end;
	char *out;
	int hi, lo;

	if (query == NULL)
		return NULL;
	if ((p = strchr(query, '?')) != NULL)
		query = p + 1;
	for (p = query; *p != '\0' && *p != '#'; p = *end == '&' ? end + 1 :
	    end) {
		end = p + strcspn(p, "&#");
		if ((size_t)(end - p) < n + 1 || strncmp(p, name, n) != 0 ||
		    p[n] != '=')
			continue;
		p += n + 1;
		out = xmalloc(end - p + 1);
		for (i = 0, k = 0; p + i < end; i++) {
			if (p[i] == '+')
				out[k++] = ' ';
			else if (p[i] == '%' && p + i + 2 < end &&
			    (hi = mcp_redirect_hex(p[i + 1])) >= 0 &&
			    (lo = mcp_redirect_hex(p[i + 2])) >= 0) {
				out[k++] = (char)(hi * 16 + lo);
				i += 2;
			} else
				out[k++] = p[i];
		}
		out[k] = '\0';
		return out;
	}
	return NULL;
}

/* Answers the browser with a short page; the connection is closed. */
static void
mcp_redirect_answer(int fd, int status, const char *text)
{
	char *page = xasprintf("HTTP/1.1 %d %s\r\nContent-Type: text/html; "
	    "charset=utf-8\r\nCache-Control: no-store\r\nConnection: close\r\n"
	    "Content-Length: %zu\r\n\r\n%s", status, status == 200 ? "OK" :
	    "Bad Request", strlen(text), text);
	ssize_t w = write(fd, page, strlen(page));

	(void)w;
	free(page);
}

/* Sends the browser on to url (302). */
static void
mcp_redirect_send_on(int fd, const char *url)
{
	char *page = xasprintf("HTTP/1.1 302 Found\r\nLocation: %s\r\n"
	    "Cache-Control: no-store\r\nConnection: close\r\n"
	    "Content-Length: 0\r\n\r\n", url);
	ssize_t w = write(fd, page, strlen(page));

	(void)w;
	explicit_bzero(page, strlen(page));
	free(page);
}

/* One connection being read: its descriptor, what it sent so far and
 * when it must have sent its request line. */
struct mcp_redirect_conn {
	int	 fd;
	int64_t	 until;
	size_t	 len;
	char	 buf[MCP_REDIRECT_MAX];
};

/*
 * Answers one connection's request line (buf, NUL-terminated). Returns
 * 1 when the sign-in ended (0 in *rc with *code, or -1 with *err), else
 * 0: the wait goes on.
 */
static int
mcp_redirect_serve(struct mcp_redirect *r, int fd, char *buf,
    const char *authorize, const char *state, char **code, char **err,
    int *rc)
{
	char *target, *sp, *got, *why, *q;
	size_t plen;

	if (strncmp(buf, "GET ", 4) != 0) {
		mcp_redirect_answer(fd, 400, "Not a sign-in.");
		return 0;
	}
	target = buf + 4;
	if ((sp = strpbrk(target, " \r\n")) != NULL)
		*sp = '\0';
	if (strcmp(target, r->start_path) == 0) {
		/* Once: a second visit would give the state to whoever
		 * comes second. */
		if (!r->started)
			mcp_redirect_send_on(fd, authorize);
		else
			mcp_redirect_answer(fd, 400, "This sign-in page was "
			    "opened already.");
		r->started = 1;
		return 0;
	}
	/* The callback's path exactly, then its query. */
	plen = strcspn(target, "?#");
	q = target[plen] == '?' ? target + plen : NULL;
	got = mcp_redirect_param(q, "state");
	if (plen != strlen(MCP_REDIRECT_PATH) || strncmp(target,
	    MCP_REDIRECT_PATH, plen) != 0 || got == NULL ||
	    strcmp(got, state) != 0) {
		/* Not this sign-in's: whoever sent it learns nothing, and
		 * the wait goes on. */
		free(got);
		mcp_redirect_answer(fd, 400, "Not this sign-in.");
		return 0;
	}
	free(got);
	*code = mcp_redirect_param(q, "code");
	if (*code == NULL || **code == '\0') {
		got = mcp_redirect_param(q, "error");
		/* The server's word reaches an error an agent reads. */
		for (why = got; why != NULL && *why != '\0'; why++)
			if ((unsigned char)*why < 0x20 ||
			    (unsigned char)*why >= 0x7f)
				*why = '?';
		*err = xasprintf("the authorization server answered %.100s",
		    got != NULL ? got : "without a code");
		free(got);
		free(*code);
		*code = NULL;
		mcp_redirect_answer(fd, 200, "<p>huddle was not signed in. You "
		    "may close this page.</p>");
		*rc = -1;
		return 1;
	}
	mcp_redirect_answer(fd, 200, "<p>Signed in: huddle has it from here. "
	    "You may close this page.</p>");
	*rc = 0;
	return 1;
}

/* Ends connection c: closed, its bytes wiped, its slot free. */
static void
mcp_redirect_drop(struct mcp_redirect_conn *c)
{
	close(c->fd);
	explicit_bzero(c->buf, c->len);
	c->fd = -1;
	c->len = 0;
}

int
mcp_redirect_wait(struct mcp_redirect *r, const char *authorize,
    const char *state, struct cancel *cancel, int64_t deadline,
    char **code, char **err)
{
	struct mcp_redirect_conn *c = xcalloc(MCP_REDIRECT_CONNS, sizeof *c);
	struct pollfd p[MCP_REDIRECT_CONNS + 2];
	int slot[MCP_REDIRECT_CONNS + 2];
	int64_t now, wake;
	int i, n, k, fd, rc = -1, done = 0;
	ssize_t got;

	*code = NULL;
	for (i = 0; i < MCP_REDIRECT_CONNS; i++)
		c[i].fd = -1;
	while (!done) {
		now = clock_mono_ms();
		if (now >= deadline) {
			*err = xstrdup("the browser did not come back in time");
			break;
		}
		/* The listener while a slot is free, the cancel, and every
		 * connection being read, each until its own limit. */
		n = 0;
		wake = deadline;
		for (i = 0; i < MCP_REDIRECT_CONNS; i++) {
			if (c[i].fd == -1)
				continue;
			if (c[i].until <= now) {
				mcp_redirect_answer(c[i].fd, 400, "Not a "
				    "sign-in.");
				mcp_redirect_drop(&c[i]);
				continue;
			}
			if (c[i].until < wake)
				wake = c[i].until;
			p[n].fd = c[i].fd;
			p[n].events = POLLIN;
			slot[n++] = i;
		}
		for (k = 0; k < MCP_REDIRECT_CONNS && c[k].fd != -1; k++)
			;
		p[n].fd = k < MCP_REDIRECT_CONNS ? r->fd : -1;
		p[n].events = POLLIN;
		slot[n++] = -1;
		p[n].fd = cancel != NULL ? cancel_fd(cancel) : -1;
		p[n].events = POLLIN;
		slot[n++] = -2;
		if (poll(p, (nfds_t)n, (int)(wake - now)) == -1 &&
		    errno != EINTR) {
			*err = xasprintf("poll: %s", strerror(errno));
			break;
		}
		if (cancel != NULL && cancel_fired(cancel)) {
			*err = xstrdup("cancelled");
			break;
		}
		for (i = 0; i < n && !done; i++) {
			struct mcp_redirect_conn *cc;

			if (slot[i] < 0 || !(p[i].revents & (POLLIN |
			    POLLHUP | POLLERR)))
				continue;
			cc = &c[slot[i]];
			got = read(cc->fd, cc->buf + cc->len,
			    sizeof cc->buf - 1 - cc->len);
			if (got <= 0) {
				mcp_redirect_drop(cc);
				continue;
			}
			cc->len += (size_t)got;
			cc->buf[cc->len] = '\0';
			if (strchr(cc->buf, '\n') == NULL) {
				if (cc->len + 1 >= sizeof cc->buf) {
					mcp_redirect_answer(cc->fd, 400,
					    "Not a sign-in.");
					mcp_redirect_drop(cc);
				}
				continue;
			}
			done = mcp_redirect_serve(r, cc->fd, cc->buf,
			    authorize, state, code, err, &rc);
			mcp_redirect_drop(cc);
		}
		if (!done && k < MCP_REDIRECT_CONNS &&
		    (p[n - 2].revents & POLLIN) &&
		    (fd = accept4(r->fd, NULL, NULL, SOCK_CLOEXEC |
		    SOCK_NONBLOCK)) != -1) {
			c[k].fd = fd;
			c[k].len = 0;
			c[k].until = clock_mono_ms() + MCP_REDIRECT_READ_MS;
		}
	}
	for (i = 0; i < MCP_REDIRECT_CONNS; i++)
		if (c[i].fd != -1)
			mcp_redirect_drop(&c[i]);
	free(c);
	return rc;
}
