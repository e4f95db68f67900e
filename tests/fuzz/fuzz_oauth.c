/*
 * libFuzzer target for the sign-in's readers (mcp/oauth.c, mcp/redirect.c):
 * what an MCP server or its authorization server says — a
 * WWW-Authenticate header, the addresses its metadata names, scopes,
 * tokens, a redirect's query — is anyone's to write. The input is split
 * at its NULs into a header, a server's address, the metadata's address,
 * an issuer, scopes and a query.
 *
 * What must hold, whatever the bytes:
 *   - a challenge's parameter is no longer than the header;
 *   - every address to fetch metadata from may carry a secret
 *     (mcp_oauth_url_ok), and there are at most three;
 *   - an address that may carry a secret is http or https (in any
 *     case, as schemes are), with no space or control byte;
 *   - cleaned scopes are scope-tokens (RFC 6749) split by one space;
 *   - a printable copy is printable ASCII within its bound;
 *   - a token taken for a header is RFC 6750's b64token;
 *   - a query's parameter, decoded, is no longer than the query.
 * Any difference calls abort(); ASan, UBSan and the leak checker watch
 * the memory.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "mcp/oauth.h"
#include "mcp/redirect.h"
#include "util/xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { F_HEADER, F_URL, F_FROM, F_ISSUER, F_SCOPES, F_QUERY, F_N };

/* Each address of urls passes mcp_oauth_url_ok; at most three. */
static void
fuzz_check_urls(json_t *urls)
{
	size_t i;

	if (!json_is_array(urls) || json_array_size(urls) > 3)
		abort();
	for (i = 0; i < json_array_size(urls); i++)
		if (!mcp_oauth_url_ok(json_string_value(json_array_get(urls,
		    i))))
			abort();
	json_decref(urls);
}

static void
fuzz_check_url_ok(const char *url)
{
	const unsigned char *p;

	if (!mcp_oauth_url_ok(url))
		return;
	if (strncasecmp(url, "https://", 8) != 0 &&
	    strncasecmp(url, "http://", 7) != 0)
		abort();
	for (p = (const unsigned char *)url; *p != '\0'; p++)
		if (*p <= 0x20 || *p == 0x7f)
			abort();
}

static void
fuzz_check_scopes(const char *scopes)
{
	char *clean = mcp_oauth_scope_clean(scopes);
	const char *p;

	if (clean == NULL)
		return;
	if (*clean == ' ' || clean[strlen(clean) - 1] == ' ' ||
	    strstr(clean, "  ") != NULL)
		abort();
	for (p = clean; *p != '\0'; p++)
		if (*p != ' ' && !(*p == 0x21 || (*p >= 0x23 && *p <= 0x5b) ||
		    (*p >= 0x5d && *p <= 0x7e)))
			abort();
	free(clean);
}

static void
fuzz_check_printable(const char *s)
{
	char *out = mcp_oauth_printable(s, 40);
	const char *p;

	if (strlen(out) > 40)
		abort();
	for (p = out; *p != '\0'; p++)
		if (*p < 0x20 || *p > 0x7e)
			abort();
	free(out);
}

static void
fuzz_check_token(const char *token)
{
	if (mcp_oauth_token_ok(token) && (strlen(token) == 0 ||
	    strlen(token) > MCP_OAUTH_TOKEN_MAX ||
	    strspn(token, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789-._~+/=") != strlen(token)))
		abort();
}

static void
fuzz_check_query(const char *query)
{
	static const char *const names[] = { "code", "state", "error", "" };
	char *v;
	size_t i;

	for (i = 0; i < sizeof names / sizeof *names; i++) {
		v = mcp_redirect_param(query, names[i]);
		if (v != NULL && strlen(v) > strlen(query))
			abort();
		free(v);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const params[] = { "scope", "resource_metadata",
	    "error", "realm" };
	char *copy = xmalloc(size + 1), *f[F_N], *v, *scopes;
	json_t *list;
	size_t i, at = 0;

	memcpy(copy, data, size);
	copy[size] = '\0';
	/* The fields, at the input's NULs; those past its end empty. */
	for (i = 0; i < F_N; i++) {
		f[i] = copy + at;
		at += strlen(copy + at);
		if (at < size)
			at++;
	}

	for (i = 0; i < sizeof params / sizeof *params; i++) {
		v = mcp_oauth_challenge(f[F_HEADER], params[i]);
		if (v != NULL && strlen(v) > strlen(f[F_HEADER]))
			abort();
		free(v);
	}
	fuzz_check_urls(mcp_oauth_prm_urls(f[F_URL], f[F_FROM]));
	fuzz_check_urls(mcp_oauth_prm_urls(f[F_URL], NULL));
	fuzz_check_urls(mcp_oauth_as_urls(f[F_ISSUER]));
	for (i = F_URL; i <= F_ISSUER; i++)
		fuzz_check_url_ok(f[i]);
	(void)mcp_oauth_resource_ok(f[F_FROM], f[F_URL]);
	(void)mcp_oauth_issuer_ok(f[F_ISSUER], f[F_URL]);

	fuzz_check_scopes(f[F_SCOPES]);
	list = json_pack("[s,s]", f[F_SCOPES], f[F_ISSUER]);
	scopes = mcp_oauth_scopes(*f[F_HEADER] ? f[F_HEADER] : NULL,
	    list, list);
	free(scopes);
	(void)mcp_oauth_auth_method(list, *f[F_QUERY] != '\0');
	(void)mcp_oauth_pkce_ok(list);
	json_decref(list);

	fuzz_check_printable(f[F_HEADER]);
	fuzz_check_token(f[F_SCOPES]);
	fuzz_check_query(f[F_QUERY]);
	free(copy);
	return 0;
}
