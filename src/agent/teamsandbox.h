/*
 * The team's sandbox (teamsandbox.c): how the commands its agents run
 * are confined, with a profile for each place they run in.
 */
#ifndef HUDDLE_AGENT_TEAMSANDBOX_H
#define HUDDLE_AGENT_TEAMSANDBOX_H

#include <pthread.h>
#include <stddef.h>

struct profile;
struct runlater;
struct ruleset;
struct team;

/* How bash commands are confined. */
enum team_sandbox {
	SANDBOX_ON,		/* Landlock */
	SANDBOX_MISSING,	/* no Landlock: every command asks */
	SANDBOX_OFF		/* --no-sandbox */
};

/* The Landlock ruleset of one place (tools/ruleset.h). */
struct team_ruleset {
	char			*key;		/* the place and its port */
	struct ruleset		*rs;		/* held */
};

/* The team's sandbox (struct team's sb): set by team_sandbox_open before
 * any agent runs, then read only; lock guards the rulesets. */
struct teamsandbox {
	enum team_sandbox	 mode;
	char			*tmpdir;	/* the commands' TMPDIR */
	struct runlater		*runlater;	/* the workdir's run-later
						 * files at start */
	int			 abi;		/* Landlock's, 0: none */
	char			**hidden;	/* from every command
						 * (tools/hidden.h) */
	pthread_mutex_t		 lock;		/* what follows */
	struct team_ruleset	*rulesets;	/* one per place, shared
						 * by its profiles */
	size_t			 n;
};

/* Makes the commands' TMPDIR, finds what the kernel offers and lists
 * what is hidden from commands. Returns 0 or -1 with *err. */
int team_sandbox_open(struct team *t, char **err);

/* The sandbox profile of commands run at root (absolute, canonical):
 * the working directory, or a worktree (worktree: the rest of the
 * working tree hidden). Returns it (profile_free), or NULL with *err. */
struct profile *team_sandbox_profile(struct team *t, const char *root,
    int worktree, char **err);

/* The same with one more writable directory, `also` (absolute,
 * canonical; NULL: none): an MCP server's cache. */
struct profile *team_sandbox_profile_also(struct team *t, const char *root,
    int worktree, const char *also, char **err);

/* Removes the TMPDIR and frees what team_sandbox_open made. */
void team_sandbox_close(struct team *t);

#endif
