/*
 * The body of a permission request: what a tool asks the person to let
 * run, kept as a durable record that every front end can read. A body is
 * a JSON object of strings
 *
 *	{"tool": "bash", "command": "...", "reason": "rm -r",
 *	 "detail": "deletes recursively (rm -r)", "directory": "/w/proj",
 *	 "who": "carl", "flagged": "rm -rf junk2", "flagged_at": 41}
 *
 * where reason is a short label of why the command was flagged, detail a
 * sentence, and flagged the part of the command that was flagged, found
 * at byte flagged_at of it. Bodies written before this format
 * ("bash: COMMAND — REASON") are still read, without the fields they do
 * not carry.
 */
#ifndef HUDDLE_CORE_PERMBODY_H
#define HUDDLE_CORE_PERMBODY_H

#include <jansson.h>
#include <stddef.h>

struct permbody {
	char	*tool;		/* "bash", a task check… */
	char	*command;	/* verbatim */
	char	*reason;	/* a short label; may be "" */
	char	*detail;	/* a sentence; may be "" */
	char	*directory;	/* where it runs; may be "" */
	char	*who;		/* who asked; may be "" */
	size_t	 flag_start;	/* the flagged part of command: bytes */
	size_t	 flag_end;	/* [start, end); start == end: not known */
};

/*
 * The body that records b (the fields not NULL; NULL counts as ""; a
 * flagged part outside the command is dropped). Returns malloc'd text.
 */
char *permbody_make(const struct permbody *b);

/*
 * Reads body into *b (free with permbody_clear): 0 for a body in this
 * format or the older "bash: COMMAND — REASON" text, -1 (with *b empty)
 * for anything else, such as a plan. Fields the body lacks are "".
 */
int permbody_parse(const char *body, struct permbody *b);

/*
 * The fields of body as a new JSON object for event consumers (tool,
 * command, reason, detail, directory, who, and flagged with flagged_at
 * when known), or NULL when body is not a permission body.
 */
json_t *permbody_json(const char *body);

/* Frees what b holds and empties it. */
void permbody_clear(struct permbody *b);

#endif
