/*
 * HTTP POST over libcurl with cancellation (see http.h).
 *
 * The easy handle is reused across calls so its connection stays open;
 * each call adds it to the handle's private multi handle and loops on
 * curl_multi_poll(), which also watches the cancellation pipe. A cancel
 * therefore interrupts connecting, waiting for headers and streaming alike
 * without any polling interval.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "llm/http.h"
#include "util/clock.h"
#include "util/xmalloc.h"

/* Error bodies are short; a non-streamed reply can be long. */
#define HTTP_MAX_BODY (64u * 1024 * 1024)

struct http {
	CURL		*easy;
	CURLM		*multi;
	struct cancel	*cancel;
	struct cancel	*stop;		/* fired: the transfer stops, or
					 * NULL (http_stop_on) */
	atomic_int	*hold;		/* while > 0, no stall */
	int64_t		 deadline;	/* monotonic ms; 0: none */
	char		 errbuf[CURL_ERROR_SIZE];
};

/* One call's state, seen by the callbacks. */
struct http_call {
	struct http		*h;
	struct http_response	*resp;
	http_data_fn		 on_data;
	void			*ud;
	size_t			 cap;
	int			 stopped;
	int64_t			 last_byte_ms;	/* monotonic */
};

struct http *
http_new(struct cancel *cancel)
{
	struct http *h = xcalloc(1, sizeof *h);

	h->easy = curl_easy_init();
	h->multi = curl_multi_init();
	if (h->easy == NULL || h->multi == NULL) {
		fprintf(stderr, "huddle: cannot initialise libcurl\n");
		abort();
	}
	h->cancel = cancel;
	return h;
}

void
http_stop_on(struct http *h, struct cancel *stop)
{
	h->stop = stop;
}

void
http_free(struct http *h)
{
	if (h == NULL)
		return;
	curl_multi_cleanup(h->multi);
	curl_easy_cleanup(h->easy);
	free(h);
}

void
http_response_clear(struct http_response *resp)
{
	free(resp->retry_after);
	free(resp->retry_after_ms);
	free(resp->should_retry);
	free(resp->request_id);
	free(resp->content_type);
	free(resp->mcp_session_id);
	free(resp->www_authenticate);
	free(resp->body);
	free(resp->error);
	json_decref(resp->ratelimit);
	memset(resp, 0, sizeof *resp);
}

/* Stores a header value (trimmed) in *slot, replacing an older one. */
static void
http_keep(char **slot, const char *value, size_t len)
{
	while (len > 0 && (value[len - 1] == '\r' || value[len - 1] == '\n' ||
	    value[len - 1] == ' ' || value[len - 1] == '\t'))
		len--;
	while (len > 0 && (*value == ' ' || *value == '\t')) {
		value++;
		len--;
	}
	free(*slot);
	*slot = xmalloc(len + 1);
	memcpy(*slot, value, len);
	(*slot)[len] = '\0';
}

/* Records one rate-limit header under its lower-cased name. */
static void
http_keep_ratelimit(struct http_response *r, const char *name,
    size_t namelen, const char *value, size_t len)
{
	char *key = xmalloc(namelen + 1), *val = NULL;
	size_t i;

	for (i = 0; i < namelen; i++)
		key[i] = (char)tolower((unsigned char)name[i]);
	key[namelen] = '\0';
	http_keep(&val, value, len);
	if (r->ratelimit == NULL)
		r->ratelimit = json_object();
	/* Header values are ASCII; anything else is not worth keeping. */
	json_object_set_new(r->ratelimit, key, json_string(val));
	free(key);
	free(val);
}

/* Whether a WWW-Authenticate value (len bytes) is a Bearer
 * challenge. */
static int
http_is_bearer(const char *v, size_t len)
{
	while (len > 0 && (*v == ' ' || *v == '\t')) {
		v++;
		len--;
	}
	return len >= 6 && strncasecmp(v, "Bearer", 6) == 0 &&
	    (len == 6 || v[6] == ' ' || v[6] == '\t' || v[6] == '\r' ||
	    v[6] == ',');
}

static size_t
http_on_header(char *buf, size_t size, size_t n, void *arg)
{
	struct http_call *call = arg;
	struct http_response *r = call->resp;
	static const struct {
		const char	*name;
		size_t		 offset;
	} wanted[] = {
		{ "retry-after", offsetof(struct http_response, retry_after) },
		{ "retry-after-ms",
		    offsetof(struct http_response, retry_after_ms) },
		{ "x-should-retry",
		    offsetof(struct http_response, should_retry) },
		{ "request-id", offsetof(struct http_response, request_id) },
		{ "x-request-id", offsetof(struct http_response, request_id) },
		{ "content-type",
		    offsetof(struct http_response, content_type) },
		{ "mcp-session-id",
		    offsetof(struct http_response, mcp_session_id) },
		{ "www-authenticate",
		    offsetof(struct http_response, www_authenticate) },
	};
	size_t len = size * n, i, namelen;
	const char *colon = memchr(buf, ':', len);

	call->last_byte_ms = clock_mono_ms();
	/* A new status line (after a 100 Continue, say) starts afresh. */
	if (len > 5 && strncmp(buf, "HTTP/", 5) == 0) {
		free(r->retry_after);
		free(r->retry_after_ms);
		free(r->should_retry);
		json_decref(r->ratelimit);
		r->retry_after = r->retry_after_ms = r->should_retry = NULL;
		r->ratelimit = NULL;
		return len;
	}
	if (colon == NULL)
		return len;
	namelen = colon - buf;
	if ((namelen > 21 && strncasecmp(buf, "anthropic-ratelimit-", 20) == 0) ||
	    (namelen > 12 && strncasecmp(buf, "x-ratelimit-", 12) == 0))
		http_keep_ratelimit(r, buf, namelen, colon + 1,
		    len - namelen - 1);
	for (i = 0; i < sizeof wanted / sizeof *wanted; i++) {
		if (strlen(wanted[i].name) == namelen &&
		    strncasecmp(buf, wanted[i].name, namelen) == 0) {
			/* request-id wins over x-request-id. */
			char **slot = (char **)((char *)r + wanted[i].offset);

			if (i == 4 && *slot != NULL)
				break;
			/* Of several challenges, the Bearer one is the
			 * sign-in's (its resource_metadata): a Basic line
			 * after it does not hide it. */
			if (i == 7 && *slot != NULL &&
			    http_is_bearer(*slot, strlen(*slot)) &&
			    !http_is_bearer(colon + 1, len - namelen - 1))
				break;
			http_keep(slot, colon + 1, len - namelen - 1);
			break;
		}
	}
	return len;
}

static size_t
http_on_body(char *buf, size_t size, size_t n, void *arg)
{
	struct http_call *call = arg;
	struct http_response *r = call->resp;
	size_t len = size * n;

	call->last_byte_ms = clock_mono_ms();
	if (cancel_fired(call->h->cancel))
		return CURL_WRITEFUNC_ERROR;
	if (r->status == 0)
		curl_easy_getinfo(call->h->easy, CURLINFO_RESPONSE_CODE,
		    &r->status);
	if (call->on_data != NULL && r->status >= 200 && r->status < 300) {
		if (call->on_data(call->ud, buf, len) != 0) {
			call->stopped = 1;
			return CURL_WRITEFUNC_ERROR;
		}
		/* The time on_data took (an MCP server's question waiting
		 * for the person) is not the server's stall. */
		call->last_byte_ms = clock_mono_ms();
		return len;
	}
	if (r->len + len > HTTP_MAX_BODY)
		return CURL_WRITEFUNC_ERROR;
	r->body = xappend(r->body, &r->len, &call->cap, buf, len);
	return len;
}

static void
http_setup(struct http *h, struct http_call *call, const char *url,
    struct curl_slist *headers, const char *body, size_t len,
    long connect_timeout_ms)
{
	CURL *e = h->easy;

	/* Reset keeps the connection cache: the next call reuses it. */
	curl_easy_reset(e);
	h->errbuf[0] = '\0';
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	if (body != NULL) {
		curl_easy_setopt(e, CURLOPT_POST, 1L);
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)len);
	} else
		curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, connect_timeout_ms);
	curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(e, CURLOPT_TCP_KEEPIDLE, 60L);
	curl_easy_setopt(e, CURLOPT_TCP_KEEPINTVL, 60L);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, h->errbuf);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, http_on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, call);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, http_on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, call);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_USERAGENT, "huddle/" PACKAGE_VERSION);
}

enum http_result
http_post(struct http *h, const char *url, struct curl_slist *headers,
    const char *body, size_t len, long connect_timeout_ms, long stall_s,
    http_data_fn on_data, void *ud, struct http_response *resp)
{
	struct http_call call = { h, resp, on_data, ud, 0, 0, 0 };
	struct curl_slist *all = NULL, *p;
	struct curl_waitfd extra[2];
	CURLcode code = CURLE_OK;
	enum http_result result;
	CURLMsg *msg;
	int running = 1, left, stalled = 0;

	memset(resp, 0, sizeof *resp);
	for (p = headers; p != NULL; p = p->next)
		all = curl_slist_append(all, p->data);
	/* libcurl would wait up to a second for 100-continue on a big body. */
	all = curl_slist_append(all, "Expect:");
	http_setup(h, &call, url, all, body, len, connect_timeout_ms);
	curl_multi_add_handle(h->multi, h->easy);

	/* A stall is measured from the last byte received (or the start):
	 * libcurl's own low-speed check averages over several seconds. */
	call.last_byte_ms = clock_mono_ms();
	while (running && !cancel_fired(h->cancel)) {
		if (h->stop != NULL && cancel_fired(h->stop)) {
			call.stopped = 1;
			break;
		}
		if (curl_multi_perform(h->multi, &running) != CURLM_OK)
			break;
		if (!running)
			break;
		if (h->hold != NULL && atomic_load(h->hold) > 0)
			call.last_byte_ms = clock_mono_ms();
		if (clock_mono_ms() - call.last_byte_ms >= stall_s * 1000 ||
		    (h->deadline != 0 && clock_mono_ms() >= h->deadline)) {
			stalled = 1;
			break;
		}
		extra[0].fd = cancel_fd(h->cancel);
		extra[0].events = CURL_WAIT_POLLIN;
		extra[0].revents = 0;
		extra[1] = extra[0];
		if (h->stop != NULL)
			extra[1].fd = cancel_fd(h->stop);
		curl_multi_poll(h->multi, extra, h->stop != NULL ? 2 : 1, 1000,
		    NULL);
	}
	while ((msg = curl_multi_info_read(h->multi, &left)) != NULL) {
		if (msg->msg == CURLMSG_DONE)
			code = msg->data.result;
	}
	curl_multi_remove_handle(h->multi, h->easy);
	curl_slist_free_all(all);
	if (resp->status == 0)
		curl_easy_getinfo(h->easy, CURLINFO_RESPONSE_CODE,
		    &resp->status);

	if (cancel_fired(h->cancel))
		result = HTTP_CANCELLED;
	else if (call.stopped)
		result = HTTP_STOPPED;
	else if (stalled) {
		result = HTTP_TRANSPORT;
		resp->timed_out = 1;
		resp->error = h->deadline != 0 && clock_mono_ms() >=
		    h->deadline ? xstrdup("the exchange took too long") :
		    xasprintf("no data from the server for %ld s", stall_s);
	} else if (running || code != CURLE_OK) {
		result = HTTP_TRANSPORT;
		resp->timed_out = code == CURLE_OPERATION_TIMEDOUT;
		resp->error = xasprintf("%s", h->errbuf[0] ? h->errbuf :
		    curl_easy_strerror(code));
	} else
		result = HTTP_DONE;
	return result;
}

enum http_result
http_get(struct http *h, const char *url, struct curl_slist *headers,
    long connect_timeout_ms, long stall_s, http_data_fn on_data, void *ud,
    struct http_response *resp)
{
	return http_post(h, url, headers, NULL, 0, connect_timeout_ms, stall_s,
	    on_data, ud, resp);
}

void
http_hold(struct http *h, atomic_int *hold)
{
	h->hold = hold;
}

void
http_deadline(struct http *h, int64_t at_ms)
{
	h->deadline = at_ms;
}
