/*
 * The file tools the model calls: read_file, write_file and edit_file.
 * Every path goes through the sandbox first; every failure (refusal,
 * missing file, I/O error) comes back as a tool error the model can act
 * on. Writes never leave half a file: they go to a temporary file in the
 * same directory, which is synced and then renamed over the target.
 */
#ifndef HUDDLE_AGENT_FSTOOLS_H
#define HUDDLE_AGENT_FSTOOLS_H

#include "tools/tool.h"

/* Most bytes of file text read_file returns. */
#define FSTOOLS_READ_CAP	(100 * 1024)
/* Largest file edit_file loads. */
#define FSTOOLS_EDIT_MAX	(16 * 1024 * 1024)

/*
 * read_file: the file's text; limit > 0 keeps the first `limit` lines and
 * says how many were left out (0 reads it all; negative is an error).
 * Caps output at 100 KiB (says so). Binary (NUL bytes) or invalid UTF-8
 * content is repaired (U+FFFD, with a note) — never returned raw. An empty
 * file reads as a note saying so. Missing file, directory, anything but a
 * regular file, refusal → tool error. Returns 0, or -1 on a tool error.
 */
int fstools_read(const char *workdir, const char *path, long limit,
    struct tool_output *out);

/*
 * write_file: creates or replaces the file (missing parent directories
 * created, inside the sandbox, and taken away again if the write fails),
 * writes through a temporary file + rename so a crash never leaves half a
 * file; mode 0644 for new files, existing mode kept. Says "wrote N bytes
 * to PATH". Returns 0, or -1 on a tool error.
 */
int fstools_write(const char *workdir, const char *path, const char *content,
    struct tool_output *out);

/*
 * edit_file: replaces old_text by new_text; old_text must occur exactly once
 * (overlapping matches count; the error says how many times it occurs, 0
 * or N, and asks for more context); empty old_text is an error. Atomic like
 * write. Returns 0, or -1 on a tool error.
 */
int fstools_edit(const char *workdir, const char *path, const char *old_text,
    const char *new_text, struct tool_output *out);

#endif
