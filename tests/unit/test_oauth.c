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
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcp/oauth.h"
#include "mcp/redirect.h"
#include "mcp/tokens.h"
#include "mcp/transport.h"
#include "testutil.h"
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

START_TEST(metadata_urls_are_tried_path_based_first)
{
	json_t *u;

	u = mcp_oauth_prm_urls("http://h:8/mcp", NULL);
	ck_assert_uint_eq(json_array_size(u), 2);
	ck_assert_str_eq(at(u, 0), "http://h:8/.well-known/"
	    "oauth-protected-resource/mcp");
	ck_assert_str_eq(at(u, 1), "http://h:8/.well-known/"
	    "oauth-protected-resource");
	json_decref(u);
	/* The header's first; query and trailing slash left out. */
	u = mcp_oauth_prm_urls("https://h/a/mcp/?x=1", "https://h/custom.json");
	ck_assert_uint_eq(json_array_size(u), 3);
	ck_assert_str_eq(at(u, 0), "https://h/custom.json");
	ck_assert_str_eq(at(u, 1), "https://h/.well-known/"
	    "oauth-protected-resource/a/mcp");
	json_decref(u);
	/* A server at the root has only the root's. */
	u = mcp_oauth_prm_urls("https://h", "");
	ck_assert_uint_eq(json_array_size(u), 1);
	ck_assert_str_eq(at(u, 0), "https://h/.well-known/"
	    "oauth-protected-resource");
	json_decref(u);
	u = mcp_oauth_prm_urls("not a url", NULL);
	ck_assert_uint_eq(json_array_size(u), 0);
	json_decref(u);

	/* RFC 8414 for an issuer with a path, then OpenID's two. */
	u = mcp_oauth_as_urls("https://as.example/tenant1");
	ck_assert_uint_eq(json_array_size(u), 3);
	ck_assert_str_eq(at(u, 0), "https://as.example/.well-known/"
	    "oauth-authorization-server/tenant1");
	ck_assert_str_eq(at(u, 1), "https://as.example/.well-known/"
	    "openid-configuration/tenant1");
	ck_assert_str_eq(at(u, 2), "https://as.example/tenant1/.well-known/"
	    "openid-configuration");
	json_decref(u);
	u = mcp_oauth_as_urls("https://as.example/");
	ck_assert_uint_eq(json_array_size(u), 2);
	ck_assert_str_eq(at(u, 0), "https://as.example/.well-known/"
	    "oauth-authorization-server");
	ck_assert_str_eq(at(u, 1), "https://as.example/.well-known/"
	    "openid-configuration");
	json_decref(u);
}
END_TEST

START_TEST(scopes_are_chosen_as_the_specification_says)
{
	json_t *prm = json_pack("[s,s,s]", "mcp:basic", "mcp:read", "");
	json_t *as = json_pack("[s,s]", "mcp:basic", "offline_access");
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
	ck_assert_ptr_null(mcp_oauth_scopes(NULL, json_array(), NULL));
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

START_TEST(the_store_is_the_persons_alone_and_forgets)
{
	char *dir = tu_tmpdir(), *path = xasprintf("%s/%s", dir,
	    MCP_TOKENS_FILE), *err = NULL, *line;
	json_t *e = json_pack("{s:s, s:s}", "access_token", "tok-1",
	    "refresh_token", "ref-1"), *got, *cfg;
	struct mcp_launch launch;
	struct mcp_oauth *o;
	struct stat st;

	ck_assert_ptr_null(mcp_tokens_get(path, "http://h/mcp"));
	ck_assert_int_eq(mcp_tokens_put(path, "http://h/mcp", e, &err), 0);
	ck_assert_int_eq(mcp_tokens_put(path, "http://other/mcp", e, &err),
	    0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	got = mcp_tokens_get(path, "http://h/mcp");
	ck_assert_str_eq(json_string_value(json_object_get(got,
	    "access_token")), "tok-1");
	json_decref(got);

	/* The server's state takes the stored token up, and logout
	 * forgets it: in memory and in the file, the other server's kept. */
	memset(&launch, 0, sizeof launch);
	launch.tokens = path;
	cfg = json_pack("{s:s, s:s}", "type", "http", "url", "http://h/mcp");
	o = mcp_oauth_new("h", cfg, &launch);
	line = mcp_oauth_header(o);
	ck_assert_str_eq(line, "Authorization: Bearer tok-1");
	free(line);
	line = mcp_oauth_text(o);
	ck_assert_str_eq(line, "signed in");
	free(line);
	ck_assert_int_eq(mcp_oauth_logout(o), 1);
	ck_assert_ptr_null(mcp_oauth_header(o));
	ck_assert_ptr_null(mcp_tokens_get(path, "http://h/mcp"));
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
	tcase_add_test(tc, query_parameters_are_decoded);
	tcase_add_test(tc, the_listener_takes_its_own_sign_in_only);
	tcase_add_test(tc, the_store_is_the_persons_alone_and_forgets);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(oauth_suite());
}
