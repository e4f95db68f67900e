/*
 * bench/screen: the cost of the screen (doc/benchmarks.md).
 *
 *   bench/screen redraw [PANES] [LINES] [COLS] [ROWS]
 *	Builds a view with PANES panes (default 33: the lead and 32
 *	teammates) of LINES lines each (default 5,000), in a real curses
 *	terminal writing to /dev/null, and prints the time of a full redraw
 *	(layout_draw + doupdate after touching every cell; 50 runs, p50/max)
 *	and the process's RSS.
 *
 *   bench/screen make-team DIR MESSAGES
 *	Writes a team of a lead and 2 teammates with MESSAGES delivered
 *	messages into DIR/.huddle, for timing --resume (bench/screen.py).
 */
#include "config.h"

#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/team.h"
#include "core/bus.h"
#include "core/roster.h"
#include "core/transcript.h"
#include "ui/color.h"
#include "ui/layout.h"
#include "ui/view.h"
#include "util/clock.h"
#include "util/xmalloc.h"

static long
rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;

	while (f != NULL && fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, "VmRSS:", 6) == 0)
			kib = strtol(line + 6, NULL, 10);
	}
	if (f != NULL)
		fclose(f);
	return kib;
}

static int
cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int
redraw(int npanes, int nlines, int cols, int rows)
{
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
	SCREEN *scr;
	struct view *v;
	int64_t us[50];
	long before = rss_kib();
	int i, j;

	setlocale(LC_ALL, "C.UTF-8");
	if ((scr = newterm("xterm-256color", out, in)) == NULL) {
		fprintf(stderr, "bench/screen: no xterm-256color terminfo\n");
		return 1;
	}
	set_term(scr);
	resizeterm(rows, cols);
	color_init();
	v = view_new(NULL);
	for (i = 0; i < npanes; i++) {
		char name[32];
		struct pane *p;

		snprintf(name, sizeof name, i ? "mate%d" : "lead", i);
		p = view_pane(v, name, "worker");
		for (j = 0; j < nlines; j++) {
			char *text = xasprintf("line %d of %s: the quick brown "
			    "fox jumps over the lazy dog, %s", j, name, j % 7 ?
			    "again" : "and a longer line that has to wrap "
			    "once or twice in a narrow pane of the grid");

			pane_add(p, j % 5 ? ROLE_NORMAL : ROLE_TOOL, text);
			free(text);
		}
	}
	for (i = 0; i < 50; i++) {
		int64_t start = clock_mono_us();

		/* Every cell is sent again, as after a resize. */
		clearok(curscr, TRUE);
		layout_draw(v);
		wnoutrefresh(stdscr);
		doupdate();
		us[i] = clock_mono_us() - start;
	}
	qsort(us, 50, sizeof *us, cmp);
	printf("P5 full redraw: %d panes x %d lines, %dx%d terminal\n"
	    "  p50 %.3f ms  max %.3f ms\n", npanes, nlines, cols, rows,
	    us[25] / 1000.0, us[49] / 1000.0);
	printf("P5 RSS with that scrollback: %.1f MiB (%.1f MiB before the "
	    "panes)\n", rss_kib() / 1024.0, before / 1024.0);
	view_free(v);
	endwin();
	delscreen(scr);
	fclose(out);
	fclose(in);
	return 0;
}

static int
make_team(const char *dir, int n)
{
	char *err = NULL;
	struct store *s = store_open(dir, 0, &err);
	struct bus *bus;
	struct message *msgs;
	size_t got;
	int i;

	if (s == NULL || roster_add(s, "lead", "lead", "", 0, &err) == -1 ||
	    roster_add(s, "alice", "coder", "x", 0, &err) == -1 ||
	    roster_add(s, "bob", "tester", "y", 0, &err) == -1) {
		fprintf(stderr, "bench/screen: %s\n", err ? err : "?");
		return 1;
	}
	roster_set_status(s, "lead", MEMBER_IDLE, &err);
	roster_set_status(s, "alice", MEMBER_IDLE, &err);
	roster_set_status(s, "bob", MEMBER_IDLE, &err);
	bus = bus_new(s);
	for (i = 0; i < n; i++) {
		const char *to = i % 3 == 0 ? "lead" : i % 3 == 1 ? "alice" :
		    "bob";

		if (bus_send(bus, i % 3 == 0 ? "alice" : "lead", to,
		    MSG_MESSAGE, "a message of an ordinary length, about "
		    "what was done and what comes next", NULL, &err) < 0) {
			fprintf(stderr, "bench/screen: %s\n", err);
			return 1;
		}
	}
	/* Delivered, so the transcripts hold them and nothing waits. */
	bus_drain(bus, "lead", &msgs, &got, &err);
	message_free_array(msgs, got);
	bus_drain(bus, "alice", &msgs, &got, &err);
	message_free_array(msgs, got);
	bus_drain(bus, "bob", &msgs, &got, &err);
	message_free_array(msgs, got);
	/* The last turn of each ends with the model's answer. */
	{
		static const char *const names[] = { "lead", "alice", "bob" };
		json_t *entry = json_pack("{s:s, s:[{s:s, s:s}]}", "role",
		    "assistant", "content", "type", "text", "text", "noted");

		for (i = 0; i < 3; i++)
			transcript_append(s, names[i], entry, &err);
		json_decref(entry);
	}
	bus_free(bus);
	store_close(s);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "redraw") == 0)
		return redraw(argc > 2 ? atoi(argv[2]) : 33,
		    argc > 3 ? atoi(argv[3]) : 5000,
		    argc > 4 ? atoi(argv[4]) : 200,
		    argc > 5 ? atoi(argv[5]) : 50);
	if (argc == 4 && strcmp(argv[1], "make-team") == 0)
		return make_team(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: bench/screen redraw [PANES] [LINES] [COLS] "
	    "[ROWS]\n"
	    "       bench/screen make-team DIR MESSAGES\n");
	return 2;
}
