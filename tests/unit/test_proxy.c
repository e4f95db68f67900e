/*
 * Unit tests of tools/proxy: tunnels allowed, denied and waiting for an
 * answer, plain HTTP forwarded with its Host made from the URI, bad
 * requests, unknown hosts, credentials, the slots and each command's
 * share of them, the time to present credentials, an unauthenticated
 * flood, many connections at once, and closing while busy; this machine
 * under every name that hides it refused unless the owner's list allows
 * it, and a resolver that changes its answer never leading there. An
 * echo server and a one-shot HTTP server on 127.0.0.1 stand in for the
 * hosts: each test allows its server's port, as the person would.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
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
	char			 address[64], place[32];
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
	snprintf(o->address, sizeof o->address, "%s", t->address);
	snprintf(o->place, sizeof o->place, "%s", t->place ? t->place : "");
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

/* Starts a proxy with po (its decide, ud and resolver filled in when
 * unset) and o as its owner. */
static struct proxy *
start_with(struct owner *o, enum proxy_verdict v, struct proxy_options *po)
{
	struct proxy *p;
	char *err = NULL;

	memset(o, 0, sizeof *o);
	pthread_mutex_init(&o->lock, NULL);
	o->verdict = v;
	if (po->decide == NULL)
		po->decide = owner_decide;
	if (po->ud == NULL)
		po->ud = o;
	p = proxy_open(po, &err);
	ck_assert_msg(p != NULL, "%s", err ? err : "");
	ck_assert_int_gt(proxy_port(p), 0);
	return p;
}

/* Starts a proxy with the test resolver, allowing 127.0.0.1:local_port
 * (0: nothing) as the person would. */
static struct proxy *
start(struct owner *o, enum proxy_verdict v, int max_conns, int local_port)
{
	static char entry[32];
	static const char *local[] = { entry };
	struct proxy_options po;

	memset(&po, 0, sizeof po);
	po.max_conns = max_conns;
	po.resolve = owner_resolve;
	snprintf(entry, sizeof entry, "127.0.0.1:%d", local_port);
	po.local = local;
	po.nlocal = local_port > 0;
	return start_with(o, v, &po);
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

/* Starts the host s (answering HTTP when http), a proxy owned by o that
 * answers v and lets the person's 127.0.0.1:s's port through, and a
 * client of it; returns the client's socket. */
static int
client_of_host(struct server *s, struct owner *o, struct proxy **p,
    enum proxy_verdict v, int http)
{
	server_start(s, http);
	*p = start(o, v, 0, s->port);
	return client(*p);
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

	fd = client_of_host(&s, &o, &p, PROXY_ALLOW, 0);
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

	fd = client_of_host(&s, &o, &p, PROXY_DENY, 0);
	o.reason = "network to 127.0.0.1 denied by the person";
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

	fd = client_of_host(&s, &o, &p, PROXY_ASK, 0);
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

	fd = client_of_host(&s, &o, &p, PROXY_ALLOW, 1);
	/* A Host header that differs from the URI, twice. */
	snprintf(req, sizeof req, "GET http://registry.example:%d/simple/"
	    "tiny/?x=1 HTTP/1.1\r\nHost: evil.example\r\n" ALICE
	    "Proxy-Connection: keep-alive\r\nAccept: */*\r\n"
	    "host: 127.0.0.1:1\r\n\r\n", s.port);
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
	/* The host sees the Host of the URI that was judged, only. */
	snprintf(req, sizeof req, "\r\nHost: registry.example:%d\r\n",
	    s.port);
	ck_assert_msg(strstr(s.seen, req) != NULL, "%s", s.seen);
	ck_assert_msg(strcasestr(s.seen, "evil") == NULL, "%s", s.seen);
	ck_assert_msg(strstr(s.seen, "127.0.0.1:1\r\n") == NULL, "%s",
	    s.seen);
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

	p = start(&o, PROXY_ALLOW, 0, 0);
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

	/* A port nobody listens on (bound, then closed). */
	closed = socket(AF_INET, SOCK_STREAM, 0);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(closed, (struct sockaddr *)&a, sizeof a);
	getsockname(closed, (struct sockaddr *)&a, &alen);
	close(closed);
	p = start(&o, PROXY_ALLOW, 0, ntohs(a.sin_port));
	fd = client(p);
	say(fd, "CONNECT nowhere.example:443 HTTP/1.1\r\n\r\n");
	got = hear(fd, NULL);
	ck_assert_msg(strstr(got, "HTTP/1.1 502 Bad Gateway: cannot resolve "
	    "nowhere.example") == got, "%s", got);
	free(got);
	close(fd);

	fd = client(p);
	snprintf(req, sizeof req, "GET http://127.0.0.1:%d/ HTTP/1.1\r\n\r\n",
	    ntohs(a.sin_port));
	say(fd, req);
	got = hear(fd, NULL);
	ck_assert_msg(strstr(got, "502 Bad Gateway: cannot connect to "
	    "127.0.0.1") != NULL, "%s", got);
	free(got);
	close(fd);
	proxy_close(p);
}
END_TEST

/* Nor may it be asked to connect to itself, under any name of this
 * machine; nobody is asked. */
START_TEST(the_proxy_itself_is_refused_under_every_name)
{
	static const char *const names[] = { "127.0.0.1", "0.0.0.0", "0",
	    "2130706433", "127.1", "localhost", "[::]", "[::1]",
	    "[::ffff:0.0.0.0]", "[::ffff:127.0.0.1]" };
	struct proxy_options po;
	struct owner o;
	struct proxy *p;
	char req[256], *got;
	size_t i;
	int fd;

	memset(&po, 0, sizeof po);
	p = start_with(&o, PROXY_ALLOW, &po);
	for (i = 0; i < sizeof names / sizeof *names; i++) {
		fd = client(p);
		snprintf(req, sizeof req, "CONNECT %s:%d HTTP/1.1\r\n\r\n",
		    names[i], proxy_port(p));
		say(fd, req);
		got = hear(fd, NULL);
		ck_assert_msg(strncmp(got, "HTTP/1.1 403", 12) == 0 &&
		    strstr(got, "is huddle's proxy itself") != NULL, "%s: %s",
		    names[i], got);
		free(got);
		close(fd);
	}
	ck_assert_int_eq(atomic_load(&o.asked), 0);
	proxy_close(p);
}
END_TEST

START_TEST(the_systems_resolver_is_used_by_default)
{
	struct server s;
	struct owner o;
	struct proxy_options po;
	struct proxy *p;
	char req[256], entry[32], *got;
	const char *local[] = { entry };
	int fd;

	server_start(&s, 0);
	memset(&po, 0, sizeof po);
	snprintf(entry, sizeof entry, "localhost:%d", s.port);
	po.local = local;
	po.nlocal = 1;
	p = start_with(&o, PROXY_ALLOW, &po);
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
	ck_assert_str_eq(o.place, "this machine");
	proxy_close(p);
	server_stop(&s);
}
END_TEST

/* Takes alice:s3cret and bob:s3cret only. */
static int
owner_check(void *ud, const char *user, const char *password)
{
	(void)ud;
	return user != NULL && password != NULL && strcmp(password,
	    "s3cret") == 0 && (strcmp(user, "alice") == 0 || strcmp(user,
	    "bob") == 0);
}

START_TEST(bad_credentials_get_407)
{
	static const char *const bad[] = {
		"CONNECT x.example:443 HTTP/1.1\r\n"
		    "Proxy-Authorization: Basic !!notbase64\r\n\r\n",
		"CONNECT x.example:443 HTTP/1.1\r\n"
		    "Proxy-Authorization: Basic YWxpY2U6d3Jvbmc=\r\n\r\n",
		"CONNECT x.example:443 HTTP/1.1\r\n\r\n",
	};
	struct proxy_options po;
	struct owner o;
	struct proxy *p;
	char *got;
	size_t i;
	int fd;

	memset(&po, 0, sizeof po);
	po.check = owner_check;
	po.resolve = owner_resolve;
	p = start_with(&o, PROXY_ALLOW, &po);
	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		fd = client(p);
		say(fd, bad[i]);
		got = hear(fd, NULL);
		ck_assert_msg(strncmp(got, "HTTP/1.1 407", 12) == 0, "%s", got);
		ck_assert_ptr_nonnull(strstr(got, "Proxy-Authenticate: Basic"));
		free(got);
		close(fd);
	}
	ck_assert_int_eq(atomic_load(&o.asked), 0);
	proxy_close(p);
}
END_TEST

/* "Proxy-Authorization: Basic" of bob:s3cret. */
#define BOB "Proxy-Authorization: Basic Ym9iOnMzY3JldA==\r\n"

/* An IPv4 address of one of this machine's interfaces other than
 * loopback, or 0 when it has none. */
static int
own_address(char *out, size_t size)
{
	struct ifaddrs *list, *i;
	int found = 0;

	if (getifaddrs(&list) == -1)
		return 0;
	for (i = list; i != NULL && !found; i = i->ifa_next) {
		if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET ||
		    (ntohl(((struct sockaddr_in *)(void *)i->ifa_addr)->
		    sin_addr.s_addr) >> 24) == 127)
			continue;
		inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)
		    i->ifa_addr)->sin_addr, out, (socklen_t)size);
		found = 1;
	}
	freeifaddrs(list);
	return found;
}

/* Sends "CONNECT name:port" and returns the answer (malloc'd). */
static char *
ask_for(struct proxy *p, const char *name, int port, int *keep)
{
	char req[256], *got;
	int fd = client(p);

	snprintf(req, sizeof req, "CONNECT %s:%d HTTP/1.1\r\n" ALICE "\r\n",
	    name, port);
	say(fd, req);
	got = hear(fd, "\r\n\r\n");
	if (keep != NULL)
		*keep = fd;
	else
		close(fd);
	return got;
}

/* Every name that hides this machine, with the system's resolver: what
 * is judged is the address, and nobody is asked. */
START_TEST(names_that_hide_this_machine_are_refused)
{
	static const char *const names[] = { "2130706433", "0", "0x7f.1",
	    "127.1", "[::ffff:127.0.0.1]", "localhost", "127.0.0.1", "[::1]",
	    "0.0.0.0", "[::]", "017700000001", "0x7f000001", "127.0.0.2",
	    "[::ffff:7f00:1]", "[::127.0.0.1]" };
	static const char *const links[] = { "169.254.169.254", "[fe80::1]",
	    "[::ffff:169.254.1.1]" };
	struct proxy_options po;
	struct server s;
	struct owner o;
	struct proxy *p;
	char own[64], *got;
	size_t i;

	server_start(&s, 0);
	memset(&po, 0, sizeof po);
	p = start_with(&o, PROXY_ALLOW, &po);
	for (i = 0; i < sizeof names / sizeof *names; i++) {
		got = ask_for(p, names[i], s.port, NULL);
		ck_assert_msg(strncmp(got, "HTTP/1.1 403 Forbidden: ", 24) ==
		    0 && strstr(got, "this machine: huddle's proxy never "
		    "leads there, whoever approves") != NULL && strstr(got,
		    "--allow-local HOST:PORT") != NULL, "%s: %s", names[i],
		    got);
		free(got);
	}
	for (i = 0; i < sizeof links / sizeof *links; i++) {
		got = ask_for(p, links[i], 80, NULL);
		ck_assert_msg(strstr(got, "HTTP/1.1 403") == got && strstr(got,
		    "is link-local, the local link") != NULL, "%s: %s",
		    links[i], got);
		free(got);
	}
	/* The spelling is not what the sentence names: the address is. */
	got = ask_for(p, "2130706433", s.port, NULL);
	ck_assert_msg(strstr(got, "2130706433 at 127.0.0.1 port") != NULL,
	    "%s", got);
	free(got);
	if (own_address(own, sizeof own)) {
		got = ask_for(p, own, s.port, NULL);
		ck_assert_msg(strstr(got, "HTTP/1.1 403") == got && strstr(got,
		    "this machine") != NULL, "%s: %s", own, got);
		free(got);
	}
	ck_assert_int_eq(atomic_load(&o.asked), 0);
	ck_assert_int_eq(atomic_load(&s.accepted), 0);
	proxy_close(p);
	server_stop(&s);
}
END_TEST

/* The person's list opens one address and port, under any of its names,
 * and the owner is told where it leads; nothing else. */
START_TEST(the_persons_list_opens_this_machine)
{
	static const char *const names[] = { "2130706433", "0x7f.1", "127.1",
	    "127.0.0.1", "registry.example" };
	struct proxy_options po;
	struct server s;
	struct owner o;
	struct proxy *p;
	char entry[32], *got;
	const char *local[] = { entry }, *bad[] = { "nonsense" };
	size_t i;
	int fd;

	server_start(&s, 0);
	memset(&po, 0, sizeof po);
	po.local = bad;
	po.nlocal = 1;
	ck_assert_ptr_null(proxy_open(&po, &got));
	ck_assert_msg(strstr(got, "\"nonsense\" takes HOST:PORT") != NULL,
	    "%s", got);
	free(got);
	memset(&po, 0, sizeof po);
	snprintf(entry, sizeof entry, "127.0.0.1:%d", s.port);
	po.local = local;
	po.nlocal = 1;
	p = start_with(&o, PROXY_ALLOW, &po);
	for (i = 0; i < sizeof names / sizeof *names; i++) {
		if (strcmp(names[i], "registry.example") == 0)
			continue;	/* the system resolver knows it not */
		got = ask_for(p, names[i], s.port, &fd);
		ck_assert_msg(strncmp(got, "HTTP/1.1 200", 12) == 0, "%s: %s",
		    names[i], got);
		free(got);
		ck_assert_str_eq(o.address, "127.0.0.1");
		ck_assert_str_eq(o.place, "this machine");
		say(fd, "home");
		got = hear(fd, "home");
		ck_assert_str_eq(got, "home");
		free(got);
		close(fd);
	}
	ck_assert_int_eq(atomic_load(&o.asked), 4);
	/* Another port of the same address, or 0.0.0.0: still refused. */
	got = ask_for(p, "127.0.0.1", s.port == 65535 ? 1 : s.port + 1, NULL);
	ck_assert_msg(strstr(got, "HTTP/1.1 403") == got, "%s", got);
	free(got);
	got = ask_for(p, "0", s.port, NULL);
	ck_assert_msg(strstr(got, "HTTP/1.1 403") == got, "%s", got);
	free(got);
	ck_assert_int_eq(atomic_load(&o.asked), 4);
	proxy_close(p);
	server_stop(&s);
}
END_TEST

/* A resolver that answers 198.51.100.1 (a documentation address, and
 * not on the test machine's own network, 192.0.2.0/24) the first time
 * and 127.0.0.1 after; with `both`, the two in one answer. */
struct turncoat {
	atomic_int	calls;
	int		both;
};

static int
turncoat_resolve(void *ud, const char *host, int port, struct addrinfo **out)
{
	struct turncoat *t = ud;
	struct addrinfo hints, *second = NULL;
	char ports[8];
	int n = atomic_fetch_add(&t->calls, 1), rc;

	(void)host;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	snprintf(ports, sizeof ports, "%d", port);
	rc = getaddrinfo(n == 0 ? "198.51.100.1" : "127.0.0.1", ports, &hints,
	    out);
	if (rc == 0 && t->both && getaddrinfo("127.0.0.1", ports, &hints,
	    &second) == 0)
		(*out)->ai_next = second;
	return rc;
}

START_TEST(a_resolver_that_changes_its_answer_never_leads_home)
{
	struct proxy_options po;
	struct turncoat t;
	struct server s;
	struct owner o;
	struct proxy *p;
	char *got;

	server_start(&s, 0);
	memset(&t, 0, sizeof t);
	memset(&po, 0, sizeof po);
	po.resolve = turncoat_resolve;
	po.resolve_ud = &t;
	po.connect_timeout_ms = 300;
	p = start_with(&o, PROXY_ALLOW, &po);
	/* Judged and asked on the first answer; connected to it only. */
	got = ask_for(p, "rebind.example", s.port, NULL);
	ck_assert_msg(strstr(got, "HTTP/1.1 502") == got, "%s", got);
	free(got);
	ck_assert_int_eq(atomic_load(&t.calls), 1);
	ck_assert_int_eq(atomic_load(&o.asked), 1);
	ck_assert_str_eq(o.address, "198.51.100.1");
	ck_assert_str_eq(o.place, "");
	/* The second answer is judged as well: refused, not asked. */
	got = ask_for(p, "rebind.example", s.port, NULL);
	ck_assert_msg(strstr(got, "HTTP/1.1 403") == got && strstr(got,
	    "this machine") != NULL, "%s", got);
	free(got);
	ck_assert_int_eq(atomic_load(&t.calls), 2);
	ck_assert_int_eq(atomic_load(&o.asked), 1);
	proxy_close(p);

	/* Both in one answer: the public one is tried, loopback never. */
	memset(&t, 0, sizeof t);
	t.both = 1;
	p = start_with(&o, PROXY_ALLOW, &po);
	got = ask_for(p, "rebind.example", s.port, NULL);
	ck_assert_msg(strstr(got, "HTTP/1.1 502") == got, "%s", got);
	free(got);
	ck_assert_int_eq(atomic_load(&t.calls), 1);
	ck_assert_str_eq(o.address, "198.51.100.1");
	proxy_close(p);
	ck_assert_int_eq(atomic_load(&s.accepted), 0);
	server_stop(&s);
}
END_TEST

START_TEST(many_tunnels_at_once)
{
	enum { N = 40 };
	struct proxy_options po;
	struct server s;
	struct owner o;
	struct proxy *p;
	char req[256], msg[64], entry[32], *got;
	const char *local[] = { entry };
	int fd[N], i;
	int64_t deadline;

	server_start(&s, 0);
	memset(&po, 0, sizeof po);
	snprintf(entry, sizeof entry, "127.0.0.1:%d", s.port);
	po.local = local;
	po.nlocal = 1;
	po.share = N;
	p = start_with(&o, PROXY_ALLOW, &po);
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

/* Waits until the owner was asked n times (or 10 s). */
static void
wait_asked(struct owner *o, int n)
{
	int64_t deadline = clock_mono_ms() + 10000;

	while (atomic_load(&o->asked) < n && clock_mono_ms() < deadline)
		usleep(1000);
	ck_assert_int_eq(atomic_load(&o->asked), n);
}

/* Opens a connection that asks for registry.example:port as creds. */
static int
asking(struct proxy *p, const char *creds, int port)
{
	char req[256];
	int fd = client(p);

	snprintf(req, sizeof req, "CONNECT registry.example:%d HTTP/1.1\r\n"
	    "%s\r\n", port, creds);
	say(fd, req);
	return fd;
}

START_TEST(a_command_has_its_share_of_the_slots)
{
	struct proxy_options po;
	struct owner o;
	struct proxy *p;
	char entry[32], *got;
	const char *local[] = { entry };
	int fd[3], extra, i;

	memset(&po, 0, sizeof po);
	snprintf(entry, sizeof entry, "127.0.0.1:%d", 9);
	po.local = local;
	po.nlocal = 1;
	po.resolve = owner_resolve;
	po.max_conns = 8;
	po.share = 2;
	p = start_with(&o, PROXY_ASK, &po);
	fd[0] = asking(p, ALICE, 9);
	fd[1] = asking(p, ALICE, 9);
	wait_asked(&o, 2);
	/* alice's third is refused with a sentence; bob is asked. */
	extra = asking(p, ALICE, 9);
	got = hear(extra, NULL);
	ck_assert_msg(strncmp(got, "HTTP/1.1 503 Service Unavailable: this "
	    "command already has 2 connections open through huddle's proxy, "
	    "the most one command may have", 95) == 0, "%s", got);
	ck_assert_ptr_nonnull(strstr(got, "\r\n\r\nhuddle proxy: this "));
	free(got);
	close(extra);
	fd[2] = asking(p, BOB, 9);
	wait_asked(&o, 3);
	for (i = 0; i < 3; i++)
		close(fd[i]);
	proxy_close(p);
}
END_TEST

START_TEST(a_request_waits_for_a_slot_or_hears_why)
{
	struct proxy_options po;
	struct owner o;
	struct proxy *p;
	char entry[32], *got;
	const char *local[] = { entry };
	int fd[3], i;
	uint64_t first;

	memset(&po, 0, sizeof po);
	snprintf(entry, sizeof entry, "127.0.0.1:%d", 9);
	po.local = local;
	po.nlocal = 1;
	po.resolve = owner_resolve;
	po.max_conns = 2;
	po.slot_wait_ms = 60000;
	p = start_with(&o, PROXY_ASK, &po);
	fd[0] = asking(p, ALICE, 9);
	wait_asked(&o, 1);
	first = atomic_load(&o.ticket);
	fd[1] = asking(p, BOB, 9);
	wait_asked(&o, 2);
	/* Every slot is taken: the third waits, unanswered, unasked. */
	fd[2] = asking(p, "", 9);
	ck_assert(quiet(fd[2], 200));
	ck_assert_int_eq(atomic_load(&o.asked), 2);
	/* One ends: the third goes on. */
	proxy_answer(p, first, 0, "no");
	expect_status(fd[0], "HTTP/1.1 403");
	wait_asked(&o, 3);
	for (i = 0; i < 3; i++)
		close(fd[i]);
	proxy_close(p);

	/* No slot comes free in time: a sentence, not a bare 503. */
	po.slot_wait_ms = 300;
	po.decide = NULL;
	po.ud = NULL;
	p = start_with(&o, PROXY_ASK, &po);
	fd[0] = asking(p, ALICE, 9);
	fd[1] = asking(p, BOB, 9);
	wait_asked(&o, 2);
	fd[2] = asking(p, "", 9);
	got = hear(fd[2], NULL);
	ck_assert_msg(strncmp(got, "HTTP/1.1 503 Service Unavailable: all 2 "
	    "connections of huddle's proxy are in use", 69) == 0, "%s", got);
	free(got);
	for (i = 0; i < 3; i++)
		close(fd[i]);
	proxy_close(p);
}
END_TEST

START_TEST(credentials_come_within_the_limit_or_the_door_closes)
{
	struct proxy_options po;
	struct owner o;
	struct proxy *p;
	char *got;
	int idle, half;
	int64_t t0 = clock_mono_ms();

	memset(&po, 0, sizeof po);
	po.resolve = owner_resolve;
	po.auth_timeout_ms = 300;
	p = start_with(&o, PROXY_ALLOW, &po);
	idle = client(p);
	half = client(p);
	say(half, "CONNECT registry.example:9 HTTP/1.1\r\n");
	got = hear(idle, NULL);
	ck_assert_msg(strncmp(got, "HTTP/1.1 408 Request Timeout: no request "
	    "with credentials within 300 ms", 61) == 0, "%s", got);
	free(got);
	got = hear(half, NULL);
	ck_assert_msg(strncmp(got, "HTTP/1.1 408", 12) == 0, "%s", got);
	free(got);
	/* hear() returned on the close, well before its own 10 s. */
	ck_assert_int_lt(clock_mono_ms() - t0, 9000);
	ck_assert_int_eq(atomic_load(&o.asked), 0);
	close(idle);
	close(half);
	proxy_close(p);
}
END_TEST

/* Idle connections beyond the pool: the oldest are closed for newcomers,
 * and none of them holds a slot, so a request with credentials goes. */
START_TEST(an_unauthenticated_flood_starves_no_one)
{
	enum { IDLE = 12 };
	struct proxy_options po;
	struct server s;
	struct owner o;
	struct proxy *p;
	char entry[32], req[256], *got;
	const char *local[] = { entry };
	int idle[IDLE], fd, i, evicted = 0;
	ssize_t n;

	server_start(&s, 0);
	memset(&po, 0, sizeof po);
	snprintf(entry, sizeof entry, "127.0.0.1:%d", s.port);
	po.local = local;
	po.nlocal = 1;
	po.resolve = owner_resolve;
	po.max_conns = 2;
	po.max_unauth = 4;
	po.auth_timeout_ms = 60000;
	po.evict_after_ms = 100;
	p = start_with(&o, PROXY_ALLOW, &po);
	for (i = 0; i < IDLE; i++)
		idle[i] = client(p);
	fd = client(p);
	snprintf(req, sizeof req, "CONNECT registry.example:%d HTTP/1.1\r\n"
	    ALICE "\r\n", s.port);
	say(fd, req);
	/* Served long before the idle ones' minute is up. */
	got = hear(fd, "\r\n\r\n");
	ck_assert_msg(strncmp(got, "HTTP/1.1 200", 12) == 0, "%s", got);
	free(got);
	say(fd, "still served");
	got = hear(fd, "served");
	ck_assert_str_eq(got, "still served");
	free(got);
	/* The oldest IDLE - 4 + 1 made room for the request: each of
	 * them hears why, though its own thread may say so a moment after
	 * the request is served. */
	for (i = 0; i < IDLE; i++) {
		struct pollfd pf = { idle[i], POLLIN, 0 };

		if (poll(&pf, 1, i < IDLE - 4 + 1 ? 10000 : 0) == 1) {
			got = xmalloc(512);
			n = recv(idle[i], got, 511, MSG_DONTWAIT);
			got[n > 0 ? n : 0] = '\0';
			ck_assert_msg(strstr(got, "503 Service Unavailable: "
			    "closed: no request with credentials came") ==
			    got + 9, "%s", got);
			evicted++;
			free(got);
		}
		close(idle[i]);
	}
	ck_assert_int_ge(evicted, IDLE - 4 + 1);
	close(fd);
	proxy_close(p);
	server_stop(&s);
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
	p = start(&o, PROXY_ALLOW, 0, s.port);
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
	tcase_add_test(tc, the_proxy_itself_is_refused_under_every_name);
	tcase_add_test(tc, names_that_hide_this_machine_are_refused);
	tcase_add_test(tc, the_persons_list_opens_this_machine);
	tcase_add_test(tc, a_resolver_that_changes_its_answer_never_leads_home);
	tcase_add_test(tc, a_command_has_its_share_of_the_slots);
	tcase_add_test(tc, a_request_waits_for_a_slot_or_hears_why);
	tcase_add_test(tc, credentials_come_within_the_limit_or_the_door_closes);
	tcase_add_test(tc, an_unauthenticated_flood_starves_no_one);
	tcase_add_test(tc, closing_while_busy_ends_everything_at_once);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(proxy_suite());
}
