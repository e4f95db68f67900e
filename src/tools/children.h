/*
 * The children of a process, read from /proc: what the reaper ends when
 * its command is done, and what huddle sweeps when a reaper was killed
 * (tools/kept.h).
 */
#ifndef HUDDLE_TOOLS_CHILDREN_H
#define HUDDLE_TOOLS_CHILDREN_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The children of process `parent`: up to max of them go to pids.
 * Returns how many there are (which may exceed max), or -1 when /proc
 * cannot be read. Children come and go while it reads: a caller that
 * must end them all repeats until there are none.
 */
int children_list(pid_t parent, pid_t *pids, size_t max);

#endif
