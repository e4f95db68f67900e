/*
 * Unit tests of agent/netgate.c over a bare team's protocol engine
 * (agentfix.h; test_proxy tests the proxy itself): each command's pass
 * and its environment; a connection to a new host becomes a permission
 * request the person decides — once for the command, for the whole team,
 * or denied — and the connection goes on or is refused; allowed for the
 * team, a host is open to the other commands already waiting for it, and
 * their requests are withdrawn; a pass that ends withdraws its request;
 * the hosts allowed for the team are recalled, and huddle's own requests
 * a previous run left waiting are withdrawn.
 * A listening socket on 127.0.0.1 stands in for the host.
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent/netgate.h"
#include "agentfix.h"
#include "util/clock.h"
#include "util/xmalloc.h"

/* The person's --allow-local entry for the last host opened: the host
 * is on this machine, which the proxy refuses without one. */
static char local_entry[32];

/* A host: listening, so the kernel completes each connection to it. */
static int
host_open(int *port)
{
	struct sockaddr_in a;
	socklen_t alen = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(fd, 16), 0);
	getsockname(fd, (struct sockaddr *)&a, &alen);
	*port = ntohs(a.sin_port);
	snprintf(local_entry, sizeof local_entry, "127.0.0.1:%d", *port);
	return fd;
}

static char *
base64(const char *in)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
	    "qrstuvwxyz0123456789+/";
	size_t n = strlen(in), i, k = 0;
	char *out = xmalloc(4 * ((n + 2) / 3) + 1);

	for (i = 0; i < n; i += 3) {
		unsigned v = (unsigned char)in[i] << 16 | (i + 1 < n ?
		    (unsigned char)in[i + 1] << 8 : 0) | (i + 2 < n ?
		    (unsigned char)in[i + 2] : 0);

		out[k++] = tab[v >> 18 & 63];
		out[k++] = tab[v >> 12 & 63];
		out[k++] = i + 1 < n ? tab[v >> 6 & 63] : '=';
		out[k++] = i + 2 < n ? tab[v & 63] : '=';
	}
	out[k] = '\0';
	return out;
}

/* The credentials of a pass, from its HTTP_PROXY entry: "user:token". */
static char *
pass_creds(const struct netgate_pass *p)
{
	const char *const *env = netgate_pass_env(p);
	const char *v = env[0] + strlen("HTTP_PROXY=http://");
	const char *at = strchr(v, '@');

	ck_assert(strncmp(env[0], "HTTP_PROXY=http://", 18) == 0);
	ck_assert_ptr_nonnull(at);
	return xasprintf("%.*s", (int)(at - v), v);
}

/* Connects to the gate's proxy and asks for CONNECT host:port with the
 * pass's credentials (NULL: made-up ones); returns the socket. */
static int
ask_as(struct netgate *g, const struct netgate_pass *p, const char *host,
    int port)
{
	struct sockaddr_in a;
	char *creds = p != NULL ? pass_creds(p) : xstrdup("alice:0123456789"
	    "abcdef0123456789abcdef"), *b64 = base64(creds), *req;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)netgate_port(g));
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	req = xasprintf("CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n"
	    "Proxy-Authorization: Basic %s\r\n\r\n", host, port, host, port,
	    b64);
	ck_assert_int_eq(send(fd, req, strlen(req), MSG_NOSIGNAL),
	    (ssize_t)strlen(req));
	free(req);
	free(b64);
	free(creds);
	return fd;
}

static int
ask(struct netgate *g, const struct netgate_pass *p, int port)
{
	return ask_as(g, p, "127.0.0.1", port);
}

/* The head of the proxy's answer on fd (malloc'd), waiting up to 10 s;
 * closes fd. */
static char *
answer(int fd)
{
	char buf[2048] = "";
	size_t len = 0;
	int64_t deadline = clock_mono_ms() + 10000;
	struct pollfd p = { fd, POLLIN, 0 };
	ssize_t n;

	while (len < sizeof buf - 1 && strstr(buf, "\r\n\r\n") == NULL) {
		int left = (int)(deadline - clock_mono_ms());

		if (left <= 0 || poll(&p, 1, left) != 1)
			break;
		if ((n = recv(fd, buf + len, sizeof buf - 1 - len, 0)) <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
	}
	buf[len] = '\0';
	close(fd);
	return xstrdup(buf);
}

/* Checks that the answer on fd starts with want; a 403's body too. */
static void
expect_answer(int fd, const char *want, const char *reason)
{
	char *got = answer(fd);

	ck_assert_msg(strncmp(got, want, strlen(want)) == 0, "got '%s'",
	    got);
	if (reason != NULL)
		ck_assert_msg(strstr(got, reason) != NULL, "'%s' lacks '%s'",
		    got, reason);
	free(got);
}

/* How many requests the protocol engine holds, pending or decided. */
static size_t
requests(struct agentfix *f)
{
	struct request *list;
	size_t n = protocol_list(f->team.core.proto, 100, &list);

	request_free_array(list, n);
	return n;
}

static void
decide(struct agentfix *f, const char *id, int approve, const char *text)
{
	char *msg = NULL;

	ck_assert_int_eq(protocol_respond(f->team.core.proto, id,
	    MSG_PERMISSION_RESPONSE, MSG_USER, approve, text, &msg),
	    PROTO_DECIDED);
	free(msg);
}

static struct netgate *
gate_open(struct agentfix *f)
{
	const char *local[] = { local_entry };
	char *err = NULL;
	struct netgate *g = netgate_open(f->team.core.proto, local,
	    *local_entry != '\0', &err);

	ck_assert_msg(g != NULL, "%s", err);
	f->team.netgate = g;
	return g;
}

START_TEST(a_pass_is_the_commands_own)
{
	struct agentfix f;
	struct netgate *g;
	struct netgate_pass *a, *b;
	const char *const *env;
	char *want, *ca, *cb;
	size_t i;

	af_open(&f);
	ck_assert_ptr_null(netgate_pass_new(NULL, "alice"));
	ck_assert_ptr_null(netgate_pass_env(NULL));
	ck_assert_int_eq(netgate_port(NULL), 0);
	netgate_pass_end(NULL, NULL);
	netgate_close(NULL);

	g = gate_open(&f);
	ck_assert_int_gt(netgate_port(g), 0);
	ck_assert_int_eq(team_proxy_port(&f.team), netgate_port(g));
	a = netgate_pass_new(g, "alice");
	b = netgate_pass_new(g, "alice");
	env = netgate_pass_env(a);
	ca = pass_creds(a);
	cb = pass_creds(b);
	ck_assert_uint_eq(strlen(ca), strlen("alice:") + 32);
	ck_assert_str_ne(ca, cb);	/* a token of its own */
	want = xasprintf("http://%s@127.0.0.1:%d", ca, netgate_port(g));
	for (i = 0; i < 7; i++)
		ck_assert_msg(strstr(env[i], want) != NULL, "%s", env[i]);
	ck_assert_ptr_nonnull(strstr(env[1], "HTTPS_PROXY="));
	ck_assert_ptr_nonnull(strstr(env[6], "PIP_PROXY="));
	ck_assert_str_eq(env[7], "NO_PROXY=");
	ck_assert_str_eq(env[8], "no_proxy=");
	ck_assert_ptr_null(env[9]);
	free(want);
	free(ca);
	free(cb);
	netgate_pass_end(g, a);
	netgate_pass_end(g, b);
	netgate_close(g);
	f.team.netgate = NULL;
	af_close(&f);
}
END_TEST

START_TEST(targets_are_read_from_bodies)
{
	char out[64];

	ck_assert(netgate_target("network: example.org:443 (CONNECT) — "
	    "approve", out, sizeof out));
	ck_assert_str_eq(out, "example.org:443");
	ck_assert(netgate_target("network: [::1]:80\nmore", out, sizeof out));
	ck_assert_str_eq(out, "[::1]:80");
	ck_assert(!netgate_target("bash: rm -rf /", out, sizeof out));
	ck_assert(!netgate_target("network: ", out, sizeof out));
	ck_assert(!netgate_target(NULL, out, sizeof out));
	ck_assert(!netgate_target("network: example.org:443", out, 8));
}
END_TEST

START_TEST(without_a_pass_nothing_is_asked)
{
	struct agentfix f;
	struct netgate *g;
	int port, host = host_open(&port);

	af_open(&f);
	g = gate_open(&f);
	expect_answer(ask(g, NULL, port), "HTTP/1.1 407", "only the commands "
	    "huddle runs");
	ck_assert_uint_eq(requests(&f), 0);
	netgate_close(g);
	f.team.netgate = NULL;
	close(host);
	af_close(&f);
}
END_TEST

/* Opens the bare team f and its gate g, and alice's pass a, whose
 * connection to port asks the lead; returns once the question is asked
 * (its id in id) with the connection's socket. */
static int
open_and_ask(struct agentfix *f, struct netgate **g, struct netgate_pass **a,
    int port, char id[PROTO_ID_SIZE])
{
	int fd;

	af_open(f);
	*g = gate_open(f);
	*a = netgate_pass_new(*g, "alice");
	fd = ask(*g, *a, port);
	af_wait_request(f, REQ_PERMISSION, ROSTER_LEAD, id);
	return fd;
}

START_TEST(allowed_for_the_team_asks_no_more)
{
	struct agentfix f;
	struct netgate *g, *again;
	struct netgate_pass *a, *b;
	struct request *r;
	char id[PROTO_ID_SIZE], target[64], *want;
	int port, host = host_open(&port), fd;

	fd = open_and_ask(&f, &g, &a, port, id);
	r = protocol_get(f.team.core.proto, id);
	ck_assert_str_eq(r->from, "alice");
	want = xasprintf("127.0.0.1:%d", port);
	ck_assert(netgate_target(r->body, target, sizeof target));
	ck_assert_str_eq(target, want);
	/* The address it leads to, and that it is this machine. */
	free(want);
	want = xasprintf("network: 127.0.0.1:%d (this machine), CONNECT — ",
	    port);
	ck_assert_msg(strncmp(r->body, want, strlen(want)) == 0, "%s",
	    r->body);
	free(want);
	want = xasprintf("127.0.0.1:%d", port);
	request_free(r);
	ck_assert_uint_eq(netgate_team_allowed(g), 0);
	decide(&f, id, 1, " Team, please");
	expect_answer(fd, "HTTP/1.1 200", NULL);
	ck_assert_uint_eq(netgate_team_allowed(g), 1);

	/* Another command, another agent: it goes at once. */
	b = netgate_pass_new(g, "bob");
	expect_answer(ask(g, b, port), "HTTP/1.1 200", NULL);
	ck_assert_uint_eq(requests(&f), 1);
	netgate_pass_end(g, a);
	netgate_pass_end(g, b);

	/* A resumed team recalls it. */
	free(want);
	want = NULL;
	again = netgate_open(f.team.core.proto, NULL, 0, &want);
	ck_assert_ptr_nonnull(again);
	ck_assert_uint_eq(netgate_team_allowed(again), 1);
	netgate_close(again);
	netgate_close(g);
	f.team.netgate = NULL;
	close(host);
	af_close(&f);
}
END_TEST

/* A gate whose person's list names two hosts of this machine. */
static struct netgate *
gate_open_both(struct agentfix *f, int port, int oport)
{
	char one[32], two[32], *err = NULL;
	const char *local[] = { one, two };
	struct netgate *g;

	snprintf(one, sizeof one, "127.0.0.1:%d", port);
	snprintf(two, sizeof two, "127.0.0.1:%d", oport);
	g = netgate_open(f->team.core.proto, local, 2, &err);
	ck_assert_msg(g != NULL, "%s", err);
	f->team.netgate = g;
	return g;
}

/* Waits up to 10 s until n requests are pending. */
static void
wait_pending(struct agentfix *f, size_t n)
{
	int64_t deadline = clock_mono_ms() + 10000;
	struct request *list;
	size_t k, i, pending;

	for (;;) {
		uint64_t gen = bus_generation(f->team.core.bus, ROSTER_LEAD);

		k = protocol_list(f->team.core.proto, 0, &list);
		for (i = 0, pending = 0; i < k; i++)
			pending += list[i].status == REQ_PENDING;
		request_free_array(list, k);
		if (pending >= n)
			return;
		ck_assert_msg(bus_wait_since(f->team.core.bus, ROSTER_LEAD, gen,
		    deadline, NULL) == 1, "%zu pending requests, not %zu",
		    pending, n);
	}
}

/* The ids of the n requests pending for 127.0.0.1:port, in any order. */
static void
pending_for(struct agentfix *f, int port, char (*ids)[PROTO_ID_SIZE],
    size_t n)
{
	struct request *list;
	char target[64], want[32];
	size_t k, i, found = 0;

	snprintf(want, sizeof want, "127.0.0.1:%d", port);
	k = protocol_list(f->team.core.proto, 0, &list);
	for (i = 0; i < k; i++) {
		if (list[i].status == REQ_PENDING && netgate_target(
		    list[i].body, target, sizeof target) && strcmp(target,
		    want) == 0 && found++ < n)
			memcpy(ids[found - 1], list[i].id, PROTO_ID_SIZE);
	}
	request_free_array(list, k);
	ck_assert_msg(found == n, "%zu pending requests for %s, not %zu",
	    found, want, n);
}

/* Two commands wait on requests of their own for one host (three MCP
 * servers' npx asking for the registry at once, say): allowed for the
 * whole team on one, the host is open to both at once, and the other's
 * request, moot, is withdrawn saying why. A third host's stays. */
START_TEST(allowed_for_the_team_answers_the_others_waiting)
{
	struct agentfix f;
	struct netgate *g;
	struct netgate_pass *a, *b, *c;
	struct request *r;
	char ids[2][PROTO_ID_SIZE], idc[1][PROTO_ID_SIZE], *want;
	int port, host = host_open(&port), other, oport, fa, fb, fc;

	other = host_open(&oport);
	af_open(&f);
	g = gate_open_both(&f, port, oport);
	a = netgate_pass_new(g, "lead");
	b = netgate_pass_new(g, "lead");
	c = netgate_pass_new(g, "lead");
	fa = ask(g, a, port);
	wait_pending(&f, 1);
	fb = ask(g, b, port);
	wait_pending(&f, 2);
	fc = ask(g, c, oport);
	wait_pending(&f, 3);
	pending_for(&f, port, ids, 2);
	pending_for(&f, oport, idc, 1);
	/* One of the two is answered; the other command, which waited on
	 * its own request, goes on as well. */
	decide(&f, ids[0], 1, "team");
	expect_answer(fa, "HTTP/1.1 200", NULL);
	expect_answer(fb, "HTTP/1.1 200", NULL);
	netgate_withdraw_moot(g);
	r = protocol_get(f.team.core.proto, ids[1]);
	ck_assert_int_eq(r->status, REQ_CANCELLED);
	want = xasprintf("127.0.0.1:%d was allowed for the whole team (%s) "
	    "while this waited", port, ids[0]);
	ck_assert_str_eq(r->response, want);
	free(want);
	request_free(r);
	/* Another host's request still waits for the person. */
	r = protocol_get(f.team.core.proto, idc[0]);
	ck_assert_int_eq(r->status, REQ_PENDING);
	request_free(r);
	decide(&f, idc[0], 0, "no");
	expect_answer(fc, "HTTP/1.1 403", "denied by the person");
	/* Nothing more to withdraw; nobody is asked again for the host. */
	netgate_withdraw_moot(g);
	expect_answer(ask(g, c, port), "HTTP/1.1 200", NULL);
	ck_assert_uint_eq(requests(&f), 3);
	netgate_pass_end(g, a);
	netgate_pass_end(g, b);
	netgate_pass_end(g, c);
	netgate_close(g);
	f.team.netgate = NULL;
	close(other);
	close(host);
	af_close(&f);
}
END_TEST

/* A network request of huddle's own (an MCP server's) that a previous
 * run left waiting is withdrawn when the gate opens: no connection waits
 * on it. An offer huddle made (no network) stays, and so does an
 * agent's request (its loop withdraws its own). */
START_TEST(huddles_stale_network_request_is_withdrawn)
{
	struct agentfix f;
	struct netgate *g;
	struct request *r;
	char stale[PROTO_ID_SIZE], offer[PROTO_ID_SIZE], own[PROTO_ID_SIZE];
	char *err = NULL;

	af_open(&f);
	ck_assert_int_eq(protocol_request(f.team.core.proto, REQ_PERMISSION,
	    MSG_SYSTEM, ROSTER_LEAD, "network: example.org:443, CONNECT, for "
	    "MCP server memory — approve", stale, &err), 0);
	ck_assert_int_eq(protocol_request(f.team.core.proto, REQ_PERMISSION,
	    MSG_SYSTEM, ROSTER_LEAD, "{\"tool\":\"MCP server proj\"}", offer,
	    &err), 0);
	ck_assert_int_eq(protocol_request(f.team.core.proto, REQ_PERMISSION,
	    ROSTER_LEAD, ROSTER_LEAD, "network: example.org:443, CONNECT — "
	    "approve", own, &err), 0);
	g = gate_open(&f);
	r = protocol_get(f.team.core.proto, stale);
	ck_assert_int_eq(r->status, REQ_CANCELLED);
	ck_assert_str_eq(r->response, "huddle restarted while the MCP server "
	    "waited");
	request_free(r);
	r = protocol_get(f.team.core.proto, offer);
	ck_assert_int_eq(r->status, REQ_PENDING);
	request_free(r);
	r = protocol_get(f.team.core.proto, own);
	ck_assert_int_eq(r->status, REQ_PENDING);
	request_free(r);
	netgate_close(g);
	f.team.netgate = NULL;
	af_close(&f);
}
END_TEST

/* A name that hides this machine: the request shows where it leads;
 * without the person's entry nobody is even asked. */
START_TEST(a_hidden_loopback_is_shown_or_refused)
{
	struct agentfix f;
	struct netgate *g;
	struct netgate_pass *a;
	struct request *r;
	char id[PROTO_ID_SIZE], *want;
	int port, host = host_open(&port), fd;
	char *err = NULL;

	af_open(&f);
	g = gate_open(&f);
	a = netgate_pass_new(g, "alice");
	fd = ask_as(g, a, "2130706433", port);
	af_wait_request(&f, REQ_PERMISSION, ROSTER_LEAD, id);
	r = protocol_get(f.team.core.proto, id);
	want = xasprintf("network: 2130706433:%d → 127.0.0.1 (this machine), "
	    "CONNECT — ", port);
	ck_assert_msg(strncmp(r->body, want, strlen(want)) == 0, "%s",
	    r->body);
	free(want);
	request_free(r);
	decide(&f, id, 1, NULL);
	expect_answer(fd, "HTTP/1.1 200", NULL);
	netgate_pass_end(g, a);
	netgate_close(g);

	/* The person's list lacks it: refused before anyone is asked. */
	g = netgate_open(f.team.core.proto, NULL, 0, &err);
	ck_assert_ptr_nonnull(g);
	f.team.netgate = g;
	a = netgate_pass_new(g, "alice");
	expect_answer(ask_as(g, a, "2130706433", port), "HTTP/1.1 403",
	    "is local, this machine");
	ck_assert_uint_eq(requests(&f), 1);
	netgate_pass_end(g, a);
	netgate_close(g);
	f.team.netgate = NULL;
	close(host);
	af_close(&f);
}
END_TEST

START_TEST(allowed_once_is_the_commands_alone)
{
	struct agentfix f;
	struct netgate *g;
	struct netgate_pass *a, *b;
	char id[PROTO_ID_SIZE], second[PROTO_ID_SIZE];
	int port, host = host_open(&port), fd;

	fd = open_and_ask(&f, &g, &a, port, id);
	decide(&f, id, 1, "teamwork is fine");	/* not the word alone */
	expect_answer(fd, "HTTP/1.1 200", NULL);
	ck_assert_uint_eq(netgate_team_allowed(g), 0);
	/* The same command again: no question. */
	expect_answer(ask(g, a, port), "HTTP/1.1 200", NULL);
	ck_assert_uint_eq(requests(&f), 1);

	/* The next command asks anew. */
	b = netgate_pass_new(g, "alice");
	fd = ask(g, b, port);
	af_wait_request(&f, REQ_PERMISSION, ROSTER_LEAD, second);
	ck_assert_str_ne(second, id);
	decide(&f, second, 0, "not today");
	expect_answer(fd, "HTTP/1.1 403", "denied by the person: not today");
	/* Its retries are refused without asking. */
	expect_answer(ask(g, b, port), "HTTP/1.1 403", "was refused for this "
	    "command");
	ck_assert_uint_eq(requests(&f), 2);
	netgate_pass_end(g, a);
	netgate_pass_end(g, b);
	netgate_close(g);
	f.team.netgate = NULL;
	close(host);
	af_close(&f);
}
END_TEST

START_TEST(a_pass_that_ends_withdraws_its_question)
{
	struct agentfix f;
	struct netgate *g;
	struct netgate_pass *a;
	struct request *r;
	char id[PROTO_ID_SIZE];
	int port, host = host_open(&port), fd;

	fd = open_and_ask(&f, &g, &a, port, id);
	netgate_pass_end(g, a);
	expect_answer(fd, "HTTP/1.1 403", "the command ended");
	r = protocol_get(f.team.core.proto, id);
	ck_assert_int_eq(r->status, REQ_CANCELLED);
	ck_assert_ptr_nonnull(strstr(r->response, "the command ended"));
	request_free(r);
	netgate_close(g);
	f.team.netgate = NULL;
	close(host);
	af_close(&f);
}
END_TEST

static Suite *
netgate_suite(void)
{
	Suite *s = suite_create("netgate");
	TCase *tc = tcase_create("netgate");

	tcase_add_test(tc, a_pass_is_the_commands_own);
	tcase_add_test(tc, targets_are_read_from_bodies);
	tcase_add_test(tc, without_a_pass_nothing_is_asked);
	tcase_add_test(tc, allowed_for_the_team_asks_no_more);
	tcase_add_test(tc, allowed_for_the_team_answers_the_others_waiting);
	tcase_add_test(tc, allowed_once_is_the_commands_alone);
	tcase_add_test(tc, a_hidden_loopback_is_shown_or_refused);
	tcase_add_test(tc, a_pass_that_ends_withdraws_its_question);
	tcase_add_test(tc, huddles_stale_network_request_is_withdrawn);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(netgate_suite());
}
