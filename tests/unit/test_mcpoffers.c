/*
 * Unit tests of agent/mcpoffers.c on a live team: a project's .mcp.json
 * server is offered to the person at start (a permission request from
 * huddle), /mcp says it waits; approved, it joins the team's set and its
 * tools still ask (the settings' allow list does not cover it), and the
 * answer is kept so a resumed team does not ask again; rejected, it is
 * not offered again while its entry stays the same.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/mcpoffers.h"
#include "liveteam.h"
#include "util/xmalloc.h"

/* A working tree whose .mcp.json offers the test server as "proj". */
static void
init_with_offer(struct lt *l)
{
	char *script = tu_source_file("tests/mcp/server.py"), *json;

	ck_assert_msg(script != NULL, "tests/mcp/server.py ($top_srcdir)");
	lt_init(l, LT_OK_ALWAYS);
	lt_write(l, "server.py", script);
	free(script);
	json = xasprintf("{\"mcpServers\": {\"proj\": {\"command\": "
	    "\"python3\", \"args\": [\"%s/server.py\"]}}}", l->work);
	lt_write(l, ".mcp.json", json);
	free(json);
}

START_TEST(approved_it_joins_and_is_kept)
{
	struct lt l;
	char *msg = NULL, *text;

	init_with_offer(&l);
	l.o.mcp_allow = json_pack("[s]", "mcp__proj__*");
	lt_start(&l);
	lt_need(&l, EV_REQUEST, NULL, "MCP server proj");
	text = mcptools_text(l.team);
	ck_assert_ptr_nonnull(strstr(text, "offered, waiting for the person"));
	free(text);
	ck_assert_int_eq(mcpoffers_is_project(l.team, "proj"), 0);
	ck_assert_int_eq(team_decide(l.team, NULL, 1, "", &msg),
	    PROTO_DECIDED);
	free(msg);
	text = mcptools_text(l.team);
	ck_assert_ptr_null(strstr(text, "not approved"));
	ck_assert_ptr_nonnull(strstr(text, "proj"));
	free(text);
	lt_need(&l, EV_NOTICE, NULL, "MCP server proj (.mcp.json) approved");
	ck_assert_int_eq(mcpoffers_is_project(l.team, "proj"), 1);
	/* Not asked again. */
	lt_quit(&l);
	lt_resume(&l);
	ck_assert_ptr_null(lt_wait(&l, EV_REQUEST, NULL, "MCP server proj",
	    300));
	ck_assert_int_eq(mcpoffers_is_project(l.team, "proj"), 1);
	text = mcptools_text(l.team);
	ck_assert_ptr_null(strstr(text, "not approved"));
	free(text);
	json_decref(l.o.mcp_allow);
	lt_close(&l);
}
END_TEST

START_TEST(rejected_it_is_not_offered_again)
{
	struct lt l;
	char *msg = NULL, *text, *json;

	init_with_offer(&l);
	lt_start(&l);
	lt_need(&l, EV_REQUEST, NULL, "MCP server proj");
	ck_assert_int_eq(team_decide(l.team, NULL, 0, "no", &msg),
	    PROTO_DECIDED);
	free(msg);
	text = mcptools_text(l.team);
	ck_assert_ptr_nonnull(strstr(text, "rejected"));
	free(text);
	lt_quit(&l);
	lt_resume(&l);
	ck_assert_ptr_null(lt_wait(&l, EV_REQUEST, NULL, "MCP server proj",
	    300));
	text = mcptools_text(l.team);
	ck_assert_ptr_nonnull(strstr(text, "rejected"));
	free(text);
	/* A changed entry is offered afresh. */
	json = xasprintf("{\"mcpServers\": {\"proj\": {\"command\": "
	    "\"python3\", \"args\": [\"%s/server.py\", \"--legacy\"]}}}",
	    l.work);
	lt_write(&l, ".mcp.json", json);
	free(json);
	lt_quit(&l);
	lt_resume(&l);
	lt_need(&l, EV_REQUEST, NULL, "MCP server proj");
	lt_close(&l);
}
END_TEST

START_TEST(an_undecided_offer_is_asked_again)
{
	struct lt l;
	char *text;

	init_with_offer(&l);
	lt_start(&l);
	lt_need(&l, EV_REQUEST, NULL, "MCP server proj");
	lt_quit(&l);
	lt_resume(&l);
	lt_need(&l, EV_REQUEST, NULL, "MCP server proj");
	text = mcptools_text(l.team);
	ck_assert_ptr_nonnull(strstr(text, "waiting for the person"));
	free(text);
	lt_close(&l);
}
END_TEST

static Suite *
mcpoffers_suite(void)
{
	Suite *s = suite_create("mcpoffers");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, approved_it_joins_and_is_kept);
	tcase_add_test(tc, rejected_it_is_not_offered_again);
	tcase_add_test(tc, an_undecided_offer_is_asked_again);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, mcpoffers_suite());
}
