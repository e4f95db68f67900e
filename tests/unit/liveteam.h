/*
 * A live team for the agent layer's unit tests: team_open on a fresh
 * working directory (state kept apart from it), every model the script
 * provider, and the events the team reports gathered so a test can wait
 * for one with a deadline.
 */
#ifndef HUDDLE_TESTS_LIVETEAM_H
#define HUDDLE_TESTS_LIVETEAM_H

#include "testutil.h"
#include "agent/internal.h"
#include "llm/catalog.h"
#include "llm/script.h"
#include "tools/tool.h"

struct lt {
	char		 *root;		/* removed at the end */
	char		 *work;		/* root/work: the working directory */
	char		 *state;	/* root/state: --state-dir */
	struct catalog	 *cat;
	struct team_options o;
	struct team	 *team;
	struct event	**seen;		/* every event taken, oldest first */
	size_t		  nseen, capseen;
	size_t		  mark;		/* lt_wait looks from here on */
	size_t		  opened;	/* the first event of this team */
};

/* A scenario in which every agent answers "ok" to every turn. */
#define LT_OK_ALWAYS \
	"{\"agents\": {\"*\": [{\"text\": \"ok\"}, {\"loop\": 0}]}}"

/* A scenario in which the lead's first model call takes a minute. */
#define LT_SLOW_LEAD "{\"agents\": {\"lead\": [{\"delay_ms\": 60000, " \
	"\"text\": \"late\"}]}}"

/* Makes the folders and the options (the scenario parsed into them;
 * no network, no limits); a test may change l->o before lt_open. */
void lt_init(struct lt *l, const char *scenario);

/* Opens the team, failing the test on error (lt_open_err: returns NULL
 * with *err). lt_wait looks only at its events: the mark is set. */
void lt_open(struct lt *l);
struct team *lt_open_err(struct lt *l, char **err);

/* Opens and starts the team. */
void lt_start(struct lt *l);

/* Frees the team as quitting would, keeping its folders; lt_resume
 * starts it again as --resume would. */
void lt_quit(struct lt *l);
void lt_resume(struct lt *l);

/* Takes what the queue holds now (ticking the team). */
void lt_pump(struct lt *l);

/* The first event since the mark of kind type, about agent (NULL: any),
 * whose data's JSON holds needle (NULL: any), waiting up to ms for one;
 * NULL when none came. lt_need fails the test instead. */
struct event *lt_wait(struct lt *l, enum event_type type, const char *agent,
    const char *needle, int ms);
struct event *lt_need(struct lt *l, enum event_type type, const char *agent,
    const char *needle);

/* Looks only from now on. */
void lt_set_mark(struct lt *l);

/* Spawns the coder name, told "hi", with plan_required, autonomous and
 * worktree as given, failing the test when it cannot; lt_spawn_idle
 * spawns one neither autonomous nor in a worktree, and waits until it is
 * idle. */
void lt_spawn(struct lt *l, const char *name, int plan_required,
    int autonomous, int worktree);
void lt_spawn_idle(struct lt *l, const char *name, int plan_required);

/* Waits until agent's status is status ("idle", …) in an event. */
void lt_need_status(struct lt *l, const char *agent, const char *status);

/* Counts the events (since the mark) lt_wait would match. */
size_t lt_count(struct lt *l, enum event_type type, const char *agent,
    const char *needle);

/* Ticks the team until agent name's thread is reaped (with a
 * deadline). */
void lt_need_gone(struct lt *l, const char *name);

/* The running agent called name, failing the test when none; on a
 * fresh team, once it is ready (lt_ready). */
struct agent *lt_agent(struct lt *l, const char *name);

/* Waits until agent name's thread has made its frame and prompt (its
 * first status event): then the test's thread may use them. */
void lt_ready(struct lt *l, const char *name);

/* Runs tool `name` with input (JSON text) for the running agent `who`
 * (lt_agent), from the test's thread; out gets the result
 * (tool_output_clear). */
void lt_tool(struct lt *l, const char *who, const char *name,
    const char *input, struct tool_output *out);

/* A file of the working directory, written (parents made) or read
 * (malloc'd, NULL when missing). */
void lt_write(struct lt *l, const char *rel, const char *text);
char *lt_read(struct lt *l, const char *rel);

/* Runs a shell command in the working directory; returns its status. */
int lt_sh(struct lt *l, const char *command);

/* Makes the working directory a git repository with one commit. */
void lt_git_init(struct lt *l);

/* Frees the team and everything lt_init made. */
void lt_close(struct lt *l);

#endif
