/*
 * Tab on an input line that starts with '/': the command's words, then
 * a member's name, completed as far as they are one (the longest prefix
 * the candidates share), and the candidates named when several remain.
 * Pure text logic: no curses.
 */
#ifndef HUDDLE_UI_COMPLETE_H
#define HUDDLE_UI_COMPLETE_H

#include <stddef.h>

/*
 * Completes line (a command line, '/' first) with the commands' words
 * ("task add", …) for its command and names (nnames) for its last word
 * after the command. Returns the completed line (malloc'd; the same text
 * when nothing more is sure), and in *choices (malloc'd, or NULL) the
 * candidates joined by blanks when more than one remains.
 */
char *complete_line(const char *line, const char *const *names,
    size_t nnames, char **choices);

/* Whether text (what follows a '/') begins with a command's first word
 * followed by a blank ("reject-all mallory", "task add x"), or is a
 * command that takes nothing ("help"): the table's filter (/) runs it as
 * a command instead of filtering by it. */
int complete_is_command(const char *text);

#endif
