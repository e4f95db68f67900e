/*
 * Unit tests of agent/frame.c on a live team: a role's tools narrow the
 * frame (and tools_run follows it), the role's prompt and the project's
 * instructions reach the system prompt, the lead's spawn_teammate names
 * the roles, the frame is kept in the state folder, and a resumed
 * conversation keeps the frame it was bound to whatever the files say.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/frame.h"
#include "liveteam.h"
#include "util/xmalloc.h"

#define REVIEWER "---\ndescription: Reviews code\ntools: [read_file]\n" \
	"---\nRead the diff, say what is wrong.\n"

static int
lists(json_t *tools, const char *name)
{
	json_t *t;
	size_t i;

	json_array_foreach(tools, i, t) {
		if (strcmp(json_string_value(json_object_get(t, "name")),
		    name) == 0)
			return 1;
	}
	return 0;
}

static const char *
description_of(json_t *tools, const char *name)
{
	json_t *t;
	size_t i;

	json_array_foreach(tools, i, t) {
		if (strcmp(json_string_value(json_object_get(t, "name")),
		    name) == 0)
			return json_string_value(json_object_get(t,
			    "description"));
	}
	return NULL;
}

START_TEST(a_roles_tools_narrow_the_frame)
{
	struct lt l;
	char *err = NULL;
	struct agent *a;
	struct tool_output o;
	json_t *tools;
	struct spawn_request s = { "rita", "reviewer", "review", NULL, 0, 0,
	    0, NULL };

	lt_init(&l, LT_OK_ALWAYS);
	lt_write(&l, ".huddle/agents/reviewer.md", REVIEWER);
	lt_start(&l);
	ck_assert_msg(team_spawn(l.team, &s, &err) == 0, "%s", err);
	lt_need_status(&l, "rita", "idle");
	a = lt_agent(&l, "rita");
	tools = frame_tools(a);
	ck_assert(lists(tools, "read_file"));
	ck_assert(lists(tools, "send_message"));
	ck_assert(!lists(tools, "bash"));
	ck_assert(!lists(tools, "write_file"));
	json_decref(tools);
	ck_assert_int_eq(frame_offers(a, "bash"), 0);
	ck_assert_int_eq(frame_offers(a, "read_file"), 1);
	ck_assert_ptr_nonnull(strstr(a->turn.system, "# Your role: reviewer"));
	ck_assert_ptr_nonnull(strstr(a->turn.system, "say what is wrong"));
	lt_tool(&l, "rita", "bash", "{\"command\": \"true\"}", &o);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_ptr_nonnull(strstr(o.text, "no tool named 'bash'"));
	tool_output_clear(&o);
	/* The lead, with no role, has every tool of its own. */
	a = lt_agent(&l, "lead");
	tools = frame_tools(a);
	ck_assert(lists(tools, "bash"));
	ck_assert(lists(tools, "spawn_teammate"));
	ck_assert_ptr_nonnull(strstr(description_of(tools, "spawn_teammate"),
	    "reviewer"));
	json_decref(tools);
	lt_close(&l);
}
END_TEST

/* Once the lead is idle, quits, puts new words in AGENTS.md, resumes
 * and asks the lead again; returns once its next model call begins
 * (its prompt is written before it). */
static void
resume_with_new_words(struct lt *l)
{
	char *err = NULL;

	lt_need_status(l, "lead", "idle");
	lt_quit(l);
	lt_write(l, "AGENTS.md", "Always use spaces-99.\n");
	lt_resume(l);
	ck_assert_int_eq(team_say(l->team, NULL, "and now?", &err), 0);
	lt_need(l, EV_LLM_CALL, "lead", NULL);
}

START_TEST(instructions_reach_the_prompt_and_are_kept)
{
	struct lt l;
	char *err = NULL, *path, *text;

	lt_init(&l, "{\"agents\": {\"lead\": [{\"text\": \"bound\"}, "
	    "{\"text\": \"again\"}]}}");
	lt_write(&l, "AGENTS.md", "Always use tabs-42.\n");
	lt_start(&l);
	lt_need_status(&l, "lead", "idle");
	ck_assert_ptr_nonnull(strstr(lt_agent(&l, "lead")->turn.system,
	    "tabs-42"));
	text = team_context_text(l.team, "lead");
	ck_assert_ptr_nonnull(strstr(text, "AGENTS.md"));
	free(text);
	path = xasprintf("%s/frames/lead.json", team_state_dir(l.team));
	ck_assert_int_eq(access(path, F_OK), 0);
	free(path);
	/* A model turn binds the conversation to this frame. */
	ck_assert_int_eq(team_say(l.team, NULL, "hi", &err), 0);
	lt_need(&l, EV_TEXT, "lead", "bound");
	resume_with_new_words(&l);
	ck_assert_ptr_nonnull(strstr(lt_agent(&l, "lead")->turn.system,
	    "tabs-42"));
	ck_assert_ptr_null(strstr(lt_agent(&l, "lead")->turn.system,
	    "spaces-99"));
	lt_close(&l);
}
END_TEST

START_TEST(an_unbound_conversation_reads_the_files_again)
{
	struct lt l;

	lt_init(&l, LT_OK_ALWAYS);
	lt_write(&l, "AGENTS.md", "Always use tabs-42.\n");
	lt_start(&l);
	/* No model turn yet: the new words count. */
	resume_with_new_words(&l);
	ck_assert_ptr_nonnull(strstr(lt_agent(&l, "lead")->turn.system,
	    "spaces-99"));
	lt_close(&l);
}
END_TEST

static Suite *
frame_suite(void)
{
	Suite *s = suite_create("frame");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, a_roles_tools_narrow_the_frame);
	tcase_add_test(tc, instructions_reach_the_prompt_and_are_kept);
	tcase_add_test(tc, an_unbound_conversation_reads_the_files_again);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, frame_suite());
}
