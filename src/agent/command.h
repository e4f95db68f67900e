/*
 * The input line's language, shared by the screen and --headless: plain
 * text goes to an agent, and slash commands act on the team. Every
 * command is defined once, in COMMAND_LIST below: its parser, its
 * executor, /help and F1, --headless's names and the man page's list
 * (checked by tests/unit/test_command) all come from there.
 *
 * REQ names one request: its id, a prefix of the id that only one pending
 * request has, or a teammate with exactly one request waiting for the
 * person (team_find_request resolves it; anything else resolves
 * nothing). Without REQ, /approve and /reject act on the request the
 * front end has selected. A line starting with "//" is text that begins
 * with one "/".
 */
#ifndef HUDDLE_AGENT_COMMAND_H
#define HUDDLE_AGENT_COMMAND_H

#include <jansson.h>

struct team;
struct command;
struct command_result;

/* The shapes a command's arguments take (the parser's part per shape):
 * the fields of struct command each fills. */
enum command_args {
	ARGS_NONE,		/* nothing */
	ARGS_REQ_TEXT,		/* target?, text? */
	ARGS_NAME,		/* name */
	ARGS_NAME_OPT,		/* name? */
	ARGS_NAME_TEXT,		/* name, text */
	ARGS_NAME_NOTE,		/* name, text? */
	ARGS_NAME_YES,		/* name, text? ("yes" only) */
	ARGS_BUDGET,		/* amount: dollars, 0 for none, -1 to show */
	ARGS_TASK_NEW,		/* text (subject), target? ("t1,t2"), name? */
	ARGS_ID,		/* target */
	ARGS_ID_NAME		/* target, name */
};

/* A command's flags. */
#define CMDF_FRONT	0x1	/* the front end's own: nothing runs */
#define CMDF_SCREEN	0x2	/* means something on the screen only */
#define CMDF_REPORT	0x4	/* answers with a report named after it */

/*
 * Every slash command, once: X(ID, words, usage, args, flags, run, help).
 * ID makes CMD_ID; words are what is typed after "/" (two for a verb of
 * /task); usage is what follows them in /help; run is the executor's
 * function (execute.c), NULL for CMDF_FRONT; help is one line.
 */
#define COMMAND_LIST(X)							\
	X(APPROVE, "approve", "[REQ] [text]", ARGS_REQ_TEXT, 0,		\
	    execute_decide, "approve a request (REQ: an id, an id's start, "\
	    "or a teammate with one request waiting; default: the "	\
	    "selected one)")						\
	X(REJECT, "reject", "[REQ] [text]", ARGS_REQ_TEXT, 0,		\
	    execute_decide, "reject a request, with feedback")		\
	X(REJECT_ALL, "reject-all", "NAME [text]", ARGS_NAME_NOTE, 0,	\
	    execute_reject_all, "reject every request NAME has waiting "\
	    "for you (R on the table)")					\
	X(SHUTDOWN, "shutdown", "NAME", ARGS_NAME, 0, execute_shutdown,	\
	    "ask a teammate to shut down")				\
	X(STOP, "stop", "NAME", ARGS_NAME, 0, execute_stop,		\
	    "stop a teammate at once (forced)")				\
	X(MSG, "msg", "NAME TEXT", ARGS_NAME_TEXT, 0, execute_say,	\
	    "send text to a member")					\
	X(INTERRUPT, "interrupt", "NAME", ARGS_NAME, 0,			\
	    execute_interrupt, "stop a member's turn (Esc: the focused "\
	    "one's)")							\
	X(BUDGET, "budget", "[USD|off]", ARGS_BUDGET, 0, execute_budget,\
	    "show or set the team's spending limit")			\
	X(COMPACT, "compact", "[NAME]", ARGS_NAME_OPT, 0,		\
	    execute_compact, "compact a member's conversation now")	\
	X(CONTEXT, "context", "[NAME]", ARGS_NAME_OPT, 0,		\
	    execute_context, "how full a member's context window is")	\
	X(TASK_ADD, "task add", "SUBJECT [after t1,t2] [in worktree W]",\
	    ARGS_TASK_NEW, 0, execute_task_add, "a new task on the "	\
	    "board")							\
	X(TASK_ASSIGN, "task assign", "ID NAME", ARGS_ID_NAME, 0,	\
	    execute_task_assign, "give a task to a teammate")		\
	X(TASK_DONE, "task done", "ID", ARGS_ID, 0, execute_task_done,	\
	    "complete a task (after its check)")			\
	X(TASK_CANCEL, "task cancel", "ID", ARGS_ID, 0,			\
	    execute_task_move, "drop a task")				\
	X(TASK_REOPEN, "task reopen", "ID", ARGS_ID, 0,			\
	    execute_task_move, "put a task back on the board")		\
	X(TASKS, "tasks", "", ARGS_NONE, CMDF_REPORT, execute_tasks,	\
	    "list the task board")					\
	X(DIFF, "diff", "NAME", ARGS_NAME, CMDF_REPORT, execute_diff,	\
	    "what was changed in a worktree")				\
	X(MERGE, "merge", "NAME", ARGS_NAME, 0, execute_merge,		\
	    "merge a worktree's work into the checked-out branch")	\
	X(DISCARD, "discard", "NAME [yes]", ARGS_NAME_YES, 0,		\
	    execute_discard, "delete a worktree (yes: really)")		\
	X(WORKTREES, "worktrees", "", ARGS_NONE, CMDF_REPORT,		\
	    execute_worktrees, "list the worktrees")			\
	X(TEAM, "team", "", ARGS_NONE, CMDF_REPORT, execute_team,	\
	    "list the members, their models, tokens and cost")		\
	X(MCP, "mcp", "[logout SERVER]", ARGS_REQ_TEXT, 0, execute_mcp,	\
	    "the MCP servers, their states, sign-ins and tools; logout "	\
	    "forgets a sign-in")						\
	X(ROLES, "roles", "", ARGS_NONE, CMDF_REPORT, execute_roles,	\
	    "list the teammate roles and where each is defined")	\
	X(REQUESTS, "requests", "", ARGS_NONE, CMDF_REPORT,		\
	    execute_requests, "list the requests")			\
	X(ZOOM, "zoom", "", ARGS_NONE, CMDF_FRONT | CMDF_SCREEN, NULL,	\
	    "zoom the focused pane, or back")				\
	X(HELP, "help", "", ARGS_NONE, CMDF_FRONT, NULL, "this help")	\
	X(QUIT, "quit", "", ARGS_NONE, CMDF_FRONT, NULL,		\
	    "quit (teammates are asked to shut down)")

enum command_kind {
	CMD_EMPTY,	/* a blank line */
	CMD_SAY,	/* text: to the focused agent */
#define COMMAND_KIND(id, words, usage, args, flags, run, help) CMD_##id,
	COMMAND_LIST(COMMAND_KIND)
#undef COMMAND_KIND
	CMD_BAD		/* error says why */
};

/* One command as COMMAND_LIST defines it. */
struct command_def {
	enum command_kind	 kind;
	const char		*words;
	const char		*usage;
	enum command_args	 args;
	unsigned		 flags;
	const char		*help;
};

/* The commands, in COMMAND_LIST's order; *n is how many. */
const struct command_def *command_defs(size_t *n);

/* The definition of kind, or NULL (text, a blank line, a mistake). */
const struct command_def *command_def(enum command_kind kind);

/* A kind's name for a program: its words joined by "_" ("task_add"),
 * "say", "empty" or "parse". */
const char *command_name(enum command_kind kind);

struct command {
	enum command_kind	 kind;
	char			*target; /* each NULL when absent */
	char			*name;
	char			*text;
	char			*error;
	double			 amount;
};

/* Parses one line (without its newline) into c; returns c->kind. */
enum command_kind command_parse(const char *line, struct command *c);

void command_clear(struct command *c);

/* The help text listing every command, a line each: its usage, then
 * from column COMMAND_HELP_COL what it does (static). */
const char *command_help(void);

#define COMMAND_HELP_COL 26

/* What running a command came to, for a front end to show. */
enum command_outcome {
	OUTCOME_DONE,		/* message (may be NULL) says what happened */
	OUTCOME_ERROR,		/* message says why nothing happened */
	OUTCOME_REPORT,		/* data: the report of a CMDF_REPORT command */
	OUTCOME_FRONT		/* the front end's own (CMDF_FRONT, a blank
				 * line): nothing was done */
};

struct command_result {
	enum command_outcome	 outcome;
	char			*message;
	json_t			*data;
};

/*
 * Runs one command against the team: the executor both front ends share,
 * so a line means the same on the screen and in --headless. `focus` is
 * whom plain text goes to (NULL: the lead). `selected` is the request
 * /approve and /reject without REQ act on: an id, "" when the front end
 * has nothing pending selected (an error), or NULL when it has no
 * selection at all (the oldest request waiting for the person).
 *
 * The reports: /diff is places_diff's, /worktrees places_list'; /team
 * is {members: [{name, role, status, plan_required,
 * plan_approved, input_tokens, output_tokens, cache_write_tokens,
 * cache_read_tokens, cost_usd, model, context_tokens?, context_window?}],
 * team_cost_usd, max_cost_usd,
 * sandbox}; /requests is {requests: [{id, type, from, to, status, body,
 * decided_by?}]}, pending first, oldest first, then the latest decided;
 * /tasks is {tasks: [task]}, every task by id, each as a task event's
 * data (event.h).
 */
void execute_command(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res);

void execute_result_clear(struct command_result *res);

#endif
