/*
 * What confines a command's processes besides its Landlock ruleset: the
 * network it may use, the Unix sockets it may reach, the paths it may not
 * change, and its resource limits. A sandbox profile (agent side) fills
 * one in; bash.c hands it to the reaper as JSON text on its command line;
 * the reaper applies it in the shell's process just before exec, and
 * supervises what must be judged while the command runs (connect).
 */
#ifndef HUDDLE_TOOLS_CONFINE_H
#define HUDDLE_TOOLS_CONFINE_H

#include <stddef.h>

/* Limits when a profile sets none of its own: enough for a real build
 * (a parallel compile, a linker, a test suite), not for a fork bomb. */
#define CONFINE_DEFAULT_PROCS		512
#define CONFINE_DEFAULT_MEMORY		(2LL << 30)	/* 2 GiB */
#define CONFINE_DEFAULT_FILE_SIZE	(4LL << 30)	/* 4 GiB */

/* What network a command gets. */
enum confine_net {
	CONFINE_NET_OPEN,	/* every family, every address */
	CONFINE_NET_PROXY,	/* TCP only to huddle's proxy on loopback */
	CONFINE_NET_NONE	/* no TCP, no UDP, no raw sockets */
};

struct confine {
	int		 landlock;	/* enter the ruleset given the
					 * reaper (REAPER_SANDBOX_FD) */
	enum confine_net net;
	int		 proxy_port;	/* CONFINE_NET_PROXY: the proxy's
					 * TCP port on 127.0.0.1 */
	char		**unix_roots;	/* NULL-terminated: a pathname
					 * Unix socket may be connected to
					 * only beneath one of these
					 * directories (absolute, canonical)
					 * ... (both lists NULL: no rule
					 * for Unix sockets at all) */
	char		**unix_sockets;	/* ... or when it is one of these
					 * (--allow-socket) */
	char		**readonly;	/* paths that exist and stay
					 * read-only to the command, though
					 * beneath a writable directory
					 * (.git/hooks, .git/config ...) */
	long long	 max_procs;	/* processes and threads at once
					 * (limits.h, cgroup.h say how
					 * exactly); 0: no limit */
	long long	 max_memory;	/* bytes of data per process; 0:
					 * no limit */
	long long	 max_file_size;	/* bytes a file may grow to; 0: no
					 * limit */
	int		 pinned;	/* join the namespaces of the process
					 * whose pidfd the reaper holds on
					 * REAPER_PIN_FD (mountns_pin_new),
					 * where the read-only paths already
					 * are, instead of making new ones */
	int		 prebuilt;	/* the seccomp filter, built once by
					 * huddle, is on REAPER_FILTER_FD
					 * (sysfilter_program) */
	int		 only_landlock;	/* the reaper's alone, never in
					 * JSON: nothing but the Landlock
					 * ruleset (bash_options without a
					 * confine) */
};

/* The team's limits when the person sets none. */
#define CONFINE_DEFAULT_PROCS		512
#define CONFINE_DEFAULT_MEMORY		(2LL << 30)
#define CONFINE_DEFAULT_FILE_SIZE	(4LL << 30)

/* The confine as one line of JSON (malloc'd). */
char *confine_to_json(const struct confine *c);

/* Reads what confine_to_json wrote into *c (its strings malloc'd:
 * confine_free). Returns 0, or -1 with *err. */
int confine_from_json(const char *text, struct confine *c, char **err);

/* Frees what confine_from_json allocated, and zeroes *c. */
void confine_free(struct confine *c);

/*
 * Whether a command's process count and memory ceiling hold for this
 * process: always for a user other than root (resource limits); for
 * root only where a cgroup can be made for each command (the kernel
 * exempts root from the process limit). 1 when they hold; 0 with *why
 * (malloc'd) when not.
 */
int confine_limits_hold(char **why);

#endif
