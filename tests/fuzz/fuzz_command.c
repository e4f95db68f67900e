/*
 * libFuzzer target for agent/command: the parser of the input line that
 * the screen and --headless share. The input, up to its first NUL byte,
 * is one line as a person could type it (newlines and all: the parser
 * must treat them as blanks).
 *
 * Whatever the line, the parsed command must be well formed: a known
 * kind; an error exactly for CMD_BAD; text for CMD_SAY and CMD_MSG; a
 * name, without blanks, exactly where one is wanted (and the worktree
 * /task add may name); a target (one word of the line) only for
 * /approve and /reject, and their feedback only after one; a /budget
 * amount of -1 (show), 0 (none) or up to a billion dollars; text trimmed
 * and cut from the line itself. Blanks added before or after the line
 * must change nothing, and command_clear must leave a zeroed command.
 * Any difference aborts; ASan, UBSan and the leak checker watch the
 * memory.
 */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/command.h"
#include "util/xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
fuzz_has_blank(const char *s)
{
	for (; *s != '\0'; s++) {
		if (isspace((unsigned char)*s))
			return 1;
	}
	return 0;
}

/* Text the parser returns is never empty, never starts or ends with a
 * blank, and is a piece of the line. */
static void
fuzz_check_text(const char *text, const char *line)
{
	size_t len;

	if (text == NULL)
		return;
	len = strlen(text);
	if (len == 0 || isspace((unsigned char)text[0]) ||
	    isspace((unsigned char)text[len - 1]) ||
	    strstr(line, text) == NULL)
		abort();
}

static void
fuzz_check(const struct command *c, const char *line)
{
	int wants_name, task_target;

	if (c->kind < CMD_EMPTY || c->kind > CMD_BAD)
		abort();
	if ((c->kind == CMD_BAD) != (c->error != NULL))
		abort();
	if (c->kind == CMD_BAD)
		return;		/* its other fields are not looked at */

	/* Blank lines, and only they, are CMD_EMPTY. */
	if ((c->kind == CMD_EMPTY) != (line[strspn(line, " \t\n\v\f\r")] ==
	    '\0'))
		abort();

	wants_name = c->kind == CMD_SHUTDOWN || c->kind == CMD_STOP ||
	    c->kind == CMD_MSG || c->kind == CMD_INTERRUPT ||
	    c->kind == CMD_DIFF || c->kind == CMD_MERGE ||
	    c->kind == CMD_DISCARD || c->kind == CMD_TASK_ASSIGN ||
	    c->kind == CMD_REJECT_ALL;
	/* /compact and /context take a name or none; /task add may name
	 * a worktree. */
	if (wants_name != (c->name != NULL) && c->kind != CMD_COMPACT &&
	    c->kind != CMD_CONTEXT && c->kind != CMD_TASK_ADD)
		abort();
	if (c->name != NULL && (*c->name == '\0' || fuzz_has_blank(c->name) ||
	    strstr(line, c->name) == NULL))
		abort();

	if ((c->kind == CMD_SAY || c->kind == CMD_MSG ||
	    c->kind == CMD_TASK_ADD) && c->text == NULL)
		abort();
	if (c->text != NULL && c->kind != CMD_SAY && c->kind != CMD_MSG &&
	    c->kind != CMD_APPROVE && c->kind != CMD_REJECT &&
	    c->kind != CMD_REJECT_ALL && c->kind != CMD_TASK_ADD &&
	    c->kind != CMD_DISCARD && c->kind != CMD_MCP)
		abort();
	/* /discard confirms with "yes", and nothing else. */
	if (c->kind == CMD_DISCARD && c->text != NULL &&
	    strcmp(c->text, "yes") != 0)
		abort();
	fuzz_check_text(c->text, line);

	/* A target: the request of /approve and /reject, the task of
	 * /task assign|done|cancel|reopen, /mcp's "logout" (one word of
	 * the line each), or the list of ids /task add waits for (which
	 * may hold blanks). */
	task_target = c->kind == CMD_TASK_ASSIGN || c->kind == CMD_TASK_DONE ||
	    c->kind == CMD_TASK_CANCEL || c->kind == CMD_TASK_REOPEN;
	if (task_target != (c->target != NULL) && c->kind != CMD_APPROVE &&
	    c->kind != CMD_REJECT && c->kind != CMD_TASK_ADD &&
	    c->kind != CMD_MCP)
		abort();
	if (c->target != NULL && (*c->target == '\0' ||
	    (c->kind != CMD_TASK_ADD && fuzz_has_blank(c->target)) ||
	    strstr(line, c->target) == NULL))
		abort();
	/* Feedback (or /mcp logout's server) only after a target. */
	if (c->text != NULL && (c->kind == CMD_APPROVE ||
	    c->kind == CMD_REJECT || c->kind == CMD_MCP) && c->target == NULL)
		abort();

	/* /budget: -1 to show, 0 for none, else a sane amount of dollars. */
	if (c->kind == CMD_BUDGET && c->amount != -1 &&
	    !(c->amount >= 0 && c->amount <= 1e9))
		abort();
}

static int
fuzz_str_eq(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

static void
fuzz_check_same(const struct command *a, const struct command *b)
{
	if (a->kind != b->kind || !fuzz_str_eq(a->target, b->target) ||
	    !fuzz_str_eq(a->name, b->name) || !fuzz_str_eq(a->text, b->text) ||
	    !fuzz_str_eq(a->error, b->error))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct command zero;
	struct command c, again;
	char *line, *padded;

	line = xmalloc(size + 1);
	memcpy(line, data, size);
	line[size] = '\0';

	command_parse(line, &c);
	fuzz_check(&c, line);

	/* The same line again gives the same command. */
	command_parse(line, &again);
	fuzz_check_same(&c, &again);
	command_clear(&again);
	if (memcmp(&again, &zero, sizeof zero) != 0)
		abort();

	/* Blanks around the line change nothing. */
	padded = xasprintf(" \t%s \t", line);
	command_parse(padded, &again);
	fuzz_check(&again, padded);
	fuzz_check_same(&c, &again);
	command_clear(&again);
	free(padded);

	command_clear(&c);
	if (memcmp(&c, &zero, sizeof zero) != 0)
		abort();
	/* Clearing twice is harmless. */
	command_clear(&c);
	free(line);
	return 0;
}
