/*
 * The file-tool sandbox: turns a path the model gave into a path that is
 * certainly inside the working directory, or into a refusal the model can
 * act on. It follows symbolic links itself, one component at a time, so a
 * link anywhere along the path is judged by where it really leads.
 *
 * Judging a path and opening it are separate steps, and something (the
 * model's own bash, say) may swap a directory for a symbolic link in
 * between. So the file tools never open the judged path by name: they open
 * it with sandbox_open, beneath a descriptor of the working directory and
 * without following any link, so a swap makes the open fail rather than
 * lead out.
 */
#ifndef HUDDLE_TOOLS_SANDBOX_H
#define HUDDLE_TOOLS_SANDBOX_H

#include <sys/types.h>

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

/*
 * Opens `full`, a path sandbox_path gave for workdir (workdir itself
 * included), with open(2)'s flags and mode, resolved beneath a descriptor
 * of workdir (itself opened with sandbox_open_real) without following
 * any symbolic link or leaving workdir: openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS), or sandbox_open_walk
 * where the kernel has no openat2. O_CLOEXEC is added. Returns a
 * descriptor, or -1 with errno: ELOOP, ENOTDIR or EXDEV mean that
 * something on the way is a link now (see sandbox_race).
 */
int sandbox_open(const char *workdir, const char *full, int flags,
    mode_t mode);

/*
 * Opens path (absolute, canonical) with open(2)'s flags, following no
 * symbolic link anywhere along it: a directory swapped for a link since
 * the path was made canonical gives -1 with ELOOP, ENOTDIR or EXDEV
 * rather than the place the link leads to. O_CLOEXEC is added.
 */
int sandbox_open_real(const char *path, int flags);

/*
 * The fallback: opens `rel` (components without "." or "..") beneath the
 * directory descriptor root, one component at a time, each with
 * O_NOFOLLOW. Public for its tests.
 */
int sandbox_open_walk(int root, const char *rel, int flags, mode_t mode);

/* Whether errno, after sandbox_open, says the path changed under us. */
int sandbox_race(int err);

#endif
