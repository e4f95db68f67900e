/*
 * What the keys that act on a request do with it now: F5 and F6 decide
 * it only when the person has been shown it whole, else they show it
 * first; Enter shows it, or expands the output selected in a pane; t
 * allows a network request for the whole team. The keys (keys.c) follow
 * this rule, and the hint line, the bar of keys and the detail view's
 * key line (keymap.c) promise what it says, so what is promised is what
 * a key does.
 */
#ifndef HUDDLE_UI_REQKEYS_H
#define HUDDLE_UI_REQKEYS_H

struct view;
struct pane;
struct table_row;

/* Whether r is a network request (agent/netgate.h). */
int reqkeys_is_network(const struct table_row *r);

/* Whether F5 and F6 decide r now rather than show it first: the detail
 * view shows it, or the hint line shows it whole (`whole`). */
int reqkeys_decides(struct view *v, const struct table_row *r, int whole);

/* What F5, F6, Enter and t do now with request r, as the hint line and
 * the detail view's key line say it ("approves", "shows all"), or NULL
 * when the key does nothing with it. */
const char *reqkeys_approve_says(struct view *v, const struct table_row *r,
    int whole);
const char *reqkeys_reject_says(struct view *v, const struct table_row *r,
    int whole);
const char *reqkeys_enter_says(struct view *v, const struct table_row *r,
    int whole);
const char *reqkeys_team_says(struct view *v, const struct table_row *r,
    int whole);

/* The bar's labels of F5 and F6: "Show" when they would show the
 * selected request first (as the hint line says), else what they do. */
const char *reqkeys_approve_label(struct view *v);
const char *reqkeys_reject_label(struct view *v);

/* The focused pane when its selected line folds an output and nothing
 * is typed (Enter then expands or folds it), else NULL. */
struct pane *reqkeys_fold_selected(struct view *v);

/* The request Enter shows with nothing typed (the one the hint line
 * names; on the table, the selected one), or NULL. */
const struct table_row *reqkeys_enter_shows(struct view *v);

#endif
