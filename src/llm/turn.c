/*
 * Assembling one assistant message from streamed pieces (see turn.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "llm/turn.h"
#include "util/xmalloc.h"

enum turn_kind { TURN_TEXT, TURN_TOOL };

struct turn_block {
	enum turn_kind	 kind;
	long		 index;
	char		*buf;		/* text, or the tool input's JSON */
	size_t		 len, cap;
	char		*id;
	char		*name;
	json_t		*input;		/* a whole input, when given at once */
};

struct llm_turn {
	llm_event_fn		 fn;
	void			*ud;
	struct turn_block	*blocks;
	size_t			 n, cap;
	char			*stop_reason;
	int64_t			 input_tokens;
	int64_t			 output_tokens;
};

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
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->n; i++) {
		free(t->blocks[i].buf);
		free(t->blocks[i].id);
		free(t->blocks[i].name);
		json_decref(t->blocks[i].input);
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

static struct turn_block *
turn_add(struct llm_turn *t, enum turn_kind kind, long index)
{
	struct turn_block *b;

	t->blocks = xgrow(t->blocks, &t->cap, t->n + 1, sizeof *t->blocks);
	b = &t->blocks[t->n++];
	memset(b, 0, sizeof *b);
	b->kind = kind;
	b->index = index;
	return b;
}

static void
turn_append(struct turn_block *b, const char *s, size_t len)
{
	b->buf = xappend(b->buf, &b->len, &b->cap, s, len);
}

void
turn_text(struct llm_turn *t, long index, const char *text, size_t len)
{
	struct turn_block *b = turn_find(t, index);
	struct llm_event ev = { .type = LLM_EV_TEXT };

	if (len == 0)
		return;
	if (b == NULL || b->kind != TURN_TEXT)
		b = turn_add(t, TURN_TEXT, index);
	turn_append(b, text, len);
	if (t->fn != NULL) {
		ev.text = text;
		ev.len = len;
		t->fn(t->ud, &ev);
	}
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
	b = turn_add(t, TURN_TOOL, index);
	b->id = xstrdup(id ? id : "");
	b->name = xstrdup(name ? name : "");
	if (t->fn != NULL) {
		ev.tool_id = b->id;
		ev.tool_name = b->name;
		t->fn(t->ud, &ev);
	}
}

void
turn_tool_input(struct llm_turn *t, long index, const char *frag,
    size_t len)
{
	struct turn_block *b = turn_find(t, index);

	/* A fragment for a call we never saw start: keep it anyway, the
	 * finished message then shows a tool_use without a name, which the
	 * caller reports rather than silently dropping input. */
	if (b == NULL || b->kind != TURN_TOOL)
		b = turn_add(t, TURN_TOOL, index);
	turn_append(b, frag, len);
}

void
turn_tool_input_json(struct llm_turn *t, long index, json_t *input)
{
	struct turn_block *b = turn_find(t, index);

	if (b == NULL || b->kind != TURN_TOOL)
		b = turn_add(t, TURN_TOOL, index);
	json_decref(b->input);
	b->input = json_incref(input);
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
turn_usage(struct llm_turn *t, int64_t input_tokens, int64_t output_tokens)
{
	if (input_tokens >= 0)
		t->input_tokens = input_tokens;
	if (output_tokens >= 0)
		t->output_tokens = output_tokens;
}

/* Parses a tool block's input: an empty input is {}, anything else must
 * be a JSON object. */
static json_t *
turn_tool_json(struct turn_block *b, char **why)
{
	json_error_t jerr;
	json_t *input;

	if (b->input != NULL)
		input = json_incref(b->input);
	else if (b->len == 0)
		return json_object();
	else if ((input = json_loadb(b->buf, b->len, 0, &jerr)) == NULL) {
		*why = xasprintf("tool call %s (%s): its input is not valid "
		    "JSON: %s", b->id ? b->id : "?", b->name ? b->name : "?",
		    jerr.text);
		return NULL;
	}
	if (!json_is_object(input)) {
		*why = xasprintf("tool call %s (%s): its input is not a JSON "
		    "object", b->id ? b->id : "?", b->name ? b->name : "?");
		json_decref(input);
		return NULL;
	}
	return input;
}

int
turn_finish(struct llm_turn *t, struct llm_result *res)
{
	json_t *content = json_array(), *input;
	char *why = NULL;
	size_t i;

	for (i = 0; i < t->n && why == NULL; i++) {
		struct turn_block *b = &t->blocks[i];

		if (b->kind == TURN_TEXT) {
			if (b->len > 0)
				json_array_append_new(content, json_pack(
				    "{s:s, s:s%}", "type", "text", "text",
				    b->buf, b->len));
			continue;
		}
		if ((input = turn_tool_json(b, &why)) == NULL)
			break;
		json_array_append_new(content, json_pack("{s:s, s:s, s:s, "
		    "s:o}", "type", "tool_use", "id", b->id ? b->id : "",
		    "name", b->name ? b->name : "", "input", input));
	}
	res->input_tokens = t->input_tokens;
	res->output_tokens = t->output_tokens;
	if (why != NULL) {
		json_decref(content);
		res->status = LLM_ERR_PARSE;
		res->error_type = xstrdup("invalid_response");
		res->error_message = why;
		return -1;
	}
	res->message = json_pack("{s:s, s:o}", "role", "assistant", "content",
	    content);
	free(res->stop_reason);
	res->stop_reason = xstrdup(t->stop_reason ? t->stop_reason :
	    "end_turn");
	res->status = LLM_OK;
	return 0;
}
