/*
 * Unit tests of agent/execute.c: input lines parsed (command.c) and run
 * against a live team — plain text to the focused member, /team,
 * /tasks and /requests reports, task commands, /budget, /approve with
 * nothing pending, /reject-all, /stop of the lead, /context and /help
 * (the front end's own).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/command.h"
#include "liveteam.h"
#include "util/xmalloc.h"

/* Runs one line; res must be cleared by the caller. */
static void
run(struct lt *l, const char *line, const char *focus,
    struct command_result *res)
{
	struct command c;

	memset(res, 0, sizeof *res);
	command_parse(line, &c);
	execute_command(l->team, &c, focus, NULL, res);
	command_clear(&c);
}

START_TEST(text_goes_to_the_focus)
{
	struct lt l;
	struct command_result res;
	char *err = NULL;
	struct spawn_request s = { "alice", "coder", "hi", NULL, 0, 0, 0,
	    NULL };

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	ck_assert_int_eq(team_spawn(l.team, &s, &err), 0);
	run(&l, "hello lead-31", NULL, &res);
	ck_assert_int_eq(res.outcome, OUTCOME_DONE);
	execute_result_clear(&res);
	lt_need(&l, EV_MESSAGE, "lead", "hello lead-31");
	run(&l, "hello alice-32", "alice", &res);
	ck_assert_int_eq(res.outcome, OUTCOME_DONE);
	execute_result_clear(&res);
	lt_need(&l, EV_MESSAGE, NULL, "\"to\":\"alice\",\"type\":\"message\","
	    "\"content\":\"hello alice-32\"");
	run(&l, "/msg alice again-33", NULL, &res);
	ck_assert_int_eq(res.outcome, OUTCOME_DONE);
	execute_result_clear(&res);
	lt_need(&l, EV_MESSAGE, NULL, "again-33");
	lt_close(&l);
}
END_TEST

START_TEST(reports)
{
	struct lt l;
	struct command_result res;
	json_t *members;

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	run(&l, "/team", NULL, &res);
	ck_assert_int_eq(res.outcome, OUTCOME_REPORT);
	members = json_object_get(res.data, "members");
	ck_assert_uint_eq(json_array_size(members), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    members, 0), "name")), "lead");
	ck_assert_ptr_nonnull(json_object_get(res.data, "sandbox"));
	execute_result_clear(&res);
	run(&l, "/task add write the docs", NULL, &res);
	ck_assert_int_eq(res.outcome, OUTCOME_DONE);
	ck_assert_ptr_nonnull(strstr(res.message, "t1"));
	execute_result_clear(&res);
	run(&l, "/tasks", NULL, &res);
	ck_assert_int_eq(res.outcome, OUTCOME_REPORT);
	ck_assert_uint_eq(json_array_size(json_object_get(res.data, "tasks")),
	    1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    json_object_get(res.data, "tasks"), 0), "subject")),
	    "write the docs");
	execute_result_clear(&res);
	run(&l, "/task cancel t1", NULL, &res);
	ck_assert_int_eq(res.outcome, OUTCOME_DONE);
	execute_result_clear(&res);
	lt_need(&l, EV_TASK, NULL, "\"status\":\"cancelled\"");
	run(&l, "/requests", NULL, &res);
	ck_assert_int_eq(res.outcome, OUTCOME_REPORT);
	ck_assert_uint_eq(json_array_size(json_object_get(res.data,
	    "requests")), 0);
	execute_result_clear(&res);
	lt_close(&l);
}
END_TEST

START_TEST(commands_that_change_or_refuse)
{
	struct lt l;
	struct command_result res;

	lt_init(&l, LT_OK_ALWAYS);
	lt_start(&l);
	/* Past its start, where the lead withdraws its old permissions. */
	lt_ready(&l, "lead");
	run(&l, "/budget 5", NULL, &res);
	ck_assert_int_eq(res.outcome, OUTCOME_DONE);
	execute_result_clear(&res);
	ck_assert(team_budget(l.team) == 5.0);
	run(&l, "/budget off", NULL, &res);
	execute_result_clear(&res);
	ck_assert(team_budget(l.team) == 0.0);
	run(&l, "/approve", NULL, &res);
	ck_assert_int_eq(res.outcome, OUTCOME_ERROR);
	ck_assert_ptr_nonnull(strstr(res.message, "no pending request"));
	execute_result_clear(&res);
	/* /reject-all: nothing waits, an error; the lead's two commands
	 * waiting, both rejected, with the feedback given. */
	run(&l, "/reject-all lead", NULL, &res);
	ck_assert_int_eq(res.outcome, OUTCOME_ERROR);
	ck_assert_ptr_nonnull(strstr(res.message, "nothing was rejected"));
	execute_result_clear(&res);
	{
		char a[PROTO_ID_SIZE], b[PROTO_ID_SIZE], *err = NULL;
		struct request *r;

		ck_assert_int_eq(protocol_request(team_protocol(l.team),
		    REQ_PERMISSION, "lead", "lead", "rm -rf a", a, &err), 0);
		ck_assert_int_eq(protocol_request(team_protocol(l.team),
		    REQ_PERMISSION, "lead", "lead", "network: 192.0.2.1:80", b,
		    &err), 0);
		run(&l, "/reject-all lead not now", NULL, &res);
		ck_assert_int_eq(res.outcome, OUTCOME_DONE);
		ck_assert_str_eq(res.message, "rejected lead's 2 requests (1 "
		    "network, 1 permission)");
		execute_result_clear(&res);
		r = protocol_get(team_protocol(l.team), a);
		ck_assert_int_eq(r->status, REQ_REJECTED);
		ck_assert_str_eq(r->response, "not now");
		request_free(r);
	}
	run(&l, "/stop lead", NULL, &res);
	ck_assert_int_eq(res.outcome, OUTCOME_ERROR);
	execute_result_clear(&res);
	run(&l, "/shutdown nobody", NULL, &res);
	ck_assert_int_eq(res.outcome, OUTCOME_ERROR);
	execute_result_clear(&res);
	run(&l, "/task done t4", NULL, &res);
	ck_assert_int_eq(res.outcome, OUTCOME_ERROR);
	execute_result_clear(&res);
	run(&l, "/context", NULL, &res);
	ck_assert_int_eq(res.outcome, OUTCOME_DONE);
	ck_assert_ptr_nonnull(strstr(res.message, "lead:"));
	execute_result_clear(&res);
	run(&l, "/help", NULL, &res);
	ck_assert_int_eq(res.outcome, OUTCOME_FRONT);
	execute_result_clear(&res);
	run(&l, "/nosuch", NULL, &res);
	ck_assert_int_eq(res.outcome, OUTCOME_ERROR);
	execute_result_clear(&res);
	lt_close(&l);
}
END_TEST

static Suite *
execute_suite(void)
{
	Suite *s = suite_create("execute");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, text_goes_to_the_focus);
	tcase_add_test(tc, reports);
	tcase_add_test(tc, commands_that_change_or_refuse);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, execute_suite());
}
