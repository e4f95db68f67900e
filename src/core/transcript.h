/*
 * A transcript is one agent's conversation, stored as an append-only list
 * of Messages-API messages ({"role": …, "content": [blocks]}). The agent
 * loop appends its model turns and tool results; the bus appends each inbox
 * message it delivers, in the same transaction that marks it delivered.
 */
#ifndef HUDDLE_CORE_TRANSCRIPT_H
#define HUDDLE_CORE_TRANSCRIPT_H

#include <jansson.h>
#include <stdint.h>

#include "core/store.h"

/*
 * Inside a transaction: appends `entry` (not stolen) to member's
 * transcript. message_id > 0 ties the entry to the inbox message it
 * records; a second entry for the same message fails. Returns 0 or -1.
 */
int transcript_append_tx(struct store *s, const char *member,
    json_t *entry, int64_t message_id, char **err);

/* Appends one entry in a transaction of its own. Returns 0 or -1. */
int transcript_append(struct store *s, const char *member, json_t *entry,
    char **err);

/*
 * Returns the member's whole transcript as a new JSON array of entries,
 * oldest first (empty when there is none), or NULL with *err.
 */
json_t *transcript_load(struct store *s, const char *member, char **err);

/*
 * The last `last` entries of member's transcript, oldest first, each as
 * {entry, message_id (0: none), at (wall-clock ms)}: what the screen
 * shows after --resume. NULL with *err on failure.
 */
json_t *transcript_load_tail(struct store *s, const char *member,
    size_t last, char **err);

/* Builds the entry {"role":"user","content":[{"type":"text","text":…}]}. */
json_t *transcript_user_text(const char *text);

#endif
