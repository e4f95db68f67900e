/*
 * Unit tests of agent/loop.c through a live team on the script provider:
 * a message starts a turn, tool rounds follow the model's calls, a
 * teammate's idle notice reaches the lead, --max-rounds stops a turn, a
 * failed call is reported, and an interrupted turn idles at once.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/transcript.h"
#include "liveteam.h"
#include "util/clock.h"
#include "util/xmalloc.h"

START_TEST(a_message_starts_a_turn)
{
	struct lt l;
	char *err = NULL, *dump;
	json_t *tr;

	lt_init(&l, "{\"agents\": {\"lead\": [{\"text\": \"Hello there\"}]}}");
	lt_start(&l);
	lt_need_status(&l, "lead", "idle");
	ck_assert_uint_eq(lt_count(&l, EV_LLM_CALL, "lead", NULL), 0);
	/* What the message brings is looked for from here on: the turn's
	 * events may come in one batch. */
	lt_set_mark(&l);
	ck_assert_int_eq(team_say(l.team, NULL, "hi", &err), 0);
	lt_need(&l, EV_LLM_CALL, "lead", "\"round\":1");
	lt_need(&l, EV_TEXT, "lead", "Hello there");
	lt_need_status(&l, "lead", "working");
	lt_need_status(&l, "lead", "idle");
	/* The reply is stored in the lead's transcript. */
	tr = transcript_load(team_store(l.team), "lead", &err);
	ck_assert_ptr_nonnull(tr);
	dump = json_dumps(tr, JSON_COMPACT);
	ck_assert_ptr_nonnull(strstr(dump, "Hello there"));
	ck_assert_ptr_nonnull(strstr(dump, "hi"));
	free(dump);
	json_decref(tr);
	lt_close(&l);
}
END_TEST

START_TEST(tool_calls_run_and_the_model_is_called_again)
{
	struct lt l;
	char *err = NULL, *text;

	lt_init(&l, "{\"agents\": {\"lead\": ["
	    "{\"tools\": [{\"name\": \"write_file\", \"input\": {\"path\": "
	    "\"out.txt\", \"content\": \"made\\n\"}}]},"
	    "{\"text\": \"written\"}]}}");
	lt_start(&l);
	ck_assert_int_eq(team_say(l.team, "lead", "write it", &err), 0);
	lt_need(&l, EV_TOOL_CALL, "lead", "write_file");
	lt_need(&l, EV_TOOL_RESULT, "lead", "\"is_error\":false");
	lt_need(&l, EV_LLM_CALL, "lead", "\"round\":2");
	lt_need(&l, EV_TEXT, "lead", "written");
	text = lt_read(&l, "out.txt");
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, "made\n");
	free(text);
	lt_close(&l);
}
END_TEST

START_TEST(a_teammate_done_tells_the_lead)
{
	struct lt l;
	char *err = NULL;
	struct spawn_request s = { "alice", "coder", "say done", NULL, 0, 0,
	    0, NULL };

	lt_init(&l, "{\"agents\": {\"alice\": [{\"text\": \"all done\"}],"
	    "\"lead\": [{\"text\": \"noted\"}]}}");
	lt_start(&l);
	ck_assert_msg(team_spawn(l.team, &s, &err) == 0, "%s", err);
	lt_need(&l, EV_SPAWNED, "alice", "coder");
	lt_need(&l, EV_TEXT, "alice", "all done");
	lt_need(&l, EV_MESSAGE, NULL, "alice is idle: all done");
	/* The notice wakes the lead, which answers it. */
	lt_need(&l, EV_TEXT, "lead", "noted");
	lt_close(&l);
}
END_TEST

START_TEST(max_rounds_stops_a_turn)
{
	struct lt l;
	char *err = NULL;

	lt_init(&l, "{\"agents\": {\"lead\": ["
	    "{\"tools\": [{\"name\": \"list_teammates\", \"input\": {}}]},"
	    "{\"tools\": [{\"name\": \"list_teammates\", \"input\": {}}]},"
	    "{\"text\": \"never\"}]}}");
	l.o.max_rounds = 1;
	lt_start(&l);
	ck_assert_int_eq(team_say(l.team, NULL, "go", &err), 0);
	lt_need(&l, EV_ERROR, "lead", "--max-rounds");
	lt_need_status(&l, "lead", "idle");
	ck_assert_uint_eq(lt_count(&l, EV_LLM_CALL, "lead", "\"round\":2"), 0);
	ck_assert_uint_eq(lt_count(&l, EV_TEXT, "lead", "never"), 0);
	lt_close(&l);
}
END_TEST

START_TEST(a_failed_call_is_an_error)
{
	struct lt l;
	char *err = NULL;

	lt_init(&l, "{\"agents\": {\"lead\": []}}");
	lt_start(&l);
	ck_assert_int_eq(team_say(l.team, NULL, "go", &err), 0);
	lt_need(&l, EV_ERROR, "lead", "script_exhausted");
	lt_close(&l);
}
END_TEST

START_TEST(an_interrupt_ends_a_slow_turn)
{
	struct lt l;
	char *err = NULL;
	int64_t t0;

	lt_init(&l, LT_SLOW_LEAD);
	lt_start(&l);
	ck_assert_int_eq(team_interrupt(l.team, "lead", &err), -1);
	ck_assert_ptr_nonnull(err);
	free(err);
	err = NULL;
	ck_assert_int_eq(team_say(l.team, NULL, "go", &err), 0);
	lt_need(&l, EV_LLM_CALL, "lead", NULL);
	lt_need_status(&l, "lead", "working");
	t0 = clock_mono_ms();
	/* What the interrupt brings is looked for from here on: the notice
	 * and the status may come in one batch of events. */
	lt_set_mark(&l);
	ck_assert_msg(team_interrupt(l.team, "lead", &err) == 0, "%s", err);
	lt_need(&l, EV_NOTICE, "lead", "interrupted");
	lt_need_status(&l, "lead", "idle");
	ck_assert_int_lt(clock_mono_ms() - t0, 5000);
	ck_assert_uint_eq(lt_count(&l, EV_TEXT, "lead", "late"), 0);
	lt_close(&l);
}
END_TEST

static Suite *
loop_suite(void)
{
	Suite *s = suite_create("loop");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, a_message_starts_a_turn);
	tcase_add_test(tc, tool_calls_run_and_the_model_is_called_again);
	tcase_add_test(tc, a_teammate_done_tells_the_lead);
	tcase_add_test(tc, max_rounds_stops_a_turn);
	tcase_add_test(tc, a_failed_call_is_an_error);
	tcase_add_test(tc, an_interrupt_ends_a_slow_turn);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, loop_suite());
}
