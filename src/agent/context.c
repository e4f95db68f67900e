/*
 * An agent's context window (see doc/context.md): how full it is, the
 * compaction that keeps the model's view inside it, and the cut of a tool
 * result too big for it.
 *
 * The count: what the last model call reported (its input, cache reads
 * and writes, and the reply) plus an estimate of what was appended since,
 * four bytes of JSON a token. Before any call, the whole view is
 * estimated the same way.
 *
 * An image is counted as the providers count it, by its pixels, not by
 * the bytes of its base64 (which would count it ten or a hundred times
 * over); the number and size of the images one request carries are kept
 * within what the APIs take.
 *
 * Compaction moves where the model's view starts; the transcript keeps
 * everything. On the server (a model the catalog says can, a trigger the
 * API accepts) the request carries the compaction edit and the reply
 * brings the compaction block. Otherwise the agent's own model writes a
 * summary for its own continuation, and the view restarts from one user
 * entry: that summary, the state huddle keeps (which outranks it), and
 * the most recent rounds as they happened.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/context.h"
#include "agent/frame.h"
#include "agent/history.h"
#include "agent/internal.h"
#include "agent/mcptools.h"
#include "agent/prompt.h"
#include "core/transcript.h"
#include "mcp/content.h"
#include "tools/tool.h"
#include "util/clock.h"
#include "util/image.h"
#include "util/log.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* Bytes of JSON a token, for estimates (the fake server counts so too). */
#define CONTEXT_BYTES_PER_TOKEN	4
/* The API's smallest compaction trigger (Compaction, "Parameters"). */
#define CONTEXT_MIN_TRIGGER	50000
/* The most of its first task restated after a compaction. */
#define CONTEXT_TASK_BYTES	2000

/*
 * Images (Vision, "Limits" and "Calculate image costs"; doc/mcp.md): a
 * request with more than 20 images may hold none over 2000 pixels a
 * side, and carries 32 MB in all, of which huddle gives images 20 MiB.
 * An image costs about width * height / 750 tokens once scaled down to
 * the model's largest size (a long edge of 2576 pixels for the largest
 * of today's models, less for others: the estimate errs high).
 */
#define CONTEXT_IMAGES		20
#define CONTEXT_IMAGE_SIDE	2000
#define CONTEXT_IMAGE_BYTES	(20 * 1024 * 1024)
#define CONTEXT_IMAGE_EDGE	2576
#define CONTEXT_IMAGE_PIXELS	750
/* How much of an image is decoded for its size: a PNG's, GIF's or
 * WebP's is in its first 30 bytes, a JPEG's after its metadata. */
#define CONTEXT_IMAGE_HEAD	(64 * 1024)
/* How deep image blocks lie: a view, a message, its content, a
 * tool_result, its content, the image. */
#define CONTEXT_IMAGE_DEPTH	6

/* What is known of some images. */
struct context_images {
	size_t	 count;
	size_t	 bytes;		/* of base64 */
	int64_t	 tokens;
	int	 big;		/* one is over CONTEXT_IMAGE_SIDE a side, or
				 * of a size that cannot be read */
};

/* What the agent's model is asked for; "for your own continuation" is
 * also how the fake server knows the request. */
#define CONTEXT_ASK "Your context window is nearly full, so huddle will " \
	"replace this conversation with a summary. Summarise the " \
	"conversation so far for your own continuation: the task, the " \
	"decisions made and why, the files touched, what is done, what " \
	"remains and what you were about to do next. Include every number " \
	"and name you will need. Do not call a tool; answer with the " \
	"summary only."

static int64_t
context_estimate(size_t bytes)
{
	return (int64_t)((bytes + CONTEXT_BYTES_PER_TOKEN - 1) /
	    CONTEXT_BYTES_PER_TOKEN);
}

/* The tokens of an image of w x h pixels, scaled down to the largest
 * size a model reads. */
static int64_t
context_image_tokens(unsigned w, unsigned h)
{
	double dw = w, dh = h, edge = dw > dh ? dw : dh;

	if (edge > CONTEXT_IMAGE_EDGE) {
		dw = dw * CONTEXT_IMAGE_EDGE / edge;
		dh = dh * CONTEXT_IMAGE_EDGE / edge;
	}
	return (int64_t)(dw * dh / CONTEXT_IMAGE_PIXELS) + 1;
}

/* Adds one image block's count, bytes and tokens to s. */
static void
context_image_add(json_t *block, struct context_images *s)
{
	json_t *source = json_object_get(block, "source");
	json_t *data = json_object_get(source, "data");
	const char *type = json_string_value(json_object_get(source,
	    "media_type"));
	const char *b64 = json_string_value(data);
	size_t len = json_string_length(data);
	unsigned w, h;

	if (b64 == NULL)
		return;
	s->count++;
	s->bytes += len;
	if (image_base64_size(b64, len, 32, type, &w, &h) == -1 &&
	    image_base64_size(b64, len, CONTEXT_IMAGE_HEAD, type, &w,
	    &h) == -1) {
		s->big = 1;
		s->tokens += context_image_tokens(CONTEXT_IMAGE_EDGE,
		    CONTEXT_IMAGE_EDGE);
		return;
	}
	if (w > CONTEXT_IMAGE_SIDE || h > CONTEXT_IMAGE_SIDE)
		s->big = 1;
	s->tokens += context_image_tokens(w, h);
}

/* Adds the image blocks in v (a view, a message, a block, an array of
 * them) to s. */
static void
context_image_scan(json_t *v, int depth, struct context_images *s)
{
	const char *type;
	json_t *x;
	size_t i;

	if (depth > CONTEXT_IMAGE_DEPTH)
		return;
	if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			context_image_scan(x, depth + 1, s);
		return;
	}
	type = json_string_value(json_object_get(v, "type"));
	if (type != NULL && strcmp(type, "image") == 0)
		context_image_add(v, s);
	else if (json_is_array(x = json_object_get(v, "content")))
		context_image_scan(x, depth + 1, s);
}

/* The size of a value for the estimates: its JSON, with each image
 * counted by its tokens rather than its base64. */
static size_t
context_json_bytes(json_t *value)
{
	struct context_images s = { 0 };
	char *text = json_dumps(value, JSON_COMPACT);
	size_t n = text ? strlen(text) : 0;

	free(text);
	context_image_scan(value, 0, &s);
	n = n > s.bytes ? n - s.bytes : 0;
	return n + (size_t)s.tokens * CONTEXT_BYTES_PER_TOKEN;
}

/* The threshold and the way to compact, for the window as known. */
static void
context_init_threshold(struct agent *a)
{
	struct team *t = a->team;
	int64_t at;

	at = a->win.window * t->opts.compact_at / 100;
	a->win.compact_at = t->opts.compact_at > 0 &&
	    t->opts.compact_at < 100 ? at : 0;
	/* On the server when the API can: an Anthropic model the catalog
	 * says compacts, and a trigger it accepts. */
	a->win.server_compaction = a->win.compact_at >= CONTEXT_MIN_TRIGGER &&
	    a->model.compaction && t->opts.llm.provider == LLM_ANTHROPIC;
}

void
context_init(struct agent *a)
{
	a->win.window = a->model.context_window;
	context_init_threshold(a);
}

int64_t
context_trigger(struct agent *a)
{
	return a->win.server_compaction ? a->win.compact_at : 0;
}

/* The whole view estimated: system prompt, tools and history. */
static int64_t
context_view_estimate(struct agent *a)
{
	json_t *view = history_build(a->turn.transcript);
	json_t *tools = mcptools_for(a);
	size_t bytes = (a->turn.system ? strlen(a->turn.system) : 0) +
	    context_json_bytes(view) + context_json_bytes(tools);

	json_decref(view);
	json_decref(tools);
	return context_estimate(bytes);
}

int64_t
context_tokens(struct agent *a)
{
	size_t n = json_array_size(a->turn.transcript), i, bytes = 0;
	long block;
	int64_t est;

	/* No count yet, or the view moved since it was made. */
	if (a->win.ctx_known == 0 ||
	    history_view_start(a->turn.transcript, &block) > a->win.ctx_mark ||
	    a->win.ctx_mark > n)
		est = context_view_estimate(a);
	else {
		for (i = a->win.ctx_mark; i < n; i++)
			bytes += context_json_bytes(json_array_get(
			    a->turn.transcript, i));
		est = a->win.ctx_known + context_estimate(bytes);
	}
	atomic_store(&a->win.ctx_tokens, est);
	return est;
}

void
context_counted(struct agent *a, const struct llm_usage *u)
{
	int64_t n = u->input + u->cache_read + u->cache_write_5m +
	    u->cache_write_1h + u->output;

	if (n <= 0)
		return;
	a->win.ctx_known = n;
	/* The reply is counted; it is recorded right after the call. */
	a->win.ctx_mark = json_array_size(a->turn.transcript) + 1;
	atomic_store(&a->win.ctx_tokens, n);
	event_context(&a->team->core.events, a->name, n, a->win.window);
}

/* Tells the front end and remembers it for /context. */
static void
context_note(struct agent *a, const char *kind, int64_t before,
    int64_t after)
{
	atomic_store(&a->win.last_before, before);
	atomic_store(&a->win.last_after, after);
	atomic_store(&a->win.last_at, clock_wall_ms());
	atomic_fetch_add(&a->win.compactions, 1);
	atomic_store(&a->win.ctx_tokens, after);
	event_compaction(&a->team->core.events, a->name, kind, before, after,
	    a->win.window);
}

void
context_server_compacted(struct agent *a, const struct llm_usage *u)
{
	int64_t read = llm_compaction_read(u);

	if (read <= 0)
		return;
	context_note(a, "server", read, u->input +
	    u->cache_read + u->cache_write_5m + u->cache_write_1h);
}

/* Appends a line to a growing text. */
static void
context_put(char **s, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
context_put(char **s, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	char *line;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		abort();
	va_end(ap);
	*s = xappend(*s, len, cap, line, strlen(line));
	free(line);
}

/* The first text the agent was given: its task (kept once the entry it
 * came in is trimmed away). */
static const char *
context_task(struct agent *a)
{
	json_t *entry = json_array_get(a->turn.transcript, 0), *b;
	size_t i;

	if (a->turn.task != NULL)
		return a->turn.task;
	json_array_foreach(json_object_get(entry, "content"), i, b) {
		if (json_is_string(json_object_get(b, "text"))) {
			a->turn.task = xstrdup(json_string_value(
			    json_object_get(b, "text")));
			return a->turn.task;
		}
	}
	return NULL;
}

void
context_trim(struct agent *a)
{
	long block;
	size_t start = history_view_start(a->turn.transcript, &block), n, i;
	json_t *kept;

	if (start == 0)
		return;
	(void)context_task(a);
	n = json_array_size(a->turn.transcript);
	kept = json_array();
	for (i = start; i < n; i++)
		json_array_append(kept, json_array_get(a->turn.transcript, i));
	json_decref(a->turn.transcript);
	a->turn.transcript = kept;
	a->turn.answered = a->turn.answered > start ?
	    a->turn.answered - start : 0;
	a->win.ctx_mark = a->win.ctx_mark > start ?
	    a->win.ctx_mark - start : 0;
}

/*
 * What huddle knows of the agent's part in the protocols, from the store
 * and not from the model's memory: the requests it must answer, those it
 * waits on, whether its plan is approved, its task.
 */
static char *
context_state(struct agent *a)
{
	struct team *t = a->team;
	struct request *r;
	struct member *m = roster_get(t->core.store, a->name);
	size_t n = protocol_list(t->core.proto, 0, &r), i, len = 0, cap = 0;
	const char *task = context_task(a);
	char *s = xstrdup(""), *cut, *waits;

	for (i = 0; i < n; i++) {
		if (r[i].status != REQ_PENDING || agent_persons_only(
		    r[i].type == REQ_PERMISSION, r[i].from, r[i].body))
			continue;
		if (strcmp(r[i].to, a->name) == 0)
			context_put(&s, &len, &cap, "- A %s request from %s "
			    "waits for your answer: request_id %s (%s). "
			    "Answer it with %s and that request_id.\n",
			    req_type_name(r[i].type), r[i].from, r[i].id,
			    r[i].body, msg_type_name(req_type_response_msg(
			    r[i].type)));
		else if (strcmp(r[i].from, a->name) == 0)
			context_put(&s, &len, &cap, "- Your %s request %s "
			    "waits for %s's decision.\n",
			    req_type_name(r[i].type), r[i].id, r[i].to);
	}
	request_free_array(r, n);
	if (a->is_lead && (waits = roster_awaited(t->core.store)) != NULL) {
		context_put(&s, &len, &cap, "- You wait for %s: each one's "
		    "idle notice will come to you as a message.\n", waits);
		free(waits);
	}
	if (m != NULL && m->plan_required)
		context_put(&s, &len, &cap, "- %s\n", m->plan_approved ?
		    "Your plan is approved: you may act on it." :
		    "Your plan is not approved yet: do not change anything "
		    "until it is.");
	member_free(m);
	if (task != NULL) {
		cut = utf8_clean(task, strlen(task), CONTEXT_TASK_BYTES);
		context_put(&s, &len, &cap, "- Your task as first given: %s%s\n",
		    cut, strlen(task) > CONTEXT_TASK_BYTES ? " …" : "");
		free(cut);
	}
	if (len == 0)
		context_put(&s, &len, &cap, "- Nothing is pending.\n");
	return s;
}

/* A tool result's content as text for the kept rounds: its text, and a
 * line for each image, which a compaction leaves out (malloc'd). */
static char *
context_result_text(json_t *content)
{
	char *s = xstrdup("");
	const char *type, *text, *mime;
	size_t len = 0, cap = 0, i;
	json_t *b;

	if (json_is_string(content))
		context_put(&s, &len, &cap, "%s", json_string_value(content));
	json_array_foreach(content, i, b) {
		type = json_string_value(json_object_get(b, "type"));
		text = json_string_value(json_object_get(b, "text"));
		mime = json_string_value(json_object_get(json_object_get(b,
		    "source"), "media_type"));
		if (type != NULL && strcmp(type, "text") == 0 && text != NULL)
			context_put(&s, &len, &cap, "%s%s", len ? "\n" : "",
			    text);
		else if (type != NULL && strcmp(type, "image") == 0)
			context_put(&s, &len, &cap, "%s[an image (%s), left "
			    "out at the compaction]", len ? "\n" : "",
			    mime != NULL ? mime : "?");
	}
	if (len == 0)
		context_put(&s, &len, &cap, "(output)");
	return s;
}

/* One message of the view as text for the kept rounds. */
static void
context_render(json_t *msg, char **s, size_t *len, size_t *cap)
{
	int model = strcmp(json_string_value(json_object_get(msg, "role")),
	    "assistant") == 0;
	json_t *b;
	const char *type;
	char *input, *text, *result;
	size_t i;

	json_array_foreach(json_object_get(msg, "content"), i, b) {
		type = json_string_value(json_object_get(b, "type"));
		if (type == NULL)
			continue;
		if (strcmp(type, "text") == 0) {
			text = message_indent(json_string_value(
			    json_object_get(b, "text")));
			context_put(s, len, cap, "%s%s\n", model ? "You wrote: " :
			    "", text);
			free(text);
		}
		else if (strcmp(type, "tool_use") == 0) {
			input = json_dumps(json_object_get(b, "input"),
			    JSON_COMPACT);
			context_put(s, len, cap, "You called %s %s\n",
			    json_string_value(json_object_get(b, "name")),
			    input ? input : "{}");
			free(input);
		} else if (strcmp(type, "tool_result") == 0) {
			result = context_result_text(json_object_get(b,
			    "content"));
			/* Indented: no line of an output passes for one
			 * of huddle's. */
			text = message_indent(result);
			free(result);
			context_put(s, len, cap, "%s:\n  %s\n",
			    json_is_true(json_object_get(b, "is_error")) ?
			    "It failed" : "It returned", text);
			free(text);
		}
	}
}

/*
 * The most recent rounds that fit in `budget` bytes, as text: whole
 * rounds only, a round being a model message and what answered it, so a
 * tool call is never parted from its result.
 */
static char *
context_recent(json_t *view, size_t budget)
{
	size_t n = json_array_size(view), from = n, i, len = 0, cap = 0;
	size_t size = 0, round;
	char *s = xstrdup("");

	while (from > 0) {
		/* The round that starts at the model message before. */
		for (i = from; i-- > 0; )
			if (strcmp(json_string_value(json_object_get(
			    json_array_get(view, i), "role")), "assistant") == 0)
				break;
		if (i == (size_t)-1)
			break;
		for (round = 0; i + round < from; round++)
			size += context_json_bytes(json_array_get(view,
			    i + round));
		if (size > budget)
			break;
		from = i;
	}
	for (i = from; i < n; i++)
		context_render(json_array_get(view, i), &s, &len, &cap);
	return s;
}

/* The reply's text: the summary. */
static char *
context_reply_text(json_t *message)
{
	json_t *b;
	size_t i, len = 0, cap = 0;
	char *s = xstrdup("");

	json_array_foreach(json_object_get(message, "content"), i, b) {
		if (json_is_string(json_object_get(b, "text")))
			context_put(&s, &len, &cap, "%s%s", len ? "\n" : "",
			    json_string_value(json_object_get(b, "text")));
	}
	return s;
}

/* The view as it would be sent, then the ask: the cached prefix is read
 * again, and every block goes back as it came. */
static json_t *
context_ask_after(json_t *view)
{
	json_t *msgs = json_deep_copy(view), *last, *ask;

	last = json_array_get(msgs, json_array_size(msgs) - 1);
	ask = json_pack("{s:s, s:s}", "type", "text", "text", CONTEXT_ASK);
	if (last != NULL && strcmp(json_string_value(json_object_get(last,
	    "role")), "user") == 0)
		json_array_append_new(json_object_get(last, "content"), ask);
	else
		json_array_append_new(msgs, json_pack("{s:s, s:[o]}", "role",
		    "user", "content", ask));
	return msgs;
}

/* When the view itself no longer fits the window: its first message (an
 * earlier summary, or the task) and the latest rounds that fit, as text
 * in one message, then the ask. No tool block, no thinking to bind. */
static json_t *
context_ask_text(json_t *view, size_t budget)
{
	json_t *first = json_array_get(view, 0), *msgs;
	char *head = xstrdup(""), *recent = context_recent(view, budget);
	char *text;
	size_t len = 0, cap = 0;

	if (first != NULL)
		context_render(first, &head, &len, &cap);
	if (len > budget / 2) {
		len = budget / 2;
		while (len > 0 && ((unsigned char)head[len] & 0xc0) == 0x80)
			len--;
		head[len] = '\0';
	}
	text = xasprintf("[The start of the conversation:]\n%s\n[Its latest "
	    "rounds (what lies between no longer fits your window):]\n%s\n%s",
	    head, recent, CONTEXT_ASK);
	msgs = json_pack("[{s:s, s:[{s:s, s:s}]}]", "role", "user", "content",
	    "type", "text", "text", text);
	free(head);
	free(recent);
	free(text);
	return msgs;
}

/* Whether a reply calls a tool: then its text is not a summary. */
static int
context_calls_tool(json_t *message)
{
	json_t *b;
	size_t i;

	json_array_foreach(json_object_get(message, "content"), i, b) {
		if (json_is_string(json_object_get(b, "type")) &&
		    strcmp(json_string_value(json_object_get(b, "type")),
		    "tool_use") == 0)
			return 1;
	}
	return 0;
}

/*
 * Asks the agent's model for the summary. The tools stay in the request
 * (the cached prefix and the thinking bound to it need them) but may not
 * be called: tool_choice none forbids them without forcing one, which
 * today's models refuse. A reply that calls a tool anyway, or has no
 * text, is no summary: asked once more, then *unusable is set.
 */
static char *
context_summary(struct agent *a, json_t *view, int64_t tokens,
    int *unusable, char **err)
{
	struct llm_request req = { 0 };
	struct llm_result res;
	char *summary = NULL;
	int fits = a->win.window <= 0 || tokens < a->win.window * 9 / 10;
	int tries;

	*unusable = 0;
	req.system = a->turn.system;
	req.messages = fits ? context_ask_after(view) : context_ask_text(view,
	    (size_t)a->win.window / 2 * CONTEXT_BYTES_PER_TOKEN);
	req.tools = fits ? mcptools_for(a) : NULL;
	req.tool_choice = req.tools != NULL ? "none" : NULL;
	for (tries = 0; tries < 2 && summary == NULL; tries++) {
		free(*err);
		*err = NULL;
		if (llm_call(a->run.llm, &req, NULL, NULL, &res) == 0) {
			summary = context_reply_text(res.message);
			if (*summary == '\0' ||
			    context_calls_tool(res.message)) {
				free(summary);
				summary = NULL;
				*unusable = 1;
				*err = xstrdup(context_calls_tool(res.message) ?
				    "the model called a tool instead of "
				    "writing a summary" : "the model wrote no "
				    "summary");
			}
		} else {
			*unusable = 0;
			*err = llm_result_error_line(&res);
			tries = 2;	/* the client has retried already */
		}
		agent_count_usage(a, &res.usage);
		llm_result_clear(&res);
	}
	json_decref(req.messages);
	json_decref(req.tools);
	return summary;
}

int
context_compact(struct agent *a, int force, const char *why)
{
	int64_t before = context_tokens(a), after;
	int asked = atomic_exchange(&a->win.compact_asked, 0);
	int idle = json_array_size(a->turn.transcript) == a->turn.answered;
	json_t *view, *entry;
	char *summary, *state, *recent, *text, *indented, *err = NULL;
	int unusable;

	if (!force && !asked && (a->win.compact_at == 0 ||
	    a->win.server_compaction || before <= a->win.compact_at))
		return 0;
	if (json_array_size(a->turn.transcript) == 0)
		return 0;
	event_notice(&a->team->core.events, a->name, "%s", why ? why : asked ?
	    "compacting, as asked" : "compacting: the context window is "
	    "filling up");
	view = history_build(a->turn.transcript);
	if ((summary = context_summary(a, view, before, &unusable,
	    &err)) == NULL) {
		/* Twice no usable summary: the view stays as it is. */
		if (unusable)
			event_notice(&a->team->core.events, a->name,
			    "could not "
			    "compact: asked twice, the model gave no usable "
			    "summary (it called a tool or wrote nothing); the "
			    "conversation is kept as it was");
		else
			agent_error(a, "could not compact the conversation: %s",
			    err);
		log_printf("%s: compaction failed: %s", a->name, err);
		free(err);
		json_decref(view);
		return -1;
	}
	state = context_state(a);
	/* A quarter of the window for the rounds kept as they were. */
	recent = context_recent(view, (size_t)(a->win.window > 0 ?
	    a->win.window : before) / 4 * CONTEXT_BYTES_PER_TOKEN);
	json_decref(view);
	/* The summary is the model's words: indented, none of its lines
	 * passes for one of huddle's headers. */
	indented = message_indent(summary);
	free(summary);
	summary = indented;
	text = xasprintf("[huddle compacted this conversation to fit your "
	    "context window. What you wrote for your own continuation:]\n\n"
	    "  %s\n\n[What huddle's records say now; they outrank the summary:]"
	    "\n%s%s%s\n[Go on from here.]", summary, state, *recent ?
	    "\n[Your most recent rounds, as they happened:]\n" : "", recent);
	entry = transcript_user_text(text);
	free(text);
	free(summary);
	free(state);
	free(recent);
	after = context_estimate(strlen(a->turn.system ? a->turn.system : "")) +
	    context_estimate(context_json_bytes(entry));
	json_object_set_new(entry, HISTORY_COMPACTED, json_pack("{s:s, s:I, "
	    "s:I, s:I}", "kind", "client", "before", (json_int_t)before,
	    "after", (json_int_t)after, "at", (json_int_t)clock_wall_ms()));
	if (agent_record(a, entry) == -1)
		return -1;
	/* The conversation starts afresh from the summary, so the prompt
	 * cache does too: the system prompt is written again here, and
	 * instruction files changed since take effect (frame.c). */
	frame_build(a);
	free(a->turn.system);
	a->turn.system = prompt_system(a->team, a);
	/* On demand while idle, the summary is not a message to answer. */
	if (idle)
		a->turn.answered = json_array_size(a->turn.transcript);
	a->win.ctx_known = 0;
	context_trim(a);
	after = context_tokens(a);
	context_note(a, "client", before, after);
	return 0;
}

void
context_learn_window(struct agent *a, const struct llm_result *r)
{
	const char *msg = r->error_message, *p;
	long long m = 0;

	if (msg == NULL)
		return;
	if ((p = strstr(msg, " tokens > ")) != NULL)
		m = strtoll(p + 10, NULL, 10);
	else if ((p = strstr(msg, "maximum context length is ")) != NULL)
		m = strtoll(p + 26, NULL, 10);
	if (m < 1024 || (a->win.window > 0 && m >= a->win.window))
		return;
	a->win.window = m;
	context_init_threshold(a);
	/* The client's trigger was set for the old window: compact on the
	 * client from now on. */
	a->win.server_compaction = 0;
	event_notice(&a->team->core.events, a->name,
	    "the model's context window "
	    "is smaller than the catalog says: huddle now counts with the "
	    "server's figure");
}

void
context_cut_result(struct agent *a, struct tool_output *o)
{
	size_t most, len, head, tail;
	char *out;

	if (a->win.window <= 0 || o->text == NULL)
		return;
	/* A tenth of the window at most. */
	most = (size_t)(a->win.window / 10) * CONTEXT_BYTES_PER_TOKEN;
	len = strlen(o->text);
	if (len <= most)
		return;
	head = most / 2;
	tail = most / 2;
	/* On character boundaries. */
	while (head > 0 && ((unsigned char)o->text[head] & 0xc0) == 0x80)
		head--;
	while (tail > 0 && ((unsigned char)o->text[len - tail] & 0xc0) ==
	    0x80)
		tail--;
	out = xasprintf("%.*s\n\n[huddle left out %zu bytes (about %lld "
	    "tokens) here: this output would fill a tenth of your context "
	    "window. To see all of it, write it to a file and read that "
	    "with read_file in pieces (offset and limit), or filter it "
	    "(grep, head, tail).]\n\n%s", (int)head, o->text,
	    len - head - tail, (long long)context_estimate(len - head - tail),
	    o->text + len - tail);
	free(o->text);
	o->text = out;
}

void
context_fit_images(struct agent *a, json_t *pending, struct tool_output *o)
{
	struct context_images s = { 0 };
	json_t *view, *img;
	const char *why = NULL;
	size_t i;

	if (json_array_size(o->images) == 0)
		return;
	view = history_build(a->turn.transcript);
	context_image_scan(view, 0, &s);
	json_decref(view);
	context_image_scan(pending, 0, &s);
	json_array_foreach(o->images, i, img) {
		struct context_images one = { 0 };

		context_image_add(img, &one);
		if (s.bytes + one.bytes > CONTEXT_IMAGE_BYTES)
			why = "the images of your conversation would pass "
			    "20 MiB, the most huddle sends in one request; "
			    "images pass again once the conversation is "
			    "compacted";
		else if (s.count >= CONTEXT_IMAGES && (s.big || one.big))
			why = "your conversation carries 20 images already, "
			    "and a request with more may hold none over 2000 "
			    "pixels a side; images pass again once the "
			    "conversation is compacted";
		if (why != NULL)
			break;
		s.count++;
		s.bytes += one.bytes;
		s.big |= one.big;
	}
	if (why != NULL)
		mcp_content_withhold(o, i, why);
}
