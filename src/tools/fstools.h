/*
 * The file tools the model calls: read_file, write_file and edit_file.
 * Every path is judged by the sandbox first and then opened beneath the
 * working directory without following links (tools/sandbox.h), so a path
 * swapped for a link meanwhile fails instead of leading out; every failure
 * (refusal, missing file, I/O error) comes back as a tool error the model
 * can act on. Writes never leave half a file: they go to a temporary file
 * in the same directory, which is synced and then renamed over the target.
 */
#ifndef HUDDLE_TOOLS_FSTOOLS_H
#define HUDDLE_TOOLS_FSTOOLS_H

#include "tools/tool.h"

struct cancel;

/* Most bytes of file text read_file returns in one call. */
#define FSTOOLS_READ_CAP	(256 * 1024)
/* Largest file edit_file loads. */
#define FSTOOLS_EDIT_MAX	(16 * 1024 * 1024)

/* Where a file tool works. */
struct profile;

struct fstools_ctx {
	const char	*workdir;	/* absolute and canonical */
	struct cancel	*cancel;	/* may be NULL; firing it stops a read */
	const struct profile *profile;	/* may be NULL; what it hides is
					 * not read, and what it keeps
					 * read-only is not written
					 * (tools/profile.h) */
};

/*
 * read_file: the file's text from line `offset` (counted from 1; 0 is 1)
 * for at most `limit` lines (0: as many as fit) and at most
 * FSTOOLS_READ_CAP bytes, cut after a whole line where it can be. When
 * the file goes on, a note says which lines were shown and the offset to
 * read on from; it never reads more of the file than it must. Binary
 * (NUL bytes) or invalid UTF-8 content is repaired (U+FFFD, with a note),
 * never returned raw. An empty file reads as a note saying so. Missing
 * file, directory, anything but a regular file, refusal, a cancel, a
 * negative offset or limit → tool error. Whatever the file (huge, sparse,
 * growing), it returns as soon as the token fires. Returns 0, or -1 on a
 * tool error.
 */
int fstools_read(const struct fstools_ctx *c, const char *path, long offset,
    long limit, struct tool_output *out);

/*
 * write_file: creates or replaces the file (missing parent directories
 * created, inside the sandbox, and taken away again if the write fails),
 * writes through a temporary file + rename so a crash never leaves half a
 * file; mode 0644 for new files, existing mode kept. A file with more than
 * one hard link is refused: another of its names may be outside the
 * working directory. Says "wrote N bytes to PATH". Returns 0, or -1 on a
 * tool error.
 */
int fstools_write(const struct fstools_ctx *c, const char *path,
    const char *content, struct tool_output *out);

/*
 * edit_file: replaces old_text by new_text; old_text must occur exactly once
 * (overlapping matches count; the error says how many times it occurs, 0
 * or N, and asks for more context); empty old_text is an error. Atomic like
 * write, and refuses hard-linked files the same way. Returns 0, or -1 on
 * a tool error.
 */
int fstools_edit(const struct fstools_ctx *c, const char *path,
    const char *old_text, const char *new_text, struct tool_output *out);

#endif
