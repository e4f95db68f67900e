/*
 * The sign-in engine of HTTP MCP servers (see oauth.h): discovery,
 * client registration, the authorization code flow with PKCE, the token
 * exchange and refresh. Each server has one state, under its own lock;
 * the exchanges that sign in hold the server's io (one at a time), so
 * that several calls waiting on one server make one sign-in, not one
 * each.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include <pthread.h>

#include "llm/http.h"
#include "mcp/oauth.h"
#include "mcp/redirect.h"
#include "mcp/tokens.h"
#include "mcp/transport.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/sha256.h"
#include "util/xmalloc.h"

/* Each discovery or token request may go this long without a byte,
 * and take this long in all. */
#define MCP_OAUTH_HTTP_S	15
#define MCP_OAUTH_TOTAL_MS	30000
/* The longest life believed of a token (ten years: past it, time() +
 * expires_in could overflow). */
#define MCP_OAUTH_LIFE_MAX	((json_int_t)10 * 366 * 24 * 3600)
/* A token this close to its end is refreshed before it is used. */
#define MCP_OAUTH_EARLY_S	30

struct mcp_oauth {
	char			*name;		/* the server's */
	char			*url;		/* the server's URL: the key */
	json_t			*settings;	/* "oauth" of the settings */
	const struct mcp_launch	*launch;
	pthread_mutex_t		 lock;		/* all below */
	json_t			*entry;		/* the stored sign-in, or
						 * NULL: access_token,
						 * refresh_token,
						 * expires_at, scope,
						 * client_id, client_secret,
						 * auth_method,
						 * token_endpoint, resource */
	char			*asked;		/* the scopes asked for last
						 * (NULL: none) */
	int			 needed;	/* the server asked for a
						 * sign-in this run */
	int			 declined;	/* the person said no */
	int			 signing;	/* the person is asked now */
	int64_t			 early_failed;	/* when a refresh before
						 * expiry last failed (ms) */
	unsigned		 gen;		/* raised by each logout: a
						 * sign-in or refresh begun
						 * before it is not kept */
};

/* --- small helpers ------------------------------------------------------- */

/* base64 of len bytes, url-safe without padding (RFC 4648 section 5)
 * when url, else the standard alphabet, padded. */
static char *
mcp_oauth_b64(const unsigned char *in, size_t len, int url)
{
	const char *abc = url ?
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" :
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = xmalloc(len / 3 * 4 + 5), *p = out;
	size_t i;
	unsigned v;

	for (i = 0; i + 2 < len; i += 3) {
		v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8 | in[i + 2];
		*p++ = abc[v >> 18 & 63];
		*p++ = abc[v >> 12 & 63];
		*p++ = abc[v >> 6 & 63];
		*p++ = abc[v & 63];
	}
	if (i < len) {
		v = (unsigned)in[i] << 16 | (i + 1 < len ?
		    (unsigned)in[i + 1] << 8 : 0);
		*p++ = abc[v >> 18 & 63];
		*p++ = abc[v >> 12 & 63];
		if (i + 1 < len)
			*p++ = abc[v >> 6 & 63];
		else if (!url)
			*p++ = '=';
		if (!url)
			*p++ = '=';
	}
	*p = '\0';
	return out;
}

/* n random bytes as base64url (a verifier, a state). */
static char *
mcp_oauth_random(size_t n)
{
	unsigned char raw[64];
	char *out;

	if (n > sizeof raw || getrandom(raw, n, 0) != (ssize_t)n) {
		/* Without randomness a sign-in is worth nothing. */
		log_printf("oauth: getrandom failed");
		abort();
	}
	out = mcp_oauth_b64(raw, n, 1);
	explicit_bzero(raw, sizeof raw);
	return out;
}

/* Percent-encodes s for a query or a form (RFC 3986 unreserved kept). */
static char *
mcp_oauth_enc(const char *s)
{
	char *out = xmalloc(strlen(s) * 3 + 1), *p = out;

	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~')
			*p++ = (char)c;
		else
			p += sprintf(p, "%%%02X", c);
	}
	*p = '\0';
	return out;
}

/* Appends "&name=value" (or without the & at the start) to *q. */
static void
mcp_oauth_param(char **q, const char *name, const char *value)
{
	char *v = mcp_oauth_enc(value), *n;

	n = xasprintf("%s%s%s=%s", *q != NULL ? *q : "", *q != NULL &&
	    **q != '\0' ? "&" : "", name, v);
	free(v);
	if (*q != NULL)
		explicit_bzero(*q, strlen(*q));
	free(*q);
	*q = n;
}

/* Frees a string that held a secret. */
static void
mcp_oauth_wipe(char *s)
{
	if (s != NULL) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

/* The scheme, host and port of url ("http://h:1"; malloc'd), and in
 * *path its path without query or fragment (a pointer into url). */
static char *
mcp_oauth_origin(const char *url, const char **path)
{
	const char *host = strstr(url, "://"), *end;

	if (host == NULL) {
		*path = "";
		return NULL;
	}
	host += 3;
	end = host + strcspn(host, "/?#");
	*path = end;
	return xasprintf("%.*s", (int)(end - url), url);
}

/* The length of url's path (up to query or fragment). */
static size_t
mcp_oauth_pathlen(const char *path)
{
	return strcspn(path, "?#");
}

/* --- the pure parts ------------------------------------------------------ */

char *
mcp_oauth_challenge(const char *www, const char *name)
{
	const char *p = www;
	int bearer = 0;
	size_t n;

	if (www == NULL)
		return NULL;
	for (;;) {
		const char *tok;
		size_t tlen;

		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (*p == '\0')
			return NULL;
		tok = p;
		p += strcspn(p, " \t,=");
		tlen = (size_t)(p - tok);
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '=') {
			/* A scheme begins. */
			bearer = tlen == 6 && strncasecmp(tok, "Bearer", 6) == 0;
			continue;
		}
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '"') {
			char *v = xmalloc(strlen(p) + 1), *o = v;

			for (p++; *p != '\0' && *p != '"'; p++) {
				if (*p == '\\' && p[1] != '\0')
					p++;
				*o++ = *p;
			}
			*o = '\0';
			if (*p == '"')
				p++;
			if (bearer && tlen == strlen(name) &&
			    strncasecmp(tok, name, tlen) == 0)
				return v;
			free(v);
		} else {
			const char *v = p;

			p += strcspn(p, " \t,");
			n = (size_t)(p - v);
			if (bearer && tlen == strlen(name) &&
			    strncasecmp(tok, name, tlen) == 0)
				return xasprintf("%.*s", (int)n, v);
		}
	}
}

/* Appends url (stolen) to urls when it may be fetched for a sign-in:
 * what answers at a plain HTTP address elsewhere could be anyone's. */
static void
mcp_oauth_add_url(json_t *urls, json_t *url)
{
	if (mcp_oauth_url_ok(json_string_value(url)))
		json_array_append_new(urls, url);
	else
		json_decref(url);
}

json_t *
mcp_oauth_prm_urls(const char *url, const char *from)
{
	json_t *urls = json_array();
	const char *path;
	char *origin = mcp_oauth_origin(url, &path);
	size_t plen = mcp_oauth_pathlen(path);

	if (from != NULL && *from != '\0')
		mcp_oauth_add_url(urls, json_string(from));
	if (origin == NULL)
		return urls;
	while (plen > 0 && path[plen - 1] == '/')
		plen--;
	if (plen > 0)
		mcp_oauth_add_url(urls, json_sprintf("%s/.well-known/"
		    "oauth-protected-resource%.*s", origin, (int)plen, path));
	mcp_oauth_add_url(urls, json_sprintf("%s/.well-known/"
	    "oauth-protected-resource", origin));
	free(origin);
	return urls;
}

json_t *
mcp_oauth_as_urls(const char *issuer)
{
	json_t *urls = json_array();
	const char *path;
	char *origin = mcp_oauth_origin(issuer, &path);
	size_t plen = mcp_oauth_pathlen(path);

	if (origin == NULL)
		return urls;
	while (plen > 0 && path[plen - 1] == '/')
		plen--;
	if (plen > 0) {
		mcp_oauth_add_url(urls, json_sprintf("%s/.well-known/"
		    "oauth-authorization-server%.*s", origin, (int)plen, path));
		mcp_oauth_add_url(urls, json_sprintf("%s/.well-known/"
		    "openid-configuration%.*s", origin, (int)plen, path));
		mcp_oauth_add_url(urls, json_sprintf("%s%.*s/.well-known/"
		    "openid-configuration", origin, (int)plen, path));
	} else {
		mcp_oauth_add_url(urls, json_sprintf("%s/.well-known/"
		    "oauth-authorization-server", origin));
		mcp_oauth_add_url(urls, json_sprintf("%s/.well-known/"
		    "openid-configuration", origin));
	}
	free(origin);
	return urls;
}

/* Whether the space-separated list has word. */
static int
mcp_oauth_has(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while (p != NULL && *p != '\0') {
		while (*p == ' ')
			p++;
		if (strncmp(p, word, n) == 0 && (p[n] == ' ' || p[n] == '\0'))
			return 1;
		p = strchr(p, ' ');
	}
	return 0;
}

/* Whether array has the string s. */
static int
mcp_oauth_array_has(json_t *array, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(array, i, v) {
		if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
			return 1;
	}
	return 0;
}

char *
mcp_oauth_scopes(const char *challenge, json_t *prm_supported,
    json_t *as_supported)
{
	char *out = NULL, *more, *cleaned;
	size_t i;
	json_t *v;

	if (challenge != NULL && (out = mcp_oauth_scope_clean(challenge)) !=
	    NULL)
		;
	else if (json_array_size(prm_supported) > 0) {
		json_array_foreach(prm_supported, i, v) {
			/* A scope-token each; no server's word forges a
			 * line of the person's table. */
			if (!json_is_string(v) || *json_string_value(v) ==
			    '\0' || strchr(json_string_value(v), ' ') ||
			    (cleaned = mcp_oauth_scope_clean(
			    json_string_value(v))) == NULL)
				continue;
			free(cleaned);
			more = xasprintf("%s%s%s", out != NULL ? out : "",
			    out != NULL ? " " : "", json_string_value(v));
			free(out);
			out = more;
		}
	}
	/* A refresh token spares the person a sign-in; an authorization
	 * server that lists offline_access gives one only when asked. */
	if (out != NULL && mcp_oauth_array_has(as_supported,
	    "offline_access") && !mcp_oauth_has(out, "offline_access")) {
		more = xasprintf("%s offline_access", out);
		free(out);
		out = more;
	}
	return out;
}

int
mcp_oauth_resource_ok(const char *resource, const char *url)
{
	const char *rpath, *upath;
	char *ro = mcp_oauth_origin(resource, &rpath);
	char *uo = mcp_oauth_origin(url, &upath);
	size_t rlen = mcp_oauth_pathlen(rpath), ulen = mcp_oauth_pathlen(upath);
	int ok;

	ok = ro != NULL && uo != NULL && strcasecmp(ro, uo) == 0;
	while (rlen > 0 && rpath[rlen - 1] == '/')
		rlen--;
	/* url's path at or beneath the resource's, at a segment's end. */
	ok = ok && rlen <= ulen && strncmp(rpath, upath, rlen) == 0 &&
	    (rlen == ulen || upath[rlen] == '/' || upath[rlen] == '?');
	free(ro);
	free(uo);
	return ok;
}

void
mcp_oauth_s256(const char *verifier, char out[44])
{
	unsigned char d[SHA256_SIZE];
	char *b;

	sha256(verifier, strlen(verifier), d);
	b = mcp_oauth_b64(d, sizeof d, 1);
	snprintf(out, 44, "%s", b);
	free(b);
}

const char *
mcp_oauth_auth_method(json_t *supported, int has_secret)
{
	if (!has_secret)
		return "none";
	if (supported == NULL || mcp_oauth_array_has(supported,
	    "client_secret_basic"))
		return "client_secret_basic";
	if (mcp_oauth_array_has(supported, "client_secret_post"))
		return "client_secret_post";
	return "none";
}

int
mcp_oauth_issuer_ok(const char *got, const char *want)
{
	size_t g, w;

	if (got == NULL || want == NULL)
		return 0;
	g = strlen(got);
	w = strlen(want);
	/* Identical (RFC 8414 section 3.3), but for one trailing slash,
	 * which some servers' URL types add. */
	if (g > 0 && got[g - 1] == '/')
		g--;
	if (w > 0 && want[w - 1] == '/')
		w--;
	return g == w && g > 0 && strncmp(got, want, g) == 0;
}

int
mcp_oauth_pkce_ok(json_t *methods)
{
	return mcp_oauth_array_has(methods, "S256");
}

int
mcp_oauth_token_ok(const char *token)
{
	size_t n, eq;

	if (token == NULL)
		return 0;
	/* RFC 6750 section 2.1: b64token = 1*( ALPHA / DIGIT / "-" / "."
	 * / "_" / "~" / "+" / "/" ) *"=". */
	n = strspn(token, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789-._~+/");
	eq = strspn(token + n, "=");
	return n > 0 && token[n + eq] == '\0' && n + eq <= MCP_OAUTH_TOKEN_MAX;
}

/* Whether c may be in a scope-token (RFC 6749 section 3.3). */
static int
mcp_oauth_scope_char(int c)
{
	return c == 0x21 || (c >= 0x23 && c <= 0x5b) || (c >= 0x5d && c <= 0x7e);
}

char *
mcp_oauth_scope_clean(const char *scopes)
{
	char *out = xmalloc(scopes != NULL ? strlen(scopes) + 1 : 1), *o = out;
	const char *p = scopes, *end, *q;

	while (p != NULL && *p != '\0') {
		while (*p == ' ')
			p++;
		end = p + strcspn(p, " ");
		for (q = p; q < end && mcp_oauth_scope_char((unsigned char)*q);
		    q++)
			;
		if (q == end && end > p) {
			if (o != out)
				*o++ = ' ';
			memcpy(o, p, (size_t)(end - p));
			o += end - p;
		}
		p = end;
	}
	*o = '\0';
	if (o == out) {
		free(out);
		return NULL;
	}
	return out;
}

char *
mcp_oauth_printable(const char *s, size_t max)
{
	size_t n = strnlen(s, max), i;
	char *out = xmalloc(n + 1);

	/* What an authorization server says reaches an agent's tool error
	 * and the screen: plain ASCII, nothing that moves a cursor. */
	for (i = 0; i < n; i++)
		out[i] = (unsigned char)s[i] >= 0x20 &&
		    (unsigned char)s[i] < 0x7f ? s[i] : '?';
	out[n] = '\0';
	return out;
}

json_int_t
mcp_oauth_expiry(json_int_t now, json_int_t expires_in)
{
	if (expires_in <= 0)
		return 0;
	return now + (expires_in < MCP_OAUTH_LIFE_MAX ? expires_in :
	    MCP_OAUTH_LIFE_MAX);
}

int
mcp_oauth_url_ok(const char *url)
{
	const char *host, *end;
	size_t n;

	if (url == NULL)
		return 0;
	/* Nothing that could end a header line or split a request. */
	for (host = url; *host != '\0'; host++)
		if ((unsigned char)*host <= ' ' || *host == 0x7f)
			return 0;
	if (strncasecmp(url, "https://", 8) == 0)
		return url[8] != '\0' && url[8] != '/';
	if (strncasecmp(url, "http://", 7) != 0)
		return 0;
	/* Plain HTTP only to this machine, where nothing is on the wire. */
	host = url + 7;
	end = host + strcspn(host, "/?#");
	if (memchr(host, '@', (size_t)(end - host)) != NULL)
		return 0;
	if (*host == '[')
		return strncmp(host, "[::1]", 5) == 0 && (host[5] == ':' ||
		    host + 5 == end);
	n = strcspn(host, ":/?#");
	return (n == 9 && strncasecmp(host, "localhost", 9) == 0) ||
	    (n >= 9 && strncmp(host, "127.", 4) == 0 &&
	    strspn(host, "0123456789.") == n);
}

/* --- HTTP -------------------------------------------------------------- */

/* One request to a discovery, registration or token endpoint: GET (form
 * NULL) or POST of form (or json when is_json); returns the status (0:
 * none) with *body the answer parsed as JSON (NULL when it is not). */
static long
mcp_oauth_http(const char *url, const char *body, int is_json,
    const char *auth, struct cancel *cancel, json_t **out)
{
	struct curl_slist *h = NULL;
	struct http_response resp;
	struct cancel own;
	struct http *hc;
	enum http_result r;
	long status;

	*out = NULL;
	cancel_init(&own);
	hc = http_new(cancel != NULL ? cancel : &own);
	h = curl_slist_append(h, "Accept: application/json");
	if (auth != NULL)
		h = curl_slist_append(h, auth);
	if (body != NULL)
		h = curl_slist_append(h, is_json ? "Content-Type: "
		    "application/json" : "Content-Type: "
		    "application/x-www-form-urlencoded");
	memset(&resp, 0, sizeof resp);
	/* A server that trickles its answer is not waited on for ever. */
	http_deadline(hc, clock_mono_ms() + MCP_OAUTH_TOTAL_MS);
	if (body != NULL)
		r = http_post(hc, url, h, body, strlen(body), 10000,
		    MCP_OAUTH_HTTP_S, NULL, NULL, &resp);
	else
		r = http_get(hc, url, h, 10000, MCP_OAUTH_HTTP_S, NULL, NULL,
		    &resp);
	curl_slist_free_all(h);
	status = r == HTTP_DONE ? resp.status : 0;
	if (status != 0 && resp.body != NULL)
		*out = json_loadb(resp.body, resp.len, 0, NULL);
	if (resp.body != NULL)
		explicit_bzero(resp.body, resp.len);
	http_response_clear(&resp);
	http_free(hc);
	cancel_destroy(&own);
	return status;
}

/* The first URL of urls whose answer is a JSON object with key (when
 * key is not NULL): that object, and in *where the URL; or NULL. */
static json_t *
mcp_oauth_first(json_t *urls, const char *key, struct cancel *cancel,
    const char **where)
{
	json_t *v, *got;
	size_t i;
	long status;

	json_array_foreach(urls, i, v) {
		if (!mcp_oauth_url_ok(json_string_value(v)))
			continue;
		status = mcp_oauth_http(json_string_value(v), NULL, 0, NULL,
		    cancel, &got);
		if (status >= 200 && status < 300 && json_is_object(got) &&
		    (key == NULL || json_object_get(got, key) != NULL)) {
			*where = json_string_value(v);
			return got;
		}
		json_decref(got);
		if (cancel != NULL && cancel_fired(cancel))
			break;
	}
	return NULL;
}

/* A string member of o, or NULL. */
static const char *
mcp_oauth_str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* --- the state ------------------------------------------------------------ */

struct mcp_oauth *
mcp_oauth_new(const char *name, json_t *config,
    const struct mcp_launch *launch)
{
	struct mcp_oauth *o = xcalloc(1, sizeof *o);
	json_t *settings = json_object_get(config, "oauth");

	o->name = xstrdup(name);
	o->url = xstrdup(mcp_oauth_str(config, "url") != NULL ?
	    mcp_oauth_str(config, "url") : "");
	o->settings = json_is_object(settings) ? json_deep_copy(settings) :
	    NULL;
	o->launch = launch;
	pthread_mutex_init(&o->lock, NULL);
	if (launch != NULL && launch->tokens != NULL)
		o->entry = mcp_tokens_get(launch->tokens, o->url);
	return o;
}

void
mcp_oauth_free(struct mcp_oauth *o)
{
	if (o == NULL)
		return;
	json_decref(o->entry);
	json_decref(o->settings);
	free(o->asked);
	free(o->name);
	free(o->url);
	pthread_mutex_destroy(&o->lock);
	free(o);
}

/*
 * Keeps entry (stolen) as the sign-in, in memory and in the store, unless
 * a logout came since gen was read (the sign-in it ends is not brought
 * back). With was (a refresh), the store is written only while it still
 * holds the access token was: another huddle may have refreshed or
 * forgotten the sign-in meanwhile, and then what the store holds is
 * taken instead. Takes the lock.
 */
static void
mcp_oauth_keep(struct mcp_oauth *o, json_t *entry, unsigned gen,
    const char *was)
{
	const char *path = o->launch != NULL ? o->launch->tokens : NULL;
	char *err = NULL;
	int rc;

	pthread_mutex_lock(&o->lock);
	if (o->gen != gen) {
		pthread_mutex_unlock(&o->lock);
		json_decref(entry);
		log_printf("mcp: %s: signed out while signing in: the sign-in "
		    "is not kept", o->name);
		return;
	}
	json_decref(o->entry);
	o->entry = json_incref(entry);
	pthread_mutex_unlock(&o->lock);
	if (path != NULL && (rc = mcp_tokens_swap(path, o->url, entry, was,
	    &err)) != 0) {
		if (rc == -1) {
			/* The path names no secret. */
			log_printf("mcp: %s: the sign-in could not be kept: "
			    "%s", o->name, err);
			free(err);
		} else {
			pthread_mutex_lock(&o->lock);
			if (o->gen == gen) {
				json_decref(o->entry);
				o->entry = mcp_tokens_get(path, o->url);
			}
			pthread_mutex_unlock(&o->lock);
		}
	}
	json_decref(entry);
}

char *
mcp_oauth_header(struct mcp_oauth *o)
{
	const char *token;
	char *line = NULL;

	pthread_mutex_lock(&o->lock);
	/* Never in the clear to another machine, and never a value that
	 * could end the header line. */
	if ((token = mcp_oauth_str(o->entry, "access_token")) != NULL &&
	    mcp_oauth_url_ok(o->url) && mcp_oauth_token_ok(token))
		line = xasprintf("Authorization: Bearer %s", token);
	pthread_mutex_unlock(&o->lock);
	return line;
}

/* The client's authentication at the token endpoint: adds to form, or
 * gives the Authorization header (malloc'd) in *auth. */
static void
mcp_oauth_client_auth(json_t *entry, char **form, char **auth)
{
	const char *id = mcp_oauth_str(entry, "client_id");
	const char *secret = mcp_oauth_str(entry, "client_secret");
	const char *how = mcp_oauth_str(entry, "auth_method");
	char *pair, *eid, *esec, *b;

	*auth = NULL;
	if (how != NULL && strcmp(how, "client_secret_basic") == 0 &&
	    secret != NULL) {
		/* RFC 6749 section 2.3.1: each form-encoded first. */
		eid = mcp_oauth_enc(id);
		esec = mcp_oauth_enc(secret);
		pair = xasprintf("%s:%s", eid, esec);
		b = mcp_oauth_b64((const unsigned char *)pair, strlen(pair),
		    0);
		*auth = xasprintf("Authorization: Basic %s", b);
		mcp_oauth_wipe(pair);
		mcp_oauth_wipe(esec);
		mcp_oauth_wipe(b);
		free(eid);
		return;
	}
	mcp_oauth_param(form, "client_id", id);
	if (how != NULL && strcmp(how, "client_secret_post") == 0 &&
	    secret != NULL)
		mcp_oauth_param(form, "client_secret", secret);
}

/* Takes a token endpoint's answer into entry (the client's, a copy of
 * which it becomes). Returns the new entry, or NULL with *err. */
static json_t *
mcp_oauth_take(struct mcp_oauth *o, json_t *base, long status, json_t *got,
    const char *asked, char **err)
{
	json_t *entry;
	json_int_t expires;
	const char *e;
	char *said, *scope;

	if (status < 200 || status >= 300 || !json_is_object(got) ||
	    mcp_oauth_str(got, "access_token") == NULL) {
		e = mcp_oauth_str(got, "error");
		said = mcp_oauth_printable(e != NULL ? e : "", 80);
		*err = status == 0 ? xasprintf("its authorization server "
		    "could not be reached") : xasprintf("its authorization "
		    "server refused the token request (HTTP %ld%s%s)",
		    status, *said != '\0' ? ": " : "", said);
		free(said);
		return NULL;
	}
	if ((e = mcp_oauth_str(got, "token_type")) != NULL &&
	    strcasecmp(e, "bearer") != 0) {
		said = mcp_oauth_printable(e, 40);
		*err = xasprintf("its authorization server gave a token of "
		    "type %s, not Bearer", said);
		free(said);
		return NULL;
	}
	if (!mcp_oauth_token_ok(mcp_oauth_str(got, "access_token"))) {
		*err = xstrdup("its authorization server gave a token that "
		    "cannot go into a header (not RFC 6750's characters, or "
		    "too long)");
		return NULL;
	}
	entry = json_deep_copy(base);
	json_object_set(entry, "access_token", json_object_get(got,
	    "access_token"));
	if (mcp_oauth_str(got, "refresh_token") != NULL)
		json_object_set(entry, "refresh_token", json_object_get(got,
		    "refresh_token"));
	expires = mcp_oauth_expiry((json_int_t)time(NULL), json_integer_value(
	    json_object_get(got, "expires_in")));
	if (expires > 0)
		json_object_set_new(entry, "expires_at", json_integer(expires));
	else
		json_object_del(entry, "expires_at");
	if (mcp_oauth_str(got, "scope") != NULL) {
		/* /mcp shows it: scope-tokens only. */
		scope = mcp_oauth_scope_clean(mcp_oauth_str(got, "scope"));
		json_object_set_new(entry, "scope", json_string(scope != NULL ?
		    scope : ""));
		free(scope);
	} else if (asked != NULL)
		json_object_set_new(entry, "scope", json_string(asked));
	else
		json_object_del(entry, "scope");
	(void)o;
	return entry;
}

/*
 * Refreshes the stored sign-in. Returns 0 with a new token kept, or -1
 * (the person must be asked).
 *
 * Another huddle of the person's may hold the same sign-in, and an
 * authorization server that rotates refresh tokens takes each one once:
 * the refresh is made under the store's refresh lock, and when the store
 * holds another token than this one by then, the other huddle refreshed
 * it already, and that token is taken instead. A store without the
 * sign-in was signed out of elsewhere: the person is asked again.
 */
static int
mcp_oauth_refresh(struct mcp_oauth *o, struct cancel *cancel)
{
	const char *path = o->launch != NULL ? o->launch->tokens : NULL;
	json_t *entry, *got, *next, *stored = NULL;
	char *form = NULL, *auth = NULL, *err = NULL, *was = NULL;
	const char *rt, *te, *res;
	unsigned gen;
	long status;
	int lk = -1, rc = -1, found;

	pthread_mutex_lock(&o->lock);
	entry = o->entry != NULL ? json_deep_copy(o->entry) : NULL;
	gen = o->gen;
	pthread_mutex_unlock(&o->lock);
	if (entry == NULL || (rt = mcp_oauth_str(entry, "refresh_token")) ==
	    NULL || (te = mcp_oauth_str(entry, "token_endpoint")) == NULL ||
	    !mcp_oauth_url_ok(te)) {
		json_decref(entry);
		return -1;
	}
	was = xstrdup(mcp_oauth_str(entry, "access_token") != NULL ?
	    mcp_oauth_str(entry, "access_token") : "");
	if (path != NULL) {
		lk = mcp_tokens_lock_refresh(path);
		found = mcp_tokens_find(path, o->url, &stored);
		if (found == 0) {
			log_printf("mcp: %s: the sign-in is no longer in the "
			    "store", o->name);
			goto out;
		}
		/* found == -1: the store cannot be read, and the sign-in is
		 * this run's alone. */
		if (found == 1 && (mcp_oauth_str(stored, "access_token") ==
		    NULL || strcmp(mcp_oauth_str(stored, "access_token"),
		    was) != 0)) {
			log_printf("mcp: %s: the sign-in was refreshed "
			    "elsewhere: taken from the store", o->name);
			pthread_mutex_lock(&o->lock);
			if (o->gen == gen) {
				json_decref(o->entry);
				o->entry = json_incref(stored);
				rc = 0;
			}
			pthread_mutex_unlock(&o->lock);
			goto out;
		}
	}
	mcp_oauth_param(&form, "grant_type", "refresh_token");
	mcp_oauth_param(&form, "refresh_token", rt);
	if ((res = mcp_oauth_str(entry, "resource")) != NULL)
		mcp_oauth_param(&form, "resource", res);
	mcp_oauth_client_auth(entry, &form, &auth);
	status = mcp_oauth_http(te, form, 0, auth, cancel, &got);
	next = mcp_oauth_take(o, entry, status, got,
	    mcp_oauth_str(entry, "scope"), &err);
	json_decref(got);
	if (next == NULL) {
		log_printf("mcp: %s: the sign-in could not be refreshed: %s",
		    o->name, err);
		free(err);
		goto out;
	}
	log_printf("mcp: %s: the sign-in was refreshed", o->name);
	mcp_oauth_keep(o, next, gen, was);
	rc = 0;
out:
	if (lk != -1)
		mcp_tokens_unlock(lk);
	json_decref(stored);
	json_decref(entry);
	mcp_oauth_wipe(form);
	mcp_oauth_wipe(auth);
	mcp_oauth_wipe(was);
	return rc;
}

/*
 * Refreshes, before a request, a token that ends within
 * MCP_OAUTH_EARLY_S and can be refreshed, so that the request does not
 * meet a 401 first. Nothing is said when it cannot: the request goes
 * with the old token, and its 401 does the rest.
 */
void
mcp_oauth_prepare(struct mcp_oauth *o, struct cancel *cancel)
{
	json_int_t at;
	int due;

	pthread_mutex_lock(&o->lock);
	at = json_integer_value(json_object_get(o->entry, "expires_at"));
	due = at > 0 && mcp_oauth_str(o->entry, "refresh_token") != NULL &&
	    at - (json_int_t)time(NULL) < MCP_OAUTH_EARLY_S &&
	    (o->early_failed == 0 || clock_mono_ms() - o->early_failed >
	    MCP_OAUTH_EARLY_S * 1000);
	pthread_mutex_unlock(&o->lock);
	/* An authorization server that is down is not asked before every
	 * request: once in MCP_OAUTH_EARLY_S. */
	if (due && mcp_oauth_refresh(o, cancel) == -1) {
		pthread_mutex_lock(&o->lock);
		o->early_failed = clock_mono_ms();
		pthread_mutex_unlock(&o->lock);
	}
}

/* What discovery found: the resource, its scopes, the authorization
 * server's metadata. */
struct mcp_oauth_found {
	char		*resource;
	json_t		*prm_scopes;	/* a reference, or NULL */
	json_t		*as;		/* the metadata (new), or NULL */
	int		 fallback;	/* as is 2025-03-26's default
					 * endpoints: no metadata at all */
	const char	*authorize, *token, *registration;
};

static void
mcp_oauth_found_clear(struct mcp_oauth_found *f)
{
	free(f->resource);
	json_decref(f->prm_scopes);
	json_decref(f->as);
	memset(f, 0, sizeof *f);
}

/* Finds the resource and its authorization server from the server's
 * challenge. Returns 0, or -1 with *err. */
static int
mcp_oauth_discover(struct mcp_oauth *o, const char *www,
    struct cancel *cancel, struct mcp_oauth_found *f, char **err)
{
	char *from, *origin, *said;
	json_t *urls, *prm, *servers, *fallback;
	const char *where, *issuer = NULL, *path, *res;

	memset(f, 0, sizeof *f);
	/* Each hop of discovery is held to what the endpoints are: over
	 * plain HTTP to another machine, whoever is on the path could
	 * answer with metadata of their own and take the code, or the
	 * token as it goes to the server. */
	if (!mcp_oauth_url_ok(o->url)) {
		*err = xstrdup("its URL is plain HTTP to another machine: a "
		    "sign-in would cross the network in the clear (use "
		    "https)");
		return -1;
	}
	from = mcp_oauth_challenge(www, "resource_metadata");
	urls = mcp_oauth_prm_urls(o->url, from);
	free(from);
	prm = mcp_oauth_first(urls, NULL, cancel, &where);
	json_decref(urls);
	if (prm != NULL) {
		res = mcp_oauth_str(prm, "resource");
		if (res == NULL || !mcp_oauth_resource_ok(res, o->url)) {
			/* A resource that is not this server's would have
			 * the person sign in for another. */
			said = mcp_oauth_printable(res != NULL ? res :
			    "none", 200);
			*err = xasprintf("its protected resource metadata "
			    "names another resource (%s), not this server's",
			    said);
			free(said);
			json_decref(prm);
			return -1;
		}
		f->resource = xstrdup(res);
		servers = json_object_get(prm, "authorization_servers");
		issuer = json_string_value(json_array_get(servers, 0));
		if (issuer == NULL) {
			*err = xstrdup("its protected resource metadata names "
			    "no authorization server");
			json_decref(prm);
			return -1;
		}
		if (!mcp_oauth_url_ok(issuer)) {
			*err = xstrdup("its authorization server is named by a "
			    "plain HTTP address on another machine");
			json_decref(prm);
			return -1;
		}
		f->prm_scopes = json_incref(json_object_get(prm,
		    "scopes_supported"));
		urls = mcp_oauth_as_urls(issuer);
		f->as = mcp_oauth_first(urls, "authorization_endpoint",
		    cancel, &where);
		json_decref(urls);
		said = mcp_oauth_printable(issuer, 200);
		if (f->as == NULL) {
			*err = xasprintf("the metadata of its authorization "
			    "server %s could not be read", said);
			free(said);
			json_decref(prm);
			return -1;
		}
		if (!mcp_oauth_issuer_ok(mcp_oauth_str(f->as, "issuer"),
		    issuer)) {
			/* Metadata that is not the issuer's own could send
			 * the code anywhere (RFC 8414 section 3.3). */
			*err = xasprintf("the metadata found for its "
			    "authorization server %s names another issuer",
			    said);
			free(said);
			json_decref(prm);
			return -1;
		}
		free(said);
		json_decref(prm);
	} else {
		/* A server of the 2025-03-26 revision: its own origin is
		 * its authorization server, and without metadata the
		 * endpoints are at its root. */
		f->resource = xstrdup(o->url);
		origin = mcp_oauth_origin(o->url, &path);
		if (origin == NULL) {
			*err = xstrdup("its URL has no origin");
			return -1;
		}
		urls = mcp_oauth_as_urls(origin);
		f->as = mcp_oauth_first(urls, "authorization_endpoint",
		    cancel, &where);
		json_decref(urls);
		/* The server's origin is the issuer here; its metadata may
		 * name a path beneath it, never another origin. */
		if (f->as != NULL && !mcp_oauth_resource_ok(origin,
		    mcp_oauth_str(f->as, "issuer") != NULL ?
		    mcp_oauth_str(f->as, "issuer") : "")) {
			*err = xstrdup("the metadata at its origin names "
			    "another issuer");
			free(origin);
			return -1;
		}
		if (f->as == NULL) {
			f->fallback = 1;
			fallback = json_object();
			json_object_set_new(fallback, "authorization_endpoint",
			    json_sprintf("%s/authorize", origin));
			json_object_set_new(fallback, "token_endpoint",
			    json_sprintf("%s/token", origin));
			json_object_set_new(fallback, "registration_endpoint",
			    json_sprintf("%s/register", origin));
			f->as = fallback;
		}
		free(origin);
	}
	if (cancel != NULL && cancel_fired(cancel)) {
		*err = xstrdup("cancelled");
		return -1;
	}
	f->authorize = mcp_oauth_str(f->as, "authorization_endpoint");
	f->token = mcp_oauth_str(f->as, "token_endpoint");
	f->registration = mcp_oauth_str(f->as, "registration_endpoint");
	if (f->authorize == NULL || f->token == NULL) {
		*err = xstrdup("its authorization server's metadata lacks "
		    "an endpoint");
		return -1;
	}
	/* The specification asks HTTPS of every endpoint; a code, a
	 * secret or a token never crosses the network in the clear. */
	if (!mcp_oauth_url_ok(f->authorize) || !mcp_oauth_url_ok(f->token) ||
	    (f->registration != NULL &&
	    !mcp_oauth_url_ok(f->registration))) {
		*err = xstrdup("its authorization server's endpoints are not "
		    "all HTTPS (plain HTTP is taken only on this machine)");
		return -1;
	}
	/* Metadata that does not list S256 may not check the code
	 * challenge at all; only 2025-03-26's endpoints without metadata
	 * are taken on trust. */
	if (!f->fallback && !mcp_oauth_pkce_ok(json_object_get(f->as,
	    "code_challenge_methods_supported"))) {
		*err = xstrdup("its authorization server does not take PKCE "
		    "with S256, which signing in requires");
		return -1;
	}
	return 0;
}

/* The client to sign in with, as an entry (client_id, client_secret,
 * auth_method, token_endpoint, resource): pre-registered in the
 * person's settings, a client ID metadata document, or registered now.
 * NULL with *err when there is none. */
static json_t *
mcp_oauth_client(struct mcp_oauth *o, struct mcp_oauth_found *f,
    const char *redirect_uri, struct cancel *cancel, char **err)
{
	json_t *supported = json_object_get(f->as,
	    "token_endpoint_auth_methods_supported"), *entry, *req, *got;
	const char *id = mcp_oauth_str(o->settings, "clientId");
	const char *secret = mcp_oauth_str(o->settings, "clientSecret");
	const char *cimd = mcp_oauth_str(o->settings, "clientMetadataUrl");
	const char *how, *gid, *gsecret, *gmethod;
	char *body;
	long status;

	entry = json_pack("{s:s, s:s}", "token_endpoint", f->token,
	    "resource", f->resource);
	if (id != NULL) {
		json_object_set_new(entry, "client_id", json_string(id));
		if (secret != NULL)
			json_object_set_new(entry, "client_secret",
			    json_string(secret));
		json_object_set_new(entry, "auth_method", json_string(
		    mcp_oauth_auth_method(supported, secret != NULL)));
		return entry;
	}
	if (cimd != NULL && json_is_true(json_object_get(f->as,
	    "client_id_metadata_document_supported"))) {
		json_object_set_new(entry, "client_id", json_string(cimd));
		json_object_set_new(entry, "auth_method", json_string("none"));
		return entry;
	}
	if (f->registration == NULL) {
		*err = xstrdup("its authorization server registers no "
		    "clients: give the client huddle may use in the server's "
		    "\"oauth\": {\"clientId\": …} in your settings");
		json_decref(entry);
		return NULL;
	}
	/* A public client when the server takes one: huddle runs on the
	 * person's machine and keeps no secret a user could not read. */
	how = supported == NULL ? "client_secret_basic" :
	    mcp_oauth_array_has(supported, "none") ? "none" :
	    mcp_oauth_array_has(supported, "client_secret_basic") ?
	    "client_secret_basic" : mcp_oauth_array_has(supported,
	    "client_secret_post") ? "client_secret_post" : "none";
	req = json_pack("{s:s, s:[s], s:[s,s], s:[s], s:s}", "client_name",
	    "huddle", "redirect_uris", redirect_uri, "grant_types",
	    "authorization_code", "refresh_token", "response_types", "code",
	    "token_endpoint_auth_method", how);
	body = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	status = mcp_oauth_http(f->registration, body, 1, NULL, cancel, &got);
	free(body);
	gid = mcp_oauth_str(got, "client_id");
	if (status < 200 || status >= 300 || gid == NULL) {
		*err = status == 0 ? xstrdup("its authorization server "
		    "could not be reached to register huddle") : xasprintf(
		    "its authorization server refused to register huddle "
		    "(HTTP %ld)", status);
		json_decref(got);
		json_decref(entry);
		return NULL;
	}
	gsecret = mcp_oauth_str(got, "client_secret");
	gmethod = mcp_oauth_str(got, "token_endpoint_auth_method");
	json_object_set_new(entry, "client_id", json_string(gid));
	if (gsecret != NULL)
		json_object_set_new(entry, "client_secret",
		    json_string(gsecret));
	json_object_set_new(entry, "auth_method", json_string(gmethod !=
	    NULL ? gmethod : mcp_oauth_auth_method(supported, gsecret !=
	    NULL)));
	json_decref(got);
	return entry;
}

/* Asks the person to sign in for scopes (may be NULL) and takes the
 * tokens. Returns 0, or -1 with *err. */
static int
mcp_oauth_signin(struct mcp_oauth *o, const char *www, const char *want,
    int step_up, struct cancel *cancel, atomic_int *asking,
    atomic_llong *asked_ms, char **err)
{
	struct mcp_oauth_found f;
	struct mcp_redirect *rd = NULL;
	json_t *client = NULL, *got = NULL, *entry;
	char *scopes = NULL, *verifier = NULL, *state = NULL, *q = NULL;
	char *url = NULL, *code = NULL, *form = NULL, *auth = NULL;
	char *why = NULL, challenge[44], *cscope, *origin;
	const char *path;
	int64_t began;
	unsigned gen;
	long status;
	int rc = -1, said;

	if (o->launch == NULL || o->launch->signin == NULL ||
	    o->launch->open == NULL) {
		*err = xstrdup("nobody can be asked to sign in here");
		return -1;
	}
	pthread_mutex_lock(&o->lock);
	gen = o->gen;
	pthread_mutex_unlock(&o->lock);
	if (mcp_oauth_discover(o, www, cancel, &f, err) == -1)
		goto out;
	if ((rd = mcp_redirect_open(&why)) == NULL) {
		*err = xasprintf("no loopback port for the sign-in: %s", why);
		free(why);
		goto out;
	}
	if ((client = mcp_oauth_client(o, &f, mcp_redirect_uri(rd), cancel,
	    err)) == NULL)
		goto out;
	cscope = mcp_oauth_challenge(www, "scope");
	scopes = step_up || want != NULL ? xstrdup(want) :
	    mcp_oauth_scopes(cscope, f.prm_scopes,
	    json_object_get(f.as, "scopes_supported"));
	free(cscope);
	verifier = mcp_oauth_random(32);
	state = mcp_oauth_random(16);
	mcp_oauth_s256(verifier, challenge);
	mcp_oauth_param(&q, "response_type", "code");
	mcp_oauth_param(&q, "client_id", mcp_oauth_str(client, "client_id"));
	mcp_oauth_param(&q, "redirect_uri", mcp_redirect_uri(rd));
	mcp_oauth_param(&q, "code_challenge", challenge);
	mcp_oauth_param(&q, "code_challenge_method", "S256");
	mcp_oauth_param(&q, "state", state);
	mcp_oauth_param(&q, "resource", f.resource);
	if (scopes != NULL)
		mcp_oauth_param(&q, "scope", scopes);
	url = xasprintf("%s%s%s", f.authorize, strchr(f.authorize, '?') ?
	    "&" : "?", q);
	pthread_mutex_lock(&o->lock);
	free(o->asked);
	o->asked = scopes != NULL ? xstrdup(scopes) : NULL;
	o->signing = 1;
	pthread_mutex_unlock(&o->lock);

	/* The person's time stops the request's clock. The listener
	 * takes connections only once they said yes, and the start page's
	 * address is given only then, to their browser (or shown to them):
	 * nothing that read the request before can be there first. */
	atomic_fetch_add(asking, 1);
	began = clock_mono_ms();
	origin = mcp_oauth_origin(o->url, &path);
	said = o->launch->signin(o->launch->ud, o->name, origin != NULL ?
	    origin : o->url, f.resource, scopes != NULL ? scopes : "",
	    f.authorize, cancel, &why);
	free(origin);
	if (said == 1 && mcp_redirect_listen(rd, &why) == -1)
		said = -1;
	if (said == 1)
		o->launch->open(o->launch->ud, o->name,
		    mcp_redirect_start_uri(rd));
	if (said == 1 && mcp_redirect_wait(rd, url, state, cancel,
	    clock_mono_ms() + MCP_OAUTH_BROWSER_MS, &code, &why) == -1)
		said = -1;
	atomic_fetch_add(asked_ms, clock_mono_ms() - began);
	atomic_fetch_sub(asking, 1);
	pthread_mutex_lock(&o->lock);
	o->signing = 0;
	if (said == 0)
		o->declined = 1;
	pthread_mutex_unlock(&o->lock);
	if (said != 1) {
		*err = xasprintf("%s", why != NULL ? why : said == 0 ?
		    "the person declined to sign in" : "the sign-in did not "
		    "finish");
		goto out;
	}

	mcp_oauth_param(&form, "grant_type", "authorization_code");
	mcp_oauth_param(&form, "code", code);
	mcp_oauth_param(&form, "redirect_uri", mcp_redirect_uri(rd));
	mcp_oauth_param(&form, "code_verifier", verifier);
	mcp_oauth_param(&form, "resource", f.resource);
	mcp_oauth_client_auth(client, &form, &auth);
	status = mcp_oauth_http(f.token, form, 0, auth, cancel, &got);
	if ((entry = mcp_oauth_take(o, client, status, got, scopes,
	    err)) == NULL)
		goto out;
	log_printf("mcp: %s: signed in", o->name);
	mcp_oauth_keep(o, entry, gen, NULL);
	rc = 0;
out:
	mcp_redirect_close(rd);
	mcp_oauth_found_clear(&f);
	json_decref(client);
	json_decref(got);
	free(scopes);
	mcp_oauth_wipe(url);
	free(why);
	mcp_oauth_wipe(verifier);
	mcp_oauth_wipe(state);
	mcp_oauth_wipe(q);
	mcp_oauth_wipe(code);
	mcp_oauth_wipe(form);
	mcp_oauth_wipe(auth);
	return rc;
}

/* The union of two space-separated lists (malloc'd). */
static char *
mcp_oauth_union(const char *a, const char *b)
{
	char *out = xstrdup(a != NULL ? a : ""), *copy, *w, *save = NULL, *n;

	copy = xstrdup(b != NULL ? b : "");
	for (w = strtok_r(copy, " ", &save); w != NULL;
	    w = strtok_r(NULL, " ", &save)) {
		if (mcp_oauth_has(out, w))
			continue;
		n = xasprintf("%s%s%s", out, *out != '\0' ? " " : "", w);
		free(out);
		out = n;
	}
	free(copy);
	return out;
}

int
mcp_oauth_answer(struct mcp_oauth *o, long status, const char *www,
    int step_ups, struct cancel *cancel, atomic_int *asking,
    atomic_llong *asked_ms, char **err)
{
	char *error = mcp_oauth_challenge(www, "error");
	char *asked = mcp_oauth_challenge(www, "scope"), *want = NULL;
	char *scope = mcp_oauth_scope_clean(asked);
	char *why = NULL;
	const char *had;
	int step_up = status == 403, rc = -1, declined;

	pthread_mutex_lock(&o->lock);
	o->needed = 1;
	declined = o->declined;
	pthread_mutex_unlock(&o->lock);
	if (step_up && (error == NULL || strcmp(error,
	    "insufficient_scope") != 0)) {
		*err = xstrdup("refused the request (HTTP 403)");
		goto out;
	}
	if (declined) {
		*err = xasprintf("asks to sign in, and the person declined: "
		    "/mcp logout %s lets huddle ask again", o->name);
		goto out;
	}
	if (step_up) {
		/* More scopes: those asked before and those asked for now.
		 * Nothing new to ask for, or asked too often, and a new
		 * sign-in would only be refused again. */
		pthread_mutex_lock(&o->lock);
		had = o->asked != NULL ? o->asked : mcp_oauth_str(o->entry,
		    "scope");
		want = mcp_oauth_union(had, scope);
		if (had != NULL && strcmp(want, had) == 0)
			step_up = -1;
		pthread_mutex_unlock(&o->lock);
		if (step_up == -1 || step_ups >= MCP_OAUTH_STEP_UPS) {
			*err = xasprintf("needs scope %.200s, which a "
			    "sign-in already asked for: it was not given",
			    scope != NULL ? scope : "(unnamed)");
			goto out;
		}
	} else if (mcp_oauth_refresh(o, cancel) == 0) {
		/* A new token spares the person. */
		rc = 0;
		goto out;
	}
	if (mcp_oauth_signin(o, www, want, step_up, cancel, asking, asked_ms,
	    &why) == 0)
		rc = 0;
	else {
		*err = xasprintf("asks to sign in: %s", why);
		free(why);
	}
out:
	free(error);
	free(asked);
	free(scope);
	free(want);
	return rc;
}

char *
mcp_oauth_text(struct mcp_oauth *o)
{
	const char *scope;
	char *text = NULL;
	json_int_t at;

	pthread_mutex_lock(&o->lock);
	if (o->signing)
		text = xstrdup("waiting for the person to sign in");
	else if (o->entry != NULL && mcp_oauth_str(o->entry,
	    "access_token") != NULL) {
		scope = mcp_oauth_str(o->entry, "scope");
		at = json_integer_value(json_object_get(o->entry,
		    "expires_at"));
		text = xasprintf("signed in%s%s%s%s", scope != NULL &&
		    *scope != '\0' ? " (" : "", scope != NULL ? scope : "",
		    scope != NULL && *scope != '\0' ? ")" : "",
		    at > 0 && at < (json_int_t)time(NULL) ? mcp_oauth_str(
		    o->entry, "refresh_token") != NULL ? ", token expired "
		    "(refreshed at the next request)" : ", token expired (the "
		    "next request asks to sign in again)" : "");
	} else if (o->declined)
		text = xstrdup("not signed in: the person declined");
	else if (o->needed)
		text = xstrdup("not signed in");
	pthread_mutex_unlock(&o->lock);
	return text;
}

int
mcp_oauth_logout(struct mcp_oauth *o)
{
	char *err = NULL;
	int had;

	pthread_mutex_lock(&o->lock);
	had = o->entry != NULL || o->declined;
	o->gen++;
	json_decref(o->entry);
	o->entry = NULL;
	o->declined = 0;
	free(o->asked);
	o->asked = NULL;
	pthread_mutex_unlock(&o->lock);
	if (o->launch != NULL && o->launch->tokens != NULL &&
	    mcp_tokens_put(o->launch->tokens, o->url, NULL, &err) == -1) {
		log_printf("mcp: %s: the sign-in could not be forgotten: %s",
		    o->name, err);
		free(err);
	}
	return had;
}
