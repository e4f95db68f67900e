/*
 * Dropping every capability, so that a command run by root (or in a user
 * namespace, where it holds all of them) cannot lift its limits, mount,
 * or reach what root's privileges alone would open.
 */
#ifndef HUDDLE_TOOLS_CAPS_H
#define HUDDLE_TOOLS_CAPS_H

/*
 * Empties the calling process's bounding, ambient, inheritable,
 * permitted and effective sets, so neither it nor what it runs (setuid
 * and file capabilities included) has any. Returns 0, or -1 with *err.
 */
int caps_drop_all(char **err);

#endif
