/*
 * Unit tests of tools/proxy: tunnels allowed, denied and waiting for an
 * answer, plain HTTP forwarded, bad requests, unknown hosts, credentials,
 * the connection cap, many connections at once, and closing while busy.
 * An echo server and a one-shot HTTP server on 127.0.0.1 stand in for
 * the hosts.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "testutil.h"
#include "tools/proxy.h"
#include "util/clock.h"
#include "util/xmalloc.h"

/* --- the stand-in hosts ---------------------------------------------------- */

struct server {
	int		 fd;
	int		 port;
	int		 http;		/* answer one request, else echo */
	pthread_t	 th;
	atomic_int	 accepted;
	char		 seen[4096];	/* the last HTTP head received */
	pthread_mutex_t	 lock;
};

/* One connection the server accepted. */
struct server_conn {
	struct server	*s;
	int		 fd;
};

static void *
server_conn(void *arg)
{
	struct server_conn *sc = arg;
	struct server *s = sc->s;
	int fd = sc->fd;
	char buf[4096];
	ssize_t n;
	size_t len = 0;

	free(sc);
	if (s->http) {
		while (len < sizeof buf - 1 && (n = recv(fd, buf + len,
		    sizeof buf - 1 - len, 0)) > 0) {
			len += (size_t)n;
			buf[len] = '\0';
			if (strstr(buf, "\r\n\r\n") != NULL)
				break;
		}
		buf[len] = '\0';
		pthread_mutex_lock(&s->lock);
		memcpy(s->seen, buf, len + 1);
		pthread_mutex_unlock(&s->lock);
		static const char reply[] = "HTTP/1.1 200 OK\r\n"
		    "Content-Length: 5\r\nConnection: close\r\n\r\nhello";
		(void)send(fd, reply, sizeof reply - 1, MSG_NOSIGNAL);
	} else {
		while ((n = recv(fd, buf, sizeof buf, 0)) > 0)
			if (send(fd, buf, (size_t)n, MSG_NOSIGNAL) != n)
				break;
	}
	close(fd);
	return NULL;
}

static void *
server_main(void *arg)
{
	struct server *s = arg;
	struct server_conn *sc;
	pthread_t th;
	int fd;

	while ((fd = accept(s->fd, NULL, NULL)) != -1) {
		atomic_fetch_add(&s->accepted, 1);
		sc = xcalloc(1, sizeof *sc);
		sc->s = s;
		sc->fd = fd;
		pthread_create(&th, NULL, server_conn, sc);
		pthread_detach(th);
	}
	return NULL;
}

static void
server_start(struct server *s, int http)
{
	struct sockaddr_in a;
	socklen_t alen = sizeof a;

	memset(s, 0, sizeof *s);
	s->http = http;
	pthread_mutex_init(&s->lock, NULL);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s->fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ne(s->fd, -1);
	ck_assert_int_eq(bind(s->fd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(s->fd, 128), 0);
	getsockname(s->fd, (struct sockaddr *)&a, &alen);
	s->port = ntohs(a.sin_port);
	pthread_create(&s->th, NULL, server_main, s);
}

static void
server_stop(struct server *s)
{
	shutdown(s->fd, SHUT_RDWR);
	close(s->fd);
	pthread_join(s->th, NULL);
}

/* --- the owner's side ------------------------------------------------------- */

struct owner {
	enum proxy_verdict	 verdict;
	const char		*reason;
	atomic_int		 asked;
	_Atomic uint64_t	 ticket;	/* the last one */
	char			 user[64], password[64], host[256];
	int			 port;
	pthread_mutex_t		 lock;
};

static enum proxy_verdict
owner_decide(void *ud, const struct proxy_target *t, char **reason)
{
	struct owner *o = ud;

	pthread_mutex_lock(&o->lock);
	snprintf(o->user, sizeof o->user, "%s", t->user ? t->user : "");
	snprintf(o->password, sizeof o->password, "%s", t->password ?
	    t->password : "");
	snprintf(o->host, sizeof o->host, "%s", t->host);
	o->port = t->port;
	pthread_mutex_unlock(&o->lock);
	atomic_store(&o->ticket, t->ticket);
	atomic_fetch_add(&o->asked, 1);
	if (o->reason != NULL)
		*reason = xstrdup(o->reason);
	return o->verdict;
}

/* Maps registry.example to 127.0.0.1; any other name is unknown. */
static int
owner_resolve(void *ud, const char *host, int port, struct addrinfo **out)
{
	struct addrinfo hints;
	char ports[8];

	(void)ud;
	if (strcmp(host, "registry.example") != 0 &&
	    strcmp(host, "127.0.0.1") != 0)
		return EAI_NONAME;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	snprintf(ports, sizeof ports, "%d", port);
	return getaddrinfo("127.0.0.1", ports, &hints, out);
}

static struct proxy *
start(struct owner *o, enum proxy_verdict v, int max_conns)
{
	struct proxy_options po;
	struct proxy *p;
	char *err = NULL;

	memset(o, 0, sizeof *o);
	pthread_mutex_init(&o->lock, NULL);
	o->verdict = v;
	memset(&po, 0, sizeof po);
	po.decide = owner_decide;
	po.ud = o;
	po.max_conns = max_conns;
	po.resolve = owner_resolve;
	p = proxy_open(&po, &err);
	ck_assert_msg(p != NULL, "%s", err ? err : "");
	ck_assert_int_gt(proxy_port(p), 0);
	return p;
}

/* --- a client ------------------------------------------------------------------ */

static int
client(struct proxy *p)
{
	struct sockaddr_in a;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)proxy_port(p));
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	return fd;
}

static void
say(int fd, const char *text)
{
	ck_assert_int_eq(send(fd, text, strlen(text), MSG_NOSIGNAL),
	    (ssize_t)strlen(text));
}

/* Reads until `until` appears, EOF, or 10 s; returns what came
 * (malloc'd). */
static char *
hear(int fd, const char *until)
{
	int64_t deadline = clock_mono_ms() + 10000;
	char *buf = xmalloc(65536);
	size_t len = 0;
	struct pollfd pf = { fd, POLLIN, 0 };
	ssize_t n;

	buf[0] = '\0';
	while (len < 65535 && clock_mono_ms() < deadline) {
		if (until != NULL && strstr(buf, until) != NULL)
			break;
		if (poll(&pf, 1, 100) <= 0)
			continue;
		if ((n = recv(fd, buf + len, 65535 - len, 0)) <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
	}
	return buf;
}

/* Whether nothing arrives on fd within ms. */
static int
quiet(int fd, int ms)
{
	struct pollfd pf = { fd, POLLIN, 0 };

	return poll(&pf, 1, ms) == 0;
}

static void
expect_status(int fd, const char *status)
{
	char *got = hear(fd, "\r\n\r\n");

	ck_assert_msg(strncmp(got, status, strlen(status)) == 0,
	    "wanted %s, got [%s]", status, got);
	free(got);
}

/* "Proxy-Authorization: Basic" of alice:s3cret. */
#define ALICE "Proxy-Authorization: Basic YWxpY2U6czNjcmV0\r\n"

/* --- the tests ------------------------------------------------------------------- */

START_TEST(connect_allowed_tunnels_both_ways)
{
	struct server s;
	struct owner o;
	struct proxy *p;
	char req[256], *got;
	int fd;

	server_start(&s, 0);
	p = start(&o, PROXY_ALLOW, 0);
	fd = client(p);
	snprintf(req, sizeof req, "CONNECT registry.example:%d HTTP/1.1\r\n"
	    "Host: registry.example:%d\r\n" ALICE "\r\n", s.port, s.port);
	say(fd, req);
	expect_status(fd, "HTTP/1.1 200");
	say(fd, "ping through the tunnel");
	got = hear(fd, "tunnel");
	ck_assert_str_eq(got, "ping through the tunnel");
	free(got);
	ck_assert_str_eq(o.user, "alice");
	ck_assert_str_eq(o.password, "s3cret");
	ck_assert_str_eq(o.host, "registry.example");
	ck_assert_int_eq(o.port, s.port);
	/* A half-close reaches the host, whose close comes back. */
	shutdown(fd, SHUT_WR);
	got = hear(fd, NULL);
	ck_assert_str_eq(got, "");
	free(got);
	close(fd);
	proxy_close(p);
	server_stop(&s);
}
END_TEST

START_TEST(connect_denied_gets_403_and_reaches_nothing)
{
	struct server s;
	struct owner o;
	struct proxy *p;
	char req[256], *got;
	int fd;

	server_start(&s, 0);
	p = start(&o, PROXY_DENY, 0);
	o.reason = "network to 127.0.0.1 denied by the person";
	fd = client(p);
	snprintf(req, sizeof req, "CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n",
	    s.port);
	say(fd, req);
	got = hear(fd, NULL);
	ck_assert_msg(strstr(got, "HTTP/1.1 403 Forbidden: network to "
	    "127.0.0.1 denied by the person\r\n") == got, "%s", got);
	ck_assert_ptr_nonnull(strstr(got, "\r\n\r\nhuddle proxy: network"));
	free(got);
	close(fd);
	ck_assert_int_eq(atomic_load(&s.accepted), 0);
	ck_assert_int_eq(atomic_load(&o.asked), 1);
	proxy_close(p);
	server_stop(&s);
}
END_TEST

START_TEST(a_waiting_connection_goes_on_its_answer)
{
	struct server s;
	struct owner o;
	struct proxy *p;
	char req[256], *got;
	int fd, fd2;
	int64_t deadline = clock_mono_ms() + 5000;
	uint64_t first;

	server_start(&s, 0);
	p = start(&o, PROXY_ASK, 0);
	fd = client(p);
	snprintf(req, sizeof req, "CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n",
	    s.port);
	say(fd, req);
	while (atomic_load(&o.asked) < 1 && clock_mono_ms() < deadline)
		usleep(1000);
	ck_assert_int_eq(atomic_load(&o.asked), 1);
	/* It waits: no answer, no connection. */
	ck_assert(quiet(fd, 200));
	ck_assert_int_eq(atomic_load(&s.accepted), 0);
	first = atomic_load(&o.ticket);
	proxy_answer(p, first + 100, 0, "not this one");
	ck_assert(quiet(fd, 50));
	proxy_answer(p, first, 1, NULL);
	expect_status(fd, "HTTP/1.1 200");
	say(fd, "after the answer");
	got = hear(fd, "answer");
	ck_assert_str_eq(got, "after the answer");
	free(got);

	/* A second one, refused with the person's words. */
	fd2 = client(p);
	say(fd2, req);
	while (atomic_load(&o.asked) < 2 && clock_mono_ms() < deadline)
		usleep(1000);
	ck_assert_uint_ne(atomic_load(&o.ticket), first);
	proxy_answer(p, atomic_load(&o.ticket), 0, "denied: not today");
	got = hear(fd2, NULL);
	ck_assert_msg(strstr(got, "403 Forbidden: denied: not today") !=
	    NULL, "%s", got);
	free(got);
	/* A late second answer changes nothing. */
	proxy_answer(p, first, 0, "late");
	say(fd, "still open");
	got = hear(fd, "open");
	ck_assert_str_eq(got, "still open");
	free(got);
	close(fd);
	close(fd2);
	proxy_close(p);
	server_stop(&s);
}
END_TEST

START_TEST(plain_http_is_forwarded_with_connection_close)
{
	struct server s;
	struct owner o;
	struct proxy *p;
	char req[512], *got;
	int fd;

	server_start(&s, 1);
	p = start(&o, PROXY_ALLOW, 0);
	fd = client(p);
	snprintf(req, sizeof req, "GET http://registry.example:%d/simple/"
	    "tiny/?x=1 HTTP/1.1\r\nHost: registry.example:%d\r\n" ALICE
	    "Proxy-Connection: keep-alive\r\nAccept: */*\r\n\r\n", s.port,
	    s.port);
	say(fd, req);
	got = hear(fd, NULL);
	ck_assert_msg(strncmp(got, "HTTP/1.1 200 OK", 15) == 0, "%s", got);
	ck_assert_ptr_nonnull(strstr(got, "\r\n\r\nhello"));
	free(got);
	close(fd);
	pthread_mutex_lock(&s.lock);
	ck_assert_msg(strncmp(s.seen, "GET /simple/tiny/?x=1 HTTP/1.1\r\n",
	    32) == 0, "%s", s.seen);
	ck_assert_ptr_nonnull(strstr(s.seen, "\r\nAccept: */*\r\n"));
	ck_assert_ptr_nonnull(strstr(s.seen, "\r\nConnection: close\r\n"));
	ck_assert_ptr_null(strstr(s.seen, "Proxy-"));
	ck_assert_ptr_null(strstr(s.seen, "YWxp"));
	pthread_mutex_unlock(&s.lock);
	ck_assert_str_eq(o.user, "alice");

	/* Without a Host header, one is made; without a path, "/". */
	fd = client(p);
	snprintf(req, sizeof req, "GET http://127.0.0.1:%d HTTP/1.0\r\n\r\n",
	    s.port);
	say(fd, req);
	got = hear(fd, NULL);
	ck_assert_ptr_nonnull(strstr(got, "hello"));
	free(got);
	close(fd);
	pthread_mutex_lock(&s.lock);
	ck_assert_msg(strncmp(s.seen, "GET / HTTP/1.0\r\nHost: 127.0.0.1:",
	    32) == 0, "%s", s.seen);
	pthread_mutex_unlock(&s.lock);
	proxy_close(p);
	server_stop(&s);
}
END_TEST

START_TEST(bad_requests_get_400_and_ask_nothing)
{
	static const char *const bad[] = {
		"GARBAGE\r\n\r\n",
		"GET /relative HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET https://x.example/ HTTP/1.1\r\n\r\n",
		"GET http://user:pw@x.example/ HTTP/1.1\r\n\r\n",
		"CONNECT x.example HTTP/1.1\r\n\r\n",
		"CONNECT x.example:99999 HTTP/1.1\r\n\r\n",
		"CONNECT x.example:0 HTTP/1.1\r\n\r\n",
		"CONNECT x.exa$mple:443 HTTP/1.1\r\n\r\n",
		"CONNECT [::1:443 HTTP/1.1\r\n\r\n",
		"CONNECT x.example:443 HTTP/2.0\r\n\r\n",
		"CONNECT x.example:443 HTTP/1.1\r\nno colon here\r\n\r\n",
		"CONNECT x.example:443 HTTP/1.1\r\n folded: x\r\n\r\n",
		"get http://x.example/ HTTP/1.1\r\n\r\n",
	};
	struct owner o;
	struct proxy *p;
	char *big;
	size_t i;
	int fd;

	p = start(&o, PROXY_ALLOW, 0);
	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		fd = client(p);
		say(fd, bad[i]);
		expect_status(fd, "HTTP/1.1 400");
		close(fd);
	}
	/* A head that never ends within the limit. */
	big = xmalloc(PROXY_HEAD_MAX + 64);
	memset(big, 'a', PROXY_HEAD_MAX + 63);
	memcpy(big, "GET http://x.example/ HTTP/1.1\r\nX: ", 35);
	big[PROXY_HEAD_MAX + 63] = '\0';
	fd = client(p);
	(void)send(fd, big, strlen(big), MSG_NOSIGNAL);
	expect_status(fd, "HTTP/1.1 431");
	close(fd);
	free(big);
	ck_assert_int_eq(atomic_load(&o.asked), 0);
	proxy_close(p);
}
END_TEST

START_TEST(unknown_hosts_and_refused_ports_get_502)
{
	struct owner o;
	struct proxy *p;
	char req[256], *got;
	int fd, closed;
	struct sockaddr_in a;
	socklen_t alen = sizeof a;

	p = start(&o, PROXY_ALLOW, 0);
	fd = client(p);
	say(fd, "CONNECT nowhere.example:443 HTTP/1.1\r\n\r\n");
	got = hear(fd, NULL);
	ck_assert_msg(strstr(got, "HTTP/1.1 502 Bad Gateway: cannot resolve "
	    "nowhere.example") == got, "%s", got);
	free(got);
	close(fd);

	/* A port nobody listens on (bound, then closed). */
	closed = socket(AF_INET, SOCK_STREAM, 0);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(closed, (struct sockaddr *)&a, sizeof a);
	getsockname(closed, (struct sockaddr *)&a, &alen);
	close(closed);
	fd = client(p);
	snprintf(req, sizeof req, "GET http://127.0.0.1:%d/ HTTP/1.1\r\n\r\n",
	    ntohs(a.sin_port));
	say(fd, req);
	got = hear(fd, NULL);
	ck_assert_msg(strstr(got, "502 Bad Gateway: cannot connect to "
	    "127.0.0.1") != NULL, "%s", got);
	free(got);
	close(fd);

	/* Nor may it be asked to connect to itself. */
	fd = client(p);
	snprintf(req, sizeof req, "CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n",
	    proxy_port(p));
	say(fd, req);
	got = hear(fd, NULL);
	ck_assert_msg(strstr(got, "502 Bad Gateway: cannot connect to "
	    "127.0.0.1 port") != NULL && strstr(got, "the proxy itself") !=
	    NULL, "%s", got);
	free(got);
	close(fd);
	proxy_close(p);
}
END_TEST

START_TEST(the_systems_resolver_is_used_by_default)
{
	struct server s;
	struct owner o;
	struct proxy_options po;
	struct proxy *p;
	char req[256], *got;
	int fd;

	server_start(&s, 0);
	memset(&o, 0, sizeof o);
	pthread_mutex_init(&o.lock, NULL);
	o.verdict = PROXY_ALLOW;
	memset(&po, 0, sizeof po);
	po.decide = owner_decide;
	po.ud = &o;
	p = proxy_open(&po, NULL);
	fd = client(p);
	snprintf(req, sizeof req, "CONNECT localhost:%d HTTP/1.1\r\n\r\n",
	    s.port);
	say(fd, req);
	expect_status(fd, "HTTP/1.1 200");
	say(fd, "local");
	got = hear(fd, "local");
	ck_assert_str_eq(got, "local");
	free(got);
	close(fd);
	proxy_close(p);
	server_stop(&s);
}
END_TEST

START_TEST(bad_credentials_get_407)
{
	struct owner o;
	struct proxy *p;
	char *got;
	int fd;

	p = start(&o, PROXY_AUTH, 0);
	fd = client(p);
	say(fd, "CONNECT x.example:443 HTTP/1.1\r\n"
	    "Proxy-Authorization: Basic !!notbase64\r\n\r\n");
	got = hear(fd, NULL);
	ck_assert_msg(strncmp(got, "HTTP/1.1 407", 12) == 0, "%s", got);
	ck_assert_ptr_nonnull(strstr(got, "Proxy-Authenticate: Basic"));
	free(got);
	close(fd);
	/* Bad base64 gives no credentials at all. */
	ck_assert_str_eq(o.user, "");
	proxy_close(p);
}
END_TEST

START_TEST(many_tunnels_at_once)
{
	enum { N = 40 };
	struct server s;
	struct owner o;
	struct proxy *p;
	char req[256], msg[64], *got;
	int fd[N], i;
	int64_t deadline;

	server_start(&s, 0);
	p = start(&o, PROXY_ALLOW, 0);
	snprintf(req, sizeof req, "CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n",
	    s.port);
	for (i = 0; i < N; i++) {
		fd[i] = client(p);
		say(fd[i], req);
	}
	for (i = 0; i < N; i++)
		expect_status(fd[i], "HTTP/1.1 200");
	for (i = 0; i < N; i++) {
		snprintf(msg, sizeof msg, "message %d end", i);
		say(fd[i], msg);
	}
	for (i = 0; i < N; i++) {
		snprintf(msg, sizeof msg, "message %d end", i);
		got = hear(fd[i], "end");
		ck_assert_str_eq(got, msg);
		free(got);
	}
	ck_assert_int_eq(proxy_connections(p), N);
	for (i = 0; i < N; i++)
		close(fd[i]);
	/* Every connection's thread ends when its client leaves. */
	deadline = clock_mono_ms() + 5000;
	while (proxy_connections(p) > 0 && clock_mono_ms() < deadline)
		usleep(1000);
	ck_assert_int_eq(proxy_connections(p), 0);
	proxy_close(p);
	server_stop(&s);
}
END_TEST

START_TEST(beyond_the_cap_a_client_gets_503)
{
	struct owner o;
	struct proxy *p;
	int fd[4], extra, i;
	int64_t deadline = clock_mono_ms() + 5000;

	p = start(&o, PROXY_ASK, 3);
	for (i = 0; i < 3; i++) {
		fd[i] = client(p);
		say(fd[i], "CONNECT x.example:443 HTTP/1.1\r\n\r\n");
	}
	while (atomic_load(&o.asked) < 3 && clock_mono_ms() < deadline)
		usleep(1000);
	extra = client(p);
	expect_status(extra, "HTTP/1.1 503");
	close(extra);
	for (i = 0; i < 3; i++)
		close(fd[i]);
	proxy_close(p);
}
END_TEST

START_TEST(closing_while_busy_ends_everything_at_once)
{
	struct server s;
	struct owner o;
	struct proxy *p;
	char req[256], *got;
	int tunnel[4], waiting[4], idle, i;
	int64_t t0;

	server_start(&s, 0);
	p = start(&o, PROXY_ALLOW, 0);
	snprintf(req, sizeof req, "CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n",
	    s.port);
	for (i = 0; i < 4; i++) {
		tunnel[i] = client(p);
		say(tunnel[i], req);
		expect_status(tunnel[i], "HTTP/1.1 200");
		say(tunnel[i], "busy");
	}
	o.verdict = PROXY_ASK;
	for (i = 0; i < 4; i++) {
		waiting[i] = client(p);
		say(waiting[i], req);
	}
	idle = client(p);
	say(idle, "GET http://x.exa");	/* half a head */
	t0 = clock_mono_ms();
	while (atomic_load(&o.asked) < 8 && clock_mono_ms() < t0 + 5000)
		usleep(1000);
	ck_assert_int_eq(atomic_load(&o.asked), 8);
	t0 = clock_mono_ms();
	proxy_close(p);
	ck_assert_int_lt(clock_mono_ms() - t0, 2000);
	/* Every client sees its connection end. */
	for (i = 0; i < 4; i++) {
		got = hear(tunnel[i], NULL);
		ck_assert_msg(strstr(got, "\r\n\r\n") == NULL, "%s", got);
		free(got);
		got = hear(waiting[i], NULL);
		ck_assert_msg(*got == '\0' || strstr(got, "403") != NULL,
		    "%s", got);
		free(got);
		close(tunnel[i]);
		close(waiting[i]);
	}
	got = hear(idle, NULL);
	ck_assert_str_eq(got, "");
	free(got);
	close(idle);
	server_stop(&s);
}
END_TEST

static Suite *
proxy_suite(void)
{
	Suite *s = suite_create("proxy");
	TCase *tc = tcase_create("proxy");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, connect_allowed_tunnels_both_ways);
	tcase_add_test(tc, connect_denied_gets_403_and_reaches_nothing);
	tcase_add_test(tc, a_waiting_connection_goes_on_its_answer);
	tcase_add_test(tc, plain_http_is_forwarded_with_connection_close);
	tcase_add_test(tc, bad_requests_get_400_and_ask_nothing);
	tcase_add_test(tc, unknown_hosts_and_refused_ports_get_502);
	tcase_add_test(tc, the_systems_resolver_is_used_by_default);
	tcase_add_test(tc, bad_credentials_get_407);
	tcase_add_test(tc, many_tunnels_at_once);
	tcase_add_test(tc, beyond_the_cap_a_client_gets_503);
	tcase_add_test(tc, closing_while_busy_ends_everything_at_once);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(proxy_suite());
}
