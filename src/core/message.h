/*
 * A message is what travels between agents through their inboxes: who sent
 * it to whom, what kind it is, its text, and metadata (the request_id and
 * decision fields of the protocols). Types are an enum in code and a name
 * in the store and on the wire.
 */
#ifndef HUDDLE_CORE_MESSAGE_H
#define HUDDLE_CORE_MESSAGE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

enum msg_type {
	MSG_MESSAGE,
	MSG_BROADCAST,
	MSG_SHUTDOWN_REQUEST,
	MSG_SHUTDOWN_RESPONSE,
	MSG_PLAN_APPROVAL_REQUEST,
	MSG_PLAN_APPROVAL_RESPONSE,
	MSG_PERMISSION_REQUEST,
	MSG_PERMISSION_RESPONSE,
	MSG_IDLE_NOTIFICATION,
	MSG_TEAMMATE_TERMINATED,
	MSG_TASK_COMPLETED,	/* to the lead: a task is done */
	MSG_TASK_ASSIGNED,	/* to a teammate: a task is now its */
	MSG_TASK_CHANGED,	/* to an owner: someone else changed its
				 * task (verified, cancelled, unblocked) */
	MSG_TYPE_COUNT
};

/* Reserved names that are not members: the person at the keyboard, and
 * huddle itself as the sender of expiry and cancellation notices. */
#define MSG_USER	"user"
#define MSG_SYSTEM	"system"

struct message {
	int64_t		 id;
	char		*from;
	char		*to;
	enum msg_type	 type;
	char		*content;
	json_t		*metadata;	/* an object; never NULL */
	int64_t		 created_at;	/* wall-clock ms */
	int		 recorded;	/* bus_drain put it in the transcript */
};

/* The most of an agent's text a message keeps (bytes): longer text is
 * cut to it, on a character boundary, with a note of what was cut. */
#define MSG_MAX_CONTENT (64 * 1024)

/*
 * text as a message keeps it (malloc'd): itself when it fits in
 * MSG_MAX_CONTENT, else its head up to that size on a character boundary
 * and a note saying how many bytes were cut. *cut (when not NULL) gets
 * that number, 0 when nothing was.
 */
char *message_cap(const char *text, size_t *cut);

/* The wire name of a type ("shutdown_request"). */
const char *msg_type_name(enum msg_type type);

/* Parses a wire name. Returns the type, or -1 when unknown. */
int msg_type_parse(const char *name);

/*
 * Returns a malloc'd line that shows the message to a model: who sent it,
 * its kind, and for protocol messages the request_id and decision, so the
 * model can answer with the right id. All of that comes from the bus;
 * the sender's text follows, each of its further lines indented by two
 * spaces, so no text can start a line that looks like another message.
 */
char *message_render(const struct message *m);

/* text with every line after the first indented by two spaces, so that
 * no line of it can pass for a header (malloc'd). */
char *message_indent(const char *text);

/* Frees the fields of m (not m itself). */
void message_clear(struct message *m);

/* Frees an array of n messages. */
void message_free_array(struct message *array, size_t n);

#endif
