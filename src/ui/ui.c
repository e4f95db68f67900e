/*
 * The screen's main loop (see ui.h).
 *
 * Each pass: wait in select() for a key, an event, a signal or the tick;
 * take every queued event into the view; handle every pending key; then,
 * if anything changed, draw the whole view and send it with a single
 * doupdate(). Streaming text is drawn at most about 30 times a second; a
 * key is answered at once. Signal handlers only write a byte to a pipe.
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
#include "ui/keyread.h"
#include "ui/ui.h"
#include "ui/view.h"
#include "util/clock.h"
#include "util/xmalloc.h"

#define FRAME_US	33000	/* ~30 frames a second while streaming */

static int ui_sigpipe[2] = { -1, -1 };
static struct termios ui_saved_tty;
static int ui_have_tty;

static void
ui_on_signal(int sig)
{
	int saved = errno;
	char b = (char)sig;

	if (write(ui_sigpipe[1], &b, 1) == -1) {
	}
	errno = saved;
}

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

static void
ui_signals(void)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = ui_on_signal;
	sigaction(SIGWINCH, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
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

static int
ui_events(struct view *v)
{
	struct event *list = evq_take(team_events(v->team)), *e;
	int changed = 0;

	for (e = list; e != NULL; e = e->next)
		changed |= view_apply(v, e);
	event_free_list(list);
	return changed;
}

/* Reads every key waiting, through the key reader; returns the KEY_*
 * flags they produced. */
static int
ui_keys(struct view *v, struct keyread *kr)
{
	struct keyread_key keys[KEYREAD_MAX];
	size_t n, i;
	wint_t wc;
	int rc, flags = 0;

	while ((rc = wget_wch(stdscr, &wc)) != ERR) {
		n = keyread_feed(kr, rc == KEY_CODE_YES, wc, keys);
		for (i = 0; i < n; i++)
			flags |= view_key(v, keys[i].is_key, keys[i].code);
	}
	n = keyread_flush(kr, keys);
	for (i = 0; i < n; i++)
		flags |= view_key(v, keys[i].is_key, keys[i].code);
	return flags;
}

/* The hint while quitting: who is still shutting down, and when they
 * will be stopped. */
static void
ui_quit_progress(struct view *v)
{
	size_t i, live = 0, len = 0, cap = 0;
	char *names = NULL;

	for (i = 1; i < v->npanes; i++) {
		if (strcmp(v->panes[i]->status, "terminated") == 0)
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

static void
ui_setup(void)
{
	int code;

	ui_have_tty = tcgetattr(STDIN_FILENO, &ui_saved_tty) == 0;
	initscr();
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	mousemask(view_mouse_mask(), NULL);
	mouseinterval(0);
	curs_set(1);
	color_init();
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

int
ui_run(struct team *t, const char *hint, int resumed)
{
	struct view *v;
	int64_t next_tick = clock_mono_ms() + 1000, last_draw = 0, minute = 0;
	int dirty = 1, done = 0, forced = 0, evfd = evq_fd(team_events(t));
	struct keyread kr;

	if (pipe2(ui_sigpipe, O_NONBLOCK | O_CLOEXEC) == -1)
		return 1;
	ui_setup();
	keyread_init(&kr);
	v = view_new(t);
	if (resumed)
		view_load_history(v, 200);
	if (hint != NULL)
		view_hint(v, ROLE_HINT, "%s", hint);

	while (!done) {
		int64_t now_us = clock_mono_us(), wait_ms;
		int top = evfd > ui_sigpipe[0] ? evfd : ui_sigpipe[0], flags;
		struct timeval tv;
		fd_set rd;
		char sigs[16];
		ssize_t n, i;

		/* Draw when something changed and the last frame is old
		 * enough; otherwise sleep until it is (or the tick). */
		wait_ms = next_tick - now_us / 1000;
		if (dirty && now_us - last_draw >= FRAME_US) {
			view_draw(v);
			wnoutrefresh(stdscr);
			doupdate();
			last_draw = now_us;
			dirty = 0;
		} else if (dirty && (FRAME_US - (now_us - last_draw)) / 1000 <
		    wait_ms)
			wait_ms = (FRAME_US - (now_us - last_draw)) / 1000 + 1;
		if (v->quitting && wait_ms > 100)
			wait_ms = 100;
		if (wait_ms < 0)
			wait_ms = 0;
		tv.tv_sec = wait_ms / 1000;
		tv.tv_usec = (wait_ms % 1000) * 1000;
		FD_ZERO(&rd);
		FD_SET(STDIN_FILENO, &rd);
		FD_SET(evfd, &rd);
		FD_SET(ui_sigpipe[0], &rd);
		if (select(top + 1, &rd, NULL, NULL, &tv) == -1 &&
		    errno != EINTR)
			break;

		if (FD_ISSET(ui_sigpipe[0], &rd) &&
		    (n = read(ui_sigpipe[0], sigs, sizeof sigs)) > 0) {
			for (i = 0; i < n; i++) {
				if (sigs[i] == SIGWINCH)
					ui_resize();
				else if (team_quitting(t))
					forced = 1;
				else
					v->quitting = 1;
			}
			dirty = 1;
			last_draw = 0;
		}
		dirty |= ui_events(v);
		flags = ui_keys(v, &kr);
		/* A second F10 or Ctrl-C (or SIGINT) while quitting forces:
		 * the screen goes at once, the state stays for --resume. */
		if ((flags & KEY_QUIT) && team_quitting(t))
			forced = 1;
		if (flags & KEY_QUIT)
			v->quitting = 1;
		if (flags & KEY_FULL_REDRAW)
			clearok(curscr, TRUE);
		if (flags & (KEY_REDRAW | KEY_FULL_REDRAW | KEY_QUIT)) {
			/* Answer a key at once, not at the next frame. */
			dirty = 1;
			last_draw = 0;
		}
		if (v->quitting && !team_quitting(t))
			team_quit_begin(t);
		if (clock_mono_ms() >= next_tick) {
			team_tick(t);
			next_tick = clock_mono_ms() + 1000;
			/* Ages in the table move on, and the status line's
			 * clock each minute. */
			dirty |= table_pending(&v->table) > 0;
			if ((clock_mono_ms() - v->started_ms) / 60000 !=
			    minute) {
				minute = (clock_mono_ms() - v->started_ms) /
				    60000;
				dirty = 1;
			}
		}
		if (forced) {
			team_quit_force(t);
			break;
		}
		if (team_quitting(t)) {
			ui_quit_progress(v);
			dirty = 1;
			done = team_quit_poll(t);
		}
	}
	ui_events(v);
	ui_restore();
	view_free(v);
	close(ui_sigpipe[0]);
	close(ui_sigpipe[1]);
	return 0;
}
