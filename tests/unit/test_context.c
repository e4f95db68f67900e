/*
 * Unit tests of agent/context.c on a live team: /compact on an idle
 * agent asks its model for a summary and starts its view afresh from it
 * (an event, a stored entry, /context's line); a summary that never
 * comes leaves the conversation as it was; a tool result too big for
 * the window is cut to its head and tail; a refusal that names a smaller
 * window is learnt.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/transcript.h"
#include "liveteam.h"
#include "util/xmalloc.h"

START_TEST(compact_when_asked)
{
	struct lt l;
	char *err = NULL, *text, *dump;
	int64_t tokens, window;
	json_t *tr;

	lt_init(&l, "{\"agents\": {\"lead\": [{\"text\": \"hello\"}, "
	    "{\"text\": \"SUMMARY-7: we said hello\"}]}}");
	lt_start(&l);
	ck_assert_int_eq(team_context(l.team, "nobody", &tokens, &window), -1);
	ck_assert_int_eq(team_context(l.team, "lead", &tokens, &window), 0);
	ck_assert_int_gt(window, 0);
	ck_assert_int_eq(team_say(l.team, NULL, "hi", &err), 0);
	lt_need(&l, EV_TEXT, "lead", "hello");
	lt_need_status(&l, "lead", "idle");
	text = team_context_text(l.team, "lead");
	ck_assert_ptr_nonnull(strstr(text, "not compacted yet"));
	free(text);
	ck_assert_int_eq(team_compact(l.team, "lead", &err), 0);
	lt_need(&l, EV_NOTICE, "lead", "compacting, as asked");
	lt_need(&l, EV_COMPACTION, "lead", "\"kind\":\"client\"");
	text = team_context_text(l.team, "lead");
	ck_assert_ptr_nonnull(strstr(text, "compacted 1 time"));
	free(text);
	tr = transcript_load(team_store(l.team), "lead", &err);
	dump = json_dumps(tr, JSON_COMPACT);
	ck_assert_ptr_nonnull(strstr(dump, "SUMMARY-7"));
	ck_assert_ptr_nonnull(strstr(dump, "huddle compacted this "
	    "conversation"));
	free(dump);
	json_decref(tr);
	/* The summary is no message to answer: no third call. */
	ck_assert_ptr_null(lt_wait(&l, EV_ERROR, "lead", "script_exhausted",
	    300));
	lt_close(&l);
}
END_TEST

START_TEST(no_summary_keeps_the_conversation)
{
	struct lt l;
	char *err = NULL, *text;

	/* The model answers the summary request with tools, twice. */
	lt_init(&l, "{\"agents\": {\"lead\": [{\"text\": \"hello\"}, "
	    "{\"tools\": [{\"name\": \"list_teammates\", \"input\": {}}]}, "
	    "{\"tools\": [{\"name\": \"list_teammates\", \"input\": {}}]}]}}");
	lt_start(&l);
	ck_assert_int_eq(team_say(l.team, NULL, "hi", &err), 0);
	lt_need(&l, EV_TEXT, "lead", "hello");
	lt_need_status(&l, "lead", "idle");
	ck_assert_int_eq(team_compact(l.team, "lead", &err), 0);
	lt_need(&l, EV_NOTICE, "lead", "could not compact");
	ck_assert_uint_eq(lt_count(&l, EV_COMPACTION, "lead", NULL), 0);
	text = team_context_text(l.team, "lead");
	ck_assert_ptr_nonnull(strstr(text, "not compacted yet"));
	free(text);
	lt_close(&l);
}
END_TEST

START_TEST(a_big_result_is_cut)
{
	struct lt l;
	struct tool_output o = { 0 };
	struct agent *a;
	size_t n = 200000;

	lt_init(&l, "{\"agents\": {\"lead\": []}}");
	l.o.choice.context_window = 20000;
	lt_start(&l);
	a = lt_agent(&l, "lead");
	ck_assert_int_eq(a->window, 20000);
	o.text = xmalloc(n + 1);
	memset(o.text, 'x', n);
	memcpy(o.text, "HEAD", 4);
	memcpy(o.text + n - 4, "TAIL", 4);
	o.text[n] = '\0';
	context_cut_result(a, &o);
	ck_assert_uint_lt(strlen(o.text), 20000 / 10 * 4 + 1000);
	ck_assert_int_eq(strncmp(o.text, "HEAD", 4), 0);
	ck_assert_str_eq(o.text + strlen(o.text) - 4, "TAIL");
	ck_assert_ptr_nonnull(strstr(o.text, "huddle left out"));
	tool_output_clear(&o);
	/* A small one stays whole. */
	o.text = xstrdup("small");
	context_cut_result(a, &o);
	ck_assert_str_eq(o.text, "small");
	tool_output_clear(&o);
	lt_close(&l);
}
END_TEST

START_TEST(a_smaller_window_is_learnt)
{
	struct lt l;
	struct llm_result r = { 0 };
	struct agent *a;

	lt_init(&l, "{\"agents\": {\"lead\": []}}");
	l.o.choice.context_window = 200000;
	lt_start(&l);
	a = lt_agent(&l, "lead");
	r.error_message = "prompt is too long: 150000 tokens > 100000 maximum";
	context_learn_window(a, &r);
	ck_assert_int_eq(a->window, 100000);
	lt_need(&l, EV_NOTICE, "lead", "smaller than the catalog says");
	/* A larger figure is not taken. */
	r.error_message = "maximum context length is 300000 tokens";
	context_learn_window(a, &r);
	ck_assert_int_eq(a->window, 100000);
	lt_close(&l);
}
END_TEST

static Suite *
context_suite(void)
{
	Suite *s = suite_create("context");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, compact_when_asked);
	tcase_add_test(tc, no_summary_keeps_the_conversation);
	tcase_add_test(tc, a_big_result_is_cut);
	tcase_add_test(tc, a_smaller_window_is_learnt);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return lt_main(argc, argv, context_suite());
}
