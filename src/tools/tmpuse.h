/*
 * What the team's TMPDIR holds, against its ceiling. Commands write
 * there without asking, so a command that makes it grow past the
 * ceiling (bytes or files) is stopped by the watch of tools/bash.h; one
 * that only removes is let be.
 */
#ifndef HUDDLE_TOOLS_TMPUSE_H
#define HUDDLE_TOOLS_TMPUSE_H

#include <stdint.h>

/* Bytes (allocated blocks, so a sparse file counts as little as it
 * holds) and entries (files, directories, links, all). */
struct tmpuse {
	int64_t	bytes;
	int64_t	files;
};

/* The default ceiling: a few GiB, and more files than a build makes. */
#define TMPUSE_DEFAULT_BYTES	((int64_t)4 << 30)
#define TMPUSE_DEFAULT_FILES	((int64_t)100000)

/*
 * Measures dir, not following symbolic links nor crossing into another
 * file system; once past max (when not NULL) it stops counting, which
 * bounds what a huge tree costs. Fills *u; an entry that cannot be read
 * counts as nothing. Safe from any thread.
 */
void tmpuse_measure(const char *dir, const struct tmpuse *max,
    struct tmpuse *u);

/* Whether u is past max in bytes or files (a 0 in max: no ceiling). */
int tmpuse_over(const struct tmpuse *u, const struct tmpuse *max);

/* Whether now holds more than before, in bytes or files. */
int tmpuse_grew(const struct tmpuse *before, const struct tmpuse *now);

/* The sentence of a TMPDIR past its ceiling (malloc'd). */
char *tmpuse_text(const char *dir, const struct tmpuse *u,
    const struct tmpuse *max);

#endif
