/*
 * Turning a transcript into a valid Messages-API history (see history.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/history.h"
#include "util/xmalloc.h"

static const char *
block_type(json_t *block)
{
	const char *t = json_string_value(json_object_get(block, "type"));

	return t ? t : "";
}

/* Content as an array of blocks (a plain string becomes one text block). */
static json_t *
history_blocks(json_t *content)
{
	if (json_is_string(content))
		return json_pack("[{s:s, s:O}]", "type", "text", "text",
		    content);
	if (json_is_array(content))
		return json_incref(content);
	return json_array();
}

/* Whether a block is worth sending: text must be non-blank. */
static int
history_keep(json_t *block)
{
	const char *t = block_type(block), *text;

	if (strcmp(t, "text") != 0)
		return *t != '\0';
	text = json_string_value(json_object_get(block, "text"));
	if (text == NULL)
		return 0;
	for (; *text != '\0'; text++) {
		if (strchr(" \t\r\n", *text) == NULL)
			return 1;
	}
	return 0;
}

/* Appends msg's kept blocks to out (tool results first for a user). */
static void
history_add_blocks(json_t *out, json_t *blocks, int results_first)
{
	json_t *b;
	size_t i;
	int pass;

	for (pass = results_first ? 0 : 1; pass < 2; pass++) {
		json_array_foreach(blocks, i, b) {
			int is_result = strcmp(block_type(b),
			    "tool_result") == 0;

			if (!history_keep(b))
				continue;
			if (results_first && (pass == 0) != is_result)
				continue;
			json_array_append(out, b);
		}
	}
}

/* Merges consecutive same-role entries into messages. */
static json_t *
history_merge(json_t *transcript)
{
	json_t *out = json_array(), *entry, *last = NULL;
	size_t i;

	json_array_foreach(transcript, i, entry) {
		const char *role = json_string_value(json_object_get(entry,
		    "role"));
		json_t *blocks;

		if (role == NULL || (strcmp(role, "user") != 0 &&
		    strcmp(role, "assistant") != 0))
			continue;
		blocks = history_blocks(json_object_get(entry, "content"));
		if (last == NULL || strcmp(json_string_value(json_object_get(
		    last, "role")), role) != 0) {
			last = json_pack("{s:s, s:[]}", "role", role,
			    "content");
			json_array_append_new(out, last);
		}
		json_array_extend(json_object_get(last, "content"), blocks);
		json_decref(blocks);
	}
	return out;
}

/* Whether a message's content answers tool calls (has tool_result). */
static int
history_has_results(json_t *msg)
{
	json_t *b;
	size_t i;

	json_array_foreach(json_object_get(msg, "content"), i, b) {
		if (strcmp(block_type(b), "tool_result") == 0)
			return 1;
	}
	return 0;
}

/* The ids of msg's blocks of `type` ("tool_use": id, "tool_result":
 * tool_use_id), as a JSON object used as a set. */
static json_t *
history_ids(json_t *msg, const char *type)
{
	const char *key = strcmp(type, "tool_use") == 0 ? "id" :
	    "tool_use_id";
	json_t *set = json_object(), *b;
	size_t i;

	json_array_foreach(json_object_get(msg, "content"), i, b) {
		const char *id = json_string_value(json_object_get(b, key));

		if (strcmp(block_type(b), type) == 0 && id != NULL)
			json_object_set_new(set, id, json_true());
	}
	return set;
}

static json_t *
history_missing_result(const char *id)
{
	return json_pack("{s:s, s:s, s:s, s:b}", "type", "tool_result",
	    "tool_use_id", id, "content", "this tool call was interrupted "
	    "(huddle stopped while it ran); it may or may not have taken "
	    "effect — check before repeating it", "is_error", 1);
}

/*
 * Cleans the merged messages: kept blocks only, tool results first, every
 * tool_use answered in the next message and every result matched to a
 * call, no empty message.
 */
static json_t *
history_repair(json_t *merged)
{
	json_t *out = json_array(), *msg, *prev_uses = NULL;
	size_t i;

	json_array_foreach(merged, i, msg) {
		const char *role = json_string_value(json_object_get(msg,
		    "role"));
		int user = strcmp(role, "user") == 0;
		json_t *content = json_array(), *clean, *b, *answered;
		const char *id;
		size_t j;

		history_add_blocks(content, json_object_get(msg, "content"),
		    user);
		clean = json_array();
		answered = json_object();
		json_array_foreach(content, j, b) {
			/* A result for no call of the previous turn would be
			 * refused by the API: drop it. */
			if (strcmp(block_type(b), "tool_result") == 0) {
				id = json_string_value(json_object_get(b,
				    "tool_use_id"));
				if (!user || prev_uses == NULL || id == NULL ||
				    json_object_get(prev_uses, id) == NULL ||
				    json_object_get(answered, id) != NULL)
					continue;
				json_object_set_new(answered, id, json_true());
			}
			json_array_append(clean, b);
		}
		json_decref(content);
		/* Calls of the previous turn left unanswered get a result. */
		if (prev_uses != NULL) {
			json_t *missing = json_array(), *v;
			const char *k;

			json_object_foreach(prev_uses, k, v) {
				if (json_object_get(answered, k) == NULL)
					json_array_append_new(missing,
					    history_missing_result(k));
			}
			if (json_array_size(missing) > 0) {
				if (!user) {
					/* No user turn between two assistant
					 * turns: insert one. */
					json_array_append_new(out, json_pack(
					    "{s:s, s:O}", "role", "user",
					    "content", missing));
				} else {
					json_array_extend(missing, clean);
					json_decref(clean);
					clean = json_incref(missing);
				}
			}
			json_decref(missing);
		}
		json_decref(answered);
		json_decref(prev_uses);
		prev_uses = NULL;
		if (!user) {
			json_t *tmp = json_pack("{s:O}", "content", clean);

			prev_uses = history_ids(tmp, "tool_use");
			json_decref(tmp);
		}
		if (json_array_size(clean) > 0)
			json_array_append_new(out, json_pack("{s:s, s:o}",
			    "role", role, "content", clean));
		else
			json_decref(clean);
		if (prev_uses != NULL && json_object_size(prev_uses) == 0) {
			json_decref(prev_uses);
			prev_uses = NULL;
		}
	}
	if (prev_uses != NULL) {
		/* The history ends with unanswered calls. */
		json_t *missing = json_array(), *v;
		const char *k;

		json_object_foreach(prev_uses, k, v)
			json_array_append_new(missing,
			    history_missing_result(k));
		json_array_append_new(out, json_pack("{s:s, s:o}", "role",
		    "user", "content", missing));
		json_decref(prev_uses);
	}
	return out;
}

size_t
history_view_start(json_t *transcript, long *block)
{
	size_t i = json_array_size(transcript), j;
	json_t *entry, *content;

	*block = -1;
	while (i-- > 0) {
		entry = json_array_get(transcript, i);
		if (json_object_get(entry, HISTORY_COMPACTED) != NULL)
			return i;
		content = json_object_get(entry, "content");
		for (j = json_array_size(content); j-- > 0; ) {
			if (strcmp(block_type(json_array_get(content, j)),
			    "compaction") == 0) {
				*block = (long)j;
				return i;
			}
		}
	}
	return 0;
}

/* The entries the model reads: from the view's start on, a compaction
 * block's entry without the blocks before it. */
static json_t *
history_view(json_t *transcript, long *block)
{
	size_t start = history_view_start(transcript, block), i;
	size_t n = json_array_size(transcript);
	json_t *out = json_array(), *first, *content, *kept;

	for (i = start; i < n; i++) {
		first = json_array_get(transcript, i);
		if (i > start || *block < 0) {
			json_array_append(out, first);
			continue;
		}
		content = json_object_get(first, "content");
		kept = json_array();
		for (size_t j = (size_t)*block; j < json_array_size(content);
		    j++)
			json_array_append(kept, json_array_get(content, j));
		json_array_append_new(out, json_pack("{s:O, s:o}", "role",
		    json_object_get(first, "role"), "content", kept));
	}
	return out;
}

json_t *
history_build(json_t *transcript)
{
	long block;
	json_t *view = history_view(transcript, &block);
	json_t *merged = history_merge(view);
	json_t *repaired = history_repair(merged), *msgs, *out;
	size_t start = 0, i, n;

	/* Dropping an empty turn can leave two turns of one role in a row. */
	msgs = history_merge(repaired);
	n = json_array_size(msgs);
	json_decref(repaired);
	json_decref(merged);
	json_decref(view);
	/* Start at a user message that answers no tool call, unless the
	 * view starts at a compaction block (an assistant message). */
	while (block < 0 && start < n) {
		json_t *m = json_array_get(msgs, start);

		if (strcmp(json_string_value(json_object_get(m, "role")),
		    "user") == 0 && !history_has_results(m))
			break;
		start++;
	}
	out = json_array();
	for (i = start; i < n; i++)
		json_array_append(out, json_array_get(msgs, i));
	json_decref(msgs);
	return out;
}

json_t *
history_unanswered(json_t *transcript)
{
	size_t n = json_array_size(transcript);
	json_t *last = n ? json_array_get(transcript, n - 1) : NULL;
	json_t *out = json_array(), *b;
	const char *role;
	size_t i;

	role = json_string_value(json_object_get(last, "role"));
	if (role == NULL || strcmp(role, "assistant") != 0)
		return out;
	json_array_foreach(json_object_get(last, "content"), i, b) {
		if (strcmp(block_type(b), "tool_use") == 0)
			json_array_append(out, b);
	}
	return out;
}
