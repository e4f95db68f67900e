/*
 * The input line's language, shared by the screen and --headless: plain
 * text goes to an agent, and slash commands act on the team.
 *
 *	/approve [REQ [feedback]]	/reject [REQ [feedback]]
 *	/shutdown NAME			/stop NAME (forced stop)
 *	/msg NAME TEXT			/team   /requests   /zoom
 *	/interrupt NAME			/budget [USD|off]
 *	/compact [NAME]			/context [NAME]
 *	/task add SUBJECT [after t1,t2]	/task assign ID NAME
 *	/task done|cancel|reopen ID	/tasks
 *	/diff NAME   /merge NAME   /discard NAME [yes]   /worktrees
 *	/help				/quit
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

enum command_kind {
	CMD_EMPTY,	/* a blank line */
	CMD_SAY,	/* text: to the focused agent */
	CMD_APPROVE,	/* target?, text? (feedback) */
	CMD_REJECT,	/* target?, text? (feedback) */
	CMD_SHUTDOWN,	/* name */
	CMD_STOP,	/* name */
	CMD_MSG,	/* name, text */
	CMD_INTERRUPT,	/* name */
	CMD_BUDGET,	/* amount: dollars, 0 for none, -1 to show */
	CMD_COMPACT,	/* name? (default: the focused agent) */
	CMD_CONTEXT,	/* name? (default: the focused agent) */
	CMD_TASK_ADD,	/* text (the subject), target? ("t1,t2") */
	CMD_TASK_ASSIGN, /* target (the task), name */
	CMD_TASK_DONE,	/* target */
	CMD_TASK_CANCEL, /* target */
	CMD_TASK_REOPEN, /* target */
	CMD_TASKS,
	CMD_DIFF,	/* name */
	CMD_MERGE,	/* name */
	CMD_DISCARD,	/* name, text? ("yes" confirms) */
	CMD_WORKTREES,
	CMD_TEAM,
	CMD_REQUESTS,
	CMD_ZOOM,
	CMD_HELP,
	CMD_QUIT,
	CMD_BAD		/* error says why */
};

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

/* The help text listing every command (static). */
const char *command_help(void);

/* What running a command came to, for a front end to show. */
enum command_outcome {
	OUTCOME_DONE,		/* message (may be NULL) says what happened */
	OUTCOME_ERROR,		/* message says why nothing happened */
	OUTCOME_TEAM,		/* data: the /team report */
	OUTCOME_REQUESTS,	/* data: the /requests report */
	OUTCOME_TASKS,		/* data: the /tasks report */
	OUTCOME_DIFF,		/* data: team_diff's report */
	OUTCOME_WORKTREES,	/* data: team_worktrees' report */
	OUTCOME_FRONT		/* the front end's own (/zoom, /help, /quit,
				 * a blank line): nothing was done */
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
 * The reports: /team is {members: [{name, role, status, plan_required,
 * plan_approved, input_tokens, output_tokens, cache_write_tokens,
 * cache_read_tokens, cost_usd, model, context_tokens?, context_window?}],
 * team_cost_usd, max_cost_usd,
 * sandbox}; /requests is {requests: [{id, type, from, to, status, body,
 * decided_by?}]}, pending first, oldest first, then the latest decided;
 * /tasks is {tasks: [task]}, every task by id, each as a task event's
 * data (event.h).
 */
void command_run(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res);

void command_result_clear(struct command_result *res);

#endif
