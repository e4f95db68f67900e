/*
 * Unit tests of ui/complete: a command line completed as far as it is
 * sure, its choices named when several remain.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "ui/complete.h"

static const char *const names[] = { "lead", "alice", "albert", "bob" };

/* Completes line; checks the result and the choices (NULL: none). */
static void
completes(const char *line, const char *want, const char *choices)
{
	char *got_choices = NULL;
	char *got = complete_line(line, names, 4, &got_choices);

	ck_assert_msg(strcmp(got, want) == 0, "%s: %s, not %s", line, got,
	    want);
	if (choices == NULL)
		ck_assert_msg(got_choices == NULL, "%s: choices %s", line,
		    got_choices);
	else
		ck_assert_msg(got_choices != NULL && strcmp(got_choices,
		    choices) == 0, "%s: choices %s, not %s", line,
		    got_choices ? got_choices : "(none)", choices);
	free(got);
	free(got_choices);
}

START_TEST(commands_then_names)
{
	completes("/te", "/team ", NULL);
	completes("/requ", "/requests ", NULL);
	completes("/task as", "/task assign ", NULL);
	completes("/ta", "/task", "task add task assign task done "
	    "task cancel task reopen tasks");
	completes("/msg b", "/msg bob ", NULL);
	completes("/msg al", "/msg al", "alice albert");
	completes("/task assign t3 ali", "/task assign t3 alice ", NULL);
	/* Nothing to complete: the line as it was. */
	completes("/nonsense", "/nonsense", NULL);
	completes("/msg zed", "/msg zed", NULL);
	completes("hello", "hello", NULL);
}
END_TEST

static Suite *
complete_suite(void)
{
	Suite *s = suite_create("complete");
	TCase *tc = tcase_create("complete");

	tcase_add_test(tc, commands_then_names);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(complete_suite());
}
