/*
 * Reading a small text file that someone else may have planted: never a
 * FIFO, device or directory that would hang or flood the reader, never
 * more than a limit, and — beneath a directory — never through a link
 * that leaves it.
 */
#ifndef HUDDLE_UTIL_SAFEFILE_H
#define HUDDLE_UTIL_SAFEFILE_H

#include <stddef.h>

/*
 * Reads the regular file `path`, relative to the directory descriptor
 * dir (AT_FDCWD for an absolute path or the current directory). With
 * beneath, the path may not leave dir, by "..", an absolute path or a
 * symbolic link that points out of it (openat2 RESOLVE_BENEATH; where
 * the kernel lacks openat2, no link is followed at all). At most max
 * bytes are read; *size gets the file's whole size. Returns the bytes
 * read, NUL-terminated (a NUL inside ends the text), or NULL with errno
 * set (ENOENT: there is no such file) and a sentence in *err.
 */
char *safefile_read(int dir, const char *path, int beneath, size_t max,
    size_t *size, char **err);

/* safefile_read() that also gives, in *real (malloc'd), the absolute
 * canonical path of the file it read, taken from the open descriptor:
 * what was read, not what the path named a moment before. */
char *safefile_read_real(int dir, const char *path, int beneath,
    size_t max, size_t *size, char **real, char **err);

/*
 * Opens the directory `path` under dir as safefile_read opens a file
 * (with beneath, never leaving dir), for reading its entries. Returns a
 * descriptor, or -1 with errno (ENOENT: there is none).
 */
int safefile_opendir(int dir, const char *path, int beneath);

#endif
