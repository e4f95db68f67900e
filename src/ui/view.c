/*
 * The view and how team events change it (see view.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/roster.h"
#include "core/transcript.h"
#include "ui/view.h"
#include "util/clock.h"
#include "util/xmalloc.h"

struct view *
view_new(struct team *t)
{
	struct view *v = xcalloc(1, sizeof *v);

	v->team = t;
	v->started_ms = clock_mono_ms();
	table_init(&v->table);
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
	input_free(&v->input);
	input_free(&v->feedback);
	free(v->hint);
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

/* The person's word for a request's kind. */
static const char *
view_kind(const char *type)
{
	if (strcmp(type, "permission") == 0)
		return "command";
	if (strcmp(type, "shutdown") == 0)
		return "shutdown request";
	return type;
}

/* Whether the person may decide a request of this type. */
static int
view_for_person(struct view *v, const char *type)
{
	int t = req_type_parse(type);

	return t >= 0 && (protocol_answerers(team_protocol(v->team),
	    (enum req_type)t) & PROTO_BY_USER) != 0;
}

char *
view_selection_text(struct view *v, size_t *must)
{
	const struct table_row *r = table_selected(&v->table);
	size_t waiting = table_pending(&v->table);
	char more[48] = "", *head, *text;

	*must = 0;
	if (r == NULL || !r->pending)
		return NULL;
	if (waiting > 1)
		snprintf(more, sizeof more, " · %zu pending", waiting);
	if (!view_for_person(v, r->type))
		return xasprintf("selected: %s's %s to %s, for %s to answer: "
		    "%s%s", r->from, view_kind(r->type), r->to, r->to,
		    r->summary, more);
	head = xasprintf("%s's %s (F5 approves, F6 rejects, Enter shows all)",
	    r->from, view_kind(r->type));
	text = xasprintf("%s: %s%s", head, r->summary, more);
	/* A command must be seen whole before a key runs it; of anything
	 * else, whose it is and what it is. */
	*must = strcmp(r->type, "permission") == 0 ? strlen(text) -
	    strlen(more) : strlen(head);
	free(head);
	return text;
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

	free(v->hint);
	va_start(ap, fmt);
	if (vasprintf(&v->hint, fmt, ap) < 0)
		abort();
	va_end(ap);
	v->hint_role = role;
}

const char *
view_focus_name(struct view *v)
{
	if (v->focus < 0 || (size_t)v->focus >= v->npanes)
		return ROSTER_LEAD;
	return v->panes[v->focus]->name;
}

static const char *
jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static int64_t
jint(json_t *o, const char *key)
{
	return (int64_t)json_integer_value(json_object_get(o, key));
}

/* Shows the model in p's title when it is not the lead's. */
static void
view_model(struct view *v, struct pane *p, const char *model)
{
	free(p->model);
	p->model = *model != '\0' && strcmp(model, team_lead_model(v->team)) !=
	    0 ? xstrdup(model) : NULL;
}

/* The pane title's figures: every token the agent's calls counted, and
 * their price. */
static void
view_usage(struct view *v, struct pane *p, json_t *d)
{
	p->tokens = jint(d, "input_tokens") + jint(d, "output_tokens") +
	    jint(d, "cache_write_tokens") + jint(d, "cache_read_tokens");
	p->cost = json_real_value(json_object_get(d, "cost_usd"));
	view_model(v, p, jstr(d, "model"));
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

/* The first line of s with a count of the rest. */
static char *
view_first_line(const char *s)
{
	const char *nl = strchr(s, '\n');
	size_t more = 0;
	const char *p;

	if (nl == NULL)
		return xstrdup(s);
	for (p = nl; *p != '\0'; p++)
		more += *p == '\n' && p[1] != '\0';
	return xasprintf("%.*s (+%zu line%s)", (int)(nl - s), s, more,
	    more == 1 ? "" : "s");
}

/* Shows one stored transcript entry in a pane, as it looked live. */
static void
view_entry(struct pane *p, json_t *entry)
{
	const char *role = jstr(entry, "role");
	int user = strcmp(role, "user") == 0;
	json_t *content = json_object_get(entry, "content"), *b;
	size_t i;

	json_array_foreach(content, i, b) {
		const char *type = jstr(b, "type");
		char *line = NULL;

		if (strcmp(type, "text") == 0 && !user)
			pane_add(p, ROLE_NORMAL, jstr(b, "text"));
		else if (strcmp(type, "text") == 0) {
			const char *t = jstr(b, "text");
			static const char you[] = "[message from user] ";

			if (strncmp(t, you, sizeof you - 1) == 0) {
				line = xasprintf("you  %s", t + sizeof you - 1);
				pane_add(p, ROLE_YOU, line);
			} else
				pane_add(p, ROLE_MESSAGE, t);
		} else if (strcmp(type, "tool_use") == 0) {
			char *summary = view_tool_summary(jstr(b, "name"),
			    json_object_get(b, "input"));

			line = xasprintf("▸ %s", summary);
			free(summary);
			pane_add(p, ROLE_TOOL, line);
		} else if (strcmp(type, "tool_result") == 0) {
			char *first = view_first_line(json_is_string(
			    json_object_get(b, "content")) ? jstr(b, "content") :
			    "(output)");

			line = xasprintf("  %s", first);
			free(first);
			pane_add(p, json_is_true(json_object_get(b, "is_error")) ?
			    ROLE_TOOL_ERROR : ROLE_DIM, line);
		}
		free(line);
	}
}

void
view_load_history(struct view *v, size_t last)
{
	struct member *m;
	size_t n = roster_list(team_store(v->team), &m), i, k, len;
	char *err = NULL;

	for (i = 0; i < n; i++) {
		struct pane *p = view_pane(v, m[i].name, m[i].is_lead ? "lead" :
		    m[i].role);
		json_t *t = transcript_load(team_store(v->team), m[i].name,
		    &err);

		pane_set_status(p, member_status_name(m[i].status));
		p->tokens = m[i].tokens_in + m[i].tokens_out +
		    m[i].cache_write + m[i].cache_read;
		p->cost = m[i].cost;
		view_model(v, p, team_model_of(v->team, &m[i]));
		if (t == NULL) {
			pane_add(p, ROLE_ERROR, err);
			free(err);
			err = NULL;
			continue;
		}
		len = json_array_size(t);
		if (len > 0) {
			for (k = len > last ? len - last : 0; k < len; k++)
				view_entry(p, json_array_get(t, k));
			pane_add(p, ROLE_DIM, "— resumed —");
		}
		json_decref(t);
	}
	member_free_array(m, n);
}

static void
view_message(struct view *v, json_t *d)
{
	const char *type = jstr(d, "type"), *from = jstr(d, "from");
	const char *to = jstr(d, "to"), *content = jstr(d, "content");
	const char *rid = jstr(json_object_get(d, "metadata"), "request_id");
	struct pane *p = view_pane(v, to, NULL);
	char *line;

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
		line = xasprintf("⚑ %s from %s%s%s%s%s", type, from,
		    *rid ? " " : "", rid, *content ? ": " : "", content);
		pane_note(p, ROLE_PROTOCOL, line);
	}
	free(line);
}

static void
view_request(struct view *v, json_t *d)
{
	const char *type = jstr(d, "type"), *status = jstr(d, "status");
	const char *to = jstr(d, "to");

	char before[sizeof v->table.selected];

	/* What waits for the person is named on the hint line by the
	 * selection (view_selection_text), never by the latest event: a
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
	if (strcmp(status, "expired") == 0 &&
	    strcmp(type, "shutdown") == 0)
		view_hint(v, ROLE_HINT, "%s did not answer the shutdown "
		    "request: F9 offers a forced stop", to);
}

int
view_apply(struct view *v, const struct event *e)
{
	json_t *d = e->data;
	struct pane *p = e->agent ? view_pane(v, e->agent, NULL) : NULL;
	char *line;

	switch (e->type) {
	case EV_TEXT:
		pane_stream(p, ROLE_NORMAL, jstr(d, "text"),
		    strlen(jstr(d, "text")));
		break;
	case EV_THINKING:
		if (json_is_true(json_object_get(d, "redacted")))
			pane_add(p, ROLE_THINKING, "[thinking, encrypted by "
			    "the provider]");
		else
			pane_stream(p, ROLE_THINKING, jstr(d, "text"),
			    strlen(jstr(d, "text")));
		break;
	case EV_LLM_CALL:
		pane_end_stream(p);
		break;
	case EV_TOOL_CALL: {
		char *summary = view_tool_summary(jstr(d, "tool"),
		    json_object_get(d, "input"));

		line = xasprintf("▸ %s", summary);
		pane_add(p, ROLE_TOOL, line);
		free(line);
		free(summary);
		break;
	}
	case EV_TOOL_RESULT: {
		char *first = view_first_line(jstr(d, "output"));

		if (json_is_true(json_object_get(d, "is_error")))
			line = xasprintf("✗ %s: %s", jstr(d, "tool"), first);
		else
			line = xasprintf("  %s", first);
		pane_add(p, json_is_true(json_object_get(d, "is_error")) ?
		    ROLE_TOOL_ERROR : ROLE_DIM, line);
		free(line);
		free(first);
		break;
	}
	case EV_STATUS:
		/* A turn's text has ended by the time its agent changes
		 * status; what waited for it follows. */
		if (p != NULL)
			pane_end_stream(p);
		pane_set_status(p, jstr(d, "status"));
		if (strcmp(jstr(d, "status"), "terminated") == 0)
			pane_add(p, ROLE_DIM, "— terminated —");
		break;
	case EV_MESSAGE:
		view_message(v, d);
		break;
	case EV_REQUEST:
		view_request(v, d);
		break;
	case EV_ERROR:
		if (p != NULL) {
			line = xasprintf("✗ %s", jstr(d, "message"));
			pane_add(p, ROLE_ERROR, line);
			free(line);
		} else
			view_hint(v, ROLE_ERROR, "%s", jstr(d, "message"));
		break;
	case EV_RETRY:
		line = xasprintf("↻ %s; retrying in %.1f s", jstr(d, "message"),
		    (double)json_integer_value(json_object_get(d,
		    "delay_ms")) / 1000.0);
		pane_add(p, ROLE_DIM, line);
		free(line);
		break;
	case EV_USAGE:
		if (p != NULL)
			pane_end_stream(p);	/* the call is over */
		view_usage(v, p, d);
		break;
	case EV_BUDGET:
		view_hint(v, ROLE_ERROR, "the team has spent $%.2f of its "
		    "$%.2f limit: no new model call starts (/budget USD raises "
		    "it)", json_real_value(json_object_get(d, "team_cost_usd")),
		    json_real_value(json_object_get(d, "max_cost_usd")));
		break;
	case EV_SPAWNED:
		view_model(v, view_pane(v, e->agent, jstr(d, "role")),
		    jstr(d, "model"));
		break;
	case EV_NOTICE:
		if (e->agent == NULL)
			view_hint(v, ROLE_HINT, "%s", jstr(d, "message"));
		else if (!json_is_true(json_object_get(d, "quiet"))) {
			line = xasprintf("— %s —", jstr(d, "message"));
			pane_add(p, ROLE_DIM, line);
			free(line);
		}
		break;
	default:
		return 0;
	}
	return 1;
}
