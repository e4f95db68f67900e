/*
 * One thread's HTTP connection to an LLM server: a libcurl easy handle
 * driven through its own multi handle, so that the wait for data can also
 * watch a cancellation token and end the moment it fires.
 *
 * Streams have no total timeout; a connection that delivers no byte for
 * `stall_s` seconds fails instead (servers send keep-alive pings).
 */
#ifndef HUDDLE_LLM_HTTP_H
#define HUDDLE_LLM_HTTP_H

#include <curl/curl.h>
#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>

#include "util/cancel.h"

/* What came back, whatever the status. */
struct http_response {
	long	 status;		/* 0: no response at all */
	char	*retry_after;		/* header values, or NULL */
	char	*retry_after_ms;
	char	*should_retry;		/* x-should-retry */
	char	*request_id;		/* request-id or x-request-id */
	char	*content_type;		/* content-type */
	char	*mcp_session_id;	/* mcp-session-id (MCP servers) */
	char	*www_authenticate;	/* www-authenticate (an MCP server
					 * asking for a sign-in) */
	json_t	*ratelimit;		/* {"anthropic-ratelimit-…": "value",
					 * "x-ratelimit-…": …}, or NULL */
	char	*body;			/* the body when not streamed to
					 * on_data (error bodies always) */
	size_t	 len;
	char	*error;			/* transport failure, or NULL */
	int	 timed_out;		/* the failure was a timeout or stall */
};

enum http_result {
	HTTP_DONE,		/* a complete response arrived */
	HTTP_TRANSPORT,		/* no or partial response: resp->error */
	HTTP_STOPPED,		/* on_data asked to stop */
	HTTP_CANCELLED
};

/* Receives a 2xx body as it arrives; return non-zero to stop. */
typedef int (*http_data_fn)(void *ud, const char *buf, size_t len);

struct http;

/* Creates a handle that honours `cancel` (not owned). */
struct http *http_new(struct cancel *cancel);

/* A second token (not owned; NULL: none): when it fires, a transfer
 * ends as when its data callback asks (HTTP_STOPPED), not cancelled. */
void http_stop_on(struct http *h, struct cancel *stop);
void http_free(struct http *h);

/*
 * POSTs body to url with the given headers (not owned; an empty Expect:
 * header is added). A 2xx body goes to on_data when it is not NULL; any
 * other body is collected in resp->body. Fills *resp (clear it with
 * http_response_clear) and returns how the exchange ended.
 */
enum http_result http_post(struct http *h, const char *url,
    struct curl_slist *headers, const char *body, size_t len,
    long connect_timeout_ms, long stall_s, http_data_fn on_data, void *ud,
    struct http_response *resp);

/* While *hold (not owned; NULL: none) is above 0, a transfer of h that
 * receives nothing is not stalled: it waits on purpose (an MCP server's
 * answer waits for the person's). */
void http_hold(struct http *h, atomic_int *hold);

/* A transfer of h still running at at_ms (monotonic, util/clock.h; 0:
 * never) ends as a stall does, however slowly bytes keep coming. */
void http_deadline(struct http *h, int64_t at_ms);

/* As http_post, with a GET and no body (a resumed MCP stream). */
enum http_result http_get(struct http *h, const char *url,
    struct curl_slist *headers, long connect_timeout_ms, long stall_s,
    http_data_fn on_data, void *ud, struct http_response *resp);

void http_response_clear(struct http_response *resp);

#endif
