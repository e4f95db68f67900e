/*
 * What the keys do (keys.c): one function per action, each taking the
 * view and returning KEY_* flags (view.h). The key table (keymap.c) says
 * which key runs which.
 */
#ifndef HUDDLE_UI_KEYS_H
#define HUDDLE_UI_KEYS_H

struct view;
struct table_row;

/* The main screen. */
int keys_enter(struct view *v);
int keys_newline(struct view *v);
int keys_tab(struct view *v);
int keys_btab(struct view *v);
int keys_up(struct view *v);
int keys_down(struct view *v);
int keys_pgup(struct view *v);
int keys_pgdn(struct view *v);
int keys_home(struct view *v);
int keys_end(struct view *v);
int keys_left(struct view *v);
int keys_right(struct view *v);
int keys_word_left(struct view *v);
int keys_word_right(struct view *v);
int keys_backspace(struct view *v);
int keys_delete(struct view *v);
int keys_line_start(struct view *v);
int keys_line_end(struct view *v);
int keys_kill_line(struct view *v);
int keys_kill_word(struct view *v);
int keys_help_open(struct view *v);
int keys_tasks(struct view *v);
int keys_approve(struct view *v);
int keys_reject(struct view *v);
int keys_diff(struct view *v);
int keys_zoom(struct view *v);
int keys_menu(struct view *v);
int keys_quit(struct view *v);
int keys_escape(struct view *v);
int keys_thinking(struct view *v);
int keys_pick_up(struct view *v);
int keys_pick_down(struct view *v);
int keys_stop_picked(struct view *v);
int keys_redraw(struct view *v);
int keys_ack_error(struct view *v);
int keys_hide_ended(struct view *v);
int keys_mouse(struct view *v);
int keys_resize(struct view *v);

/* The detail view of a request. */
int keys_allow_team(struct view *v);
int keys_detail_up(struct view *v);
int keys_detail_down(struct view *v);
int keys_detail_pgup(struct view *v);
int keys_detail_pgdn(struct view *v);
int keys_detail_home(struct view *v);
int keys_detail_end(struct view *v);

/* Any popup: closes it. */
int keys_close(struct view *v);

/* The help. */
int keys_help_up(struct view *v);
int keys_help_down(struct view *v);
int keys_help_pgup(struct view *v);
int keys_help_pgdn(struct view *v);
int keys_help_home(struct view *v);
int keys_help_end(struct view *v);
int keys_help_find(struct view *v);
int keys_help_next(struct view *v);
int keys_search_done(struct view *v);
int keys_search_cancel(struct view *v);
int keys_search_backspace(struct view *v);

/* The diff view. */
int keys_diff_up(struct view *v);
int keys_diff_down(struct view *v);
int keys_diff_pgup(struct view *v);
int keys_diff_pgdn(struct view *v);
int keys_diff_home(struct view *v);
int keys_diff_end(struct view *v);

/* The shutdown menu. */
int keys_menu_up(struct view *v);
int keys_menu_down(struct view *v);
int keys_menu_choose(struct view *v);

/* The feedback line of a rejection. */
int keys_feedback_send(struct view *v);
int keys_feedback_backspace(struct view *v);
int keys_feedback_left(struct view *v);
int keys_feedback_right(struct view *v);

/* What F5, F6 and Enter do now with request r (the hint line's
 * promises): the choice keys_approve and keys_reject make. */
const char *keys_approve_says(struct view *v, const struct table_row *r,
    int whole);
const char *keys_reject_says(struct view *v, const struct table_row *r,
    int whole);
const char *keys_enter_says(struct view *v, const struct table_row *r,
    int whole);
const char *keys_team_says(struct view *v, const struct table_row *r,
    int whole);

/* The request Enter shows with nothing typed (the one the hint line
 * names; on the table, the selected one), or NULL. */
const struct table_row *keys_enter_shows(struct view *v);

/* The pane searched (Ctrl-F) and a folded output's expansion. */
int keys_find(struct view *v);
int keys_find_keep(struct view *v);
int keys_find_end(struct view *v);
int keys_find_backspace(struct view *v);
int keys_find_next(struct view *v);
int keys_find_prev(struct view *v);
int keys_find_enter(struct view *v);

/* The bar's label of F4: what it switches to. */
const char *keys_tasks_label(struct view *v);

/* The bar's labels of F5 and F6: "Show" when they would show the
 * selected request first (as the hint line says), else what they do. */
const char *keys_approve_label(struct view *v);
const char *keys_reject_label(struct view *v);

#endif
