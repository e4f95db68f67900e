/*
 * Assembling one assistant message from streamed pieces (see turn.h).
 *
 * Each block keeps the JSON it began with (`base`) and, for each string
 * field that grows by deltas, a buffer of what was appended. Buffers
 * rather than jansson strings, because a long thinking block arrives in
 * thousands of small deltas and re-copying the string each time would be
 * quadratic. The block is put together once, at the end.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "llm/turn.h"
#include "util/xmalloc.h"

enum turn_kind {
	TURN_TEXT,
	TURN_THINKING,
	TURN_TOOL,
	TURN_REASONING,
	TURN_KEPT		/* any other type: kept as received */
};

/* A string field of a block that grows by deltas. */
struct turn_field {
	char	*name;
	char	*buf;
	size_t	 len, cap;
};

struct turn_block {
	enum turn_kind		 kind;
	long			 index;
	json_t			*base;		/* the block as it began */
	struct turn_field	*fields;
	size_t			 nfields, capfields;
	char			*id;		/* tool_use */
	json_t			*input;		/* a whole tool input */
	int			 input_json;	/* a kept block (a server tool's
						 * call) whose input streamed
						 * as JSON text */
	json_t			*citations;	/* text: streamed citations */
};

struct llm_turn {
	llm_event_fn		 fn;
	void			*ud;
	struct turn_block	*blocks;
	size_t			 n, cap;
	char			*stop_reason;
	int			 refused;	/* turn_refused */
	struct llm_usage	 usage;
	int			 words;		/* turn_words_in_thinking */
	size_t			 held;		/* 1 + the thinking block not yet
						 * reported, or 0 */
};

/* The provider's index for OpenAI reasoning: below any real index, so it
 * never meets text (-1) or a tool call (0 and up). */
#define TURN_REASONING_INDEX	(-2)

struct llm_turn *
turn_new(llm_event_fn fn, void *ud)
{
	struct llm_turn *t = xcalloc(1, sizeof *t);

	t->fn = fn;
	t->ud = ud;
	return t;
}

void
turn_free(struct llm_turn *t)
{
	size_t i, j;

	if (t == NULL)
		return;
	for (i = 0; i < t->n; i++) {
		struct turn_block *b = &t->blocks[i];

		for (j = 0; j < b->nfields; j++) {
			free(b->fields[j].name);
			free(b->fields[j].buf);
		}
		free(b->fields);
		free(b->id);
		json_decref(b->base);
		json_decref(b->input);
		json_decref(b->citations);
	}
	free(t->blocks);
	free(t->stop_reason);
	free(t);
}

size_t
turn_block_count(const struct llm_turn *t)
{
	return t->n;
}

static void
turn_emit(struct llm_turn *t, enum llm_event_type type, const char *text,
    size_t len, int redacted)
{
	struct llm_event ev = { .type = type };

	if (t->fn == NULL)
		return;
	ev.text = text;
	ev.len = len;
	ev.redacted = redacted;
	t->fn(t->ud, &ev);
}

/* The newest block at index, or NULL. */
static struct turn_block *
turn_find(struct llm_turn *t, long index)
{
	size_t i;

	for (i = t->n; i > 0; i--) {
		if (t->blocks[i - 1].index == index)
			return &t->blocks[i - 1];
	}
	return NULL;
}

void
turn_words_in_thinking(struct llm_turn *t, int on)
{
	t->words = on;
}

/* Reports the thinking block held back: as text when a tool call comes
 * next (the model's words between its calls), else as thinking. */
static void
turn_release(struct llm_turn *t, int before_tool)
{
	struct turn_block *b;
	json_t *whole;
	size_t i;

	if (t->held == 0)
		return;
	b = &t->blocks[t->held - 1];
	t->held = 0;
	/* Streamed, the text grew in a field; whole, it is in the block. */
	for (i = 0; i < b->nfields; i++) {
		if (strcmp(b->fields[i].name, "thinking") == 0) {
			if (b->fields[i].len > 0)
				turn_emit(t, before_tool ? LLM_EV_TEXT :
				    LLM_EV_THINKING, b->fields[i].buf,
				    b->fields[i].len, 0);
			return;
		}
	}
	whole = json_object_get(b->base, "thinking");
	if (json_string_length(whole) > 0)
		turn_emit(t, before_tool ? LLM_EV_TEXT : LLM_EV_THINKING,
		    json_string_value(whole), json_string_length(whole), 0);
}

/* Adds a block; takes base. */
static struct turn_block *
turn_add(struct llm_turn *t, enum turn_kind kind, long index, json_t *base)
{
	struct turn_block *b;

	turn_release(t, kind == TURN_TOOL);

	t->blocks = xgrow(t->blocks, &t->cap, t->n + 1, sizeof *t->blocks);
	b = &t->blocks[t->n++];
	memset(b, 0, sizeof *b);
	b->kind = kind;
	b->index = index;
	b->base = base;
	return b;
}

/* Appends to the named growing field of b. */
static void
turn_field_append(struct turn_block *b, const char *name, const char *s,
    size_t len)
{
	struct turn_field *f = NULL;
	size_t i;

	for (i = 0; i < b->nfields; i++) {
		if (strcmp(b->fields[i].name, name) == 0) {
			f = &b->fields[i];
			break;
		}
	}
	if (f == NULL) {
		b->fields = xgrow(b->fields, &b->capfields, b->nfields + 1,
		    sizeof *b->fields);
		f = &b->fields[b->nfields++];
		memset(f, 0, sizeof *f);
		f->name = xstrdup(name);
	}
	f->buf = xappend(f->buf, &f->len, &f->cap, s, len);
}

static const char *
turn_type(json_t *block)
{
	const char *type = json_string_value(json_object_get(block, "type"));

	return type != NULL ? type : "";
}

void
turn_text(struct llm_turn *t, long index, const char *text, size_t len)
{
	struct turn_block *b = turn_find(t, index);

	if (len == 0)
		return;
	if (b == NULL || b->kind != TURN_TEXT)
		b = turn_add(t, TURN_TEXT, index, json_pack("{s:s, s:s}",
		    "type", "text", "text", ""));
	turn_field_append(b, "text", text, len);
	turn_emit(t, LLM_EV_TEXT, text, len, 0);
}

static struct turn_block *
turn_thinking_block(struct llm_turn *t, long index)
{
	struct turn_block *b = turn_find(t, index);

	if (b == NULL || b->kind != TURN_THINKING)
		b = turn_add(t, TURN_THINKING, index, json_pack("{s:s, s:s, "
		    "s:s}", "type", "thinking", "thinking", "", "signature",
		    ""));
	return b;
}

void
turn_thinking(struct llm_turn *t, long index, const char *text, size_t len)
{
	struct turn_block *b = turn_thinking_block(t, index);

	if (len == 0)
		return;
	turn_field_append(b, "thinking", text, len);
	if (t->words)
		t->held = (size_t)(b - t->blocks) + 1;
	else
		turn_emit(t, LLM_EV_THINKING, text, len, 0);
}

void
turn_signature(struct llm_turn *t, long index, const char *sig, size_t len)
{
	turn_field_append(turn_thinking_block(t, index), "signature", sig,
	    len);
}

void
turn_reasoning(struct llm_turn *t, const char *field, const char *text,
    size_t len)
{
	struct turn_block *b = turn_find(t, TURN_REASONING_INDEX);

	if (len == 0)
		return;
	if (b == NULL) {
		/* It comes before anything else the reply holds. */
		t->blocks = xgrow(t->blocks, &t->cap, t->n + 1,
		    sizeof *t->blocks);
		memmove(t->blocks + 1, t->blocks, t->n * sizeof *t->blocks);
		t->n++;
		b = &t->blocks[0];
		memset(b, 0, sizeof *b);
		b->kind = TURN_REASONING;
		b->index = TURN_REASONING_INDEX;
		b->base = json_pack("{s:s, s:s, s:s}", "type", "reasoning",
		    "field", field, "reasoning", "");
	}
	turn_field_append(b, "reasoning", text, len);
	turn_emit(t, LLM_EV_THINKING, text, len, 0);
}

void
turn_report_thinking(struct llm_turn *t, const char *text, size_t len)
{
	if (len > 0)
		turn_emit(t, LLM_EV_THINKING, text, len, 0);
}

void
turn_tool_start(struct llm_turn *t, long index, const char *id,
    const char *name)
{
	struct turn_block *b = turn_find(t, index);
	struct llm_event ev = { .type = LLM_EV_TOOL };

	if (b != NULL && b->kind == TURN_TOOL &&
	    (id == NULL || b->id == NULL || strcmp(b->id, id) == 0))
		return;
	b = turn_add(t, TURN_TOOL, index, json_pack("{s:s, s:s, s:s}",
	    "type", "tool_use", "id", id ? id : "", "name", name ? name :
	    ""));
	b->id = xstrdup(id ? id : "");
	if (t->fn != NULL) {
		ev.tool_id = b->id;
		ev.tool_name = name ? name : "";
		t->fn(t->ud, &ev);
	}
}

void
turn_tool_input(struct llm_turn *t, long index, const char *frag,
    size_t len)
{
	struct turn_block *b = turn_find(t, index);

	/* A server tool's call (server_tool_use, …) streams its input the
	 * same way: it joins that block, which goes back whole. */
	if (b != NULL && b->kind == TURN_KEPT) {
		b->input_json = 1;
		turn_field_append(b, "input", frag, len);
		return;
	}
	/* A fragment for a call we never saw start: keep it anyway, the
	 * finished message then shows a tool_use without a name, which the
	 * caller reports rather than silently dropping input. */
	if (b == NULL || b->kind != TURN_TOOL)
		b = turn_add(t, TURN_TOOL, index, json_pack("{s:s, s:s, s:s}",
		    "type", "tool_use", "id", "", "name", ""));
	turn_field_append(b, "input", frag, len);
}

void
turn_tool_input_json(struct llm_turn *t, long index, json_t *input)
{
	struct turn_block *b = turn_find(t, index);

	if (b == NULL || b->kind != TURN_TOOL)
		b = turn_add(t, TURN_TOOL, index, json_pack("{s:s, s:s, s:s}",
		    "type", "tool_use", "id", "", "name", ""));
	json_decref(b->input);
	b->input = json_incref(input);
}

void
turn_block(struct llm_turn *t, long index, json_t *block)
{
	const char *type = turn_type(block);
	struct turn_block *b;
	json_t *v;

	if (strcmp(type, "tool_use") == 0) {
		turn_tool_start(t, index, json_string_value(json_object_get(
		    block, "id")), json_string_value(json_object_get(block,
		    "name")));
		b = turn_find(t, index);
		/* Keep every field the block came with; the input is set at
		 * the end from what streamed in, or from the block. */
		json_decref(b->base);
		b->base = json_deep_copy(block);
		if (json_is_object(v = json_object_get(block, "input")) &&
		    json_object_size(v) > 0 && b->input == NULL)
			b->input = json_incref(v);
		return;
	}
	if (strcmp(type, "text") == 0) {
		v = json_object_get(block, "text");
		b = turn_add(t, TURN_TEXT, index, json_deep_copy(block));
		if (json_string_length(v) > 0)
			turn_emit(t, LLM_EV_TEXT, json_string_value(v),
			    json_string_length(v), 0);
		return;
	}
	if (strcmp(type, "thinking") == 0) {
		v = json_object_get(block, "thinking");
		b = turn_add(t, TURN_THINKING, index, json_deep_copy(block));
		if (json_string_length(v) > 0 && t->words)
			t->held = (size_t)(b - t->blocks) + 1;
		else if (json_string_length(v) > 0)
			turn_emit(t, LLM_EV_THINKING, json_string_value(v),
			    json_string_length(v), 0);
		return;
	}
	b = turn_add(t, TURN_KEPT, index, json_deep_copy(block));
	if (strcmp(type, "redacted_thinking") == 0)
		turn_emit(t, LLM_EV_THINKING, "", 0, 1);
}

void
turn_block_delta(struct llm_turn *t, long index, json_t *delta)
{
	struct turn_block *b = turn_find(t, index);
	const char *key;
	json_t *v;

	if (b == NULL || b->kind == TURN_TOOL)
		return;
	json_object_foreach(delta, key, v) {
		if (strcmp(key, "type") != 0 && json_is_string(v))
			turn_field_append(b, key, json_string_value(v),
			    json_string_length(v));
	}
}

void
turn_citation(struct llm_turn *t, long index, json_t *citation)
{
	struct turn_block *b = turn_find(t, index);

	if (b == NULL || b->kind != TURN_TEXT || !json_is_object(citation))
		return;
	if (b->citations == NULL)
		b->citations = json_array();
	json_array_append_new(b->citations, json_deep_copy(citation));
}

void
turn_refused(struct llm_turn *t)
{
	t->refused = 1;
}

void
turn_stop_reason(struct llm_turn *t, const char *reason)
{
	if (reason == NULL)
		return;
	free(t->stop_reason);
	t->stop_reason = xstrdup(reason);
}

void
turn_usage(struct llm_turn *t, const struct llm_usage *u)
{
	if (u->input >= 0)
		t->usage.input = u->input;
	if (u->output >= 0)
		t->usage.output = u->output;
	if (u->cache_write_5m >= 0)
		t->usage.cache_write_5m = u->cache_write_5m;
	if (u->cache_write_1h >= 0)
		t->usage.cache_write_1h = u->cache_write_1h;
	if (u->cache_read >= 0)
		t->usage.cache_read = u->cache_read;
	if (u->compaction_input >= 0)
		t->usage.compaction_input = u->compaction_input;
	if (u->compaction_output >= 0)
		t->usage.compaction_output = u->compaction_output;
	if (u->compaction_cache_read >= 0)
		t->usage.compaction_cache_read = u->compaction_cache_read;
	if (u->compaction_cache_write >= 0)
		t->usage.compaction_cache_write = u->compaction_cache_write;
}

/* Parses a tool block's input: an empty input is {}, anything else must
 * be a JSON object. */
static json_t *
turn_tool_json(struct turn_block *b, char **why)
{
	const char *name = json_string_value(json_object_get(b->base,
	    "name"));
	struct turn_field *f = NULL;
	json_error_t jerr;
	json_t *input;
	size_t i;

	for (i = 0; i < b->nfields; i++) {
		if (strcmp(b->fields[i].name, "input") == 0 &&
		    b->fields[i].len > 0)
			f = &b->fields[i];
	}
	if (f == NULL)
		return b->input != NULL ? json_incref(b->input) :
		    json_object();
	if ((input = json_loadb(f->buf, f->len, 0, &jerr)) == NULL) {
		*why = xasprintf("tool call %s (%s): its input is not valid "
		    "JSON: %s", b->id ? b->id : "?", name ? name : "?",
		    jerr.text);
		return NULL;
	}
	if (!json_is_object(input)) {
		*why = xasprintf("tool call %s (%s): its input is not a JSON "
		    "object", b->id ? b->id : "?", name ? name : "?");
		json_decref(input);
		return NULL;
	}
	return input;
}

/* The finished block (a new reference), or NULL when it is an empty text
 * block. Deltas join what the block began with. */
static json_t *
turn_block_json(struct turn_block *b, char **why)
{
	json_t *out, *input;
	size_t i;

	out = json_deep_copy(b->base);
	if (b->kind == TURN_TOOL || b->input_json) {
		if ((input = turn_tool_json(b, why)) == NULL) {
			json_decref(out);
			return NULL;
		}
		json_object_set_new(out, "input", input);
		if (b->kind == TURN_TOOL)
			return out;
	}
	/* Citations that streamed join those the block began with. */
	if (b->citations != NULL) {
		if (!json_is_array(json_object_get(out, "citations")))
			json_object_set_new(out, "citations", json_array());
		json_array_extend(json_object_get(out, "citations"),
		    b->citations);
	}
	for (i = 0; i < b->nfields; i++) {
		struct turn_field *f = &b->fields[i];
		json_t *old = json_object_get(out, f->name);
		char *joined = NULL;
		size_t len = 0, cap = 0;
		json_t *s;

		if (b->input_json && strcmp(f->name, "input") == 0)
			continue;

		if (json_is_string(old))
			joined = xappend(joined, &len, &cap,
			    json_string_value(old), json_string_length(old));
		joined = xappend(joined, &len, &cap, f->buf, f->len);
		/* Each piece was a valid JSON string, so the join is valid
		 * UTF-8; NULL here can only be out of memory. */
		if ((s = json_stringn(joined, len)) == NULL)
			abort();
		json_object_set_new(out, f->name, s);
		free(joined);
	}
	if (b->kind == TURN_TEXT &&
	    json_string_length(json_object_get(out, "text")) == 0) {
		json_decref(out);
		return NULL;
	}
	return out;
}

int
turn_finish(struct llm_turn *t, struct llm_result *res)
{
	json_t *content = json_array(), *block;
	char *why = NULL;
	size_t i;

	turn_release(t, 0);
	for (i = 0; i < t->n && why == NULL; i++) {
		if ((block = turn_block_json(&t->blocks[i], &why)) != NULL)
			json_array_append_new(content, block);
	}
	res->usage = t->usage;
	if (why != NULL) {
		json_decref(content);
		res->status = LLM_ERR_PARSE;
		free(res->error_type);
		res->error_type = xstrdup("invalid_response");
		free(res->error_message);
		res->error_message = why;
		return -1;
	}
	res->message = json_pack("{s:s, s:o}", "role", "assistant", "content",
	    content);
	free(res->stop_reason);
	res->stop_reason = xstrdup(t->refused ? "refusal" : t->stop_reason ?
	    t->stop_reason : "end_turn");
	res->status = LLM_OK;
	return 0;
}
