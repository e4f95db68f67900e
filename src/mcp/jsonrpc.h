/*
 * JSON-RPC 2.0 as MCP uses it: requests, notifications and responses,
 * each one JSON object on one line (the stdio transport's framing), and
 * the reading of what a server sends back, whatever the transport.
 */
#ifndef HUDDLE_MCP_JSONRPC_H
#define HUDDLE_MCP_JSONRPC_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* The longest line accepted from a server. */
#define JSONRPC_MAX_LINE	(16u * 1024 * 1024)
/* The most bytes kept unread however they are split into lines: a
 * reader takes the lines of each chunk before feeding the next. */
#define JSONRPC_MAX_BUFFERED	(JSONRPC_MAX_LINE + 1024u * 1024)

/* JSON-RPC's own error codes that we send or read. */
#define JSONRPC_METHOD_NOT_FOUND	(-32601)

enum jsonrpc_kind {
	JSONRPC_INVALID,	/* not a JSON-RPC 2.0 message */
	JSONRPC_RESPONSE,	/* id, and result or error */
	JSONRPC_NOTIFICATION,	/* method, no id */
	JSONRPC_REQUEST		/* method and id: the server asks us */
};

struct jsonrpc_msg {
	enum jsonrpc_kind	 kind;
	json_t			*root;		/* owned; the rest point in */
	json_t			*id;		/* responses and requests */
	const char		*method;	/* notifications, requests */
	json_t			*params;	/* or NULL */
	json_t			*result;	/* a response's, or NULL */
	json_t			*error;		/* a response's, or NULL */
};

/* A request's text: one line, no newline in it or at its end; params is
 * stolen (NULL: none). */
char *jsonrpc_request(int64_t id, const char *method, json_t *params);

/* A notification's text, likewise. */
char *jsonrpc_notification(const char *method, json_t *params);

/* The error response to a request of the server's (id is copied). */
char *jsonrpc_error_reply(json_t *id, int code, const char *message);

/* A response with result (stolen) to a request of the server's. */
char *jsonrpc_result_reply(json_t *id, json_t *result);

/* Reads one message from the JSON object o (a reference is taken). */
void jsonrpc_read(json_t *o, struct jsonrpc_msg *m);

/* Reads one message from text. Returns 0, or -1 (kind INVALID) when it
 * is not JSON. */
int jsonrpc_parse(const char *text, size_t len, struct jsonrpc_msg *m);

void jsonrpc_msg_clear(struct jsonrpc_msg *m);

/* Whether a response answers request id. */
int jsonrpc_is_reply_to(const struct jsonrpc_msg *m, int64_t id);

/* "MESSAGE (code N)" for a response's error object (malloc'd). */
char *jsonrpc_error_text(json_t *error);

/* Splits a byte stream into lines, as they arrive in pieces. */
struct jsonrpc_lines {
	char	*buf;
	size_t	 off;		/* where the unread bytes start */
	size_t	 len, cap;
	int	 overflow;	/* a line passed JSONRPC_MAX_LINE, or the
				 * unread bytes JSONRPC_MAX_BUFFERED */
};

/* Appends n bytes. Returns 0, or -1 once a line is too long or too much
 * is left unread. */
int jsonrpc_lines_feed(struct jsonrpc_lines *l, const char *data, size_t n);

/* The next whole line without its end (CR LF or LF), malloc'd, or NULL.
 * Blank lines are skipped. */
char *jsonrpc_lines_next(struct jsonrpc_lines *l);

void jsonrpc_lines_clear(struct jsonrpc_lines *l);

#endif
