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
	char		**unix_roots;	/* NULL-terminated, or NULL: a
					 * pathname Unix socket may be
					 * connected to only beneath one of
					 * these directories (absolute,
					 * canonical) ... */
	char		**unix_sockets;	/* ... or when it is one of these
					 * (--allow-socket) */
	char		**readonly;	/* paths that exist and stay
					 * read-only to the command, though
					 * beneath a writable directory
					 * (.git/hooks, .git/config ...) */
	long long	 max_procs;	/* processes beyond those running
					 * now; 0: no limit */
	long long	 max_memory;	/* bytes of data per process; 0:
					 * no limit */
	long long	 max_file_size;	/* bytes a file may grow to; 0: no
					 * limit */
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

#endif
