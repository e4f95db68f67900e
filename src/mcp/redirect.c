/*
 * The loopback listener of a sign-in (see redirect.h). One connection at
 * a time, each read with a short limit of its own, so that a stray
 * connection that says nothing cannot hold the sign-in up.
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
	    listen(fd, 8) == -1 ||
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

/* Reads one connection's request line into buf (size bytes); 0, or -1
 * when it sent none in time. */
static int
mcp_redirect_read(int fd, char *buf, size_t size)
{
	int64_t until = clock_mono_ms() + MCP_REDIRECT_READ_MS;
	struct pollfd p = { fd, POLLIN, 0 };
	size_t len = 0;
	ssize_t n;

	while (len + 1 < size) {
		int left = (int)(until - clock_mono_ms());

		if (left <= 0 || poll(&p, 1, left) <= 0)
			return -1;
		if ((n = read(fd, buf + len, size - 1 - len)) <= 0)
			return -1;
		len += (size_t)n;
		buf[len] = '\0';
		if (strstr(buf, "\r\n") != NULL || strchr(buf, '\n') != NULL)
			return 0;
	}
	return -1;
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

int
mcp_redirect_wait(struct mcp_redirect *r, const char *authorize,
    const char *state, struct cancel *cancel, int64_t deadline,
    char **code, char **err)
{
	struct pollfd p[2];
	char buf[MCP_REDIRECT_MAX], *target, *sp, *got, *why;
	int fd, n;

	*code = NULL;
	for (;;) {
		int left = (int)(deadline - clock_mono_ms());

		if (left <= 0) {
			*err = xstrdup("the browser did not come back in time");
			return -1;
		}
		p[0].fd = r->fd;
		p[0].events = POLLIN;
		p[1].fd = cancel != NULL ? cancel_fd(cancel) : -1;
		p[1].events = POLLIN;
		n = poll(p, 2, left > 1000 ? 1000 : left);
		if (cancel != NULL && cancel_fired(cancel)) {
			*err = xstrdup("cancelled");
			return -1;
		}
		if (n <= 0 || !(p[0].revents & POLLIN))
			continue;
		if ((fd = accept4(r->fd, NULL, NULL, SOCK_CLOEXEC)) == -1)
			continue;
		if (mcp_redirect_read(fd, buf, sizeof buf) == -1 ||
		    strncmp(buf, "GET ", 4) != 0) {
			mcp_redirect_answer(fd, 400, "Not a sign-in.");
			close(fd);
			continue;
		}
		target = buf + 4;
		if ((sp = strchr(target, ' ')) != NULL)
			*sp = '\0';
		if (strcmp(target, r->start_path) == 0) {
			/* Once: a second visit would give the state to
			 * whoever comes second. */
			if (!r->started)
				mcp_redirect_send_on(fd, authorize);
			else
				mcp_redirect_answer(fd, 400, "This sign-in "
				    "page was opened already.");
			r->started = 1;
			close(fd);
			continue;
		}
		got = mcp_redirect_param(strchr(target, '?'), "state");
		if (strncmp(target, MCP_REDIRECT_PATH,
		    strlen(MCP_REDIRECT_PATH)) != 0 || got == NULL ||
		    strcmp(got, state) != 0) {
			/* Not this sign-in's: whoever sent it learns
			 * nothing, and the wait goes on. */
			free(got);
			mcp_redirect_answer(fd, 400, "Not this sign-in.");
			close(fd);
			continue;
		}
		free(got);
		*code = mcp_redirect_param(strchr(target, '?'), "code");
		if (*code == NULL || **code == '\0') {
			why = mcp_redirect_param(strchr(target, '?'),
			    "error");
			*err = xasprintf("the authorization server answered "
			    "%.100s", why != NULL ? why : "without a code");
			free(why);
			free(*code);
			*code = NULL;
			mcp_redirect_answer(fd, 200, "<p>huddle was not signed "
			    "in. You may close this page.</p>");
			close(fd);
			return -1;
		}
		mcp_redirect_answer(fd, 200, "<p>Signed in: huddle has it "
		    "from here. You may close this page.</p>");
		close(fd);
		explicit_bzero(buf, sizeof buf);
		return 0;
	}
}
