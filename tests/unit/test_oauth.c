/*
 * Unit tests of the sign-in engine's pure parts (mcp/oauth.h), its
 * SHA-256 (util/sha256.h), the loopback listener (mcp/redirect.h) and the
 * store of sign-ins (mcp/tokens.h). The flows against real authorization
 * servers are the conformance suite's (tests/conformance/mcpsuite.py) and
 * tests/integration/oauth.py's.
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "llm/http.h"
#include "mcp/oauth.h"
#include "mcp/redirect.h"
#include "mcp/tokens.h"
#include "mcp/transport.h"
#include "testutil.h"
#include "tools/env.h"
#include "util/clock.h"
#include "util/sha256.h"
#include "util/xmalloc.h"

/* The hex of a digest. */
static void
hex(const unsigned char *d, char out[2 * SHA256_SIZE + 1])
{
	int i;

	for (i = 0; i < SHA256_SIZE; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

START_TEST(sha256_meets_the_standards_vectors)
{
	unsigned char d[SHA256_SIZE];
	char h[2 * SHA256_SIZE + 1], *million;

	/* FIPS 180-4's examples (csrc.nist.gov, SHA256.pdf). */
	sha256("abc", 3, d);
	hex(d, h);
	ck_assert_str_eq(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9c"
	    "b410ff61f20015ad");
	sha256("", 0, d);
	hex(d, h);
	ck_assert_str_eq(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934c"
	    "a495991b7852b855");
	sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
	    d);
	hex(d, h);
	ck_assert_str_eq(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167"
	    "f6ecedd419db06c1");
	/* A million 'a'. */
	million = xmalloc(1000000);
	memset(million, 'a', 1000000);
	sha256(million, 1000000, d);
	hex(d, h);
	ck_assert_str_eq(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e"
	    "046d39ccc7112cd0");
	free(million);
	/* 55 and 64 bytes: the padding's edges. */
	sha256("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 55, d);
	hex(d, h);
	ck_assert_str_eq(h, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e24"
	    "1c9f1e910f734318");
}
END_TEST

START_TEST(pkce_s256_is_rfc_7636s)
{
	char ch[44];

	/* RFC 7636, Appendix B. */
	mcp_oauth_s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", ch);
	ck_assert_str_eq(ch, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
	ck_assert_uint_eq(strlen(ch), 43);
}
END_TEST

START_TEST(www_authenticate_is_read)
{
	const char *h = "Bearer error=\"invalid_token\", error_description="
	    "\"Missing \\\"Authorization\\\" header\", scope=\"mcp:basic "
	    "mcp:write\", resource_metadata=\"http://h:1/.well-known/"
	    "oauth-protected-resource/mcp\"";
	char *v;

	v = mcp_oauth_challenge(h, "scope");
	ck_assert_str_eq(v, "mcp:basic mcp:write");
	free(v);
	v = mcp_oauth_challenge(h, "resource_metadata");
	ck_assert_str_eq(v, "http://h:1/.well-known/oauth-protected-resource/"
	    "mcp");
	free(v);
	v = mcp_oauth_challenge(h, "error_description");
	ck_assert_str_eq(v, "Missing \"Authorization\" header");
	free(v);
	ck_assert_ptr_null(mcp_oauth_challenge(h, "realm"));
	/* Another scheme's parameters are not the Bearer's; names and the
	 * scheme in any case; token values. */
	h = "Basic realm=\"x\", scope=\"basic\", bEaReR Scope=mcp:a, "
	    "error=insufficient_scope";
	v = mcp_oauth_challenge(h, "scope");
	ck_assert_str_eq(v, "mcp:a");
	free(v);
	v = mcp_oauth_challenge(h, "error");
	ck_assert_str_eq(v, "insufficient_scope");
	free(v);
	ck_assert_ptr_null(mcp_oauth_challenge("Basic scope=\"a\"", "scope"));
	/* Bare, empty, broken, absent. */
	ck_assert_ptr_null(mcp_oauth_challenge("Bearer", "scope"));
	ck_assert_ptr_null(mcp_oauth_challenge("", "scope"));
	ck_assert_ptr_null(mcp_oauth_challenge(NULL, "scope"));
	v = mcp_oauth_challenge("Bearer scope=\"unterminated", "scope");
	ck_assert_str_eq(v, "unterminated");
	free(v);
}
END_TEST

/* urls[i] as a string. */
static const char *
at(json_t *urls, size_t i)
{
	return json_string_value(json_array_get(urls, i));
}

/* Where metadata is looked for: a server's resource metadata (prm), or an
 * issuer's (as), and the first URLs expected (NULL: not checked). */
static const struct {
	int		 as;
	const char	*url, *hint;
	size_t		 n;
	const char	*want[3];
} metadata_cases[] = {
	{ 0, "http://localhost:8/mcp", NULL, 2, {
	    "http://localhost:8/.well-known/oauth-protected-resource/mcp",
	    "http://localhost:8/.well-known/oauth-protected-resource" } },
	/* Nothing is fetched over plain HTTP from another machine: not
	 * the header's resource_metadata, not the well-known places of a
	 * server there, not an issuer's. */
	{ 0, "https://h/mcp", "http://evil.example/prm", 2, {
	    "https://h/.well-known/oauth-protected-resource/mcp" } },
	{ 0, "http://h:8/mcp", NULL, 0, { NULL } },
	{ 1, "http://as.example/tenant1", NULL, 0, { NULL } },
	/* The header's first; query and trailing slash left out. */
	{ 0, "https://h/a/mcp/?x=1", "https://h/custom.json", 3, {
	    "https://h/custom.json",
	    "https://h/.well-known/oauth-protected-resource/a/mcp" } },
	/* A server at the root has only the root's. */
	{ 0, "https://h", "", 1, {
	    "https://h/.well-known/oauth-protected-resource" } },
	{ 0, "not a url", NULL, 0, { NULL } },
	/* RFC 8414 for an issuer with a path, then OpenID's two. */
	{ 1, "https://as.example/tenant1", NULL, 3, {
	    "https://as.example/.well-known/oauth-authorization-server/tenant1",
	    "https://as.example/.well-known/openid-configuration/tenant1",
	    "https://as.example/tenant1/.well-known/openid-configuration" } },
	{ 1, "https://as.example/", NULL, 2, {
	    "https://as.example/.well-known/oauth-authorization-server",
	    "https://as.example/.well-known/openid-configuration" } },
};

START_TEST(metadata_urls_are_tried_path_based_first)
{
	json_t *u;
	size_t i, j;

	for (i = 0; i < sizeof metadata_cases / sizeof *metadata_cases; i++) {
		u = metadata_cases[i].as ?
		    mcp_oauth_as_urls(metadata_cases[i].url) :
		    mcp_oauth_prm_urls(metadata_cases[i].url,
		    metadata_cases[i].hint);
		ck_assert_msg(json_array_size(u) == metadata_cases[i].n,
		    "%s: %zu URLs", metadata_cases[i].url, json_array_size(u));
		for (j = 0; j < 3 && metadata_cases[i].want[j] != NULL; j++)
			ck_assert_str_eq(at(u, j), metadata_cases[i].want[j]);
		json_decref(u);
	}
}
END_TEST

START_TEST(scopes_are_chosen_as_the_specification_says)
{
	json_t *prm = json_pack("[s,s,s]", "mcp:basic", "mcp:read", "");
	json_t *as = json_pack("[s,s]", "mcp:basic", "offline_access");
	json_t *none;
	char *s;

	/* The challenge's first. */
	s = mcp_oauth_scopes("files:read", prm, NULL);
	ck_assert_str_eq(s, "files:read");
	free(s);
	/* Else all the resource supports (an empty one skipped). */
	s = mcp_oauth_scopes(NULL, prm, NULL);
	ck_assert_str_eq(s, "mcp:basic mcp:read");
	free(s);
	s = mcp_oauth_scopes("", prm, NULL);
	ck_assert_str_eq(s, "mcp:basic mcp:read");
	free(s);
	/* Else none at all. */
	ck_assert_ptr_null(mcp_oauth_scopes(NULL, NULL, as));
	none = json_array();
	ck_assert_ptr_null(mcp_oauth_scopes(NULL, none, NULL));
	json_decref(none);
	/* offline_access when the authorization server lists it, once. */
	s = mcp_oauth_scopes("mcp:basic", NULL, as);
	ck_assert_str_eq(s, "mcp:basic offline_access");
	free(s);
	s = mcp_oauth_scopes("offline_access mcp:basic", NULL, as);
	ck_assert_str_eq(s, "offline_access mcp:basic");
	free(s);
	json_decref(prm);
	json_decref(as);
}
END_TEST

START_TEST(a_resource_must_be_the_servers)
{
	ck_assert(mcp_oauth_resource_ok("http://h:1/mcp", "http://h:1/mcp"));
	ck_assert(mcp_oauth_resource_ok("http://h:1", "http://h:1/mcp"));
	ck_assert(mcp_oauth_resource_ok("http://h:1/", "http://h:1/mcp"));
	ck_assert(mcp_oauth_resource_ok("HTTP://H:1/a", "http://h:1/a/mcp"));
	ck_assert(!mcp_oauth_resource_ok("https://evil.example.com/mcp",
	    "http://h:1/mcp"));
	ck_assert(!mcp_oauth_resource_ok("http://h:2/mcp", "http://h:1/mcp"));
	ck_assert(!mcp_oauth_resource_ok("https://h:1/mcp",
	    "http://h:1/mcp"));
	ck_assert(!mcp_oauth_resource_ok("http://h:1/mc", "http://h:1/mcp"));
	ck_assert(!mcp_oauth_resource_ok("http://h:1/mcp/x",
	    "http://h:1/mcp"));
	ck_assert(!mcp_oauth_resource_ok("", "http://h:1/mcp"));
}
END_TEST

START_TEST(secrets_go_over_https_or_stay_on_this_machine)
{
	ck_assert(mcp_oauth_url_ok("https://as.example/token"));
	ck_assert(mcp_oauth_url_ok("HTTPS://as.example"));
	ck_assert(mcp_oauth_url_ok("http://localhost:8080/token"));
	ck_assert(mcp_oauth_url_ok("http://127.0.0.1/token"));
	ck_assert(mcp_oauth_url_ok("http://127.1.2.3:9/t"));
	ck_assert(mcp_oauth_url_ok("http://[::1]:9/t"));
	ck_assert(!mcp_oauth_url_ok("http://as.example/token"));
	ck_assert(!mcp_oauth_url_ok("http://localhost.evil.example/t"));
	ck_assert(!mcp_oauth_url_ok("http://127.0.0.1.evil.example/t"));
	ck_assert(!mcp_oauth_url_ok("http://localhost@evil.example/t"));
	ck_assert(!mcp_oauth_url_ok("http://[::1].evil/t"));
	ck_assert(!mcp_oauth_url_ok("ftp://as.example/t"));
	ck_assert(!mcp_oauth_url_ok("https://"));
	ck_assert(!mcp_oauth_url_ok(NULL));
	/* Nothing that could end a header line or split a request. */
	ck_assert(!mcp_oauth_url_ok("http://localhost:80\r\nX: y"));
	ck_assert(!mcp_oauth_url_ok("https://as.example/a b"));
	ck_assert(!mcp_oauth_url_ok("https://as.example/\t"));
	ck_assert(!mcp_oauth_url_ok("https://as.example/\x7f"));
}
END_TEST

START_TEST(what_servers_say_is_checked_before_it_is_used)
{
	char *s, big[MCP_OAUTH_TOKEN_MAX + 2];
	json_t *m;

	/* RFC 8414 section 3.3: the issuer the metadata was fetched for. */
	ck_assert(mcp_oauth_issuer_ok("https://as.example/t1",
	    "https://as.example/t1"));
	ck_assert(mcp_oauth_issuer_ok("https://as.example/",
	    "https://as.example"));
	ck_assert(!mcp_oauth_issuer_ok("https://evil.example",
	    "https://as.example"));
	ck_assert(!mcp_oauth_issuer_ok("https://as.example/t2",
	    "https://as.example/t1"));
	ck_assert(!mcp_oauth_issuer_ok(NULL, "https://as.example"));
	ck_assert(!mcp_oauth_issuer_ok("", ""));
	/* PKCE with S256 listed, or no sign-in. */
	ck_assert(!mcp_oauth_pkce_ok(NULL));
	m = json_pack("[s]", "plain");
	ck_assert(!mcp_oauth_pkce_ok(m));
	json_decref(m);
	m = json_pack("[s, s]", "plain", "S256");
	ck_assert(mcp_oauth_pkce_ok(m));
	json_decref(m);
	/* RFC 6750's b64token, and not too long. */
	ck_assert(mcp_oauth_token_ok("abc.DEF-_~+/9=="));
	ck_assert(!mcp_oauth_token_ok(""));
	ck_assert(!mcp_oauth_token_ok(NULL));
	ck_assert(!mcp_oauth_token_ok("abc\r\nX-Evil: 1"));
	ck_assert(!mcp_oauth_token_ok("a b"));
	ck_assert(!mcp_oauth_token_ok("a=b"));
	ck_assert(!mcp_oauth_token_ok("=="));
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	ck_assert(!mcp_oauth_token_ok(big));
	big[MCP_OAUTH_TOKEN_MAX] = '\0';
	ck_assert(mcp_oauth_token_ok(big));
	/* Scope-tokens only: no line forged in the person's table. */
	s = mcp_oauth_scope_clean("a  b\nsign x\" c\\d e");
	ck_assert_str_eq(s, "a e");
	free(s);
	s = mcp_oauth_scope_clean("notes:read offline_access");
	ck_assert_str_eq(s, "notes:read offline_access");
	free(s);
	ck_assert_ptr_null(mcp_oauth_scope_clean("\n\t"));
	ck_assert_ptr_null(mcp_oauth_scope_clean(NULL));
	s = mcp_oauth_scopes("x\ny", NULL, NULL);
	ck_assert_ptr_null(s);
	m = json_pack("[s, s]", "good", "bad\n");
	s = mcp_oauth_scopes(NULL, m, NULL);
	ck_assert_str_eq(s, "good");
	free(s);
	json_decref(m);
	/* Printable ASCII, capped. */
	s = mcp_oauth_printable("bad\x1b[2J\r\nline", 100);
	ck_assert_str_eq(s, "bad?[2J??line");
	free(s);
	s = mcp_oauth_printable("abcdef", 3);
	ck_assert_str_eq(s, "abc");
	free(s);
	/* A life too long to add is capped, not wrapped. */
	ck_assert(mcp_oauth_expiry(1000, 60) == 1060);
	ck_assert(mcp_oauth_expiry(1000, 0) == 0);
	ck_assert(mcp_oauth_expiry(1000, -5) == 0);
	ck_assert(mcp_oauth_expiry(1000, INT64_MAX) > 1000);
	ck_assert(mcp_oauth_expiry(1000, INT64_MAX) < 1000 +
	    (json_int_t)11 * 366 * 24 * 3600);
}
END_TEST

START_TEST(the_browser_keeps_the_desktop)
{
	char **env;
	int i, xauth = 0, dbus = 0, dsess = 0, secret = 0;

	setenv("XAUTHORITY", "/home/p/.Xauthority", 1);
	setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1/bus", 1);
	setenv("DESKTOP_SESSION", "gnome", 1);
	setenv("SOME_API_TOKEN", "t0ps3cret", 1);
	env = env_for_browser();
	for (i = 0; env[i] != NULL; i++) {
		xauth |= strncmp(env[i], "XAUTHORITY=", 11) == 0;
		dbus |= strncmp(env[i], "DBUS_SESSION_BUS_ADDRESS=", 25) == 0;
		dsess |= strncmp(env[i], "DESKTOP_SESSION=", 16) == 0;
		secret |= strncmp(env[i], "SOME_API_TOKEN=", 15) == 0;
	}
	free(env);
	ck_assert(xauth);
	ck_assert(dbus);
	ck_assert(dsess);
	ck_assert(!secret);
	unsetenv("SOME_API_TOKEN");
}
END_TEST

START_TEST(token_endpoint_auth_follows_the_metadata)
{
	json_t *basic = json_pack("[s]", "client_secret_basic");
	json_t *post = json_pack("[s]", "client_secret_post");
	json_t *none = json_pack("[s]", "none");

	ck_assert_str_eq(mcp_oauth_auth_method(NULL, 1),
	    "client_secret_basic");
	ck_assert_str_eq(mcp_oauth_auth_method(basic, 1),
	    "client_secret_basic");
	ck_assert_str_eq(mcp_oauth_auth_method(post, 1),
	    "client_secret_post");
	ck_assert_str_eq(mcp_oauth_auth_method(none, 1), "none");
	ck_assert_str_eq(mcp_oauth_auth_method(basic, 0), "none");
	json_decref(basic);
	json_decref(post);
	json_decref(none);
}
END_TEST

START_TEST(query_parameters_are_decoded)
{
	char *v;

	v = mcp_redirect_param("/callback?code=a%2Fb+c&state=x", "code");
	ck_assert_str_eq(v, "a/b c");
	free(v);
	v = mcp_redirect_param("code=1&xstate=2&state=3#state=4", "state");
	ck_assert_str_eq(v, "3");
	free(v);
	ck_assert_ptr_null(mcp_redirect_param("?a=1#state=4", "state"));
	ck_assert_ptr_null(mcp_redirect_param(NULL, "state"));
	v = mcp_redirect_param("?state=%zz%4", "state");
	ck_assert_str_eq(v, "%zz%4");
	free(v);
	v = mcp_redirect_param("?state=", "state");
	ck_assert_str_eq(v, "");
	free(v);
}
END_TEST

/* What a browser sends the listener, and what it got back. */
struct visit {
	int		 port;
	const char	*lines[4];
	char		 got[4][512];
};

/* Connects to port on 127.0.0.1: the descriptor, or -1. */
static int
knock(int port)
{
	struct sockaddr_in sin;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sin, sizeof sin) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Sends each request line on a connection of its own, in turn. */
static void *
visit_run(void *arg)
{
	struct visit *v = arg;
	struct sockaddr_in sin;
	ssize_t n;
	int i, fd;

	for (i = 0; i < 4 && v->lines[i] != NULL; i++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		memset(&sin, 0, sizeof sin);
		sin.sin_family = AF_INET;
		sin.sin_port = htons(v->port);
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		ck_assert_int_eq(connect(fd, (struct sockaddr *)&sin,
		    sizeof sin), 0);
		n = write(fd, v->lines[i], strlen(v->lines[i]));
		ck_assert_int_gt(n, 0);
		n = read(fd, v->got[i], sizeof v->got[i] - 1);
		v->got[i][n > 0 ? n : 0] = '\0';
		close(fd);
	}
	return NULL;
}

START_TEST(the_listener_takes_its_own_sign_in_only)
{
	struct mcp_redirect *r;
	struct visit v;
	pthread_t th;
	char *err = NULL, *code = NULL, *start, *line;
	const char *path;

	r = mcp_redirect_open(&err);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(strncmp(mcp_redirect_uri(r), "http://127.0.0.1:",
	    17), 0);
	memset(&v, 0, sizeof v);
	v.port = atoi(mcp_redirect_uri(r) + 17);
	/* Until the person said yes, nobody gets in, nor waits in line to
	 * be served first. */
	ck_assert_int_eq(knock(v.port), -1);
	ck_assert_int_eq(mcp_redirect_listen(r, &err), 0);
	path = strstr(mcp_redirect_start_uri(r) + 7, "/start/");
	ck_assert_ptr_nonnull(path);
	start = xasprintf("GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path);
	line = xstrdup("GET /callback?code=the-code&state=s1 HTTP/1.1\r\n\r\n");
	v.lines[0] = start;
	/* The start page answers once. */
	v.lines[1] = start;
	v.lines[2] = "GET /callback?code=forged&state=other HTTP/1.1\r\n\r\n";
	v.lines[3] = line;
	pthread_create(&th, NULL, visit_run, &v);
	ck_assert_int_eq(mcp_redirect_wait(r, "https://as/authorize?state=s1",
	    "s1", NULL, clock_mono_ms() + 5000, &code, &err), 0);
	pthread_join(th, NULL);
	ck_assert_str_eq(code, "the-code");
	ck_assert_ptr_nonnull(strstr(v.got[0], "302 Found"));
	ck_assert_ptr_nonnull(strstr(v.got[0], "Location: https://as/"
	    "authorize?state=s1"));
	ck_assert_ptr_nonnull(strstr(v.got[1], "400"));
	ck_assert_ptr_null(strstr(v.got[1], "state=s1"));
	ck_assert_ptr_nonnull(strstr(v.got[2], "400"));
	ck_assert_ptr_nonnull(strstr(v.got[3], "200 OK"));
	free(code);
	free(start);
	free(line);

	/* The authorization server's error, with the right state. */
	memset(&v, 0, sizeof v);
	v.port = atoi(mcp_redirect_uri(r) + 17);
	v.lines[0] = "GET /callback?error=access_denied&state=s2 HTTP/1.1\r\n\r\n";
	pthread_create(&th, NULL, visit_run, &v);
	ck_assert_int_eq(mcp_redirect_wait(r, "x", "s2", NULL,
	    clock_mono_ms() + 5000, &code, &err), -1);
	pthread_join(th, NULL);
	ck_assert_ptr_nonnull(strstr(err, "access_denied"));
	free(err);
	err = NULL;
	/* Nobody comes: the deadline. */
	ck_assert_int_eq(mcp_redirect_wait(r, "x", "s3", NULL,
	    clock_mono_ms() + 200, &code, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "in time"));
	free(err);
	mcp_redirect_close(r);
}
END_TEST

START_TEST(the_listener_is_not_held_up_nor_fooled_by_a_path)
{
	struct mcp_redirect *r;
	struct visit v;
	pthread_t th;
	char *err = NULL, *code = NULL;
	int idle, slow;
	int64_t began;

	r = mcp_redirect_open(&err);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(mcp_redirect_listen(r, &err), 0);
	memset(&v, 0, sizeof v);
	v.port = atoi(mcp_redirect_uri(r) + 17);
	/* One says nothing, one says half a line: neither holds the
	 * browser's return up. */
	idle = knock(v.port);
	ck_assert_int_ge(idle, 0);
	slow = knock(v.port);
	ck_assert_int_ge(slow, 0);
	ck_assert_int_eq(write(slow, "GET /callback?code=slow", 23), 23);
	/* The callback's path exactly: not one that begins with it. */
	v.lines[0] = "GET /callbackXYZ?code=forged&state=s1 HTTP/1.1\r\n\r\n";
	v.lines[1] = "GET /callback/x?code=forged&state=s1 HTTP/1.1\r\n\r\n";
	v.lines[2] = "GET /callback?code=real&state=s1 HTTP/1.1\r\n\r\n";
	began = clock_mono_ms();
	pthread_create(&th, NULL, visit_run, &v);
	ck_assert_int_eq(mcp_redirect_wait(r, "x", "s1", NULL,
	    clock_mono_ms() + 20000, &code, &err), 0);
	pthread_join(th, NULL);
	ck_assert_int_lt(clock_mono_ms() - began, 3000);
	ck_assert_str_eq(code, "real");
	ck_assert_ptr_nonnull(strstr(v.got[0], "400"));
	ck_assert_ptr_nonnull(strstr(v.got[1], "400"));
	ck_assert_ptr_nonnull(strstr(v.got[2], "200 OK"));
	free(code);
	close(idle);
	close(slow);
	mcp_redirect_close(r);
}
END_TEST

START_TEST(a_store_that_cannot_be_read_is_not_written_over)
{
	char *dir = tu_tmpdir(), *path = xasprintf("%s/%s", dir,
	    MCP_TOKENS_FILE), *err = NULL, buf[64];
	json_t *e = json_pack("{s:s}", "access_token", "A"), *kept;
	FILE *f;
	size_t n;

	f = fopen(path, "w");
	fputs("{\"servers\": {\"https://h/mcp\": {\"access_tok", f);
	fclose(f);
	ck_assert_ptr_null(mcp_tokens_get(path, "https://h/mcp"));
	ck_assert_int_eq(mcp_tokens_put(path, "https://o/mcp", e, &err), -1);
	ck_assert_ptr_nonnull(err);
	free(err);
	err = NULL;
	f = fopen(path, "r");
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "access_tok"));
	ck_assert_ptr_null(strstr(buf, "https://o/mcp"));
	/* Written only while it holds what it held. */
	unlink(path);
	ck_assert_int_eq(mcp_tokens_put(path, "https://h/mcp", e, &err), 0);
	ck_assert_int_eq(mcp_tokens_swap(path, "https://h/mcp", NULL, "B",
	    &err), 1);
	kept = mcp_tokens_get(path, "https://h/mcp");
	ck_assert_ptr_nonnull(kept);
	json_decref(kept);
	ck_assert_int_eq(mcp_tokens_swap(path, "https://h/mcp", NULL, "A",
	    &err), 0);
	ck_assert_ptr_null(mcp_tokens_get(path, "https://h/mcp"));
	ck_assert_int_eq(mcp_tokens_swap(path, "https://h/mcp", e, "A",
	    &err), 1);
	json_decref(e);
	free(path);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(the_store_is_the_persons_alone_and_forgets)
{
	char *dir = tu_tmpdir(), *path = xasprintf("%s/%s", dir,
	    MCP_TOKENS_FILE), *err = NULL, *line;
	json_t *e = json_pack("{s:s, s:s}", "access_token", "tok-1",
	    "refresh_token", "ref-1"), *got, *cfg;
	struct mcp_launch launch;
	struct mcp_oauth *o;
	struct stat st;

	ck_assert_ptr_null(mcp_tokens_get(path, "https://h/mcp"));
	ck_assert_int_eq(mcp_tokens_put(path, "https://h/mcp", e, &err), 0);
	ck_assert_int_eq(mcp_tokens_put(path, "http://other/mcp", e, &err),
	    0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	got = mcp_tokens_get(path, "https://h/mcp");
	ck_assert_str_eq(json_string_value(json_object_get(got,
	    "access_token")), "tok-1");
	json_decref(got);

	/* The server's state takes the stored token up, and logout
	 * forgets it: in memory and in the file, the other server's kept. */
	memset(&launch, 0, sizeof launch);
	launch.tokens = path;
	cfg = json_pack("{s:s, s:s}", "type", "http", "url", "https://h/mcp");
	o = mcp_oauth_new("h", cfg, &launch);
	line = mcp_oauth_header(o);
	ck_assert_str_eq(line, "Authorization: Bearer tok-1");
	free(line);
	line = mcp_oauth_text(o);
	ck_assert_str_eq(line, "signed in");
	free(line);
	ck_assert_int_eq(mcp_oauth_logout(o), 1);
	ck_assert_ptr_null(mcp_oauth_header(o));
	ck_assert_ptr_null(mcp_tokens_get(path, "https://h/mcp"));
	got = mcp_tokens_get(path, "http://other/mcp");
	ck_assert_ptr_nonnull(got);
	json_decref(got);
	ck_assert_int_eq(mcp_oauth_logout(o), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	mcp_oauth_free(o);

	/* Without anyone to ask, a 401 is a sentence at once. */
	o = mcp_oauth_new("h", cfg, NULL);
	{
		atomic_int asking = 0;
		atomic_llong asked = 0;

		ck_assert_int_eq(mcp_oauth_answer(o, 401, "Bearer", 0, NULL,
		    &asking, &asked, &err), -1);
		ck_assert_ptr_nonnull(strstr(err, "nobody can be asked"));
		free(err);
		err = NULL;
		/* A 403 that is not about scopes is no sign-in's. */
		ck_assert_int_eq(mcp_oauth_answer(o, 403, "Bearer "
		    "error=\"invalid_token\"", 0, NULL, &asking, &asked,
		    &err), -1);
		free(err);
	}
	mcp_oauth_free(o);
	json_decref(cfg);
	json_decref(e);
	free(path);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* --- a canned HTTP server: what an MCP server, its metadata and its
 * authorization server answer, by method and path ------------------------ */

struct route {
	const char	*method, *path;
	int		 status;
	const char	*headers;	/* extra lines, each ending "\r\n" */
	char		*body;		/* malloc'd */
	int		 hits;
};

struct canned {
	int		 fd, port;
	pthread_t	 th;
	atomic_int	 stop;
	char		*base;		/* "http://127.0.0.1:PORT" */
	struct route	 routes[8];
	int		 n;
};

static void *
canned_run(void *arg)
{
	struct canned *c = arg;
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	char buf[16384], path[1024], method[16], *end, *cl, *reply;
	size_t len;
	ssize_t got;
	int fd, i, want;

	while (!atomic_load(&c->stop)) {
		if (poll(&pfd, 1, 50) <= 0 || (fd = accept(c->fd, NULL,
		    NULL)) == -1)
			continue;
		len = 0;
		buf[0] = '\0';
		while ((end = strstr(buf, "\r\n\r\n")) == NULL &&
		    len + 1 < sizeof buf && (got = read(fd, buf + len,
		    sizeof buf - 1 - len)) > 0) {
			len += (size_t)got;
			buf[len] = '\0';
		}
		/* The body, when there is one: read and ignored. */
		want = (cl = strcasestr(buf, "content-length:")) != NULL ?
		    atoi(cl + 15) : 0;
		while (end != NULL && (size_t)(end + 4 - buf) + (size_t)want >
		    len && len + 1 < sizeof buf && (got = read(fd, buf + len,
		    sizeof buf - 1 - len)) > 0) {
			len += (size_t)got;
			buf[len] = '\0';
		}
		method[0] = path[0] = '\0';
		sscanf(buf, "%15s %1023s", method, path);
		path[strcspn(path, "?")] = '\0';
		for (i = 0; i < c->n; i++)
			if (strcmp(c->routes[i].method, method) == 0 &&
			    strcmp(c->routes[i].path, path) == 0)
				break;
		if (i < c->n) {
			c->routes[i].hits++;
			reply = xasprintf("HTTP/1.1 %d X\r\nContent-Type: "
			    "application/json\r\n%sContent-Length: %zu\r\n"
			    "Connection: close\r\n\r\n%s", c->routes[i].status,
			    c->routes[i].headers != NULL ?
			    c->routes[i].headers : "",
			    strlen(c->routes[i].body), c->routes[i].body);
		} else
			reply = xstrdup("HTTP/1.1 404 Not Found\r\n"
			    "Content-Length: 0\r\nConnection: close\r\n\r\n");
		got = write(fd, reply, strlen(reply));
		(void)got;
		free(reply);
		close(fd);
	}
	return NULL;
}

/* Binds the server: its routes are set next, then canned_start. */
static void
canned_open(struct canned *c)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;

	memset(c, 0, sizeof *c);
	c->fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(c->fd, (struct sockaddr *)&sin, sizeof sin), 0);
	ck_assert_int_eq(listen(c->fd, 16), 0);
	getsockname(c->fd, (struct sockaddr *)&sin, &len);
	c->port = ntohs(sin.sin_port);
	c->base = xasprintf("http://127.0.0.1:%d", c->port);
	/* curl must reach it straight. */
	setenv("NO_PROXY", "*", 1);
	setenv("no_proxy", "*", 1);
}

/* Sets (or replaces) the answer to method path; body is stolen. */
static struct route *
canned_route(struct canned *c, const char *method, const char *path,
    int status, const char *headers, char *body)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->routes[i].method, method) == 0 &&
		    strcmp(c->routes[i].path, path) == 0)
			break;
	if (i == c->n)
		c->n++;
	ck_assert_int_le(c->n, 8);
	free(c->routes[i].body);
	c->routes[i].method = method;
	c->routes[i].path = path;
	c->routes[i].status = status;
	c->routes[i].headers = headers;
	c->routes[i].body = body;
	c->routes[i].hits = 0;
	return &c->routes[i];
}

/* The server's resource metadata, naming c itself its authorization
 * server. */
static void
canned_resource(struct canned *c)
{
	canned_route(c, "GET", "/.well-known/oauth-protected-resource/mcp",
	    200, NULL, xasprintf("{\"resource\": \"%s/mcp\", "
	    "\"authorization_servers\": [\"%s\"]}", c->base, c->base));
}

/* c's own authorization server metadata, its endpoints c's, listing
 * S256 when s256. */
static void
canned_issuer(struct canned *c, int s256)
{
	canned_route(c, "GET", "/.well-known/oauth-authorization-server",
	    200, NULL, xasprintf("{\"issuer\": \"%s\", "
	    "\"authorization_endpoint\": \"%s/authorize\", "
	    "\"token_endpoint\": \"%s/token\", "
	    "\"registration_endpoint\": \"%s/register\"%s}", c->base,
	    c->base, c->base, c->base, s256 ?
	    ", \"code_challenge_methods_supported\": [\"S256\"]" : ""));
}

static void
canned_start(struct canned *c)
{
	pthread_create(&c->th, NULL, canned_run, c);
}

static void
canned_stop(struct canned *c)
{
	int i;

	atomic_store(&c->stop, 1);
	pthread_join(c->th, NULL);
	close(c->fd);
	for (i = 0; i < c->n; i++)
		free(c->routes[i].body);
	free(c->base);
}

/* The person, as the tests play them: counts the sign-in requests and
 * declines each. */
static int asks;
static char *asked_first;

static int
decline(void *ud, const char *name, const char *origin, const char *resource,
    const char *scopes, const char *at, struct cancel *cancel, char **why)
{
	asks++;
	free(asked_first);
	asked_first = xasprintf("%s %s", origin, resource);
	(void)ud; (void)name; (void)scopes; (void)at; (void)cancel; (void)why;
	return 0;
}

static void
open_nothing(void *ud, const char *name, const char *url)
{
	(void)ud; (void)name; (void)url;
}

/* mcp_oauth_answer to a 401 with www: its result, the error in *err. */
static int
answer(struct mcp_oauth *o, const char *www, char **err)
{
	atomic_int asking = 0;
	atomic_llong asked = 0;

	free(*err);
	*err = NULL;
	return mcp_oauth_answer(o, 401, www, 0, NULL, &asking, &asked, err);
}

/* A server's state for url, asking through launch. */
static struct mcp_oauth *
server_for(const char *url, struct mcp_launch *launch)
{
	json_t *cfg = json_pack("{s:s, s:s}", "type", "http", "url", url);
	struct mcp_oauth *o = mcp_oauth_new("s", cfg, launch);

	json_decref(cfg);
	return o;
}

START_TEST(discovery_takes_nothing_that_could_be_forged)
{
	struct mcp_launch launch;
	struct mcp_oauth *o;
	struct canned c;
	char *err = NULL, *url;

	memset(&launch, 0, sizeof launch);
	launch.signin = decline;
	launch.open = open_nothing;
	asks = 0;

	/* A server over plain HTTP elsewhere: no sign-in at all, no token
	 * sent to it in the clear. */
	o = server_for("http://mcp.example/mcp", &launch);
	ck_assert_int_eq(answer(o, "Bearer resource_metadata=\"https://"
	    "mcp.example/prm\"", &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "plain HTTP"));
	mcp_oauth_free(o);

	canned_open(&c);
	url = xasprintf("%s/mcp", c.base);
	canned_route(&c, "GET", "/.well-known/oauth-protected-resource/mcp",
	    200, NULL, xasprintf("{\"resource\": \"%s/mcp\", "
	    "\"authorization_servers\": [\"http://as.example\"]}", c.base));
	canned_route(&c, "POST", "/register", 201, NULL,
	    xstrdup("{\"client_id\": \"c1\"}"));
	canned_start(&c);
	o = server_for(url, &launch);
	/* An authorization server over plain HTTP elsewhere. */
	ck_assert_int_eq(answer(o, "Bearer", &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "plain HTTP"));
	/* Metadata that names another issuer than the one it was fetched
	 * for (RFC 8414 section 3.3). */
	canned_resource(&c);
	canned_route(&c, "GET", "/.well-known/oauth-authorization-server",
	    200, NULL, xasprintf("{\"issuer\": \"https://evil.example\", "
	    "\"authorization_endpoint\": \"%s/authorize\", "
	    "\"token_endpoint\": \"https://evil.example/token\", "
	    "\"registration_endpoint\": \"https://evil.example/register\", "
	    "\"code_challenge_methods_supported\": [\"S256\"]}", c.base));
	ck_assert_int_eq(answer(o, "Bearer", &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "another issuer"));
	/* Metadata that does not list S256. */
	canned_issuer(&c, 0);
	ck_assert_int_eq(answer(o, "Bearer", &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "PKCE"));
	ck_assert_int_eq(asks, 0);
	/* With S256 the person is asked, told where the token goes. */
	canned_issuer(&c, 1);
	ck_assert_int_eq(answer(o, "Bearer", &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "declined"));
	ck_assert_int_eq(asks, 1);
	ck_assert_str_eq(asked_first, strstr(asked_first, c.base));
	ck_assert_ptr_nonnull(strstr(asked_first, " http://127.0.0.1"));
	mcp_oauth_free(o);
	canned_stop(&c);
	free(url);
	free(err);
	free(asked_first);
	asked_first = NULL;
}
END_TEST

START_TEST(a_refresh_takes_what_another_huddle_refreshed)
{
	char *dir = tu_tmpdir(), *path = xasprintf("%s/%s", dir,
	    MCP_TOKENS_FILE), *err = NULL, *url, *line;
	struct mcp_launch launch;
	struct mcp_oauth *o;
	struct route *token;
	struct canned c;
	json_t *e, *got;

	canned_open(&c);
	url = xasprintf("%s/mcp", c.base);
	token = canned_route(&c, "POST", "/token", 200, NULL, xstrdup(
	    "{\"access_token\": \"A3\", \"token_type\": \"Bearer\", "
	    "\"refresh_token\": \"R3\", \"expires_in\": 3600}"));
	canned_start(&c);
	memset(&launch, 0, sizeof launch);
	launch.tokens = path;
	e = json_pack("{s:s, s:s, s:s, s:s, s:s}", "access_token", "A1",
	    "refresh_token", "R1", "token_endpoint", "", "client_id", "c1",
	    "auth_method", "none");
	json_object_set_new(e, "token_endpoint", json_sprintf("%s/token",
	    c.base));
	ck_assert_int_eq(mcp_tokens_put(path, url, e, &err), 0);
	o = server_for(url, &launch);
	/* Another huddle refreshed meanwhile: its token is taken, and the
	 * refresh token it used up is not offered again. */
	json_object_set_new(e, "access_token", json_string("A2"));
	json_object_set_new(e, "refresh_token", json_string("R2"));
	ck_assert_int_eq(mcp_tokens_put(path, url, e, &err), 0);
	ck_assert_int_eq(answer(o, "Bearer", &err), 0);
	line = mcp_oauth_header(o);
	ck_assert_str_eq(line, "Authorization: Bearer A2");
	free(line);
	ck_assert_int_eq(token->hits, 0);
	/* The same token as the store's: refreshed, and kept. */
	ck_assert_int_eq(answer(o, "Bearer", &err), 0);
	ck_assert_int_eq(token->hits, 1);
	line = mcp_oauth_header(o);
	ck_assert_str_eq(line, "Authorization: Bearer A3");
	free(line);
	got = mcp_tokens_get(path, url);
	ck_assert_str_eq(json_string_value(json_object_get(got,
	    "refresh_token")), "R3");
	json_decref(got);
	/* A token about to end is refreshed before the request; one with
	 * time left is not. */
	token = canned_route(&c, "POST", "/token", 200, NULL, xstrdup(
	    "{\"access_token\": \"A5\", \"token_type\": \"Bearer\", "
	    "\"refresh_token\": \"R5\", \"expires_in\": 3600}"));
	mcp_oauth_prepare(o, NULL);
	ck_assert_int_eq(token->hits, 0);
	got = mcp_tokens_get(path, url);
	json_object_set_new(got, "expires_at", json_integer(
	    (json_int_t)time(NULL) + 5));
	ck_assert_int_eq(mcp_tokens_put(path, url, got, &err), 0);
	json_decref(got);
	mcp_oauth_free(o);
	o = server_for(url, &launch);
	mcp_oauth_prepare(o, NULL);
	ck_assert_int_eq(token->hits, 1);
	line = mcp_oauth_header(o);
	ck_assert_str_eq(line, "Authorization: Bearer A5");
	free(line);
	/* Signed out in another huddle: not refreshed back in. */
	ck_assert_int_eq(mcp_tokens_put(path, url, NULL, &err), 0);
	ck_assert_int_eq(answer(o, "Bearer", &err), -1);
	ck_assert_int_eq(token->hits, 1);
	ck_assert_ptr_null(mcp_tokens_get(path, url));
	ck_assert_ptr_nonnull(strstr(err, "asks to sign in"));
	mcp_oauth_free(o);
	/* A token that could not go into a header is not taken. */
	token = canned_route(&c, "POST", "/token", 200, NULL, xstrdup(
	    "{\"access_token\": \"A4\\r\\nX-Evil: 1\", \"token_type\": "
	    "\"Bearer\", \"refresh_token\": \"R4\"}"));
	json_object_set_new(e, "access_token", json_string("A3"));
	json_object_set_new(e, "refresh_token", json_string("R3"));
	ck_assert_int_eq(mcp_tokens_put(path, url, e, &err), 0);
	o = server_for(url, &launch);
	ck_assert_int_eq(answer(o, "Bearer", &err), -1);
	ck_assert_int_eq(token->hits, 1);
	line = mcp_oauth_header(o);
	ck_assert_str_eq(line, "Authorization: Bearer A3");
	free(line);
	mcp_oauth_free(o);
	json_decref(e);
	canned_stop(&c);
	free(err);
	free(url);
	free(path);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* One GET of path to 127.0.0.1:port: the answer's Location (malloc'd),
 * or NULL. */
static char *
get_location(int port, const char *path)
{
	char buf[8192], *req, *loc, *end;
	ssize_t n;
	size_t len = 0;
	int fd = knock(port);

	if (fd == -1)
		return NULL;
	req = xasprintf("GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path);
	n = write(fd, req, strlen(req));
	free(req);
	while (len + 1 < sizeof buf && (n = read(fd, buf + len,
	    sizeof buf - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(fd);
	if ((loc = strstr(buf, "Location: ")) == NULL)
		return NULL;
	loc += 10;
	end = loc + strcspn(loc, "\r\n");
	return xasprintf("%.*s", (int)(end - loc), loc);
}

/* The person's browser and the authorization server at once: follows
 * the start page to the authorization URL and comes back to its
 * redirect_uri with a code and its state. */
static void *
browse(void *arg)
{
	char *start = arg, *at, *redirect, *state, *back, *path;
	int port = atoi(start + 17);

	at = get_location(port, strchr(start + 17, '/'));
	ck_assert_ptr_nonnull(at);
	redirect = mcp_redirect_param(strchr(at, '?'), "redirect_uri");
	state = mcp_redirect_param(strchr(at, '?'), "state");
	ck_assert_ptr_nonnull(redirect);
	ck_assert_ptr_nonnull(state);
	path = strchr(redirect + 7, '/');
	back = xasprintf("%s?code=c0de&state=%s", path, state);
	free(get_location(port, back));
	free(back);
	free(at);
	free(redirect);
	free(state);
	free(start);
	return NULL;
}

static pthread_t browser;
static struct mcp_oauth *signing_out;

static void
open_browse(void *ud, const char *name, const char *url)
{
	(void)ud; (void)name;
	pthread_create(&browser, NULL, browse, xstrdup(url));
}

/* Approves, and signs out before the sign-in ends. */
static int
approve_then_sign_out(void *ud, const char *name, const char *origin,
    const char *resource, const char *scopes, const char *at,
    struct cancel *cancel, char **why)
{
	asks++;
	if (signing_out != NULL)
		mcp_oauth_logout(signing_out);
	(void)ud; (void)name; (void)origin; (void)resource; (void)scopes;
	(void)at; (void)cancel; (void)why;
	return 1;
}

START_TEST(a_sign_out_during_a_sign_in_is_not_undone)
{
	char *dir = tu_tmpdir(), *path = xasprintf("%s/%s", dir,
	    MCP_TOKENS_FILE), *err = NULL, *url, *line;
	struct mcp_launch launch;
	struct mcp_oauth *o;
	struct route *token;
	struct canned c;

	canned_open(&c);
	url = xasprintf("%s/mcp", c.base);
	canned_resource(&c);
	canned_issuer(&c, 1);
	canned_route(&c, "POST", "/register", 201, NULL,
	    xstrdup("{\"client_id\": \"c1\"}"));
	token = canned_route(&c, "POST", "/token", 200, NULL, xstrdup(
	    "{\"access_token\": \"S1\", \"token_type\": \"Bearer\"}"));
	canned_start(&c);
	memset(&launch, 0, sizeof launch);
	launch.tokens = path;
	launch.signin = approve_then_sign_out;
	launch.open = open_browse;
	asks = 0;

	/* A whole sign-in: kept. */
	o = server_for(url, &launch);
	ck_assert_int_eq(answer(o, "Bearer", &err), 0);
	pthread_join(browser, NULL);
	ck_assert_int_eq(token->hits, 1);
	line = mcp_oauth_header(o);
	ck_assert_str_eq(line, "Authorization: Bearer S1");
	free(line);
	ck_assert_int_eq(mcp_oauth_logout(o), 1);
	/* Signed out while it went on: not brought back, in memory or in
	 * the store. */
	signing_out = o;
	ck_assert_int_eq(answer(o, "Bearer", &err), 0);
	pthread_join(browser, NULL);
	signing_out = NULL;
	ck_assert_int_eq(token->hits, 2);
	ck_assert_ptr_null(mcp_oauth_header(o));
	ck_assert_ptr_null(mcp_tokens_get(path, url));
	ck_assert_int_eq(asks, 2);
	mcp_oauth_free(o);
	canned_stop(&c);
	free(err);
	free(url);
	free(path);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(the_bearer_challenge_is_kept_among_several)
{
	struct http_response resp;
	struct cancel cancel;
	struct canned c;
	struct http *h;
	char *url;

	canned_open(&c);
	canned_route(&c, "GET", "/mcp", 401, "WWW-Authenticate: Bearer "
	    "resource_metadata=\"https://h/prm\"\r\nWWW-Authenticate: Basic "
	    "realm=\"x\"\r\n", xstrdup(""));
	canned_start(&c);
	url = xasprintf("%s/mcp", c.base);
	cancel_init(&cancel);
	h = http_new(&cancel);
	memset(&resp, 0, sizeof resp);
	ck_assert_int_eq(http_get(h, url, NULL, 5000, 5, NULL, NULL, &resp),
	    HTTP_DONE);
	ck_assert_int_eq(resp.status, 401);
	ck_assert_ptr_nonnull(resp.www_authenticate);
	ck_assert_ptr_nonnull(strstr(resp.www_authenticate,
	    "resource_metadata"));
	http_response_clear(&resp);
	http_free(h);
	cancel_destroy(&cancel);
	canned_stop(&c);
	free(url);
}
END_TEST

static Suite *
oauth_suite(void)
{
	Suite *s = suite_create("oauth");
	TCase *tc = tcase_create("oauth");

	tcase_add_test(tc, sha256_meets_the_standards_vectors);
	tcase_add_test(tc, pkce_s256_is_rfc_7636s);
	tcase_add_test(tc, www_authenticate_is_read);
	tcase_add_test(tc, metadata_urls_are_tried_path_based_first);
	tcase_add_test(tc, scopes_are_chosen_as_the_specification_says);
	tcase_add_test(tc, a_resource_must_be_the_servers);
	tcase_add_test(tc, secrets_go_over_https_or_stay_on_this_machine);
	tcase_add_test(tc, token_endpoint_auth_follows_the_metadata);
	tcase_add_test(tc, what_servers_say_is_checked_before_it_is_used);
	tcase_add_test(tc, the_browser_keeps_the_desktop);
	tcase_add_test(tc, query_parameters_are_decoded);
	tcase_add_test(tc, the_listener_takes_its_own_sign_in_only);
	tcase_add_test(tc, the_listener_is_not_held_up_nor_fooled_by_a_path);
	tcase_add_test(tc, a_store_that_cannot_be_read_is_not_written_over);
	tcase_add_test(tc, the_store_is_the_persons_alone_and_forgets);
	tcase_add_test(tc, discovery_takes_nothing_that_could_be_forged);
	tcase_add_test(tc, a_refresh_takes_what_another_huddle_refreshed);
	tcase_add_test(tc, the_bearer_challenge_is_kept_among_several);
	tcase_add_test(tc, a_sign_out_during_a_sign_in_is_not_undone);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(oauth_suite());
}
