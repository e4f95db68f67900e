/*
 * Parsing the input line (see command.h).
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "agent/command.h"
#include "util/xmalloc.h"

static const struct {
	const char		*word;
	enum command_kind	 kind;
} command_words[] = {
	{ "approve", CMD_APPROVE },
	{ "reject", CMD_REJECT },
	{ "shutdown", CMD_SHUTDOWN },
	{ "stop", CMD_STOP },
	{ "msg", CMD_MSG },
	{ "interrupt", CMD_INTERRUPT },
	{ "budget", CMD_BUDGET },
	{ "compact", CMD_COMPACT },
	{ "context", CMD_CONTEXT },
	{ "task", CMD_TASK_ADD },
	{ "tasks", CMD_TASKS },
	{ "diff", CMD_DIFF },
	{ "merge", CMD_MERGE },
	{ "discard", CMD_DISCARD },
	{ "worktrees", CMD_WORKTREES },
	{ "team", CMD_TEAM },
	{ "requests", CMD_REQUESTS },
	{ "zoom", CMD_ZOOM },
	{ "help", CMD_HELP },
	{ "quit", CMD_QUIT },
};

const char *
command_help(void)
{
	return
	    "text                    send text to the focused agent\n"
	    "/approve [REQ] [text]   approve a request: REQ is an id, an id's\n"
	    "                        start, or a teammate with one request\n"
	    "                        waiting (default: the selected one)\n"
	    "/reject [REQ] [text]    reject a request, with feedback\n"
	    "/shutdown NAME          ask a teammate to shut down\n"
	    "/stop NAME              stop a teammate at once (forced)\n"
	    "/msg NAME TEXT          send text to a member\n"
	    "/interrupt NAME         stop a member's turn (Esc: the focused)\n"
	    "/budget [USD|off]       show or set the team's spending limit\n"
	    "/compact, /context [NAME]  compact now; how full the window is\n"
	    "/task add SUBJECT [after t1,t2] [in worktree W]  a new task\n"
	    "/task assign ID NAME, /task done|cancel|reopen ID\n"
	    "/team, /requests, /tasks  list the team, requests, tasks\n"
	    "/diff|merge|discard NAME, /worktrees  the worktrees\n"
	    "/zoom, /help            zoom the focused pane; this help\n"
	    "/quit                   quit (teammates are asked to shut down)\n"
	    "//text                  send text that starts with /\n";
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

/* /task add|assign|done|cancel|reopen ... */
static enum command_kind
command_task(struct command *c, const char *args)
{
	static const char usage[] = "usage: /task add SUBJECT [after t1,t2] "
	    "[in worktree NAME] | "
	    "/task assign ID NAME | /task done|cancel|reopen ID";
	char *verb = next_word(&args), *rest, *after;
	const char *p;

	if (verb == NULL)
		return command_bad(c, xstrdup(usage));
	if (strcmp(verb, "add") == 0) {
		free(verb);
		if ((c->text = rest_of(args)) == NULL)
			return command_bad(c, xstrdup("usage: /task add SUBJECT "
			    "[after t1,t2] [in worktree NAME]"));
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
		return c->kind = CMD_TASK_ADD;
	}
	if (strcmp(verb, "done") == 0)
		c->kind = CMD_TASK_DONE;
	else if (strcmp(verb, "cancel") == 0)
		c->kind = CMD_TASK_CANCEL;
	else if (strcmp(verb, "reopen") == 0)
		c->kind = CMD_TASK_REOPEN;
	else if (strcmp(verb, "assign") == 0)
		c->kind = CMD_TASK_ASSIGN;
	else {
		free(verb);
		return command_bad(c, xstrdup(usage));
	}
	free(verb);
	c->target = next_word(&args);
	if (c->kind == CMD_TASK_ASSIGN)
		c->name = next_word(&args);
	rest = rest_of(args);
	if (c->target == NULL || (c->kind == CMD_TASK_ASSIGN &&
	    c->name == NULL) || rest != NULL) {
		free(rest);
		return command_bad(c, xstrdup(c->kind == CMD_TASK_ASSIGN ?
		    "usage: /task assign ID NAME" : "usage: /task "
		    "done|cancel|reopen ID"));
	}
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

enum command_kind
command_parse(const char *line, struct command *c)
{
	const char *p = skip_space(line), *args;
	char *word;
	size_t i;

	memset(c, 0, sizeof *c);
	if (*p == '\0')
		return c->kind = CMD_EMPTY;
	if (*p != '/' || p[1] == '/') {
		c->text = rest_of(*p == '/' ? p + 1 : p);
		return c->kind = CMD_SAY;
	}
	args = p + 1;
	word = next_word(&args);
	c->kind = CMD_BAD;
	for (i = 0; word != NULL &&
	    i < sizeof command_words / sizeof *command_words; i++) {
		if (strcmp(word, command_words[i].word) == 0)
			c->kind = command_words[i].kind;
	}
	if (c->kind == CMD_BAD) {
		command_bad(c, xasprintf("unknown command '/%s' (try /help)",
		    word ? word : ""));
		free(word);
		return c->kind;
	}
	free(word);

	switch (c->kind) {
	case CMD_APPROVE:
	case CMD_REJECT:
		c->target = next_word(&args);
		c->text = rest_of(args);
		break;
	case CMD_DISCARD:
		c->name = next_word(&args);
		c->text = rest_of(args);
		if (c->name == NULL || (c->text != NULL &&
		    strcmp(c->text, "yes") != 0))
			return command_bad(c, xstrdup("usage: /discard NAME, "
			    "then /discard NAME yes"));
		break;
	case CMD_DIFF:
	case CMD_MERGE:
		c->name = next_word(&args);
		word = rest_of(args);
		if (c->name == NULL || word != NULL) {
			free(word);
			return command_bad(c, xasprintf("usage: /%s NAME",
			    c->kind == CMD_DIFF ? "diff" : "merge"));
		}
		break;
	case CMD_SHUTDOWN:
	case CMD_STOP:
	case CMD_INTERRUPT:
		c->name = next_word(&args);
		if (c->name == NULL)
			return command_bad(c, xasprintf("/%s needs a%s name",
			    c->kind == CMD_STOP ? "stop" : c->kind ==
			    CMD_SHUTDOWN ? "shutdown" : "interrupt", c->kind ==
			    CMD_INTERRUPT ? "" : " teammate's"));
		if ((word = rest_of(args)) != NULL) {
			free(word);
			return command_bad(c, xstrdup("give one name only"));
		}
		break;
	case CMD_MSG:
		c->name = next_word(&args);
		c->text = rest_of(args);
		if (c->name == NULL || c->text == NULL)
			return command_bad(c, xstrdup("usage: /msg NAME TEXT"));
		break;
	case CMD_BUDGET:
		return command_budget(c, args);
	case CMD_TASK_ADD:
		return command_task(c, args);
	case CMD_COMPACT:
	case CMD_CONTEXT:
		c->name = next_word(&args);
		if ((word = rest_of(args)) != NULL) {
			free(word);
			return command_bad(c, xstrdup("give one name only"));
		}
		break;
	default:
		if ((word = rest_of(args)) != NULL) {
			free(word);
			return command_bad(c, xstrdup("this command takes no "
			    "arguments"));
		}
		break;
	}
	return c->kind;
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
