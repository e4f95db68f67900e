/*
 * Unit tests of the options table (options.c) against what follows it:
 * a default said once. The table's default of each option the team or
 * the model calls use is what those parts take when nothing is given
 * (team_options_defaults, llm_config_defaults), and --help says each
 * default from its row alone.
 */
#include "config.h"

#include <string.h>

#include "agent/team.h"
#include "llm/llm.h"
#include "options.h"
#include "testutil.h"
#include "util/xmalloc.h"

START_TEST(the_parts_take_the_tables_defaults)
{
	struct options o;
	struct team_options to;
	struct llm_config c;

	options_init(&o);
	team_options_defaults(&to);
	llm_config_defaults(&c);
	ck_assert_int_eq(o.max_teammates, to.max_teammates);
	ck_assert_int_eq(o.compact_at, to.compact_at);
	ck_assert_int_eq((int64_t)o.quit_timeout * 1000, to.quit_timeout_ms);
	ck_assert_int_eq(o.max_procs, to.max_procs);
	ck_assert_int_eq(o.max_memory, to.max_memory);
	ck_assert_int_eq(o.max_file_size, to.max_file_size);
	ck_assert_int_eq(o.tmp_max, to.tmp_max.bytes);
	ck_assert_int_eq(o.tmp_max_files, to.tmp_max.files);
	ck_assert_int_eq(o.retry_for, c.retry_for_ms);
	ck_assert_int_eq(o.retry_max_delay, c.retry_max_delay_ms);
	ck_assert_int_eq(o.stall_timeout, c.stall_timeout_s);
	/* "any": a plan is reviewed by the lead or the person. */
	ck_assert_str_eq(options_word(&o, OPT_PLAN_REVIEW), "any");
	ck_assert_uint_eq(to.plan_review, PROTO_BY_TARGET | PROTO_BY_USER);
	options_free(&o);
}
END_TEST

/* --help says a default only from its row: no row's own help names one,
 * and the line --help prints ends with the row's ("at most N live
 * teammates (default: 8)", "(default: $HUDDLE_MODEL, else
 * $ANTHROPIC_MODEL / $OPENAI_MODEL, else …)"). */
START_TEST(the_help_says_the_tables_defaults)
{
	const struct opt_def *d;
	char *line, *want;
	int i, said = 0;

	for (i = 0; i < OPT__COUNT; i++) {
		d = &options_table[i];
		if (d->help == NULL)
			continue;
		ck_assert_msg(d->deflt == NULL || strstr(d->help, "default") ==
		    NULL, "--%s: its help names a default of its own: \"%s\"",
		    d->name, d->help);
		if (d->deflt == NULL)
			continue;
		line = options_help_line(d);
		want = xasprintf("%s%s%s%s)", d->env ? ", else " :
		    " (default: ", d->deflt, d->deflt_note ? "; " : "",
		    d->deflt_note ? d->deflt_note : "");
		ck_assert_msg(strlen(line) > strlen(want) && strcmp(line +
		    strlen(line) - strlen(want), want) == 0 &&
		    strncmp(line, d->help, strlen(d->help)) == 0,
		    "--%s: \"%s\" does not end with \"%s\"", d->name, line,
		    want);
		free(want);
		free(line);
		said++;
	}
	ck_assert_int_gt(said, 25);
}
END_TEST

static Suite *
options_suite(void)
{
	Suite *s = suite_create("options");
	TCase *tc = tcase_create("options");

	tcase_add_test(tc, the_parts_take_the_tables_defaults);
	tcase_add_test(tc, the_help_says_the_tables_defaults);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(options_suite());
}
