/*
 * The protocol engine: structured request/response handshakes between
 * members (and the person), correlated by a request_id.
 *
 * Every protocol is the same state machine
 *
 *	pending --approve--> approved
 *	pending --reject---> rejected
 *	pending --timeout--> expired
 *	pending --target or sender gone--> cancelled
 *
 * and differs only in one row of a table: its message names, who may
 * answer, its timeout and what approval does (a plan lifts the
 * teammate's gate; a shutdown ends the teammate). A request and the message
 * that carries it are committed together; so are a decision, its side
 * effect and the message that reports it. Listeners hear of every state
 * change after it is committed.
 */
#ifndef HUDDLE_CORE_PROTOCOL_H
#define HUDDLE_CORE_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#include "core/bus.h"
#include "core/message.h"

enum req_type {
	REQ_SHUTDOWN,
	REQ_PLAN_APPROVAL,
	REQ_PERMISSION,
	REQ_TYPE_COUNT
};

enum req_status {
	REQ_PENDING,
	REQ_APPROVED,
	REQ_REJECTED,
	REQ_EXPIRED,
	REQ_CANCELLED,
	REQ_STATUS_COUNT
};

/* Who may answer a request of a type (bits). */
#define PROTO_BY_TARGET	0x1	/* the member the request is addressed to */
#define PROTO_BY_USER	0x2	/* the person at the keyboard */

/* "req_" + 8 lowercase hex digits + NUL. */
#define PROTO_ID_SIZE 13

struct request {
	char		 id[PROTO_ID_SIZE];
	enum req_type	 type;
	char		*from;		/* a member, or MSG_USER */
	char		*to;
	enum req_status	 status;
	char		*body;		/* the plan, the command, the reason */
	char		*response;	/* feedback or reason of the decision */
	char		*decided_by;	/* NULL while pending, or for expiry */
	int64_t		 created_at;	/* wall-clock ms */
	int64_t		 expires_at;	/* 0: never */
	int64_t		 decided_at;
};

/* What became of a response. */
enum proto_verdict {
	PROTO_DECIDED,		/* it decided the request */
	PROTO_UNKNOWN,		/* no request has that id */
	PROTO_WRONG_TYPE,	/* e.g. a shutdown_response to a plan */
	PROTO_WRONG_SENDER,	/* the sender may not answer this type */
	PROTO_ALREADY_DECIDED,	/* duplicate or late: the first one stands */
	PROTO_FAILED		/* the store failed */
};

struct protocol;

/* Called after a request is created or changes state, on the thread that
 * changed it, with the store's lock still held (see bus_listener_fn);
 * `what` is the struct request, valid only during the call. */
typedef listener_fn protocol_listener_fn;

/* Creates the engine over a bus (not owned). */
struct protocol *protocol_new(struct bus *bus);
void protocol_free(struct protocol *p);

/* Registers a listener; call before threads start. */
void protocol_listen(struct protocol *p, protocol_listener_fn fn, void *ud);

/* Overrides who may answer a type (PROTO_BY_* bits). */
void protocol_set_answerers(struct protocol *p, enum req_type type,
    unsigned answerers);

/* Who may answer a type (PROTO_BY_* bits). */
unsigned protocol_answerers(struct protocol *p, enum req_type type);

/* Overrides a type's timeout in ms (0: never expires). */
void protocol_set_timeout(struct protocol *p, enum req_type type,
    int64_t timeout_ms);

/* "shutdown", "plan", "permission" — for tables and headless output. */
const char *req_type_name(enum req_type type);
/* The type of a wire name ("plan", …), or -1 when unknown. */
int req_type_parse(const char *name);
/* "pending", "approved", … */
const char *req_status_name(enum req_status status);
/* The status of a name ("approved", …), or -1 when unknown. */
int req_status_parse(const char *name);
/* The message types that carry a request and its response. */
enum msg_type req_type_request_msg(enum req_type type);
enum msg_type req_type_response_msg(enum req_type type);

/*
 * Opens a request from `from` (a member or MSG_USER) to the member `to`
 * and sends it the request message, in one transaction. `body` is what is
 * asked (plan, command, reason). Writes the new id to id_out. Returns 0, or
 * -1 with *err (e.g. `to` is unknown or terminated).
 */
int protocol_request(struct protocol *p, enum req_type type,
    const char *from, const char *to, const char *body,
    char id_out[PROTO_ID_SIZE], char **err);

/*
 * Answers request `id` with a response of message type `response_type` from
 * `from`. When the response fits (right type, allowed sender, still
 * pending) the decision, what approval does, and the response message to
 * the requester commit together and PROTO_DECIDED is returned. Anything
 * else changes nothing and returns why; *msg (when not NULL) always gets a
 * malloc'd sentence for whoever answered.
 */
enum proto_verdict protocol_respond(struct protocol *p, const char *id,
    enum msg_type response_type, const char *from, int approve,
    const char *text, char **msg);

/*
 * Expires every pending request whose deadline is at or before now_ms
 * (wall clock) and tells each requester. Returns how many expired.
 */
int protocol_tick(struct protocol *p, int64_t now_ms);

/*
 * Withdraws pending request `id` (its status becomes cancelled, with
 * `why`), telling the requester like any other decision. Returns 0, or -1
 * with *err when there is no such pending request.
 */
int protocol_cancel(struct protocol *p, const char *id, const char *why,
    char **err);

/*
 * Cancels every pending request of `type` that `name` sent (say, the
 * permission requests of an agent that no longer waits for them). Returns
 * how many, or -1 with *err.
 */
int protocol_cancel_from(struct protocol *p, const char *name,
    enum req_type type, const char *why, char **err);

/*
 * Marks member `name` terminated, cancels every pending request it sent or
 * had to answer (telling the other side), and sends the lead a
 * teammate_terminated message — all in one transaction. Returns 0 or -1
 * with *err.
 */
int protocol_terminate(struct protocol *p, const char *name,
    const char *why, char **err);

/* Returns request `id` (free with request_free), or NULL. */
struct request *protocol_get(struct protocol *p, const char *id);

/*
 * Lists pending requests, oldest first, then up to `decided` of the most
 * recent decisions, newest first. Returns the count; free *out with
 * request_free_array.
 */
size_t protocol_list(struct protocol *p, size_t decided,
    struct request **out);

void request_free(struct request *r);
void request_free_array(struct request *array, size_t n);

#endif
