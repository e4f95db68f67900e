/*
 * The screen as a front end of the driver's loop (see ui.h, driver.h):
 * keys go through the key reader to the view, events into the view, and
 * when anything changed the whole view is drawn and sent with a single
 * doupdate(). Streaming text is drawn at most about 30 times a second; a
 * key is answered at once.
 */
#include "config.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <termios.h>
#include <unistd.h>

#include "agent/team.h"
#include "driver.h"
#include "ui/draw.h"
#include "ui/keyread.h"
#include "ui/keys.h"
#include "ui/layout.h"
#include "ui/pager.h"
#include "ui/ui.h"
#include "ui/view.h"
#include "util/clock.h"
#include "util/xmalloc.h"

#define UI_FRAME_US	33000	/* ~30 frames a second while streaming */

static struct termios ui_saved_tty;
static int ui_have_tty;

/* The screen's side of the driver's loop. */
struct ui {
	struct view	*view;
	struct keyread	 keys;
	int		 dirty;		/* something changed since the last
					 * frame */
	int64_t		 last_draw;	/* clock_mono_us() */
	int64_t		 minute;	/* the status line's clock, drawn */
};

/*
 * A fatal signal: put the terminal back (the alternate screen, the
 * cursor, mouse reporting, the tty modes) with async-signal-safe calls
 * only, then die of the signal as we would have.
 */
static void
ui_on_fatal(int sig)
{
	static const char reset[] = "\033[?2004l"
	    "\033[?1000l\033[?1002l\033[?1006l"
	    "\033[0m\033[?25h\033[?1049l\r\n";

	if (write(STDOUT_FILENO, reset, sizeof reset - 1) == -1) {
	}
	if (ui_have_tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &ui_saved_tty);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Fatal signals put the terminal back first (the driver has the rest). */
static void
ui_signals(void)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = ui_on_fatal;
	sa.sa_flags = SA_RESETHAND;
	for (i = 0; i < sizeof fatal / sizeof *fatal; i++)
		sigaction(fatal[i], &sa, NULL);
}

/* Takes the new size from the terminal (our SIGWINCH handler replaced
 * curses' own, so resizeterm is ours to call). */
static void
ui_resize(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 &&
	    ws.ws_col > 0)
		resizeterm(ws.ws_row, ws.ws_col);
}

static void
ui_events(void *fe, struct event *list)
{
	struct ui *u = fe;
	struct event *e;

	for (e = list; e != NULL; e = e->next)
		u->dirty |= view_apply(u->view, e);
}

static void ui_page(struct ui *u, struct driver *d);
static void ui_restore(void);

/* Reads every key waiting, through the key reader. */
static void
ui_input(void *fe, struct driver *d)
{
	struct ui *u = fe;
	struct keyread_key keys[KEYREAD_MAX];
	size_t n, i;
	wint_t wc;
	int rc, flags = 0;

	while ((rc = wget_wch(stdscr, &wc)) != ERR) {
		n = keyread_feed(&u->keys, rc == KEY_CODE_YES, wc, keys);
		for (i = 0; i < n; i++)
			flags |= keys_press(u->view, keys[i].is_key,
			    keys[i].code);
	}
	n = keyread_flush(&u->keys, keys);
	for (i = 0; i < n; i++)
		flags |= keys_press(u->view, keys[i].is_key, keys[i].code);
	if (u->view->page != NULL)
		ui_page(u, d);
	/* F10 or Ctrl-C; again while quitting, it forces. */
	if (flags & KEY_QUIT)
		driver_quit(d);
	if (flags & KEY_FULL_REDRAW)
		clearok(curscr, TRUE);
	if (flags & (KEY_REDRAW | KEY_FULL_REDRAW | KEY_QUIT)) {
		/* Answer a key at once, not at the next frame. */
		u->dirty = 1;
		u->last_draw = 0;
	}
}

/* The team's tick, while the pager has the terminal. */
static void
ui_page_tick(void *ud)
{
	team_tick(ud);
}

/* C-p: the file the view asked for in the person's pager (ui/pager.h),
 * the screen given up meanwhile and taken back after, at the terminal's
 * size now (a resize while paging reached the pager only). */
static void
ui_page(struct ui *u, struct driver *d)
{
	const char *why, *pager = getenv("PAGER");
	char *path = u->view->page;

	u->view->page = NULL;
	ui_restore();
	why = pager_show(path, ui_page_tick, d->team);
	reset_prog_mode();
	if (write(STDOUT_FILENO, KEYREAD_PASTE_ON,
	    sizeof KEYREAD_PASTE_ON - 1) == -1) {
	}
	ui_resize();
	clearok(curscr, TRUE);
	if (why != NULL)
		view_hint(u->view, ROLE_HINT, "%s (%s)", why, pager != NULL &&
		    *pager != '\0' ? pager : "less");
	u->dirty = 1;
	u->last_draw = 0;
	free(path);
}

static void
ui_signal(void *fe, int sig)
{
	struct ui *u = fe;

	(void)sig;	/* SIGWINCH: our handler replaced curses' own, so
			 * resizeterm is ours to call */
	ui_resize();
	u->dirty = 1;
	u->last_draw = 0;
}

/* Ages in the table move on; the status line's clock each minute. */
static void
ui_tick(void *fe)
{
	struct ui *u = fe;
	int64_t minute = (clock_mono_ms() - u->view->started_ms) / 60000;
	size_t i;

	u->dirty |= table_pending(&u->view->table) > 0 || minute != u->minute;
	/* A retry's countdown moves each second. */
	for (i = 0; i < u->view->npanes; i++)
		u->dirty |= u->view->panes[i]->retry_at_ms != 0;
	u->dirty |= table_expire(&u->view->table, clock_wall_ms());
	u->minute = minute;
}

/* The hint while quitting: who is still shutting down, and when they
 * will be stopped. */
static void
ui_quit_progress(struct view *v)
{
	size_t i, live = 0, len = 0, cap = 0;
	char *names = NULL;

	for (i = 1; i < v->npanes; i++) {
		if (v->panes[i]->status == MEMBER_TERMINATED)
			continue;
		if (live++ > 0)
			names = xappend(names, &len, &cap, ", ", 2);
		names = xappend(names, &len, &cap, v->panes[i]->name,
		    strlen(v->panes[i]->name));
	}
	if (live == 0)
		view_hint(v, ROLE_HINT, "quitting: stopping the lead");
	else
		view_hint(v, ROLE_HINT, "quitting: %s still shutting down; "
		    "stopped in %lld s · F10 again stops them now", names,
		    (long long)(team_quit_left_ms(v->team) + 999) / 1000);
	free(names);
}

/* C-c reaches huddle as a key, not as SIGINT: it clears a typed line
 * before it quits (ui/keys.c). The other signal keys (C-z, C-\\) keep
 * their meaning; a SIGINT from elsewhere still quits. curses is told, so
 * that it restores this mode after a suspend. */
static void
ui_no_intr(void)
{
	struct termios tio;

	if (tcgetattr(STDIN_FILENO, &tio) != 0)
		return;
	tio.c_cc[VINTR] = _POSIX_VDISABLE;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &tio) == 0)
		def_prog_mode();
}

static void
ui_setup(void)
{
	int code;

	ui_have_tty = tcgetattr(STDIN_FILENO, &ui_saved_tty) == 0;
	initscr();
	cbreak();
	ui_no_intr();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	mousemask(keys_mouse_mask(), NULL);
	mouseinterval(0);
	curs_set(1);
	color_init();
	draw_init();
	ui_signals();
	/* The keys curses knows beyond its own KEY_* codes (xterm's
	 * Ctrl-Left as kLFT5, say) arrive raw instead, for the key reader
	 * to decode the same way on every terminal. */
	for (code = KEY_MAX + 1; code < KEY_MAX + 1024; code++)
		(void)keyok(code, FALSE);
	/* Bracketed paste: a paste arrives marked, as one piece of text. */
	if (write(STDOUT_FILENO, KEYREAD_PASTE_ON,
	    sizeof KEYREAD_PASTE_ON - 1) == -1) {
	}
}

/* Gives the terminal back as it was. */
static void
ui_restore(void)
{
	endwin();
	if (write(STDOUT_FILENO, KEYREAD_PASTE_OFF,
	    sizeof KEYREAD_PASTE_OFF - 1) == -1) {
	}
}

/* Draws when something changed and the last frame is old enough;
 * otherwise says how long until it is. */
static int64_t
ui_prepare(void *fe, struct driver *d)
{
	struct ui *u = fe;
	int64_t now = clock_mono_us();

	if (team_quitting(d->team)) {
		ui_quit_progress(u->view);
		u->dirty = 1;
	}
	if (!u->dirty)
		return -1;
	if (now - u->last_draw < UI_FRAME_US)
		return (UI_FRAME_US - (now - u->last_draw)) / 1000 + 1;
	layout_draw(u->view);
	wnoutrefresh(stdscr);
	doupdate();
	u->last_draw = now;
	u->dirty = 0;
	return -1;
}

int
ui_run(struct team *t, const char *hint, int resumed)
{
	static const struct driver_ops ops = {
		ui_input, ui_events, ui_signal, ui_tick, ui_prepare
	};
	struct ui u;
	int rc;

	memset(&u, 0, sizeof u);
	ui_setup();
	keyread_init(&u.keys);
	u.view = view_new(t);
	u.dirty = 1;
	if (resumed)
		view_load_history(u.view, 200);
	if (hint != NULL)
		view_hint(u.view, ROLE_HINT, "%s", hint);
	rc = driver_run(t, STDIN_FILENO, &ops, &u);
	ui_restore();
	view_free(u.view);
	return rc;
}
