/*
 * Unit tests of agent/toolset.c: the table of tools the models are told
 * of — found by name with its number, handed to a lead or a teammate as
 * the API wants them, each schema well formed and its required fields
 * among its properties.
 */
#include "config.h"

#include <string.h>

#include "agent/toolset.h"
#include "testutil.h"

/* Every tool in the table, by number. */
static const struct tool_def *
def_of(enum tool_id id)
{
	static const char *const names[TOOL_COUNT] = {
		[TOOL_BASH] = "bash", [TOOL_READ_FILE] = "read_file",
		[TOOL_WRITE_FILE] = "write_file",
		[TOOL_EDIT_FILE] = "edit_file",
		[TOOL_SEND_MESSAGE] = "send_message",
		[TOOL_READ_INBOX] = "read_inbox",
		[TOOL_SPAWN_TEAMMATE] = "spawn_teammate",
		[TOOL_LIST_TEAMMATES] = "list_teammates",
		[TOOL_BROADCAST] = "broadcast",
		[TOOL_REQUEST_SHUTDOWN] = "request_shutdown",
		[TOOL_REVIEW_PLAN] = "review_plan",
		[TOOL_SUBMIT_PLAN] = "submit_plan",
		[TOOL_SHUTDOWN_RESPONSE] = "shutdown_response",
		[TOOL_TASK_CREATE] = "task_create",
		[TOOL_TASK_LIST] = "task_list", [TOOL_TASK_GET] = "task_get",
		[TOOL_TASK_CLAIM] = "task_claim",
		[TOOL_TASK_UPDATE] = "task_update",
		[TOOL_TASK_ASSIGN] = "task_assign",
	};
	enum tool_id got = TOOL_COUNT;
	const struct tool_def *d;

	ck_assert_ptr_nonnull(names[id]);
	d = toolset_find(names[id], &got);
	ck_assert_msg(d != NULL, "%s is not found", names[id]);
	ck_assert_str_eq(d->name, names[id]);
	ck_assert_int_eq(got, id);
	return d;
}

START_TEST(find_gives_each_tool_its_number)
{
	enum tool_id id = TOOL_COUNT;
	int i;

	for (i = 0; i < TOOL_COUNT; i++)
		def_of((enum tool_id)i);
	ck_assert_ptr_null(toolset_find("no_such_tool", &id));
	ck_assert_int_eq(id, TOOL_COUNT);	/* left alone */
	ck_assert_ptr_null(toolset_find("", NULL));
	ck_assert_ptr_null(toolset_find("Bash", NULL));
	ck_assert_ptr_nonnull(toolset_find("task_get", NULL));
	ck_assert(toolset_known("bash"));
	ck_assert(toolset_known("task_assign"));
	ck_assert(!toolset_known("mcp__x__y"));
	ck_assert(!toolset_known("bash "));
}
END_TEST

START_TEST(the_gate_holds_what_changes_things)
{
	ck_assert(def_of(TOOL_BASH)->gated);
	ck_assert(def_of(TOOL_WRITE_FILE)->gated);
	ck_assert(def_of(TOOL_EDIT_FILE)->gated);
	ck_assert(!def_of(TOOL_READ_FILE)->gated);
	ck_assert(!def_of(TOOL_SUBMIT_PLAN)->gated);
	ck_assert(!def_of(TOOL_SEND_MESSAGE)->gated);
	ck_assert_uint_eq(def_of(TOOL_SPAWN_TEAMMATE)->who, FOR_LEAD);
	ck_assert_uint_eq(def_of(TOOL_SUBMIT_PLAN)->who, FOR_TEAMMATE);
	ck_assert_uint_eq(def_of(TOOL_TASK_CLAIM)->who, FOR_TEAMMATE);
	ck_assert_uint_eq(def_of(TOOL_BASH)->who, FOR_BOTH);
}
END_TEST

/* Whether list holds a tool called name. */
static int
has(json_t *list, const char *name)
{
	json_t *v;
	size_t i;

	json_array_foreach(list, i, v) {
		if (strcmp(json_string_value(json_object_get(v, "name")),
		    name) == 0)
			return 1;
	}
	return 0;
}

START_TEST(lead_and_teammate_get_their_own_tools)
{
	json_t *lead = toolset_for(1), *mate = toolset_for(0);
	size_t nlead = 0, nmate = 0;
	int i;

	for (i = 0; i < TOOL_COUNT; i++) {
		const struct tool_def *d = def_of((enum tool_id)i);

		ck_assert_int_eq(has(lead, d->name), (d->who & FOR_LEAD) != 0);
		ck_assert_int_eq(has(mate, d->name),
		    (d->who & FOR_TEAMMATE) != 0);
		nlead += (d->who & FOR_LEAD) != 0;
		nmate += (d->who & FOR_TEAMMATE) != 0;
	}
	ck_assert_uint_eq(json_array_size(lead), nlead);
	ck_assert_uint_eq(json_array_size(mate), nmate);
	ck_assert(has(lead, "spawn_teammate") && !has(mate,
	    "spawn_teammate"));
	ck_assert(has(mate, "submit_plan") && !has(lead, "submit_plan"));
	json_decref(lead);
	json_decref(mate);
}
END_TEST

START_TEST(every_schema_is_an_object_with_its_required_fields)
{
	json_t *list[2] = { toolset_for(1), toolset_for(0) }, *v, *r;
	size_t i, j, k;

	for (k = 0; k < 2; k++) {
		json_array_foreach(list[k], i, v) {
			json_t *schema = json_object_get(v, "input_schema");
			json_t *props = json_object_get(schema, "properties");
			const char *name = json_string_value(json_object_get(v,
			    "name"));

			ck_assert_uint_eq(json_object_size(v), 3);
			ck_assert_ptr_nonnull(name);
			ck_assert_int_gt(strlen(json_string_value(
			    json_object_get(v, "description"))), 10);
			ck_assert_str_eq(json_string_value(json_object_get(
			    schema, "type")), "object");
			ck_assert_msg(json_is_object(props), "%s", name);
			json_array_foreach(json_object_get(schema, "required"),
			    j, r)
				ck_assert_msg(json_object_get(props,
				    json_string_value(r)) != NULL,
				    "%s requires %s, which it lacks", name,
				    json_string_value(r));
		}
	}
	/* A few the tools rely on. */
	v = json_array_get(list[0], 0);
	ck_assert_str_eq(json_string_value(json_object_get(v, "name")),
	    "bash");
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(
	    json_object_get(v, "input_schema"), "required"), 0)), "command");
	json_decref(list[0]);
	json_decref(list[1]);
}
END_TEST

START_TEST(each_call_builds_a_list_of_its_own)
{
	json_t *a = toolset_for(1), *b = toolset_for(1);

	ck_assert_ptr_ne(a, b);
	ck_assert(json_equal(a, b));
	ck_assert_ptr_ne(json_array_get(a, 0), json_array_get(b, 0));
	ck_assert_ptr_ne(json_object_get(json_array_get(a, 0),
	    "input_schema"), json_object_get(json_array_get(b, 0),
	    "input_schema"));
	/* Changing one leaves the other as it was. */
	json_array_clear(a);
	ck_assert_uint_gt(json_array_size(b), 0);
	ck_assert_int_eq(a->refcount, 1);
	ck_assert_int_eq(json_array_get(b, 0)->refcount, 1);
	json_decref(a);
	json_decref(b);
}
END_TEST

static Suite *
toolset_suite(void)
{
	Suite *s = suite_create("toolset");
	TCase *tc = tcase_create("toolset");

	tcase_add_test(tc, find_gives_each_tool_its_number);
	tcase_add_test(tc, the_gate_holds_what_changes_things);
	tcase_add_test(tc, lead_and_teammate_get_their_own_tools);
	tcase_add_test(tc, every_schema_is_an_object_with_its_required_fields);
	tcase_add_test(tc, each_call_builds_a_list_of_its_own);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(toolset_suite());
}
