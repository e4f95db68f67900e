/*
 * Unit tests of agent/tools.c: tools_run on the agents of a live team —
 * files written, read and edited, a command's output, a tool that is not
 * the caller's or input that is not an object, the plan gate before
 * bash and the file tools, messages and the team list, a spawn from the
 * lead, and a risky command that waits for the person's permission.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "agent/teamstate.h"
#include "agent/tools.h"
#include "liveteam.h"
#include "util/xmalloc.h"

START_TEST(files_are_written_read_and_edited)
{
	struct lt l;
	struct tool_output o;
	char *text;

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	lt_tool(&l, "lead", "write_file", "{\"path\": \"a/b.txt\", "
	    "\"content\": \"one two\\n\"}", &o);
	ck_assert_msg(!o.is_error, "%s", o.text);
	tool_output_clear(&o);
	lt_tool(&l, "lead", "edit_file", "{\"path\": \"a/b.txt\", "
	    "\"old_text\": \"two\", \"new_text\": \"three\"}", &o);
	ck_assert_msg(!o.is_error, "%s", o.text);
	tool_output_clear(&o);
	text = lt_read(&l, "a/b.txt");
	ck_assert_str_eq(text, "one three\n");
	free(text);
	lt_tool(&l, "lead", "read_file", "{\"path\": \"a/b.txt\"}", &o);
	ck_assert_msg(!o.is_error, "%s", o.text);
	ck_assert_ptr_nonnull(strstr(o.text, "one three"));
	tool_output_clear(&o);
	/* Outside the working directory: refused. */
	lt_tool(&l, "lead", "read_file", "{\"path\": \"/etc/shadow\"}", &o);
	ck_assert_int_eq(o.is_error, 1);
	tool_output_clear(&o);
	lt_close(&l);
}
END_TEST

START_TEST(a_command_runs_in_the_workdir)
{
	struct lt l;
	struct tool_output o;

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	lt_write(&l, "here.txt", "x");
	lt_tool(&l, "lead", "bash", "{\"command\": \"ls; echo made-$((6*7))\"}",
	    &o);
	ck_assert_msg(!o.is_error, "%s", o.text);
	ck_assert_ptr_nonnull(strstr(o.text, "here.txt"));
	ck_assert_ptr_nonnull(strstr(o.text, "made-42"));
	tool_output_clear(&o);
	lt_tool(&l, "lead", "bash", "{}", &o);
	ck_assert_int_eq(o.is_error, 1);
	tool_output_clear(&o);
	lt_close(&l);
}
END_TEST

START_TEST(what_is_not_a_tool_is_an_error)
{
	struct lt l;
	struct tool_output o;

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	lt_spawn_idle(&l, "alice", 0);
	lt_tool(&l, "lead", "no_such_tool", "{}", &o);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_ptr_nonnull(strstr(o.text, "no tool named 'no_such_tool'"));
	tool_output_clear(&o);
	/* The lead's tools are not a teammate's, and the other way. */
	lt_tool(&l, "alice", "spawn_teammate", "{\"name\": \"bob\", "
	    "\"role\": \"x\", \"prompt\": \"y\"}", &o);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_ptr_nonnull(strstr(o.text, "no tool named"));
	tool_output_clear(&o);
	ck_assert_ptr_null(roster_get(team_store(l.team), "bob"));
	lt_tool(&l, "lead", "submit_plan", "{\"plan\": \"x\"}", &o);
	ck_assert_int_eq(o.is_error, 1);
	tool_output_clear(&o);
	lt_tool(&l, "lead", "write_file", "[1]", &o);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_ptr_nonnull(strstr(o.text, "must be a JSON object"));
	tool_output_clear(&o);
	lt_close(&l);
}
END_TEST

START_TEST(the_plan_gate_holds_until_approval)
{
	struct lt l;
	struct tool_output o;
	char *err = NULL, *text;

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	lt_spawn_idle(&l, "bob", 1);
	lt_tool(&l, "bob", "write_file", "{\"path\": \"x.txt\", \"content\": "
	    "\"x\"}", &o);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_ptr_nonnull(strstr(o.text, "plan not approved"));
	tool_output_clear(&o);
	lt_tool(&l, "bob", "bash", "{\"command\": \"touch y.txt\"}", &o);
	ck_assert_int_eq(o.is_error, 1);
	tool_output_clear(&o);
	ck_assert_ptr_null(lt_read(&l, "x.txt"));
	ck_assert_ptr_null(lt_read(&l, "y.txt"));
	/* Reading is not gated. */
	lt_write(&l, "r.txt", "read me");
	lt_tool(&l, "bob", "read_file", "{\"path\": \"r.txt\"}", &o);
	ck_assert_msg(!o.is_error, "%s", o.text);
	tool_output_clear(&o);
	/* Approved in the store, under its lock, as the engine does. */
	ck_assert_int_eq(store_begin(team_store(l.team), &err), 0);
	ck_assert_int_eq(roster_approve_plan_tx(team_store(l.team), "bob",
	    &err), 0);
	ck_assert_int_eq(store_commit(team_store(l.team), 1, &err), 0);
	store_unlock(team_store(l.team));
	lt_tool(&l, "bob", "write_file", "{\"path\": \"x.txt\", \"content\": "
	    "\"x\"}", &o);
	ck_assert_msg(!o.is_error, "%s", o.text);
	tool_output_clear(&o);
	text = lt_read(&l, "x.txt");
	ck_assert_str_eq(text, "x");
	free(text);
	lt_close(&l);
}
END_TEST

START_TEST(messages_and_the_team_list)
{
	struct lt l;
	struct tool_output o;

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	lt_spawn_idle(&l, "alice", 0);
	lt_tool(&l, "lead", "send_message", "{\"to\": \"alice\", \"content\": "
	    "\"ping-77\"}", &o);
	ck_assert_msg(!o.is_error, "%s", o.text);
	tool_output_clear(&o);
	lt_need(&l, EV_MESSAGE, NULL, "ping-77");
	lt_tool(&l, "lead", "send_message", "{\"to\": \"nobody\", "
	    "\"content\": \"x\"}", &o);
	ck_assert_int_eq(o.is_error, 1);
	tool_output_clear(&o);
	lt_tool(&l, "lead", "list_teammates", "{}", &o);
	ck_assert_msg(!o.is_error, "%s", o.text);
	ck_assert_ptr_nonnull(strstr(o.text, "alice"));
	ck_assert_ptr_nonnull(strstr(o.text, "coder"));
	tool_output_clear(&o);
	lt_tool(&l, "lead", "broadcast", "{\"content\": \"all-hands-5\"}", &o);
	ck_assert_msg(!o.is_error, "%s", o.text);
	tool_output_clear(&o);
	lt_need(&l, EV_MESSAGE, NULL, "all-hands-5");
	lt_close(&l);
}
END_TEST

START_TEST(the_lead_spawns_a_teammate)
{
	struct lt l;
	struct tool_output o;
	struct member *m;

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	lt_tool(&l, "lead", "spawn_teammate", "{\"name\": \"carol\", "
	    "\"role\": \"tester\", \"prompt\": \"test it\"}", &o);
	ck_assert_msg(!o.is_error, "%s", o.text);
	tool_output_clear(&o);
	lt_need(&l, EV_SPAWNED, "carol", "tester");
	m = roster_get(team_store(l.team), "carol");
	ck_assert_ptr_nonnull(m);
	member_free(m);
	/* Twice the same name: an error the model reads. */
	lt_tool(&l, "lead", "spawn_teammate", "{\"name\": \"carol\", "
	    "\"role\": \"tester\", \"prompt\": \"again\"}", &o);
	ck_assert_int_eq(o.is_error, 1);
	tool_output_clear(&o);
	lt_close(&l);
}
END_TEST

struct asker {
	struct lt		*l;
	struct tool_output	 out;
};

static void *
asker_main(void *arg)
{
	struct asker *k = arg;
	json_t *in = json_pack("{s:s}", "command",
	    "rm -rf ./gone && echo removed");

	tools_run(team_find(k->l->team, "alice"), "bash", in, &k->out);
	json_decref(in);
	return NULL;
}

START_TEST(a_risky_command_waits_for_permission)
{
	struct lt l;
	struct asker k = { &l, { 0 } };
	pthread_t th;
	char *msg = NULL, *text;

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	lt_spawn_idle(&l, "alice", 0);
	lt_write(&l, "gone/f", "x");
	lt_set_mark(&l);
	ck_assert_int_eq(pthread_create(&th, NULL, asker_main, &k), 0);
	lt_need(&l, EV_REQUEST, NULL, "\"type\":\"permission\"");
	/* Nothing ran yet. */
	ck_assert_ptr_nonnull(text = lt_read(&l, "gone/f"));
	free(text);
	ck_assert_int_eq(team_decide(l.team, "alice", 0, "no", &msg),
	    PROTO_DECIDED);
	free(msg);
	pthread_join(th, NULL);
	ck_assert_int_eq(k.out.is_error, 1);
	ck_assert_ptr_nonnull(strstr(k.out.text, "not run"));
	tool_output_clear(&k.out);
	/* Refused: it never ran. */
	ck_assert_ptr_nonnull(text = lt_read(&l, "gone/f"));
	free(text);
	lt_close(&l);
}
END_TEST

static Suite *
tools_suite(void)
{
	Suite *s = suite_create("tools");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, files_are_written_read_and_edited);
	tcase_add_test(tc, a_command_runs_in_the_workdir);
	tcase_add_test(tc, what_is_not_a_tool_is_an_error);
	tcase_add_test(tc, the_plan_gate_holds_until_approval);
	tcase_add_test(tc, messages_and_the_team_list);
	tcase_add_test(tc, the_lead_spawns_a_teammate);
	tcase_add_test(tc, a_risky_command_waits_for_permission);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, tools_suite());
}
