/*
 * A sandbox profile: everything a command run in one place is given —
 * the directory it starts in, its TMPDIR, the Landlock ruleset of what it
 * may read and write, the confine (network, Unix sockets, read-only
 * paths, limits; tools/confine.h) and the paths hidden from it, which the
 * file tools refuse too. An agent's profile is built once when its place
 * changes (its spawn, a task that names a worktree) and every tool call
 * made there runs from it.
 */
#ifndef HUDDLE_TOOLS_PROFILE_H
#define HUDDLE_TOOLS_PROFILE_H

#include <stddef.h>

#include "tools/confine.h"
#include "tools/mountns.h"
#include "tools/tmpuse.h"

struct bash_options;
struct ruleset;

/* What a profile is built from. Paths are absolute and canonical. */
struct profile_spec {
	const char		*root;		/* where commands start, and
						 * where they write */
	const char		*tmpdir;	/* their TMPDIR, writable */
	const char		*program;	/* huddle's, for the namespace
						 * holder (NULL: none: each
						 * command makes its own) */
	const char *const	*writable;	/* more writable directories */
	size_t			 nwritable;
	const char *const	*readable;	/* readable though hidden */
	size_t			 nreadable;
	char *const		*hidden;	/* NULL-terminated: unreadable
						 * (tools/hidden.h) */
	const char		*hide_also;	/* NULL, or one more: the
						 * working tree, seen from a
						 * worktree */
	int			 sandbox;	/* confine commands (Landlock
						 * and the rest); 0: run them
						 * with all the person's
						 * rights */
	int			 confined;	/* apply the confine (no
						 * terminal, limits, seccomp
						 * …), Landlock or not; 0:
						 * --no-sandbox */
	enum confine_net	 net;
	int			 proxy_port;
	const char *const	*sockets;	/* Unix sockets the person
						 * lets commands reach */
	size_t			 nsockets;
	long long		 max_procs;	/* tools/confine.h */
	long long		 max_memory;
	long long		 max_file_size;
	struct tmpuse		 tmp_max;	/* the TMPDIR's ceiling, watched
						 * (tools/bash.h); zeros: none */
	int			 git_admin;	/* huddle's own git: the
						 * repository's worktrees/
						 * stays writable */
	struct ruleset		*ruleset;	/* with sandbox: the place's
						 * ruleset, shared (held, not
						 * taken); NULL: built for this
						 * profile alone */
};

struct profile {
	char		*root;
	char		*tmpdir;
	int		 sandbox;
	int		 confined;
	struct ruleset	*ruleset;	/* sandbox: the Landlock ruleset,
					 * held (tools/ruleset.h) */
	char		**hidden;	/* NULL-terminated: the person's
					 * secrets and huddle's state */
	char		**readable;	/* NULL-terminated: let through */
	char		**readonly;	/* NULL-terminated: the root's git
					 * files that run code later */
	char		**unix_roots;	/* NULL-terminated */
	char		**unix_sockets;	/* NULL-terminated */
	struct confine	 confine;	/* points into the lists above */
	struct tmpuse	 tmp_max;
	struct mountns_pin pin;		/* the commands' namespaces, when
					 * pinned (pinned) */
	int		 pinned;
};

/*
 * Builds the profile of a place: the ruleset (when s->sandbox: s->ruleset
 * held, or one built and waited for here), the confine, and the copies of
 * every list. The root's `.git/hooks`, `.git/config`, `.git/info`,
 * `.git/worktrees` (unless s->git_admin) and those of its submodules
 * become read-only to commands, and so does a worktree's `.git` file,
 * which then cannot be replaced either; the namespaces that keep them so
 * are the profile's own (their holder counts the processes of its
 * commands alone). Returns it (profile_free), or NULL with *err.
 */
struct profile *profile_new(const struct profile_spec *s, char **err);

/* Starts building the ruleset of s's place on a thread of its own
 * (tools/ruleset.h), for s->ruleset. Returns it with one hold. */
struct ruleset *profile_ruleset_start(const struct profile_spec *s);

/* Lets go of the ruleset and frees the profile; NULL is fine. */
void profile_free(struct profile *p);

/* Fills what bash_run needs of the profile into *bo: its directory,
 * sandbox (the ruleset, which bash_run waits for), TMPDIR and confine
 * (the rest of *bo is left alone). */
void profile_bash_options(const struct profile *p, struct bash_options *bo);

/* Why the file tools may not read `path` (absolute, canonical), or
 * write it when for_write: a malloc'd sentence naming the hidden store
 * or the git file that runs code, or NULL when they may. */
char *profile_refuses(const struct profile *p, const char *path,
    int for_write);

#endif
