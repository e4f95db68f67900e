/*
 * Unit tests of the script provider: the scenario format, per-agent turns,
 * streamed text and tool calls, request-id placeholders, a script that runs
 * out, and cancellation during scripted delays.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llm/script.h"
#include "testutil.h"
#include "util/clock.h"
#include "util/xmalloc.h"

static const char scenario[] =
    "{\"agents\": {"
    " \"lead\": ["
    "  {\"text\": \"Spawning alice.\", \"chunk_chars\": 4,"
    "   \"tools\": [{\"name\": \"spawn_teammate\", \"input\":"
    "    {\"name\": \"alice\", \"role\": \"coder\", \"prompt\": \"go\"}}]},"
    "  {\"text\": \"Done.\"}],"
    " \"alice\": ["
    "  {\"tools\": [{\"name\": \"shutdown_response\", \"input\":"
    "    {\"request_id\": \"{{request_id}}\", \"approve\": true}}]},"
    "  {\"error\": {\"type\": \"overloaded_error\", \"message\": \"busy\","
    "   \"status\": 529}}],"
    " \"*\": [{\"text\": \"h\\u00e9llo w\\u00f6rld\", \"chunk_chars\": 2}],"
    " \"slow\": [{\"text\": \"abcdefghij\", \"chunk_chars\": 1,"
    "   \"chunk_delay_ms\": 1000, \"tools\": [{\"name\": \"bash\","
    "   \"input\": {\"command\": \"ls\"}}]}]"
    "}}";

struct heard {
	char	text[256];
	int	chunks;
	int	tools;
};

static void
hear(void *ud, const struct llm_event *ev)
{
	struct heard *h = ud;

	if (ev->type == LLM_EV_TEXT) {
		strncat(h->text, ev->text, ev->len);
		h->chunks++;
	} else if (ev->type == LLM_EV_TOOL)
		h->tools++;
}

static struct script *
load(void)
{
	char *err = NULL;
	struct script *s = script_parse(scenario, &err);

	ck_assert_msg(s != NULL, "%s", err ? err : "");
	return s;
}

static json_t *
user_says(const char *text)
{
	return json_pack("[{s:s, s:[{s:s, s:s}]}]", "role", "user", "content",
	    "type", "text", "text", text);
}

START_TEST(malformed_scenarios_are_refused)
{
	static const char *const bad[] = {
		"", "[]", "{\"agents\": []}", "{\"agents\": {\"a\": {}}}",
		"{\"agents\": {\"a\": [1]}}",
		"{\"agents\": {\"a\": [{\"tools\": {}}]}}",
		"{\"agents\": {\"a\": [{\"when\": 1}]}}",
		"{\"agents\": {\"a\": [{\"when\": \"(\"}]}}",
	};
	size_t i;

	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		char *err = NULL;

		ck_assert_msg(script_parse(bad[i], &err) == NULL, "%s", bad[i]);
		ck_assert_ptr_nonnull(err);
		free(err);
	}
}
END_TEST

START_TEST(turns_play_in_order_per_agent)
{
	struct script *s = load();
	struct cancel c;
	struct llm_request req = { .messages = user_says("go") };
	struct llm_result res = { 0 };
	struct heard h = { "", 0, 0 };
	json_t *content, *tool;

	cancel_init(&c);
	ck_assert_int_eq(script_play(s, "lead", &req, &c, hear, &h, &res), 0);
	ck_assert_str_eq(h.text, "Spawning alice.");
	ck_assert_int_eq(h.chunks, 4);
	ck_assert_int_eq(h.tools, 1);
	ck_assert_str_eq(res.stop_reason, "tool_use");
	content = json_object_get(res.message, "content");
	ck_assert_uint_eq(json_array_size(content), 2);
	tool = json_array_get(content, 1);
	ck_assert_str_eq(json_string_value(json_object_get(tool, "type")),
	    "tool_use");
	ck_assert_str_eq(json_string_value(json_object_get(tool, "name")),
	    "spawn_teammate");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
	    tool, "input"), "name")), "alice");
	ck_assert_int_gt(res.usage.output, 0);
	llm_result_clear(&res);

	ck_assert_int_eq(script_play(s, "lead", &req, &c, NULL, NULL, &res),
	    0);
	ck_assert_str_eq(res.stop_reason, "end_turn");
	llm_result_clear(&res);

	/* Out of turns: an error that says so, not a silent reply. */
	ck_assert_int_eq(script_play(s, "lead", &req, &c, NULL, NULL, &res),
	    -1);
	ck_assert_int_eq(res.status, LLM_ERR_API);
	ck_assert_ptr_nonnull(strstr(res.error_message, "no turn left"));
	llm_result_clear(&res);

	/* Anyone else plays "*", each from its own start, split on
	 * characters, not bytes. */
	memset(&h, 0, sizeof h);
	ck_assert_int_eq(script_play(s, "bob", &req, &c, hear, &h, &res), 0);
	ck_assert_str_eq(h.text, "h\xc3\xa9llo w\xc3\xb6rld");
	ck_assert_int_eq(h.chunks, 6);
	llm_result_clear(&res);
	ck_assert_int_eq(script_play(s, "carol", &req, &c, NULL, NULL, &res),
	    0);
	llm_result_clear(&res);
	json_decref(req.messages);
	cancel_destroy(&c);
	script_free(s);
}
END_TEST

START_TEST(request_id_placeholder_takes_the_newest_id)
{
	struct script *s = load();
	struct cancel c;
	struct llm_request req = { 0 };
	struct llm_result res = { 0 };
	json_t *input, *newer;

	cancel_init(&c);
	req.messages = user_says("[shutdown_request from lead, request_id "
	    "req_00000001] old");
	newer = user_says("[shutdown_request from lead, request_id "
	    "req_0a1b2c3d] please stop");
	json_array_extend(req.messages, newer);
	json_decref(newer);
	ck_assert_int_eq(script_play(s, "alice", &req, &c, NULL, NULL, &res),
	    0);
	input = json_object_get(json_array_get(json_object_get(res.message,
	    "content"), 0), "input");
	ck_assert_str_eq(json_string_value(json_object_get(input,
	    "request_id")), "req_0a1b2c3d");
	ck_assert(json_is_true(json_object_get(input, "approve")));
	llm_result_clear(&res);

	/* A scripted error is an API error with its status. */
	ck_assert_int_eq(script_play(s, "alice", &req, &c, NULL, NULL, &res),
	    -1);
	ck_assert_int_eq(res.status, LLM_ERR_API);
	ck_assert_int_eq(res.http_status, 529);
	ck_assert_str_eq(res.error_type, "overloaded_error");
	llm_result_clear(&res);
	json_decref(req.messages);
	cancel_destroy(&c);
	script_free(s);
}
END_TEST

static const char branching[] =
    "{\"agents\": {"
    " \"bob\": ["
    "  {\"when\": \"^start$\", \"text\": \"plan\"},"
    "  {\"when\": \"approved\", \"text\": \"edit 1\"},"
    "  {\"text\": \"edit 2\"},"
    "  {\"when\": \"rejected\", \"text\": \"again\"}],"
    " \"*\": ["
    "  {\"when\": \"shutdown\", \"text\": \"stopping\"},"
    "  {\"when\": \"\", \"text\": \"nothing scripted\"}]"
    "}}";

/* Plays agent's turn as the answer to `said`; returns its text. */
static void
answer(struct script *s, const char *agent, const char *said,
    const char *want)
{
	struct cancel c;
	struct llm_request req = { .messages = user_says(said) };
	struct llm_result res = { 0 };
	struct heard h = { "", 0, 0 };

	cancel_init(&c);
	ck_assert_int_eq(script_play(s, agent, &req, &c, hear, &h, &res), 0);
	ck_assert_str_eq(h.text, want);
	llm_result_clear(&res);
	json_decref(req.messages);
	cancel_destroy(&c);
}

START_TEST(when_turns_react_to_the_newest_message)
{
	char *err = NULL;
	struct script *s = script_parse(branching, &err);

	ck_assert_msg(s != NULL, "%s", err ? err : "");
	/* A first turn that waits for its cue is not played without it
	 * (a resumed agent does not start over). */
	answer(s, "bob", "hello", "nothing scripted");
	answer(s, "bob", "start", "plan");
	/* Rejected: the reaction, then its place is past it. */
	answer(s, "bob", "plan rejected", "again");
	answer(s, "bob", "plan rejected", "again");
	/* Approved: the branch, then the turns that follow it in order. */
	answer(s, "bob", "plan approved", "edit 1");
	answer(s, "bob", "edited", "edit 2");
	/* At a turn that waits for its cue: the "*" reactions. */
	answer(s, "bob", "a shutdown request", "stopping");
	answer(s, "bob", "what now?", "nothing scripted");
	answer(s, "carol", "shutdown", "stopping");
	script_free(s);
}
END_TEST

static void *
fire_soon(void *arg)
{
	usleep(200 * 1000);
	cancel_fire(arg);
	return NULL;
}

START_TEST(cancel_cuts_scripted_delays)
{
	struct script *s = load();
	struct cancel c;
	struct llm_request req = { .messages = user_says("go") };
	struct llm_result res = { 0 };
	pthread_t th;
	int64_t start;

	cancel_init(&c);
	start = clock_mono_ms();
	pthread_create(&th, NULL, fire_soon, &c);
	ck_assert_int_eq(script_play(s, "slow", &req, &c, NULL, NULL, &res),
	    -1);
	pthread_join(th, NULL);
	ck_assert_int_eq(res.status, LLM_ERR_CANCELLED);
	ck_assert_int_lt(clock_mono_ms() - start, 200 + 100);
	llm_result_clear(&res);
	json_decref(req.messages);
	cancel_destroy(&c);
	script_free(s);
}
END_TEST

START_TEST(load_reports_the_file)
{
	char *dir = tu_tmpdir(), *path = xasprintf("%s/s.json", dir), *err = NULL;
	FILE *f;
	struct script *s;

	ck_assert_ptr_null(script_load(path, &err));
	ck_assert_ptr_nonnull(strstr(err, path));
	free(err);
	f = fopen(path, "w");
	fputs(scenario, f);
	fclose(f);
	s = script_load(path, &err);
	ck_assert_ptr_nonnull(s);
	script_free(s);
	tu_rmtree(dir);
	free(dir);
	free(path);
}
END_TEST

static Suite *
script_suite(void)
{
	Suite *s = suite_create("script");
	TCase *tc = tcase_create("script");

	tcase_add_test(tc, malformed_scenarios_are_refused);
	tcase_add_test(tc, turns_play_in_order_per_agent);
	tcase_add_test(tc, request_id_placeholder_takes_the_newest_id);
	tcase_add_test(tc, when_turns_react_to_the_newest_message);
	tcase_add_test(tc, cancel_cuts_scripted_delays);
	tcase_add_test(tc, load_reports_the_file);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(script_suite());
}
