/*
 * The script provider (see script.h and doc/script.md).
 */
#include "config.h"

#include <pthread.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "llm/script.h"
#include "llm/turn.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

struct script_cursor {
	char	*agent;
	size_t	 next;
};

struct script {
	json_t			*agents;	/* {name: [turns]} */
	pthread_mutex_t		 lock;
	struct script_cursor	*cursors;
	size_t			 ncursors, capcursors;
	unsigned long		 tool_ids;
};

/* A turn's "when" must be a pattern regcomp accepts. */
static int
script_check_when(json_t *when, const char *name, size_t i, char **err)
{
	regex_t re;
	int rc;

	if (when == NULL)
		return 0;
	if (!json_is_string(when)) {
		*err = xasprintf("agents.%s[%zu].when must be a string", name,
		    i);
		return -1;
	}
	if ((rc = regcomp(&re, json_string_value(when), REG_EXTENDED |
	    REG_NOSUB)) != 0) {
		char why[128];

		regerror(rc, &re, why, sizeof why);
		*err = xasprintf("agents.%s[%zu].when: %s", name, i, why);
		return -1;
	}
	regfree(&re);
	return 0;
}

static int
script_check(json_t *doc, char **err)
{
	json_t *agents = json_object_get(doc, "agents"), *turns, *turn;
	const char *name;
	size_t i;

	if (!json_is_object(agents)) {
		*err = xstrdup("a script needs an \"agents\" object");
		return -1;
	}
	json_object_foreach(agents, name, turns) {
		if (!json_is_array(turns)) {
			*err = xasprintf("agents.%s must be a list of turns",
			    name);
			return -1;
		}
		json_array_foreach(turns, i, turn) {
			json_t *tools = json_object_get(turn, "tools");

			if (!json_is_object(turn) || (tools != NULL &&
			    !json_is_array(tools))) {
				*err = xasprintf("agents.%s[%zu] must be an "
				    "object with an optional \"tools\" list",
				    name, i);
				return -1;
			}
			if (script_check_when(json_object_get(turn, "when"),
			    name, i, err) == -1)
				return -1;
		}
	}
	return 0;
}

struct script *
script_parse(const char *json, char **err)
{
	json_error_t jerr;
	json_t *doc = json_loads(json, 0, &jerr);
	struct script *s;

	if (doc == NULL) {
		*err = xasprintf("line %d: %s", jerr.line, jerr.text);
		return NULL;
	}
	if (script_check(doc, err) == -1) {
		json_decref(doc);
		return NULL;
	}
	s = xcalloc(1, sizeof *s);
	s->agents = json_incref(json_object_get(doc, "agents"));
	json_decref(doc);
	pthread_mutex_init(&s->lock, NULL);
	return s;
}

struct script *
script_load(const char *path, char **err)
{
	json_error_t jerr;
	json_t *doc = json_load_file(path, 0, &jerr);
	struct script *s;
	char *text, *why = NULL;

	if (doc == NULL) {
		*err = xasprintf("%s: line %d: %s", path, jerr.line,
		    jerr.text);
		return NULL;
	}
	text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	s = script_parse(text, &why);
	free(text);
	if (s == NULL) {
		*err = xasprintf("%s: %s", path, why);
		free(why);
	}
	return s;
}

void
script_free(struct script *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->ncursors; i++)
		free(s->cursors[i].agent);
	free(s->cursors);
	json_decref(s->agents);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* Adds every "text" and "content" string inside v to *out, a line each. */
static void
script_gather(json_t *v, const char *key, char **out)
{
	const char *k;
	json_t *item;
	size_t i;
	char *next;

	if (json_is_string(v) && key != NULL && (strcmp(key, "text") == 0 ||
	    strcmp(key, "content") == 0)) {
		next = xasprintf("%s%s%s", *out, **out ? "\n" : "",
		    json_string_value(v));
		free(*out);
		*out = next;
	} else if (json_is_object(v)) {
		json_object_foreach(v, k, item)
			script_gather(item, k, out);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, item)
			script_gather(item, key, out);
	}
}

/* The text of the newest message sent to the model (malloc'd): what a
 * turn's "when" is matched against. */
static char *
script_newest(const struct llm_request *req)
{
	char *out = xstrdup("");
	size_t n = json_array_size(req->messages);

	if (n > 0)
		script_gather(json_array_get(req->messages, n - 1), NULL, &out);
	return out;
}

/* 1 when turn has a "when" that matches newest ("" matches anything). */
static int
script_when(json_t *turn, const char *newest)
{
	const char *when = json_string_value(json_object_get(turn, "when"));
	regex_t re;
	int hit;

	if (when == NULL)
		return 0;
	if (*when == '\0')
		return 1;
	if (regcomp(&re, when, REG_EXTENDED | REG_NOSUB) != 0)
		return 0;
	hit = regexec(&re, newest, 0, NULL, 0) == 0;
	regfree(&re);
	return hit;
}

/* The index of the first turn in turns whose "when" matches, or -1. */
static long
script_reaction(json_t *turns, const char *newest)
{
	json_t *turn;
	size_t i;

	json_array_foreach(turns, i, turn) {
		if (script_when(turn, newest))
			return (long)i;
	}
	return -1;
}

/*
 * Takes agent's next turn (a new reference), or NULL when none is left:
 * the first turn of its list whose "when" matches the newest message
 * (its place moves past it); else the turn at its place, unless that
 * turn waits for a "when"; else, for an agent with a list of its own,
 * the first turn of "*" whose "when" matches (its place stays).
 */
static json_t *
script_next(struct script *s, const char *agent, const char *newest,
    unsigned long *tool_base)
{
	struct script_cursor *c = NULL;
	json_t *turns, *turn, *common = NULL;
	size_t i;
	long hit;

	agent = agent ? agent : "*";
	pthread_mutex_lock(&s->lock);
	turns = json_object_get(s->agents, agent);
	if (turns == NULL)
		turns = json_object_get(s->agents, "*");
	else if (strcmp(agent, "*") != 0)
		common = json_object_get(s->agents, "*");
	for (i = 0; i < s->ncursors; i++) {
		if (strcmp(s->cursors[i].agent, agent) == 0)
			c = &s->cursors[i];
	}
	if (c == NULL) {
		s->cursors = xgrow(s->cursors, &s->capcursors,
		    s->ncursors + 1, sizeof *s->cursors);
		c = &s->cursors[s->ncursors++];
		c->agent = xstrdup(agent);
		c->next = 0;
	}
	if ((hit = script_reaction(turns, newest)) >= 0) {
		turn = json_array_get(turns, (size_t)hit);
		c->next = (size_t)hit;
	} else {
		turn = json_array_get(turns, c->next);
		/* {"loop": N} sends the agent back to its turn N. */
		if (json_is_integer(json_object_get(turn, "loop"))) {
			c->next = (size_t)json_integer_value(
			    json_object_get(turn, "loop"));
			turn = json_array_get(turns, c->next);
		}
		if (json_object_get(turn, "loop") != NULL ||
		    json_object_get(turn, "when") != NULL)
			turn = NULL;
	}
	if (turn != NULL)
		c->next++;
	else if ((hit = script_reaction(common, newest)) >= 0)
		turn = json_array_get(common, (size_t)hit);
	/* A copy of its own: a reaction is shared by every agent, and a
	 * reference count is not for sharing between threads. */
	turn = turn != NULL ? json_deep_copy(turn) : NULL;
	*tool_base = s->tool_ids;
	s->tool_ids += 100;
	pthread_mutex_unlock(&s->lock);
	return turn;
}

/*
 * The newest text in the conversation that matches `pattern`, from its
 * byte `skip` on: the newest request id ("req_" + 8 hex), or the task
 * named by the newest "[task tN ..." header, so a scripted answer can
 * name a request whose id was random or the task it was given.
 */
static char *
script_last_match(const struct llm_request *req, const char *pattern,
    size_t skip, size_t cut)
{
	char *text = json_dumps(req->messages, JSON_COMPACT), *p, *found = NULL;
	regex_t re;
	regmatch_t m;

	if (text == NULL)
		return NULL;
	if (regcomp(&re, pattern, REG_EXTENDED) != 0) {
		free(text);
		return NULL;
	}
	for (p = text; regexec(&re, p, 1, &m, 0) == 0; p += m.rm_eo) {
		free(found);
		found = xasprintf("%.*s", (int)(m.rm_eo - m.rm_so - skip -
		    cut), p + m.rm_so + skip);
	}
	regfree(&re);
	free(text);
	return found;
}

/* Replaces every `key` in s by `value`; returns a malloc'd string. */
static char *
script_replace(const char *s, const char *key, const char *value)
{
	const char *p, *hit;
	char *out = xstrdup(""), *next;

	for (p = s; (hit = strstr(p, key)) != NULL; p = hit + strlen(key)) {
		next = xasprintf("%s%.*s%s", out, (int)(hit - p), p, value);
		free(out);
		out = next;
	}
	next = xasprintf("%s%s", out, p);
	free(out);
	return next;
}

/* What the placeholders of a turn stand for. */
struct script_ids {
	char	*request_id;
	char	*task_id;
};

/* Replaces the placeholders in s; returns a malloc'd string. */
static char *
script_expand(const char *s, const struct script_ids *ids)
{
	char *once = script_replace(s, "{{request_id}}", ids->request_id ?
	    ids->request_id : "req_unknown");
	char *twice = script_replace(once, "{{task_id}}", ids->task_id ?
	    ids->task_id : "t0");

	free(once);
	return twice;
}

/* Expands placeholders in every string of a JSON value, in place. */
static void
script_expand_json(json_t *v, const struct script_ids *ids)
{
	const char *key;
	json_t *item;
	size_t i;

	if (json_is_string(v)) {
		char *s = script_expand(json_string_value(v), ids);

		json_string_set(v, s);
		free(s);
	} else if (json_is_object(v)) {
		json_object_foreach(v, key, item)
			script_expand_json(item, ids);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, item)
			script_expand_json(item, ids);
	}
}

static int64_t
script_int(json_t *turn, const char *key, int64_t dflt)
{
	json_t *v = json_object_get(turn, key);

	return json_is_integer(v) ? json_integer_value(v) : dflt;
}

/*
 * Streams text into block `index` in chunks of `chars` characters, as
 * thinking or as the reply's text. Returns -1 if cancelled.
 */
static int
script_stream_text(struct llm_turn *t, long index, int thinking,
    const char *text, int64_t chars, int64_t delay_ms, struct cancel *cancel)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t avail = strlen(text);

	while (avail > 0) {
		size_t n = 0, k;
		int64_t c;

		for (c = 0; c < chars && n < avail; c++) {
			k = utf8_valid_len(p + n, avail - n);
			n += k ? k : 1;
		}
		if (cancel_fired(cancel) || (delay_ms > 0 && p !=
		    (const unsigned char *)text && cancel_sleep(cancel,
		    delay_ms) == -1))
			return -1;
		if (thinking)
			turn_thinking(t, index, (const char *)p, n);
		else
			turn_text(t, index, (const char *)p, n);
		p += n;
		avail -= n;
	}
	return 0;
}

static int
script_fail(struct llm_result *res, enum llm_status status, const char *type,
    char *message)
{
	res->status = status;
	res->error_type = xstrdup(type);
	res->error_message = message;
	return -1;
}

int
script_play(struct script *s, const char *agent,
    const struct llm_request *req, struct cancel *cancel, llm_event_fn fn,
    void *ud, struct llm_result *res)
{
	unsigned long tool_base;
	json_t *turn, *tools, *tool, *error;
	struct llm_turn *t;
	struct llm_usage usage = { 0 };
	const char *thinking;
	struct script_ids ids;
	char *text, *newest;
	size_t i;
	int rc = 0;

	res->attempts = 1;
	newest = script_newest(req);
	turn = script_next(s, agent, newest, &tool_base);
	free(newest);
	if (turn == NULL)
		return script_fail(res, LLM_ERR_API, "script_exhausted",
		    xasprintf("the script has no turn left for %s",
		    agent ? agent : "this agent"));
	if (cancel_sleep(cancel, script_int(turn, "delay_ms", 0)) == -1) {
		json_decref(turn);
		return script_fail(res, LLM_ERR_CANCELLED, "cancelled",
		    xstrdup("the call was cancelled"));
	}
	error = json_object_get(turn, "error");
	if (json_is_object(error)) {
		const char *type = json_string_value(json_object_get(error,
		    "type"));
		const char *msg = json_string_value(json_object_get(error,
		    "message"));

		res->http_status = (int)script_int(error, "status", 500);
		rc = script_fail(res, LLM_ERR_API, type ? type : "api_error",
		    xstrdup(msg ? msg : "scripted error"));
		json_decref(turn);
		return rc;
	}

	ids.request_id = script_last_match(req, "req_[0-9a-f]{8}", 0, 0);
	ids.task_id = script_last_match(req, "\\[task t[0-9]+ ", 6, 1);
	t = turn_new(fn, ud);
	thinking = json_string_value(json_object_get(turn, "thinking"));
	if (thinking != NULL) {
		if (script_stream_text(t, 0, 1, thinking, script_int(turn,
		    "chunk_chars", 16), script_int(turn, "chunk_delay_ms", 0),
		    cancel) == -1)
			rc = -1;
		turn_signature(t, 0, "script", 6);
	}
	text = script_expand(json_string_value(json_object_get(turn, "text")) ?
	    json_string_value(json_object_get(turn, "text")) : "", &ids);
	if (rc == 0 && script_stream_text(t, 1, 0, text, script_int(turn,
	    "chunk_chars", 16), script_int(turn, "chunk_delay_ms", 0),
	    cancel) == -1)
		rc = -1;
	tools = json_object_get(turn, "tools");
	json_array_foreach(tools, i, tool) {
		json_t *input;
		char *id;

		if (rc == -1)
			break;
		input = json_deep_copy(json_object_get(tool, "input"));
		id = xasprintf("toolu_script_%lu", tool_base + i);
		if (input == NULL)
			input = json_object();
		script_expand_json(input, &ids);
		turn_tool_start(t, (long)(i + 2), id, json_string_value(
		    json_object_get(tool, "name")));
		turn_tool_input_json(t, (long)(i + 2), input);
		json_decref(input);
		free(id);
	}
	turn_stop_reason(t, json_string_value(json_object_get(turn,
	    "stop_reason")) ? json_string_value(json_object_get(turn,
	    "stop_reason")) : json_array_size(tools) ? "tool_use" :
	    "end_turn");
	usage.input = (int64_t)json_array_size(req->messages) * 50;
	usage.output = (int64_t)(strlen(text) + (thinking ? strlen(thinking) :
	    0)) / 4 + 1;
	turn_usage(t, &usage);
	if (rc == -1)
		script_fail(res, LLM_ERR_CANCELLED, "cancelled",
		    xstrdup("the call was cancelled"));
	else
		rc = turn_finish(t, res);
	turn_free(t);
	free(text);
	free(ids.request_id);
	free(ids.task_id);
	json_decref(turn);
	return rc;
}
