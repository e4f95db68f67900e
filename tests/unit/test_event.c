/*
 * Unit tests of agent/event: every constructor writes what the schema
 * table says, as the stream always wrote it; doc/headless.md's table of
 * events names every kind and field of the schema, with its type, and
 * nothing else; the accessors read a missing field or one of another type
 * as empty; and the screen takes events with fields missing or of the
 * wrong type, or with no agent, without harm.
 */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/event.h"
#include "core/message.h"
#include "core/protocol.h"
#include "core/task.h"
#include "testutil.h"
#include "ui/view.h"

/* One of every kind, through the constructors; NULL strings too. */
static void
push_all(struct evq *q, int nulls)
{
	struct member m = { 0 };
	struct message msg = { 0 };
	struct request r = { 0 };
	struct task k = { 0 };
	int64_t after[] = { 1, 2 };
	json_t *input = json_pack("{s:s}", "command", "ls");

	m.tokens_in = 10;
	m.cost = 0.5;
	msg.id = 3;
	msg.from = nulls ? NULL : "lead";
	msg.to = "ann";
	msg.type = MSG_MESSAGE;
	msg.content = nulls ? NULL : "hi";
	msg.metadata = nulls ? NULL : json_object();
	snprintf(r.id, sizeof r.id, "req_0000abcd");
	r.type = REQ_PERMISSION;
	r.from = "ann";
	r.to = "user";
	r.body = nulls ? NULL : "{\"tool\":\"bash\",\"command\":\"rm -r x\"}";
	snprintf(k.id, sizeof k.id, "t3");
	k.num = 3;
	k.subject = nulls ? NULL : "s";
	k.description = "";
	k.owner = nulls ? NULL : "ann";
	k.blocked_by = after;
	k.nblocked_by = 2;
	k.created_by = "lead";
	k.result = "";
	k.checked = TASK_FAILED;
	k.check_output = "it failed";
	k.worktree = nulls ? NULL : "w1";

	event_text(q, "ann", nulls ? NULL : "hello", nulls ? 0 : 5);
	event_thinking(q, "bob", "hm", 2);
	event_thinking_redacted(q, "ann");
	event_llm_call(q, "ann", 1);
	event_tool_call(q, "ann", nulls ? NULL : "bash", nulls ? NULL : "t1",
	    nulls ? NULL : input);
	event_tool_result(q, "ann", "bash", "t1", 1, nulls ? NULL : "out", NULL);
	event_status(q, "ann", MEMBER_WAITING, nulls ? NULL : "why");
	event_message(q, &msg);
	event_request(q, &r);
	event_task(q, &k);
	event_error(q, "ann", "failed: %s", "x");
	event_retry(q, "ann", nulls ? NULL : "busy", 2, 1500, !nulls);
	event_usage(q, "ann", &m, nulls ? NULL : "m1", 1.25);
	event_spawned(q, "ann", "coder", 1, nulls ? NULL : "m1", 0,
	    nulls ? NULL : "abc");
	event_relaunched(q, "bob", nulls ? NULL : "coder", 0, "m2", 1, 1);
	event_notice(q, NULL, "made the worktree %s", "w1");
	event_notice_quiet(q, "ann", "stopped");
	event_notice_asked(q, "quitting", 2);
	evq_notice(q, nulls ? NULL : "full");
	event_budget(q, "ann", 1.5, 1);
	event_context(q, "ann", 100, 1000);
	event_compaction(q, "ann", nulls ? NULL : "client", 900, 100, 1000);
	json_decref(input);
	if (msg.metadata != NULL)
		json_decref(msg.metadata);
}

START_TEST(every_constructor_follows_the_schema)
{
	struct evq q;
	struct event *list, *e;
	int seen[EV_TYPE_COUNT] = { 0 }, nulls, i;
	char *err = NULL;

	for (nulls = 0; nulls < 2; nulls++) {
		evq_init(&q);
		push_all(&q, nulls);
		list = evq_take(&q);
		for (e = list; e != NULL; e = e->next) {
			ck_assert_msg(event_check(e->type, e->data, &err) == 0,
			    "%s", err);
			seen[e->type]++;
		}
		event_free_list(list);
		evq_destroy(&q);
	}
	for (i = 0; i < EV_TYPE_COUNT; i++)
		ck_assert_msg(seen[i] > 0, "no %s event made",
		    event_type_name((enum event_type)i));
}
END_TEST

/* The data of the next event, written as the stream writes it. */
static char *
next_data(struct event **e)
{
	char *s = json_dumps((*e)->data, JSON_COMPACT | JSON_ENSURE_ASCII);

	*e = (*e)->next;
	return s;
}

START_TEST(constructors_write_as_the_stream_did)
{
	static const char *const want[] = {
		"{\"text\":\"hello\"}",
		"{\"text\":\"hm\"}",
		"{\"redacted\":true}",
		"{\"round\":1}",
		"{\"tool\":\"bash\",\"id\":\"t1\",\"input\":"
		    "{\"command\":\"ls\"}}",
		"{\"tool\":\"bash\",\"id\":\"t1\",\"is_error\":true,"
		    "\"output\":\"out\"}",
		"{\"status\":\"waiting\",\"detail\":\"why\"}",
		"{\"id\":3,\"from\":\"lead\",\"to\":\"ann\","
		    "\"type\":\"message\",\"content\":\"hi\",\"metadata\":{},"
		    "\"created_at\":0}",
		NULL,	/* the request: its permission is permbody's */
		"{\"id\":\"t3\",\"subject\":\"s\",\"description\":\"\","
		    "\"status\":\"pending\",\"owner\":\"ann\",\"owner_gone\":"
		    "false,\"blocked_by\":[\"t1\",\"t2\"],\"blocked\":false,"
		    "\"created_by\":\"lead\",\"result\":\"\",\"verify\":null,"
		    "\"checked\":\"failed\",\"created_at\":0,\"updated_at\":0,"
		    "\"check_output\":\"it failed\",\"worktree\":\"w1\","
		    "\"worktree_busy\":false}",
		"{\"message\":\"failed: x\"}",
		"{\"message\":\"busy\",\"attempt\":2,\"delay_ms\":1500,"
		    "\"discarded\":true}",
		"{\"input_tokens\":10,\"output_tokens\":0,"
		    "\"cache_write_tokens\":0,\"cache_read_tokens\":0,"
		    "\"cost_usd\":0.5,\"model\":\"m1\",\"team_cost_usd\":1.25}",
		"{\"role\":\"coder\",\"plan_required\":true,\"model\":\"m1\","
		    "\"autonomous\":false,\"worktree_base\":\"abc\"}",
		"{\"role\":\"coder\",\"plan_required\":false,\"model\":\"m2\","
		    "\"autonomous\":true,\"resumed\":true}",
		"{\"message\":\"made the worktree w1\"}",
		"{\"message\":\"stopped\",\"quiet\":true}",
		"{\"message\":\"quitting\",\"asked\":2}",
		"{\"message\":\"full\"}",
		"{\"team_cost_usd\":1.5,\"max_cost_usd\":1.0}",
		"{\"context_tokens\":100,\"context_window\":1000}",
		"{\"kind\":\"client\",\"before\":900,\"after\":100,"
		    "\"context_window\":1000}",
	};
	struct evq q;
	struct event *list, *e;
	size_t i;
	char *s;

	evq_init(&q);
	push_all(&q, 0);
	e = list = evq_take(&q);
	for (i = 0; i < sizeof want / sizeof *want; i++) {
		ck_assert_ptr_nonnull(e);
		if (want[i] == NULL) {
			ck_assert_str_eq(e->agent, "user");
			ck_assert_ptr_nonnull(event_obj(e->data, "permission"));
			e = e->next;
			continue;
		}
		s = next_data(&e);
		ck_assert_str_eq(s, want[i]);
		free(s);
	}
	ck_assert_ptr_null(e);
	event_free_list(list);
	evq_destroy(&q);
}
END_TEST

START_TEST(text_from_one_agent_is_joined)
{
	struct evq q;
	struct event *list;

	evq_init(&q);
	event_text(&q, "ann", "hel", 3);
	event_text(&q, "ann", "lo", 2);
	event_text(&q, "bob", "x", 1);
	list = evq_take(&q);
	ck_assert_str_eq(event_str(list->data, "text"), "hello");
	ck_assert_str_eq(list->next->agent, "bob");
	ck_assert_ptr_null(list->next->next);
	event_free_list(list);
	evq_destroy(&q);
}
END_TEST

START_TEST(the_check_finds_what_is_wrong)
{
	json_t *d = json_pack("{s:s}", "status", "idle");
	char *err = NULL;

	ck_assert_int_eq(event_check(EV_STATUS, d, &err), 0);
	json_object_set_new(d, "detail", json_integer(1));
	ck_assert_int_eq(event_check(EV_STATUS, d, &err), -1);
	ck_assert_str_eq(err, "status: detail is not of type string");
	free(err);
	json_object_set_new(d, "detail", json_string("x"));
	json_object_set_new(d, "extra", json_true());
	ck_assert_int_eq(event_check(EV_STATUS, d, &err), -1);
	free(err);
	json_object_clear(d);
	ck_assert_int_eq(event_check(EV_STATUS, d, &err), -1);
	ck_assert_str_eq(err, "status: no status");
	free(err);
	ck_assert_int_eq(event_check(EV_STATUS, NULL, &err), -1);
	free(err);
	json_decref(d);
}
END_TEST

START_TEST(accessors_read_missing_and_wrong_fields_as_empty)
{
	json_t *d = json_pack("{s:s, s:i, s:f, s:b, s:{}, s:[], s:n}", "s",
	    "x", "i", 7, "f", 2.5, "b", 1, "o", "a", "n");

	ck_assert_str_eq(event_str(d, "s"), "x");
	ck_assert_int_eq(event_int(d, "i"), 7);
	ck_assert(event_num(d, "f") == 2.5);
	ck_assert(event_num(d, "i") == 7.0);
	ck_assert_int_eq(event_bool(d, "b"), 1);
	ck_assert_ptr_nonnull(event_obj(d, "o"));
	ck_assert_ptr_nonnull(event_array(d, "a"));
	/* Missing. */
	ck_assert_str_eq(event_str(d, "none"), "");
	ck_assert_int_eq(event_int(d, "none"), 0);
	ck_assert(event_num(d, "none") == 0.0);
	ck_assert_int_eq(event_bool(d, "none"), 0);
	ck_assert_ptr_null(event_obj(d, "none"));
	ck_assert_ptr_null(event_array(d, "none"));
	/* Of another type, null too. */
	ck_assert_str_eq(event_str(d, "i"), "");
	ck_assert_str_eq(event_str(d, "n"), "");
	ck_assert_int_eq(event_int(d, "s"), 0);
	ck_assert_int_eq(event_int(d, "f"), 0);
	ck_assert(event_num(d, "s") == 0.0);
	ck_assert_int_eq(event_bool(d, "s"), 0);
	ck_assert_int_eq(event_bool(d, "i"), 0);
	ck_assert_ptr_null(event_obj(d, "a"));
	ck_assert_ptr_null(event_array(d, "o"));
	/* No data at all, or data that is no object. */
	ck_assert_str_eq(event_str(NULL, "s"), "");
	ck_assert_int_eq(event_int(NULL, "i"), 0);
	ck_assert_ptr_null(event_obj(NULL, "o"));
	ck_assert_str_eq(event_str(json_object_get(d, "a"), "s"), "");
	json_decref(d);
}
END_TEST

/* --- the doc's table ---------------------------------------------------- */

/* The kind a name in backquotes names, or -1. */
static int
kind_of(const char *name, size_t len)
{
	int i;

	for (i = 0; i < EV_TYPE_COUNT; i++) {
		const char *n = event_type_name((enum event_type)i);

		if (strlen(n) == len && strncmp(n, name, len) == 0)
			return i;
	}
	return -1;
}

/* Checks one documented field, "`name` type [*optional*]", against the
 * schema's rows of kind; counts it. */
static void
check_field(int kind, const char *item, size_t len, size_t *count)
{
	static const char opt[] = " *optional*";
	const struct event_field *f;
	size_t n, i, nlen;
	const char *name, *type;
	int optional = 0;
	char *text = strndup(item, len);

	while (len > 0 && text[len - 1] == ' ')
		text[--len] = '\0';
	ck_assert_msg(text[0] == '`', "%s: a field not in backquotes: %s",
	    event_type_name((enum event_type)kind), text);
	name = text + 1;
	nlen = strcspn(name, "`");
	type = name + nlen + 1;
	if (*type == ' ')
		type++;
	if (len > sizeof opt - 1 && strcmp(text + len - (sizeof opt - 1),
	    opt) == 0) {
		optional = 1;
		text[len - (sizeof opt - 1)] = '\0';
	}
	f = event_schema(&n);
	for (i = 0; i < n; i++) {
		if ((int)f[i].kind == kind && strlen(f[i].name) == nlen &&
		    strncmp(f[i].name, name, nlen) == 0)
			break;
	}
	ck_assert_msg(i < n, "doc/headless.md: %s has no field %.*s",
	    event_type_name((enum event_type)kind), (int)nlen, name);
	ck_assert_msg(strcmp(type, event_ftype_name(f[i].type)) == 0,
	    "doc/headless.md: %s's %s is %s, not %s",
	    event_type_name((enum event_type)kind), f[i].name,
	    event_ftype_name(f[i].type), type);
	ck_assert_msg(optional == f[i].optional, "doc/headless.md: %s's %s "
	    "is %s", event_type_name((enum event_type)kind), f[i].name,
	    f[i].optional ? "optional" : "required");
	(*count)++;
	free(text);
}

START_TEST(the_doc_table_is_the_schema)
{
	char *doc = tu_source_file("doc/headless.md"), *p, *end, *cell, *bar;
	char *line;
	int rows[EV_TYPE_COUNT] = { 0 }, kind, i;
	size_t fields[EV_TYPE_COUNT] = { 0 }, want[EV_TYPE_COUNT] = { 0 };
	const struct event_field *f;
	size_t n, j;

	ck_assert_msg(doc != NULL, "doc/headless.md not found (top_srcdir?)");
	p = strstr(doc, "\n## Events\n");
	ck_assert_ptr_nonnull(p);
	end = strstr(p + 1, "\n## ");
	ck_assert_ptr_nonnull(end);
	*end = '\0';
	while ((p = strstr(p, "\n| `")) != NULL) {
		p += 4;
		line = strndup(p, strcspn(p, "\n"));
		p += strlen(line);
		kind = kind_of(line, strcspn(line, "`"));
		ck_assert_msg(kind >= 0, "doc/headless.md documents an event "
		    "there is not: %.*s", (int)strcspn(line, "`"), line);
		rows[kind]++;
		cell = strchr(line, '|');
		ck_assert_ptr_nonnull(cell);
		cell += 2;
		bar = strchr(cell, '|');
		ck_assert_ptr_nonnull(bar);
		*bar = '\0';
		while (*cell != '\0') {
			size_t len = strcspn(cell, ",");

			check_field(kind, cell, len, &fields[kind]);
			cell += len;
			cell += strspn(cell, ", ");
		}
		free(line);
	}
	f = event_schema(&n);
	for (j = 0; j < n; j++)
		want[f[j].kind]++;
	for (i = 0; i < EV_TYPE_COUNT; i++) {
		ck_assert_msg(rows[i] == 1, "doc/headless.md has %d rows for "
		    "%s", rows[i], event_type_name((enum event_type)i));
		ck_assert_msg(fields[i] == want[i], "doc/headless.md names "
		    "%zu fields of %s, the schema %zu", fields[i],
		    event_type_name((enum event_type)i), want[i]);
	}
	free(doc);
}
END_TEST

/* --- the screen --------------------------------------------------------- */

/* Feeds the view one event of kind with data d (stolen) about agent. */
static void
feed(struct view *v, enum event_type kind, const char *agent, json_t *d)
{
	struct event e = { 0 };

	e.type = kind;
	e.agent = (char *)agent;
	e.data = d;
	view_apply(v, &e);
	json_decref(d);
}

/* Data with every field of kind's schema, each of a wrong type. */
static json_t *
wrong_types(enum event_type kind)
{
	const struct event_field *f;
	json_t *d = json_object();
	size_t n, i;

	f = event_schema(&n);
	for (i = 0; i < n; i++) {
		if (f[i].kind != kind)
			continue;
		json_object_set_new(d, f[i].name, f[i].type == EVF_STRING ||
		    f[i].type == EVF_STRING_NULL ? json_integer(7) :
		    json_string("x"));
	}
	return d;
}

START_TEST(the_screen_takes_events_it_cannot_read)
{
	static const char *const agents[] = { NULL, "ann" };
	struct view *v = view_new(NULL);
	struct evq q;
	struct event *list, *e;
	size_t a, i;
	int k;

	for (a = 0; a < 2; a++) {
		for (k = 0; k < EV_TYPE_COUNT; k++) {
			feed(v, (enum event_type)k, agents[a], json_object());
			feed(v, (enum event_type)k, agents[a],
			    wrong_types((enum event_type)k));
			feed(v, (enum event_type)k, agents[a], json_null());
			feed(v, (enum event_type)k, agents[a], NULL);
		}
	}
	/* No pane for no one. */
	for (i = 0; i < v->npanes; i++)
		ck_assert_str_ne(v->panes[i]->name, "");
	/* Then what the constructors make, with and without NULLs. */
	evq_init(&q);
	push_all(&q, 1);
	push_all(&q, 0);
	list = evq_take(&q);
	for (e = list; e != NULL; e = e->next)
		view_apply(v, e);
	event_free_list(list);
	evq_destroy(&q);
	ck_assert_str_eq(view_pane(v, "ann", NULL)->role, "coder");
	ck_assert_str_eq(view_pane(v, "bob", NULL)->model, "m2");
	view_free(v);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("event");
	TCase *tc = tcase_create("core");

	setlocale(LC_CTYPE, "C.UTF-8");
	tcase_add_test(tc, every_constructor_follows_the_schema);
	tcase_add_test(tc, constructors_write_as_the_stream_did);
	tcase_add_test(tc, text_from_one_agent_is_joined);
	tcase_add_test(tc, the_check_finds_what_is_wrong);
	tcase_add_test(tc, accessors_read_missing_and_wrong_fields_as_empty);
	tcase_add_test(tc, the_doc_table_is_the_schema);
	tcase_add_test(tc, the_screen_takes_events_it_cannot_read);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
