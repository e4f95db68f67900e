/*
 * The operating system's sandbox for what tools start (Landlock, a Linux
 * security module: no package, no privileges). A process in the sandbox
 * may read and run anything, but write only beneath the directories it
 * was given; with the network denied it may neither connect nor bind
 * TCP (Landlock ABI 4 and later). It cannot ptrace a process outside the
 * sandbox, nor open its /proc/PID/mem (its /proc/PID/environ stayed
 * readable on the kernels tried: util/secret.h empties that), and from
 * ABI 6 it cannot signal one either. Everything it starts inherits all of
 * it, for good.
 */
#ifndef HUDDLE_TOOLS_LANDLOCK_H
#define HUDDLE_TOOLS_LANDLOCK_H

#include <stddef.h>

/* The kernel's Landlock ABI version, or 0 when it has none (or it is
 * turned off). */
int landlock_abi(void);

/*
 * Builds a ruleset: read and execute everywhere; every right beneath
 * each of the `n` writable directories (absolute and canonical: one
 * reached through a symbolic link now is refused, not followed) and on
 * the harmless devices (/dev/null, /dev/zero, /dev/full, /dev/tty); no
 * TCP when deny_net and the ABI has it. Returns its descriptor (keep it
 * for as long as commands run), or -1 with *err.
 */
int landlock_ruleset(const char *const *writable, size_t n, int deny_net,
    char **err);

/* A ruleset that also hides a directory (a teammate's view of the
 * working tree when it has a worktree of its own). */
struct landlock_rules {
	const char		*hidden;	/* NULL, or absolute and
						 * canonical: nothing beneath
						 * it is readable but what the
						 * lists grant */
	const char *const	*readable;	/* read only */
	size_t			 nreadable;
	const char *const	*writable;	/* every right */
	size_t			 nwritable;
	int			 deny_net;
};

/*
 * landlock_ruleset, with reading everywhere but beneath r->hidden, and
 * reading beneath each of r->readable. What a directory on the way to
 * hidden will hold later is not readable either. Returns its descriptor,
 * or -1 with *err.
 */
int landlock_ruleset_within(const struct landlock_rules *r, char **err);

/* Whether the kernel can deny TCP (ABI 4 and later). */
int landlock_can_deny_net(void);

/*
 * Puts the calling thread, and every process it starts from now on, in
 * the sandbox of ruleset `fd` (no new privileges first, as Landlock
 * requires). There is no way out: call it on a thread made for the
 * purpose. Returns 0, or -1 with errno set.
 */
int landlock_enter(int fd);

#endif
