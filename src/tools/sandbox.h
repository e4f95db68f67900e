/*
 * The file-tool sandbox: turns a path the model gave into a path that is
 * certainly inside the working directory, or into a refusal the model can
 * act on. It follows symbolic links itself, one component at a time, so a
 * link anywhere along the path is judged by where it really leads.
 *
 * The check and the later open are separate steps: something that swaps a
 * directory for a symlink in between (the model's own bash, say) can win
 * that race. The sandbox keeps the model from wandering out by mistake; it
 * is not a wall against a hostile process already running in the workdir.
 */
#ifndef HUDDLE_AGENT_SANDBOX_H
#define HUDDLE_AGENT_SANDBOX_H

/*
 * Resolves `path` (relative to workdir, or absolute) to a malloc'd absolute
 * path inside workdir, or returns NULL with *err (a sentence the model can act
 * on). `..` components, absolute paths and symlinks (anywhere along the path,
 * including the last component) that lead outside workdir are refused, and so
 * is anything inside workdir/.huddle (huddle's own state). With for_write the
 * file itself may be missing; its parent directory must resolve inside
 * workdir (missing parent directories may be created by the caller later —
 * sandbox_path checks the deepest existing ancestor plus the lexical rest).
 * Without for_write the path must exist. workdir itself must be an absolute,
 * canonical path. The result contains no symlink in its existing part, no
 * `.` or `..`, and no doubled or trailing slash. *err is malloc'd.
 */
char *sandbox_path(const char *workdir, const char *path, int for_write,
    char **err);

#endif
