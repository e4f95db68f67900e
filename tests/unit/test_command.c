/*
 * Unit tests of agent/command: the input line's slash commands.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/command.h"
#include "util/xmalloc.h"
#include "testutil.h"

static void
parse(const char *line, enum command_kind want, const char *target,
    const char *name, const char *text)
{
	struct command c;

	ck_assert_msg(command_parse(line, &c) == want, "'%s' parsed as %d",
	    line, c.kind);
	if (target)
		ck_assert_str_eq(c.target, target);
	else if (want != CMD_BAD)
		ck_assert_ptr_null(c.target);
	if (name)
		ck_assert_str_eq(c.name, name);
	else if (want != CMD_BAD)
		ck_assert_ptr_null(c.name);
	if (text)
		ck_assert_str_eq(c.text, text);
	else if (want != CMD_BAD)
		ck_assert_ptr_null(c.text);
	if (want == CMD_BAD)
		ck_assert_ptr_nonnull(c.error);
	command_clear(&c);
}

START_TEST(text_and_blank_lines)
{
	parse("", CMD_EMPTY, NULL, NULL, NULL);
	parse("   \t", CMD_EMPTY, NULL, NULL, NULL);
	parse("hello there ", CMD_SAY, NULL, NULL, "hello there");
	parse("//etc is a dir", CMD_SAY, NULL, NULL, "/etc is a dir");
}
END_TEST

START_TEST(approve_and_reject)
{
	parse("/approve", CMD_APPROVE, NULL, NULL, NULL);
	parse("/approve req_0a1b2c3d", CMD_APPROVE, "req_0a1b2c3d", NULL,
	    NULL);
	parse("/approve req_0a1b2c3d  looks good", CMD_APPROVE,
	    "req_0a1b2c3d", NULL, "looks good");
	parse("/reject req_0a1b2c3d add tests", CMD_REJECT, "req_0a1b2c3d",
	    NULL, "add tests");
	/* The first word always names the request, whatever it is: whether
	 * it names one is the team's to say (team_find_request), and a
	 * word that names none decides nothing. */
	parse("/approve fine by me", CMD_APPROVE, "fine", NULL, "by me");
	parse("/approve nonsense", CMD_APPROVE, "nonsense", NULL, NULL);
	parse("/reject bob too risky", CMD_REJECT, "bob", NULL, "too risky");
	parse("/reject 0a1b x", CMD_REJECT, "0a1b", NULL, "x");
	/* All of one agent's: a name, and feedback if any. */
	parse("/reject-all mallory", CMD_REJECT_ALL, NULL, "mallory", NULL);
	parse("/reject-all mallory  stop asking ", CMD_REJECT_ALL, NULL,
	    "mallory", "stop asking");
	parse("/reject-all", CMD_BAD, NULL, NULL, NULL);
	parse("/reject-allmallory", CMD_BAD, NULL, NULL, NULL);
	/* /reject is not /reject-all, however it goes on. */
	parse("/reject all mallory", CMD_REJECT, "all", NULL, "mallory");
}
END_TEST

START_TEST(names_and_messages)
{
	parse("/shutdown alice", CMD_SHUTDOWN, NULL, "alice", NULL);
	parse("/stop bob", CMD_STOP, NULL, "bob", NULL);
	parse("/shutdown", CMD_BAD, NULL, NULL, NULL);
	parse("/shutdown alice bob", CMD_BAD, NULL, NULL, NULL);
	parse("/msg bob please rebase", CMD_MSG, NULL, "bob", "please rebase");
	parse("/msg bob", CMD_BAD, NULL, NULL, NULL);
}
END_TEST

/* The amount /budget parses, or the kind when it is refused. */
static double
budget(const char *line)
{
	struct command c;
	double amount;

	if (command_parse(line, &c) != CMD_BUDGET) {
		command_clear(&c);
		return -2;
	}
	amount = c.amount;
	command_clear(&c);
	return amount;
}

START_TEST(interrupt_and_budget)
{
	parse("/interrupt alice", CMD_INTERRUPT, NULL, "alice", NULL);
	parse("/interrupt lead", CMD_INTERRUPT, NULL, "lead", NULL);
	parse("/interrupt", CMD_BAD, NULL, NULL, NULL);
	parse("/interrupt alice bob", CMD_BAD, NULL, NULL, NULL);
	ck_assert_double_eq(budget("/budget"), -1);
	ck_assert_double_eq(budget("/budget 12.50"), 12.5);
	ck_assert_double_eq(budget("/budget 0"), 0);
	ck_assert_double_eq(budget("/budget off"), 0);
	ck_assert_double_eq(budget("/budget lots"), -2);
	ck_assert_double_eq(budget("/budget -3"), -2);
	ck_assert_double_eq(budget("/budget 5 dollars"), -2);
}
END_TEST

START_TEST(plain_commands_and_mistakes)
{
	parse("/team", CMD_TEAM, NULL, NULL, NULL);
	parse("/requests", CMD_REQUESTS, NULL, NULL, NULL);
	parse("/zoom", CMD_ZOOM, NULL, NULL, NULL);
	parse("/help", CMD_HELP, NULL, NULL, NULL);
	parse(" /quit ", CMD_QUIT, NULL, NULL, NULL);
	parse("/quit now", CMD_BAD, NULL, NULL, NULL);
	parse("/frobnicate", CMD_BAD, NULL, NULL, NULL);
	parse("/", CMD_BAD, NULL, NULL, NULL);
	ck_assert_ptr_nonnull(strstr(command_help(), "/approve"));
}
END_TEST

START_TEST(task_commands)
{
	parse("/task add write the parser", CMD_TASK_ADD, NULL, NULL,
	    "write the parser");
	parse("/task add tests after t1, t2", CMD_TASK_ADD, "t1, t2", NULL,
	    "tests");
	parse("/task add docs in worktree web", CMD_TASK_ADD, NULL, "web",
	    "docs");
	parse("/task add docs after t3 in worktree web ", CMD_TASK_ADD, "t3",
	    "web", "docs");
	parse("/task add docs in worktree web after t3", CMD_TASK_ADD, "t3",
	    "web", "docs");
	/* The subject is trimmed before the worktree, whatever the blank. */
	parse("/task add docs\t in worktree web", CMD_TASK_ADD, NULL, "web",
	    "docs");
	/* Only one word, at the end, names a worktree: else it is all the
	 * subject. */
	parse("/task add live in worktree web\rx", CMD_TASK_ADD, NULL, NULL,
	    "live in worktree web\rx");
	parse("/task add in worktree web", CMD_TASK_ADD, NULL, NULL,
	    "in worktree web");
	parse("/task add", CMD_BAD, NULL, NULL, NULL);
	parse("/task assign t1 bob", CMD_TASK_ASSIGN, "t1", "bob", NULL);
	parse("/task assign t1", CMD_BAD, NULL, NULL, NULL);
	parse("/task done t4", CMD_TASK_DONE, "t4", NULL, NULL);
	parse("/task reopen t4 now", CMD_BAD, NULL, NULL, NULL);
}
END_TEST

/* Whether the table has a command of these words. */
static int
table_has(const char *words, size_t len)
{
	const struct command_def *d;
	size_t n, i;

	d = command_defs(&n);
	for (i = 0; i < n; i++)
		if (strlen(d[i].words) == len && strncmp(d[i].words, words,
		    len) == 0)
			return 1;
	return 0;
}

/*
 * The man page lists the commands of the table, each once, in the
 * order of the table: the first word(s) of each entry's tag in its
 * COMMANDS section.
 */
START_TEST(man_page_lists_the_table)
{
	char *man = tu_source_file("doc/huddle.1"), *p, *end, *tag, *stop;
	const struct command_def *d;
	size_t n, i = 0, len;

	ck_assert_msg(man != NULL, "doc/huddle.1 not found (top_srcdir?)");
	p = strstr(man, "\n.SH COMMANDS\n");
	ck_assert_ptr_nonnull(p);
	end = strstr(p + 1, "\n.SH ");
	ck_assert_ptr_nonnull(end);
	*end = '\0';
	d = command_defs(&n);
	while ((p = strstr(p, "\n.TP\n")) != NULL) {
		p += 5;
		/* ".B /team", ".BI /diff \" name\"", ".BI \"/task add \" …" */
		tag = p + strcspn(p, " ") + 1;
		if (*tag == '"')
			tag++;
		ck_assert_msg(*tag == '/', "a COMMANDS entry not a command: "
		    "%.40s", p);
		tag++;
		stop = tag + strcspn(tag, "\"\n\\");
		len = (size_t)(stop - tag);
		while (len > 0 && tag[len - 1] == ' ')
			len--;
		/* A tag's words end where its arguments start. */
		if (!table_has(tag, len))
			len = strcspn(tag, " \"\n\\");
		while (len > 0 && tag[len - 1] == ' ')
			len--;
		ck_assert_msg(i < n, "the man page lists /%.*s, not in the "
		    "table", (int)len, tag);
		ck_assert_msg(strlen(d[i].words) == len && strncmp(d[i].words,
		    tag, len) == 0, "the man page lists /%.*s where the table "
		    "has /%s", (int)len, tag, d[i].words);
		i++;
	}
	ck_assert_msg(i == n, "the man page lacks /%s", i < n ? d[i].words :
	    "");
	free(man);
}
END_TEST

/* Every command README.md names is in the table; /help lists every one
 * of the table. */
START_TEST(readme_and_help_name_the_table)
{
	char *readme = tu_source_file("README.md"), *p, *use;
	const struct command_def *d;
	size_t n, i, len;

	ck_assert_ptr_nonnull(readme);
	for (p = readme; (p = strstr(p, "`/")) != NULL; p++) {
		len = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-");
		/* A path ("/v1") is no command. */
		if (len == 0 || strchr(" `|", p[2 + len]) == NULL)
			continue;
		/* "/task add": a verb is one of the table's two words. */
		if (!table_has(p + 2, len) && p[2 + len] == ' ')
			len += 1 + strspn(p + 3 + len,
			    "abcdefghijklmnopqrstuvwxyz");
		ck_assert_msg(table_has(p + 2, len), "README.md names /%.*s, "
		    "which is no command", (int)len, p + 2);
	}
	free(readme);
	d = command_defs(&n);
	for (i = 0; i < n; i++) {
		use = xasprintf("\n/%s", d[i].words);
		ck_assert_msg(strstr(command_help(), use) != NULL,
		    "/help lacks /%s", d[i].words);
		free(use);
		ck_assert_ptr_eq(command_def(d[i].kind), &d[i]);
	}
	ck_assert_str_eq(command_name(CMD_TASK_ADD), "task_add");
	ck_assert_str_eq(command_name(CMD_BAD), "parse");
}
END_TEST

static Suite *
command_suite(void)
{
	Suite *s = suite_create("command");
	TCase *tc = tcase_create("command");

	tcase_add_test(tc, text_and_blank_lines);
	tcase_add_test(tc, approve_and_reject);
	tcase_add_test(tc, names_and_messages);
	tcase_add_test(tc, plain_commands_and_mistakes);
	tcase_add_test(tc, interrupt_and_budget);
	tcase_add_test(tc, task_commands);
	tcase_add_test(tc, man_page_lists_the_table);
	tcase_add_test(tc, readme_and_help_name_the_table);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(command_suite());
}
