/*
 * One draft per agent: the input line holds what is being written to the
 * focused agent; when the focus moves, that text stays with its agent's
 * pane and the newly focused agent's own draft comes back. The table's
 * focus writes to the lead, so it shares the lead's draft. The prompt
 * names who receives the line, or what Enter does instead.
 */
#ifndef HUDDLE_UI_DRAFT_H
#define HUDDLE_UI_DRAFT_H

struct view;

/* Gives the focus to pane i (or FOCUS_TABLE), each agent keeping its
 * draft. Every change of focus goes through here. */
void draft_focus(struct view *v, int i);

/* The input line's prompt: "alice> ", "alice (ended: not sent)> ", or
 * on the table with nothing typed what Enter does there. Free it. */
char *draft_prompt(struct view *v);

/* Whether the line typed would go, as text, to a teammate that has
 * ended: then it is kept in the draft, with a notice that says why, and
 * draft_kept returns 1. */
int draft_kept(struct view *v);

#endif
