/*
 * The program a command's reaper runs as (tools/reaper.h), chosen and
 * held once at start so that nothing written to disk later can stand in
 * for it.
 *
 * Preferred is huddle-reaper, a small program that links only what the
 * reaper needs and so starts in a fraction of the time huddle's own
 * program takes (it links curses, curl, SQLite…). It is copied into a
 * sealed memory file, which is what runs: a teammate that can write the
 * file on disk (a build tree inside the project it works on) cannot
 * change the copy. Without it huddle runs itself as the reaper, through
 * a descriptor of its own running program, which cannot be written while
 * it runs and which a rename on disk does not replace.
 *
 * Each returns a path of the form /proc/self/fd/N whose descriptor stays
 * open for the life of the process; N is at least 10, above every
 * descriptor a spawn sets up for the reaper.
 */
#ifndef HUDDLE_TOOLS_REAPEREXE_H
#define HUDDLE_TOOLS_REAPEREXE_H

/* The small program's name, beside huddle in a build tree and in
 * PKGLIBEXECDIR when installed. */
#define REAPEREXE_NAME	"huddle-reaper"

/*
 * The reaper for this process: huddle-reaper when it is found (beside the
 * running program, or in PKGLIBEXECDIR when the running program is the
 * one installed in BINDIR) and can be copied, else reaperexe_self().
 * Made once; each call returns a malloc'd copy of the same path. NULL
 * only when neither can be opened.
 */
char *reaperexe_path(void);

/* The running program itself (under valgrind, the program valgrind
 * runs). Made once; a malloc'd copy of the same path, or NULL. */
char *reaperexe_self(void);

/* The program in `file`, copied into a new sealed memory file. Returns
 * its malloc'd path, or NULL with *err (malloc'd). */
char *reaperexe_copy(const char *file, char **err);

#endif
