/*
 * A file system's free space, and a reserve held on it: a file of real,
 * allocated blocks that is given back (removed) the moment the disk is
 * full, so that the few writes that must still land have room. The store
 * keeps one beside the team's database for the person's decisions
 * (core/store.h).
 */
#ifndef HUDDLE_UTIL_DISKSPACE_H
#define HUDDLE_UTIL_DISKSPACE_H

#include <stdint.h>

/* Bytes an unprivileged writer may still use on the file system holding
 * path, or -1 when it cannot be asked. */
int64_t diskspace_free(const char *path);

/* Whether errno e says the disk (or the user's quota on it) is full. */
int diskspace_full_errno(int e);

/*
 * Makes the reserve: the file path (0600, never through a symbolic link)
 * with bytes of allocated blocks. Returns 0, or -1 with errno (ENOSPC: no
 * room for it; nothing is left behind).
 */
int diskspace_hold(const char *path, int64_t bytes);

/* Gives the reserve back (removes path). Returns whether there was one. */
int diskspace_release(const char *path);

#endif
