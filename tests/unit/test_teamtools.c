/*
 * Unit tests of agent/teamtools.c: a tool member of a bare team
 * (agentfix.h) runs tool calls through the same dispatch and gates as an
 * agent's turn, on the calling thread, and each call starts afresh.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/teamsandbox.h"
#include "agentfix.h"
#include "agent/team.h"
#include "tools/tool.h"

/* Opens the bare team and its sandbox (a member's home needs it). */
static void
open_team(struct agentfix *f)
{
	char *err = NULL;

	af_open(f);
	ck_assert_int_eq(setenv("TMPDIR", f->tu.dir, 1), 0);
	f->team.opts.state_base = f->tu.dir;
	ck_assert_msg(team_sandbox_open(&f->team, &err) == 0, "%s", err);
}

static void
close_team(struct agentfix *f)
{
	team_sandbox_close(&f->team);
	af_close(f);
}

/* Runs tool with input (stolen) as a; returns whether it failed, with
 * its text in *text (malloc'd). */
static int
call(struct agent *a, const char *tool, json_t *input, char **text)
{
	struct tool_output out = { 0 };
	int failed;

	team_tool_call(a, tool, input, &out);
	json_decref(input);
	ck_assert_ptr_nonnull(out.text);
	failed = out.is_error;
	*text = out.text;
	out.text = NULL;
	tool_output_clear(&out);
	return failed;
}

START_TEST(a_call_runs_through_the_dispatch)
{
	struct agentfix f;
	struct agent *alice;
	char *err = NULL, *text;

	open_team(&f);
	alice = team_tool_member(&f.team, "alice", &err);
	ck_assert_msg(alice != NULL, "%s", err);
	ck_assert(!call(alice, "send_message", json_pack("{s:s, s:s}", "to",
	    "bob", "content", "hi"), &text));
	free(text);
	ck_assert_uint_eq(bus_pending(f.team.core.bus, "bob"), 1);
	/* The lead's tools are not a teammate's. */
	ck_assert(call(alice, "list_teammates", json_object(), &text));
	ck_assert_msg(strstr(text, "no tool named") != NULL, "%s", text);
	free(text);
	/* Nor is a tool that does not exist, or input that is no object. */
	ck_assert(call(alice, "format_disk", json_object(), &text));
	free(text);
	ck_assert(call(alice, "send_message", json_string("bob"), &text));
	free(text);
	team_tool_member_free(alice);
	close_team(&f);
}
END_TEST

START_TEST(the_plan_gate_holds)
{
	struct agentfix f;
	struct agent *bob;
	char *err = NULL, *text;

	open_team(&f);
	/* bob's plan is required and not approved (testutil.h). */
	bob = team_tool_member(&f.team, "bob", &err);
	ck_assert_msg(bob != NULL, "%s", err);
	ck_assert(call(bob, "write_file", json_pack("{s:s, s:s}", "path",
	    "x.txt", "content", "no"), &text));
	ck_assert_msg(strstr(text, "plan not approved") != NULL, "%s", text);
	free(text);
	team_tool_member_free(bob);
	close_team(&f);
}
END_TEST

START_TEST(each_call_starts_afresh)
{
	struct agentfix f;
	struct agent *bob, *alice;
	char *err = NULL, *text;

	open_team(&f);
	alice = team_tool_member(&f.team, "alice", &err);
	bob = team_tool_member(&f.team, "bob", &err);
	ck_assert_ptr_nonnull(alice);
	ck_assert_ptr_nonnull(bob);
	ck_assert(!call(alice, "send_message", json_pack("{s:s, s:s}", "to",
	    "bob", "content", "one"), &text));
	free(text);
	/* read_inbox takes the message into bob's conversation, which the
	 * next call does not carry. */
	ck_assert(!call(bob, "read_inbox", json_object(), &text));
	free(text);
	ck_assert_uint_eq(bus_pending(f.team.core.bus, "bob"), 0);
	ck_assert_uint_eq(json_array_size(bob->turn.transcript), 0);
	ck_assert_int_eq(bob->turn.leaving, 0);
	team_tool_member_free(alice);
	team_tool_member_free(bob);
	close_team(&f);
}
END_TEST

static Suite *
teamtools_suite(void)
{
	Suite *s = suite_create("teamtools");
	TCase *tc = tcase_create("teamtools");

	tcase_add_test(tc, a_call_runs_through_the_dispatch);
	tcase_add_test(tc, the_plan_gate_holds);
	tcase_add_test(tc, each_call_starts_afresh);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, teamtools_suite());
}
