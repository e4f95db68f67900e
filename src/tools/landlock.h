/*
 * The operating system's sandbox for what tools start (Landlock, a Linux
 * security module: no package, no privileges). A process in the sandbox
 * may read and run anything but what is hidden from it (the person's
 * secrets, terminals), and write only beneath the directories it was
 * given; with the network denied it may neither connect nor bind TCP
 * (Landlock ABI 4 and later) but to one port. It cannot ptrace a process
 * outside the sandbox, nor open its /proc/PID/mem (its /proc/PID/environ stayed
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

/* What a ruleset allows. Every path is absolute and canonical. */
struct landlock_rules {
	const char *const	*hidden;	/* nothing beneath these is
						 * readable, unless a list
						 * below names it or a place
						 * beneath it */
	size_t			 nhidden;
	const char *const	*readable;	/* read only, even when
						 * hidden */
	size_t			 nreadable;
	const char *const	*writable;	/* every right, but beneath
						 * the hidden paths inside */
	size_t			 nwritable;
	int			 deny_net;	/* no TCP (ABI 4 and later) */
	int			 tcp_port;	/* with deny_net: connecting
						 * to this port stays allowed;
						 * 0: none */
};

/*
 * Builds a ruleset: read and execute everywhere but beneath the hidden
 * paths and /dev, where only the harmless devices (/dev/null, zero,
 * full, random, urandom) may be opened, for reading and writing: no
 * terminal is reachable. Reading beneath each readable path; every right
 * beneath each writable directory (reached through no symbolic link now,
 * or refused) but beneath a hidden path inside it. A directory on the
 * way to a hidden path is granted entry by entry, so what it holds later
 * is not reachable. Returns the ruleset's descriptor (keep it for as
 * long as commands run), or -1 with *err.
 */
int landlock_ruleset(const struct landlock_rules *r, char **err);

/*
 * Adds to ruleset fd reading beneath the directory path: for a file
 * system mounted after the ruleset was built (a proc of the commands'
 * own), which none of its rules reaches, since Landlock looks past the
 * mount point it covers. Returns 0, or -1 with *err.
 */
int landlock_readable(int fd, const char *path, char **err);

/* The same for a directory already open (O_PATH will do), which it
 * closes. Returns 0, or -1 with errno. */
int landlock_readable_fd(int fd, int dirfd);

/*
 * Puts the calling thread, and every process it starts from now on, in
 * the sandbox of ruleset `fd` (no new privileges first, as Landlock
 * requires). There is no way out: call it on a thread made for the
 * purpose. Returns 0, or -1 with errno set.
 */
int landlock_enter(int fd);

#endif
