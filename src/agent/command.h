/*
 * The input line's language, shared by the screen and --headless: plain
 * text goes to an agent, and slash commands act on the team.
 *
 *	/approve [REQ [feedback]]	/reject [REQ [feedback]]
 *	/shutdown NAME			/stop NAME (forced stop)
 *	/msg NAME TEXT			/team   /requests   /zoom
 *	/interrupt NAME			/budget [USD|off]
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

#endif
