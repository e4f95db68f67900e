/*
 * Files that run code when the person works in a tree later, outside any
 * sandbox: direnv's .envrc, an editor's tasks and settings, a Makefile,
 * package scripts, CI workflows, git's attributes. Nothing stops a
 * command from changing them (the tree is the team's to change), so at
 * start huddle notes how they are, and at quit it names those that
 * changed: a notice for the person to read them before running anything.
 */
#ifndef HUDDLE_TOOLS_RUNLATER_H
#define HUDDLE_TOOLS_RUNLATER_H

struct runlater;

/* Notes the run-later files beneath root (absolute) as they are now.
 * Returns the note (runlater_free). */
struct runlater *runlater_note(const char *root);

/* The run-later files beneath the note's root that were made, changed or
 * removed since it was taken, as one line of relative paths separated
 * by ", " (malloc'd), or NULL when none did. */
char *runlater_changes(const struct runlater *r);

void runlater_free(struct runlater *r);

#endif
