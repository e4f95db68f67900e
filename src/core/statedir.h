/*
 * Where a team's state lives: out of the working directory, so nothing a
 * tool does in the workdir can reach it. Every team has a folder of its
 * own under the state base — $XDG_STATE_HOME/huddle, by default
 * ~/.local/state/huddle, or --state-dir — named from the workdir's real
 * path: its last component, readable, and a hash of the whole path
 * ("project-3f2a9c01d4b5e6f7"). A working tree may keep more teams than
 * that one, each with a name after a dot ("project-3f2a9c01d4b5e6f7.review"
 * or, set aside by --new, "….20261129-0455"). A folder holds team.db, its
 * lock, and a file `workdir` naming the directory the team works in.
 *
 * Folders are created 0700 one component at a time without following
 * symbolic links, and one that exists must be a real directory owned by
 * this user and closed to others.
 */
#ifndef HUDDLE_CORE_STATEDIR_H
#define HUDDLE_CORE_STATEDIR_H

#include <stdint.h>
#include <time.h>

/* The state base: `override` when given, else from the environment.
 * Returns a malloc'd path, or NULL with *err. */
char *statedir_base(const char *override, char **err);

/* The folder of `workdir`'s (a real, absolute path) team called `name`
 * (NULL: the unnamed one) under `base`, created when missing and checked.
 * Returns a malloc'd path, or NULL with *err. */
char *statedir_team(const char *base, const char *workdir, const char *name,
    char **err);

/* Whether name can name a team: 1 to 32 ASCII letters, digits, '-' and
 * '_'. */
int statedir_name_ok(const char *name);

/*
 * Sets workdir's unnamed team aside so that a fresh one can start: takes
 * its lock (a live team is not moved) and renames its folder to a name of
 * its last use, "20261129-0455" (then "-2", …). Returns 1 with *name
 * (malloc'd), 0 when no team is kept there, or -1 with *err.
 */
int statedir_set_aside(const char *base, const char *workdir, char **name,
    char **err);

/* Makes dir 0700 — and its missing parents too when `parents` — without
 * following links, and checks it as above. Returns 0, or -1 with *err. */
int statedir_make(const char *dir, int parents, char **err);

/*
 * Takes the team's lock in folder: an open-file-description lock on
 * folder/lock, which the kernel drops when the process dies (whatever
 * the way), so a lock left by a crash is simply taken. A second process
 * fails with a message naming the PID that holds it. Returns the
 * descriptor (close it to let go), or -1 with *err.
 */
int statedir_lock(const char *folder, char **err);

/*
 * Looks for a team database in the working tree (<workdir>/.huddle/
 * team.db, which a cloned repository may carry) without following,
 * opening, moving or deleting it. Returns 1 with *notice (malloc'd)
 * naming it when there is one, else 0 (*notice untouched). `folder` is
 * the team's own state folder, named in the notice; err is never set.
 */
int statedir_stray(const char *folder, const char *workdir, char **notice,
    char **err);

/* One team found under a base, for --teams. */
struct statedir_team {
	char	*folder;
	char	*workdir;	/* as recorded; "" when unknown */
	char	*name;		/* the team's name; "" for the unnamed one */
	time_t	 last_used;	/* the database's mtime; 0 when none */
	long	 live_pid;	/* the huddle running it, or 0 */
};

/* The teams under base (its folders that hold a team's database), in
 * name order (free with statedir_free_teams). */
size_t statedir_list(const char *base, struct statedir_team **out);
void statedir_free_teams(struct statedir_team *t, size_t n);

#endif
