/*
 * Writing a short text to a kernel file (/proc, /sys/fs/cgroup) in one
 * write(2), as the kernel wants it. Only open, write and close: safe in a
 * child between fork and exec.
 */
#ifndef HUDDLE_TOOLS_SYSFILE_H
#define HUDDLE_TOOLS_SYSFILE_H

/* Writes text to path. Returns 0, or -1 with errno set (a short write is
 * a failure). */
int sysfile_write(const char *path, const char *text);

#endif
