/*
 * Unit tests of agent/mcptools.c on a live team with the test MCP server
 * (tests/mcp/server.py, over stdio): its tools join an agent's list, a
 * tool the settings allow runs without asking, another waits for the
 * person's permission (refused: not called; approved: called), a tool
 * the server lacks is no tool, and /mcp names the server.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "agent/mcptools.h"
#include "liveteam.h"
#include "mcp/set.h"
#include "util/clock.h"
#include "util/xmalloc.h"

/* A team whose settings name the server "test", echo allowed. */
static void
open_with_server(struct lt *l)
{
	char *script = tu_source_file("tests/mcp/server.py"), *path;

	ck_assert_msg(script != NULL, "tests/mcp/server.py ($top_srcdir)");
	lt_init(l, LT_OK_ALWAYS);
	lt_write(l, "server.py", script);
	free(script);
	path = xasprintf("%s/server.py", l->work);
	l->o.mcp_servers = json_pack("{s:{s:s, s:[s]}}", "test", "command",
	    "python3", "args", path);
	l->o.mcp_origin = "settings";
	l->o.mcp_allow = json_pack("[s]", "mcp__test__echo");
	free(path);
	lt_start(l);
	/* It starts in the background: its tools are there once ready. */
	ck_assert_uint_eq(mcp_set_wait(l->team->mcp.set,
	    clock_mono_ms() + 30000), 1);
}

static void
close_with_server(struct lt *l)
{
	json_decref(l->o.mcp_servers);
	json_decref(l->o.mcp_allow);
	lt_close(l);
}

START_TEST(tools_listed_and_an_allowed_one_runs)
{
	struct lt l;
	struct tool_output o;
	json_t *list = json_array(), *tool;
	size_t i;
	int echo = 0, add = 0;
	char *text;

	open_with_server(&l);
	mcptools_list(lt_agent(&l, "lead"), list);
	json_array_foreach(list, i, tool) {
		const char *name = json_string_value(json_object_get(tool,
		    "name"));

		echo |= strcmp(name, "mcp__test__echo") == 0;
		add |= strcmp(name, "mcp__test__add") == 0;
	}
	json_decref(list);
	ck_assert(echo && add);
	lt_tool(&l, "lead", "mcp__test__echo", "{\"text\": \"hi-5\"}", &o);
	ck_assert_msg(!o.is_error, "%s", o.text);
	ck_assert_ptr_nonnull(strstr(o.text, "echo: hi-5"));
	tool_output_clear(&o);
	ck_assert_uint_eq(lt_count(&l, EV_REQUEST, NULL, NULL), 0);
	lt_tool(&l, "lead", "mcp__test__nope", "{}", &o);
	ck_assert_int_eq(o.is_error, 1);
	tool_output_clear(&o);
	lt_tool(&l, "lead", "mcp__other__echo", "{}", &o);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_ptr_nonnull(strstr(o.text, "no tool named"));
	tool_output_clear(&o);
	text = mcptools_text(l.team);
	ck_assert_ptr_nonnull(strstr(text, "test"));
	free(text);
	close_with_server(&l);
}
END_TEST

struct caller {
	struct lt		*l;
	const char		*input;
	struct tool_output	 out;
};

static void *
caller_main(void *arg)
{
	struct caller *c = arg;
	json_t *in = json_loads(c->input, 0, NULL);
	char *err = NULL;
	/* A member of its own: the lead's agent belongs to its thread. */
	struct agent *a = team_tool_member(c->l->team, "lead", &err);

	ck_assert_msg(a != NULL, "%s", err);
	team_tool_call(a, "mcp__test__add", in, &c->out);
	team_tool_member_free(a);
	json_decref(in);
	return NULL;
}

START_TEST(another_tool_asks_first)
{
	struct lt l;
	struct caller c = { &l, "{\"a\": 2, \"b\": 40}", { 0 } };
	pthread_t th;
	char *msg = NULL;
	json_t *list;

	open_with_server(&l);
	/* The servers start when the tools are first listed. */
	list = json_array();
	mcptools_list(lt_agent(&l, "lead"), list);
	json_decref(list);
	/* Refused: not called. */
	ck_assert_int_eq(pthread_create(&th, NULL, caller_main, &c), 0);
	lt_need(&l, EV_REQUEST, NULL, "mcp__test__add");
	ck_assert_int_eq(team_decide(l.team, NULL, 0, "no", &msg),
	    PROTO_DECIDED);
	free(msg);
	msg = NULL;
	pthread_join(th, NULL);
	ck_assert_int_eq(c.out.is_error, 1);
	ck_assert_ptr_nonnull(strstr(c.out.text, "was not called"));
	tool_output_clear(&c.out);
	/* Approved: called. */
	lt_set_mark(&l);
	ck_assert_int_eq(pthread_create(&th, NULL, caller_main, &c), 0);
	lt_need(&l, EV_REQUEST, NULL, "\"status\":\"pending\"");
	ck_assert_int_eq(team_decide(l.team, NULL, 1, "", &msg),
	    PROTO_DECIDED);
	free(msg);
	pthread_join(th, NULL);
	ck_assert_msg(!c.out.is_error, "%s", c.out.text);
	ck_assert_ptr_nonnull(strstr(c.out.text, "42"));
	tool_output_clear(&c.out);
	close_with_server(&l);
}
END_TEST

static Suite *
mcptools_suite(void)
{
	Suite *s = suite_create("mcptools");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, tools_listed_and_an_allowed_one_runs);
	tcase_add_test(tc, another_tool_asks_first);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, mcptools_suite());
}
