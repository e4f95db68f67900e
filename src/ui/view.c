/*
 * The view and how team events change it (see view.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/bus.h"
#include "core/roster.h"
#include "core/taskboard.h"
#include "core/transcript.h"
#include "ui/text.h"
#include "ui/view.h"
#include "util/clock.h"
#include "util/number.h"
#include "util/xmalloc.h"

/* How a thinking block the provider encrypted shows. */
#define VIEW_REDACTED "[thinking, encrypted by the provider]"

struct view *
view_new(struct team *t)
{
	struct view *v = xcalloc(1, sizeof *v);

	v->team = t;
	v->started_ms = clock_mono_ms();
	table_init(&v->table);
	tasklist_init(&v->tasks);
	input_init(&v->input);
	input_init(&v->feedback);
	view_pane(v, ROSTER_LEAD, "lead");
	return v;
}

void
view_free(struct view *v)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < v->npanes; i++)
		pane_free(v->panes[i]);
	free(v->panes);
	free(v->rects);
	table_free(&v->table);
	tasklist_free(&v->tasks);
	free(v->page);
	diffview_free(&v->diff);
	input_free(&v->input);
	input_free(&v->feedback);
	free(v->hint);
	free(v->error);
	free(v);
}

struct pane *
view_pane(struct view *v, const char *name, const char *role)
{
	size_t i;

	for (i = 0; i < v->npanes; i++) {
		if (strcmp(v->panes[i]->name, name) == 0) {
			if (role != NULL && *role != '\0') {
				free(v->panes[i]->role);
				v->panes[i]->role = xstrdup(role);
			}
			return v->panes[i];
		}
	}
	v->panes = xgrow(v->panes, &v->cap, v->npanes + 1, sizeof *v->panes);
	v->panes[v->npanes] = pane_new(name, role);
	return v->panes[v->npanes++];
}

/* Whether the person may decide a request of this type. */
static int
view_for_person(struct view *v, enum req_type type)
{
	return (protocol_answerers(team_protocol(v->team), type) &
	    PROTO_BY_USER) != 0;
}

int
view_decidable(struct view *v, const struct table_row *r)
{
	return r != NULL && r->pending && view_for_person(v, r->type);
}

void
view_hint(struct view *v, enum color_role role, const char *fmt, ...)
{
	va_list ap;
	char *text;
	size_t len;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		abort();
	va_end(ap);
	/* One line, cleaned: what others wrote (a check's command and
	 * output) must not move the cursor or pose as the hint's own. */
	len = strcspn(text, "\r\n");
	free(v->hint);
	if (text[len] != '\0') {
		char *first = xasprintf("%.*s …", (int)len, text);

		v->hint = text_sanitize(first, strlen(first));
		free(first);
	} else
		v->hint = text_sanitize(text, len);
	free(text);
	v->hint_role = role;
}

int
view_hidden(struct view *v, size_t i)
{
	return v->hide_ended && i > 0 && v->focus != (int)i &&
	    v->panes[i]->status == MEMBER_TERMINATED;
}

const char *
view_focus_name(struct view *v)
{
	if (v->focus < 0 || (size_t)v->focus >= v->npanes)
		return ROSTER_LEAD;
	return v->panes[v->focus]->name;
}

/* A field of a stored transcript entry: "" or 0 when missing. */
static const char *
view_jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static int64_t
view_jint(json_t *o, const char *key)
{
	return (int64_t)json_integer_value(json_object_get(o, key));
}

/* Shows the model in p's title when it is not the lead's (a view
 * without a team, as tests make, has no lead to compare with). */
static void
view_model(struct view *v, struct pane *p, const char *model)
{
	free(p->model);
	p->model = *model != '\0' && (v->team == NULL || strcmp(model,
	    team_lead_model(v->team)) != 0) ? xstrdup(model) : NULL;
}

/* The pane title's figures: every token the agent's calls counted, and
 * their price. */
static void
view_usage(struct view *v, struct pane *p, json_t *d)
{
	p->tokens = event_int(d, "input_tokens") + event_int(d,
	    "output_tokens") + event_int(d, "cache_write_tokens") +
	    event_int(d, "cache_read_tokens");
	p->cost = event_num(d, "cost_usd");
	view_model(v, p, event_str(d, "model"));
}

/* A one-line summary of a tool call's input: its most telling field. */
static char *
view_tool_summary(const char *tool, json_t *input)
{
	static const char *const keys[] = {
		"command", "path", "name", "teammate", "request_id", "to",
		"plan", "content",
	};
	const char *val = NULL, *nl;
	size_t i;

	for (i = 0; i < sizeof keys / sizeof *keys && val == NULL; i++)
		val = json_string_value(json_object_get(input, keys[i]));
	if (val == NULL)
		return xstrdup(tool);
	nl = strchr(val, '\n');
	return xasprintf("%s %.*s%s", tool, nl ? (int)(nl - val) :
	    (int)strlen(val), val, nl ? " …" : "");
}

static void view_message(struct view *v, json_t *d);

/* The first text of a tool result's content: a string, or blocks. */
static const char *
view_result_text(json_t *content)
{
	json_t *b;
	size_t i;

	if (json_is_string(content))
		return json_string_value(content);
	json_array_foreach(content, i, b) {
		if (json_is_string(json_object_get(b, "text")))
			return view_jstr(b, "text");
	}
	return "(output)";
}

/* A window's use in percent, -1 when the window is unknown. */
static int
view_pct(int64_t tokens, int64_t window)
{
	if (window <= 0)
		return -1;
	return (int)(tokens * 100 / window);
}

/* "— compacted: 41,200 → 6,900 tokens —", live and after --resume. */
static char *
view_compacted(int64_t before, int64_t after, const char *kind)
{
	char b[NUMBER_THOUSANDS_SIZE], a[NUMBER_THOUSANDS_SIZE];

	if (before <= 0)
		return xasprintf("— compacted%s —", strcmp(kind, "server") == 0 ?
		    " on the server" : "");
	number_thousands(before, b, sizeof b);
	number_thousands(after, a, sizeof a);
	return xasprintf("— compacted%s: %s → %s tokens —", strcmp(kind,
	    "server") == 0 ? " on the server" : "", b, a);
}

/* A tool result's line, as EV_TOOL_RESULT and a stored result show it:
 * its first line, and the others folded under it, "(+N lines)", to be
 * expanded (Enter on it, C-o, zoom); whole (may be NULL) is the file
 * that keeps the whole output, for C-p. */
static void
view_tool_result(struct pane *p, const char *tool, const char *output,
    int is_error, const char *whole)
{
	enum color_role role = is_error ? ROLE_TOOL_ERROR : ROLE_DIM;
	const char *nl = strchr(output, '\n'), *c;
	size_t more = 0, len = nl ? (size_t)(nl - output) : strlen(output);
	char *head, *line;

	for (c = nl; c != NULL && *c != '\0'; c++)
		more += *c == '\n' && c[1] != '\0';
	if (is_error)
		head = xasprintf("✗ %s: %.*s", tool, (int)len, output);
	else
		head = xasprintf("  %.*s", (int)len, output);
	if (more == 0 && whole == NULL) {
		pane_add(p, role, head);
		free(head);
		return;
	}
	line = xasprintf("%s (+%zu line%s%s)", head, more, more == 1 ? "" :
	    "s", whole != NULL ? "; C-p: all" : "");
	pane_add_folded(p, role, line, strlen(head), ROLE_DIM, nl ? nl + 1 :
	    "", whole);
	free(line);
	free(head);
}

/* A tool call's line, as EV_TOOL_CALL and a stored call show it. */
static void
view_tool_call(struct pane *p, const char *tool, json_t *input)
{
	char *summary = view_tool_summary(tool, input);
	char *line = xasprintf("▸ %s", summary);

	pane_add(p, ROLE_TOOL, line);
	free(line);
	free(summary);
}

/* The tool_result block for tool_use `id` in entry, or NULL. */
static json_t *
view_find_result(json_t *entry, const char *id)
{
	json_t *b;
	size_t i;

	json_array_foreach(json_object_get(entry, "content"), i, b) {
		if (strcmp(view_jstr(b, "type"), "tool_result") == 0 &&
		    strcmp(view_jstr(b, "tool_use_id"), id) == 0)
			return b;
	}
	return NULL;
}

/* A stored result; its whole output is found by the call's id, when
 * the team still keeps it. */
static void
view_stored_result(struct view *v, struct pane *p, const char *tool,
    json_t *result)
{
	char *whole = team_output_path(v->team, p->name, view_jstr(result,
	    "tool_use_id"));

	if (whole != NULL && access(whole, R_OK) != 0) {
		free(whole);
		whole = NULL;
	}
	view_tool_result(p, tool, view_result_text(json_object_get(result,
	    "content")), json_is_true(json_object_get(result, "is_error")),
	    whole);
	free(whole);
}

/* Whether block i of a model's entry, a thinking block, held the words
 * the model wrote before a tool call (its model puts them there), which
 * showed live as text (llm/turn.c). */
static int
view_words(json_t *entry, size_t i)
{
	json_t *next = json_array_get(json_object_get(entry, "content"), i + 1);

	return json_is_true(json_object_get(entry, "words_in_thinking")) &&
	    next != NULL && strcmp(view_jstr(next, "type"), "tool_use") == 0;
}

/*
 * Shows one stored transcript entry in a pane as it looked live: the
 * model's text and thinking streamed, then each tool call followed by
 * its result (found in `next`, the entry after, which holds the round's
 * results; the ids shown are noted in `done`). Messages are shown from
 * the inbox instead (view_load_pane).
 */
static void
view_entry(struct view *v, struct pane *p, json_t *entry, json_t *next,
    json_t *done)
{
	int model = strcmp(view_jstr(entry, "role"), "assistant") == 0;
	json_t *b, *result, *mark = json_object_get(entry, "compaction");
	const char *type, *text;
	char *line;
	size_t i;

	/* The summary that starts a compacted view shows as it did live. */
	if (mark != NULL) {
		line = view_compacted(view_jint(mark, "before"),
		    view_jint(mark, "after"), view_jstr(mark, "kind"));
		pane_add(p, ROLE_DIM, line);
		free(line);
		return;
	}
	json_array_foreach(json_object_get(entry, "content"), i, b) {
		type = view_jstr(b, "type");
		if (strcmp(type, "text") == 0 && model) {
			text = view_jstr(b, "text");
			pane_stream(p, ROLE_NORMAL, text, strlen(text));
		} else if (strcmp(type, "text") == 0)
			pane_add(p, ROLE_DIM, view_jstr(b, "text"));
		else if (strcmp(type, "thinking") == 0) {
			text = view_jstr(b, "thinking");
			pane_stream(p, view_words(entry, i) ? ROLE_NORMAL :
			    ROLE_THINKING, text, strlen(text));
		} else if (strcmp(type, "redacted_thinking") == 0)
			pane_add(p, ROLE_THINKING, VIEW_REDACTED);
		else if (strcmp(type, "openai_reasoning") == 0) {
			/* OpenAI's reasoning summary, as it streamed. */
			json_t *part;
			size_t k;

			json_array_foreach(json_object_get(json_object_get(b,
			    "item"), "summary"), k, part) {
				text = view_jstr(part, "text");
				pane_stream(p, ROLE_THINKING, text,
				    strlen(text));
			}
		} else if (strcmp(type, "compaction") == 0) {
			line = view_compacted(0, 0, "server");
			pane_add(p, ROLE_DIM, line);
			free(line);
		} else if (strcmp(type, "tool_use") == 0) {
			view_tool_call(p, view_jstr(b, "name"),
			    json_object_get(b, "input"));
			result = view_find_result(next, view_jstr(b, "id"));
			if (result != NULL) {
				view_stored_result(v, p, view_jstr(b,
				    "name"), result);
				json_object_set_new(done, view_jstr(b, "id"),
				    json_true());
			}
		} else if (strcmp(type, "tool_result") == 0 &&
		    json_object_get(done, view_jstr(b, "tool_use_id")) == NULL)
			view_stored_result(v, p, "tool", b);
	}
	pane_end_stream(p);
}

/* The agent's last `last` turns and the messages sent to it since, in
 * the order they happened. */
static void
view_load_pane(struct view *v, struct pane *p, size_t last)
{
	struct message *msgs = NULL;
	size_t nmsg = 0, i = 0, k = 0, n;
	json_t *tail, *done = json_object(), *row, *next, *d;
	char *err = NULL;
	int64_t since;

	tail = transcript_load_tail(team_store(v->team), p->name, last, &err);
	if (tail == NULL) {
		pane_add(p, ROLE_ERROR, err);
		free(err);
		json_decref(done);
		return;
	}
	/* Messages from the time of the first turn shown: all of them
	 * when the whole transcript is (a message is sent before the turn
	 * that records it). */
	n = json_array_size(tail);
	since = n == last ? view_jint(json_array_get(tail, 0), "at") : 0;
	if (bus_history(team_bus(v->team), p->name, since, last, &msgs, &nmsg,
	    &err) == -1) {
		pane_add(p, ROLE_ERROR, err);
		free(err);
	}
	while (i < n || k < nmsg) {
		row = i < n ? json_array_get(tail, i) : NULL;
		if (row == NULL || (k < nmsg && msgs[k].created_at <=
		    view_jint(row, "at"))) {
			d = event_message_json(&msgs[k++]);
			view_message(v, d);
			json_decref(d);
			continue;
		}
		/* A turn that records a message was shown as the message. */
		next = i + 1 < n ? json_array_get(tail, i + 1) : NULL;
		if (view_jint(row, "message_id") == 0)
			view_entry(v, p, json_object_get(row, "entry"), next &&
			    view_jint(next, "message_id") == 0 ?
			    json_object_get(next, "entry") : NULL, done);
		i++;
	}
	if (n > 0 || nmsg > 0)
		pane_add(p, ROLE_DIM, "— resumed —");
	message_free_array(msgs, nmsg);
	json_decref(tail);
	json_decref(done);
}

/* The board as it is (after --resume). */
static void
view_load_tasks(struct view *v)
{
	struct task *k;
	size_t n = taskboard_list(team_taskboard(v->team), -1, &k), i;
	json_t *d;

	for (i = 0; i < n; i++) {
		d = event_task_json(&k[i]);
		tasklist_update(&v->tasks, d);
		json_decref(d);
	}
	task_free_array(k, n);
}

void
view_load_history(struct view *v, size_t last)
{
	struct member *m;
	struct request *r;
	size_t n = roster_list(team_store(v->team), &m), i;
	json_t *d;

	for (i = 0; i < n; i++) {
		struct pane *p = view_pane(v, m[i].name, m[i].is_lead ? "lead" :
		    m[i].role);

		pane_set_status(p, m[i].status);
		p->tokens = m[i].tokens_in + m[i].tokens_out +
		    m[i].cache_write + m[i].cache_read;
		p->cost = m[i].cost;
		view_model(v, p, team_model_of(v->team, &m[i]));
		view_load_pane(v, p, last);
	}
	member_free_array(m, n);
	/* Every pending request, and the latest decisions. */
	n = protocol_list(team_protocol(v->team), TABLE_KEEP_DECIDED, &r);
	for (i = 0; i < n; i++) {
		d = event_request_json(&r[i]);
		table_update(&v->table, d);
		json_decref(d);
	}
	request_free_array(r, n);
	view_load_tasks(v);
}

static void
view_message(struct view *v, json_t *d)
{
	const char *type = event_str(d, "type"), *from = event_str(d, "from");
	const char *to = event_str(d, "to"), *content = event_str(d, "content");
	const char *rid = event_str(event_obj(d, "metadata"), "request_id");
	struct pane *p;
	char *line;

	/* A message to no one has no pane to show in. */
	if (*to == '\0')
		return;
	p = view_pane(v, to, NULL);
	if (strcmp(type, "message") == 0) {
		if (strcmp(from, "user") == 0)
			line = xasprintf("you  %s", content);
		else
			line = xasprintf("✉ %s: %s", from, content);
		pane_note(p, strcmp(from, "user") == 0 ? ROLE_YOU :
		    ROLE_MESSAGE, line);
	} else if (strcmp(type, "broadcast") == 0) {
		line = xasprintf("✉ %s (to all): %s", from, content);
		pane_note(p, ROLE_MESSAGE, line);
	} else if (strcmp(type, "idle_notification") == 0) {
		line = xasprintf("· %s", content);
		pane_note(p, ROLE_DIM, line);
	} else {
		struct permline pl;
		char *what = NULL;

		/* A permission's body is a record: shown as the table
		 * shows it. */
		if (strcmp(type, "permission_request") == 0 &&
		    permline_from_body(content, &pl) == 0) {
			what = permline_summary(&pl, TABLE_SUMMARY_COLS, NULL);
			permline_clear(&pl);
		}
		line = xasprintf("⚑ %s from %s%s%s%s%s", type, from,
		    *rid ? " " : "", rid, *content ? ": " : "", what != NULL ?
		    what : content);
		free(what);
		pane_note(p, ROLE_PROTOCOL, line);
	}
	free(line);
}

static void
view_request(struct view *v, json_t *d)
{
	const struct table_row *r;
	char before[sizeof v->table.selected];

	/* What waits for the person is named on the hint line by the
	 * selection (hintline_selection), never by the latest event: a
	 * new request does not take the hint from the selected one. When
	 * the selection itself changes, a notice gives way to it. */
	memcpy(before, v->table.selected, sizeof before);
	table_update(&v->table, d);
	if (strcmp(before, v->table.selected) != 0 &&
	    table_selected(&v->table) != NULL &&
	    table_selected(&v->table)->pending) {
		free(v->hint);
		v->hint = NULL;
	}
	r = table_find(&v->table, event_str(d, "id"));
	if (r != NULL && r->status == REQ_EXPIRED && r->type == REQ_SHUTDOWN)
		view_hint(v, ROLE_HINT, "%s did not answer the shutdown "
		    "request: F9 offers a forced stop", r->to);
}

/* Keeps an error for the status line, clean and on one line. */
static void
view_error(struct view *v, const char *agent, const char *message)
{
	char *line = xasprintf("%s%s%s", agent ? agent : "", agent ? ": " :
	    "", message), *nl;

	while ((nl = strchr(line, '\n')) != NULL)
		*nl = ' ';
	free(v->error);
	v->error = text_sanitize(line, strlen(line));
	v->errors++;
	free(line);
}

char *
view_retry_text(const struct pane *p)
{
	int64_t left = p->retry_at_ms - clock_mono_ms();

	if (left <= 0)
		return xasprintf("retrying now (attempt %d)",
		    p->retry_attempt);
	/* Whole seconds, rounded up: "in 0s" would be a lie. */
	return xasprintf("retrying in %llds (attempt %d)",
	    (long long)((left + 999) / 1000), p->retry_attempt);
}

/* Whether an event of this type is shown in its agent's pane only. */
static int
view_in_pane(enum event_type type)
{
	switch (type) {
	case EV_TEXT:
	case EV_THINKING:
	case EV_LLM_CALL:
	case EV_TOOL_CALL:
	case EV_TOOL_RESULT:
	case EV_RETRY:
	case EV_USAGE:
	case EV_CONTEXT:
	case EV_COMPACTION:
	case EV_SPAWNED:
		return 1;
	default:
		return 0;
	}
}

int
view_apply(struct view *v, const struct event *e)
{
	json_t *d = e->data;
	struct pane *p = e->agent ? view_pane(v, e->agent, NULL) : NULL;
	char *line, *what;
	int status;

	/* What happens in an agent's pane needs the agent. */
	if (p == NULL && view_in_pane(e->type))
		return 0;
	/* Anything the agent does ends a retry's wait. */
	if (p != NULL && e->type != EV_RETRY && e->type != EV_MESSAGE &&
	    e->type != EV_REQUEST && e->type != EV_TASK)
		p->retry_at_ms = 0;
	switch (e->type) {
	case EV_TEXT:
		pane_stream(p, ROLE_NORMAL, event_str(d, "text"),
		    strlen(event_str(d, "text")));
		break;
	case EV_THINKING:
		if (event_bool(d, "redacted"))
			pane_add(p, ROLE_THINKING, VIEW_REDACTED);
		else
			pane_stream(p, ROLE_THINKING, event_str(d, "text"),
			    strlen(event_str(d, "text")));
		break;
	case EV_LLM_CALL:
		pane_end_stream(p);
		p->reply_seq = pane_next_seq(p);
		break;
	case EV_TOOL_CALL:
		view_tool_call(p, event_str(d, "tool"), json_object_get(d,
		    "input"));
		break;
	case EV_TOOL_RESULT:
		view_tool_result(p, event_str(d, "tool"), event_str(d,
		    "output"), event_bool(d, "is_error"),
		    json_string_value(json_object_get(d, "whole")));
		break;
	case EV_STATUS:
		/* A turn's text has ended by the time its agent changes
		 * status; what waited for it follows. */
		if (p != NULL)
			pane_end_stream(p);
		status = member_status_parse(event_str(d, "status"));
		if (p == NULL || status < 0)
			break;
		pane_set_status(p, (enum member_status)status);
		if (status == MEMBER_TERMINATED) {
			pane_add(p, ROLE_DIM, "— terminated —");
			tasklist_owner_gone(&v->tasks, p->name);
		}
		break;
	case EV_TASK:
		tasklist_update(&v->tasks, d);
		break;
	case EV_MESSAGE:
		view_message(v, d);
		break;
	case EV_REQUEST:
		view_request(v, d);
		break;
	case EV_ERROR:
		view_error(v, e->agent, event_str(d, "message"));
		if (p != NULL) {
			line = xasprintf("✗ %s", event_str(d, "message"));
			pane_add(p, ROLE_ERROR, line);
			free(line);
		} else
			view_hint(v, ROLE_ERROR, "%s", event_str(d, "message"));
		break;
	case EV_RETRY:
		/* A reply that had begun is void: the next attempt streams
		 * it anew in its place. */
		if (event_bool(d, "discarded"))
			pane_drop_from(p, p->reply_seq);
		else
			pane_end_stream(p);
		/* One line tells of the retries in a row: the next one
		 * replaces it, when nothing came between. */
		if (p->retry_seq != 0 && pane_next_seq(p) == p->retry_seq + 1)
			pane_drop_from(p, p->retry_seq);
		p->retry_attempt = (int)event_int(d, "attempt") + 1;
		p->retry_at_ms = clock_mono_ms() + event_int(d, "delay_ms");
		p->retry_seq = pane_next_seq(p);
		what = view_retry_text(p);
		line = xasprintf("↻ %s; %s%s", event_str(d, "message"), what,
		    event_bool(d, "discarded") ? " (the reply starts again)" :
		    "");
		pane_add(p, ROLE_DIM, line);
		free(line);
		free(what);
		p->reply_seq = pane_next_seq(p);
		break;
	case EV_USAGE:
		if (p != NULL)
			pane_end_stream(p);	/* the call is over */
		view_usage(v, p, d);
		break;
	case EV_CONTEXT:
		p->ctx_pct = view_pct(event_int(d, "context_tokens"),
		    event_int(d, "context_window"));
		break;
	case EV_COMPACTION:
		p->ctx_pct = view_pct(event_int(d, "after"), event_int(d,
		    "context_window"));
		line = view_compacted(event_int(d, "before"), event_int(d,
		    "after"), event_str(d, "kind"));
		pane_note(p, ROLE_DIM, line);
		free(line);
		break;
	case EV_BUDGET:
		view_hint(v, ROLE_ERROR, "the team has spent $%.2f of its "
		    "$%.2f limit: no new model call starts (/budget USD raises "
		    "it)", event_num(d, "team_cost_usd"), event_num(d,
		    "max_cost_usd"));
		break;
	case EV_SPAWNED:
		view_model(v, view_pane(v, e->agent, event_str(d, "role")),
		    event_str(d, "model"));
		break;
	case EV_NOTICE:
		if (e->agent == NULL)
			view_hint(v, ROLE_HINT, "%s", event_str(d, "message"));
		else if (!event_bool(d, "quiet")) {
			line = xasprintf("— %s —", event_str(d, "message"));
			pane_add(p, ROLE_DIM, line);
			free(line);
		}
		break;
	default:
		return 0;
	}
	return 1;
}
