/*
 * Parsing the input line (see command.h).
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/command.h"
#include "util/xmalloc.h"

static const struct command_def command_table[] = {
#define COMMAND_DEF(id, words, usage, args, flags, run, help)		\
	{ CMD_##id, words, usage, args, flags, help },
	COMMAND_LIST(COMMAND_DEF)
#undef COMMAND_DEF
};

#define COMMAND_N (sizeof command_table / sizeof *command_table)

const struct command_def *
command_defs(size_t *n)
{
	*n = COMMAND_N;
	return command_table;
}

const struct command_def *
command_def(enum command_kind kind)
{
	size_t i;

	for (i = 0; i < COMMAND_N; i++)
		if (command_table[i].kind == kind)
			return &command_table[i];
	return NULL;
}

const char *
command_name(enum command_kind kind)
{
	static char names[COMMAND_N][32];
	const struct command_def *d = command_def(kind);
	size_t i = d != NULL ? (size_t)(d - command_table) : 0;
	char *p;

	if (kind == CMD_EMPTY)
		return "empty";
	if (kind == CMD_SAY)
		return "say";
	if (d == NULL)
		return "parse";
	if (names[i][0] == '\0') {
		snprintf(names[i], sizeof names[i], "%s", d->words);
		for (p = names[i]; *p != '\0'; p++)
			if (*p == ' ')
				*p = '_';
	}
	return names[i];
}

/* One command's line of the help: "/words usage", then what it does
 * from COMMAND_HELP_COL (on a line of its own when the usage is
 * longer). */
static char *
command_help_line(char *text, size_t *len, size_t *cap,
    const char *use, const char *what)
{
	char *line;
	int w = (int)strlen(use);

	if (w < COMMAND_HELP_COL - 1)
		line = xasprintf("%s%*s%s\n", use, COMMAND_HELP_COL - w, "",
		    what);
	else
		line = xasprintf("%s\n%*s%s\n", use, COMMAND_HELP_COL, "",
		    what);
	text = xappend(text, len, cap, line, strlen(line));
	free(line);
	return text;
}

const char *
command_help(void)
{
	static char *text;
	size_t len = 0, cap = 0, i;
	char *use;

	if (text != NULL)
		return text;
	text = command_help_line(text, &len, &cap, "text",
	    "send text to the focused agent");
	for (i = 0; i < COMMAND_N; i++) {
		use = xasprintf("/%s%s%s", command_table[i].words,
		    *command_table[i].usage ? " " : "", command_table[i].usage);
		text = command_help_line(text, &len, &cap, use,
		    command_table[i].help);
		free(use);
	}
	text = command_help_line(text, &len, &cap, "//text",
	    "send text that starts with /");
	return text;
}

static const char *
skip_space(const char *s)
{
	while (*s != '\0' && isspace((unsigned char)*s))
		s++;
	return s;
}

/* Copies the next word of *s and moves *s past it (NULL at the end). */
static char *
next_word(const char **s)
{
	const char *p = skip_space(*s), *end = p;
	char *w;

	while (*end != '\0' && !isspace((unsigned char)*end))
		end++;
	if (end == p)
		return NULL;
	w = xmalloc(end - p + 1);
	memcpy(w, p, end - p);
	w[end - p] = '\0';
	*s = end;
	return w;
}

/* The rest of the line, trimmed; NULL when empty. */
static char *
rest_of(const char *s)
{
	const char *p = skip_space(s);
	size_t len = strlen(p);

	while (len > 0 && isspace((unsigned char)p[len - 1]))
		len--;
	if (len == 0)
		return NULL;
	return xasprintf("%.*s", (int)len, p);
}

static enum command_kind
command_bad(struct command *c, char *why)
{
	free(c->error);
	c->error = why;
	c->kind = CMD_BAD;
	return c->kind;
}

/* Whether s is a list of task ids: "t1,t2", "3, t4". */
static int
task_ids_list(const char *s)
{
	int digits = 0;

	for (;; s++) {
		s = skip_space(s);
		if (*s == 't' || *s == 'T')
			s++;
		for (digits = 0; isdigit((unsigned char)*s); s++)
			digits++;
		if (digits == 0)
			return 0;
		s = skip_space(s);
		if (*s == '\0')
			return 1;
		if (*s != ',')
			return 0;
	}
}

/* Cuts a trailing "in worktree NAME" (one word) off c->text, into
 * c->name. */
static void
task_cut_worktree(struct command *c)
{
	const char *p;
	char *in = NULL, *rest;

	for (p = c->text; (p = strstr(p, " in worktree ")) != NULL; p++)
		in = (char *)p;
	if (in == NULL)
		return;
	p = in + 13;
	c->name = next_word(&p);
	if (c->name != NULL && *skip_space(p) == '\0') {
		*in = '\0';
		rest = rest_of(c->text);
		free(c->text);
		c->text = rest;
	} else {
		free(c->name);
		c->name = NULL;
	}
}

/* "usage: /task add … | /task assign …": every command whose words
 * start with `first`. */
static char *
command_usage(const char *first)
{
	size_t n = strlen(first), len = 0, cap = 0, i;
	char *text = NULL, *one;

	text = xappend(text, &len, &cap, "usage: ", 7);
	for (i = 0; i < COMMAND_N; i++) {
		const struct command_def *d = &command_table[i];

		if (strncmp(d->words, first, n) != 0 || (d->words[n] != '\0' &&
		    d->words[n] != ' '))
			continue;
		one = xasprintf("%s/%s%s%s", len > 7 ? " | " : "", d->words,
		    *d->usage ? " " : "", d->usage);
		text = xappend(text, &len, &cap, one, strlen(one));
		free(one);
	}
	return text;
}

/* /task add SUBJECT [after IDS] [in worktree NAME]. */
static enum command_kind
command_task_new(struct command *c, const char *args)
{
	char *rest, *after;
	const char *p;

	if ((c->text = rest_of(args)) == NULL)
		return command_bad(c, command_usage("task add"));
	/* "in worktree NAME" and "after IDS" at the end, in either
	 * order. */
	task_cut_worktree(c);
	for (p = c->text; (after = strstr(p, " after ")) != NULL;
	    p = after + 1) {
		if (task_ids_list(after + 7)) {
			c->target = rest_of(after + 7);
			*after = '\0';
			rest = rest_of(c->text);
			free(c->text);
			c->text = rest;
			break;
		}
	}
	if (c->name == NULL && c->text != NULL)
		task_cut_worktree(c);
	if (c->text == NULL)
		return command_bad(c, xstrdup("the task needs a subject"));
	return c->kind;
}

/* /budget: nothing shows it, "off" lifts it, dollars set it. */
static enum command_kind
command_budget(struct command *c, const char *args)
{
	char *arg = rest_of(args), *end;

	c->amount = -1;
	if (arg == NULL)
		return c->kind;
	if (strcmp(arg, "off") == 0)
		c->amount = 0;
	else {
		c->amount = strtod(arg, &end);
		if (*end != '\0' || !(c->amount >= 0) || c->amount > 1e9) {
			free(arg);
			return command_bad(c, xstrdup("usage: /budget [USD|off]"
			    ", e.g. /budget 12.50"));
		}
	}
	free(arg);
	return c->kind;
}

/* The definition the line's first words name (*args moved past them),
 * or NULL. */
static const struct command_def *
command_lookup(const char *first, const char **args)
{
	const char *after = *args;
	char *second = NULL;
	size_t i, n = strlen(first);
	const struct command_def *d;

	for (i = 0; i < COMMAND_N; i++) {
		d = &command_table[i];
		if (strcmp(d->words, first) == 0)
			return d;
		if (strncmp(d->words, first, n) != 0 || d->words[n] != ' ')
			continue;
		/* A verb: the second word picks it. */
		if (second == NULL && (second = next_word(&after)) == NULL)
			return NULL;
		if (strcmp(d->words + n + 1, second) == 0) {
			free(second);
			*args = after;
			return d;
		}
	}
	free(second);
	return NULL;
}

/* Whether the line has nothing more; else the usage error. */
static enum command_kind
command_end(struct command *c, const struct command_def *d,
    const char *args)
{
	char *rest = rest_of(args);

	if (rest == NULL)
		return c->kind;
	free(rest);
	return command_bad(c, xasprintf("usage: /%s%s%s", d->words,
	    *d->usage ? " " : "", d->usage));
}

/* The arguments, by the shape the command's definition gives. */
static enum command_kind
command_args(struct command *c, const struct command_def *d,
    const char *args)
{
	switch (d->args) {
	case ARGS_NONE:
		break;
	case ARGS_REQ_TEXT:
		c->target = next_word(&args);
		c->text = rest_of(args);
		return c->kind;
	case ARGS_NAME:
		if ((c->name = next_word(&args)) == NULL)
			return command_bad(c, command_usage(d->words));
		break;
	case ARGS_NAME_OPT:
		c->name = next_word(&args);
		break;
	case ARGS_NAME_TEXT:
		c->name = next_word(&args);
		if (c->name == NULL || (c->text = rest_of(args)) == NULL)
			return command_bad(c, command_usage(d->words));
		return c->kind;
	case ARGS_NAME_NOTE:
		if ((c->name = next_word(&args)) == NULL)
			return command_bad(c, command_usage(d->words));
		c->text = rest_of(args);
		return c->kind;
	case ARGS_NAME_YES:
		c->name = next_word(&args);
		c->text = rest_of(args);
		if (c->name == NULL || (c->text != NULL &&
		    strcmp(c->text, "yes") != 0))
			return command_bad(c, command_usage(d->words));
		return c->kind;
	case ARGS_BUDGET:
		return command_budget(c, args);
	case ARGS_TASK_NEW:
		return command_task_new(c, args);
	case ARGS_ID:
	case ARGS_ID_NAME:
		c->target = next_word(&args);
		if (c->target == NULL || (d->args == ARGS_ID_NAME &&
		    (c->name = next_word(&args)) == NULL))
			return command_bad(c, command_usage(d->words));
		break;
	}
	return command_end(c, d, args);
}

enum command_kind
command_parse(const char *line, struct command *c)
{
	const char *p = skip_space(line), *args;
	const struct command_def *d;
	char *word;

	memset(c, 0, sizeof *c);
	if (*p == '\0')
		return c->kind = CMD_EMPTY;
	if (*p != '/' || p[1] == '/') {
		c->text = rest_of(*p == '/' ? p + 1 : p);
		return c->kind = CMD_SAY;
	}
	args = p + 1;
	word = next_word(&args);
	d = word != NULL ? command_lookup(word, &args) : NULL;
	if (d == NULL) {
		char *usage = word != NULL ? command_usage(word) : NULL;

		/* A command with verbs, but none of them. */
		if (usage != NULL && strcmp(usage, "usage: ") != 0)
			command_bad(c, usage);
		else {
			free(usage);
			command_bad(c, xasprintf("unknown command '/%s' (try "
			    "/help)", word ? word : ""));
		}
		free(word);
		return c->kind;
	}
	free(word);
	c->kind = d->kind;
	return command_args(c, d, args);
}

void
command_clear(struct command *c)
{
	free(c->target);
	free(c->name);
	free(c->text);
	free(c->error);
	memset(c, 0, sizeof *c);
}
