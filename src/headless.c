/*
 * The JSONL front end (see headless.h), on the driver's loop (driver.h):
 * stdin lines are commands, each event is a line on stdout.
 *
 * Each output line is {"event": NAME, "agent": WHO, "t": MS, …fields}; "t"
 * is milliseconds since the team was opened. Commands answer with "reply" events (or
 * "error" ones), so a script can tell what its input did.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/command.h"
#include "agent/team.h"
#include "driver.h"
#include "headless.h"
#include "util/clock.h"
#include "util/xmalloc.h"

struct headless {
	struct team	*team;
	int64_t		 start_us;
	char		*buf;		/* partial input line */
	size_t		 len, cap;
	int		 failed;	/* stdout is gone */
};

/* Writes one JSON line: the event name, agent, time, then data's fields. */
static void
headless_emit(struct headless *h, const char *name, const char *agent,
    json_t *data, int64_t at_us)
{
	json_t *line = json_pack("{s:s, s:I}", "event", name, "t",
	    (json_int_t)((at_us - h->start_us) / 1000));
	char *text;

	if (agent != NULL)
		json_object_set_new(line, "agent", json_string(agent));
	if (data != NULL)
		json_object_update(line, data);
	text = json_dumps(line, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(line);
	if (text == NULL)
		return;
	if (printf("%s\n", text) < 0)
		h->failed = 1;
	free(text);
}

static void
headless_reply(struct headless *h, const char *name, json_t *data)
{
	headless_emit(h, name, NULL, data, clock_mono_us());
	json_decref(data);
}

/* Runs one input line and reports what it did: a "reply" or an "error"
 * event, or the report it asked for ("team", "requests", "tasks"). Text for an
 * agent is reported only when it could not be sent. */
static void
headless_command(struct headless *h, const char *line)
{
	struct command c;
	struct command_result res;
	const struct command_def *def;
	const char *name;

	command_parse(line, &c);
	execute_command(h->team, &c, NULL, NULL, &res);
	name = command_name(c.kind);
	def = command_def(c.kind);
	switch (res.outcome) {
	case OUTCOME_DONE:
		if (c.kind != CMD_SAY)
			headless_reply(h, "reply", json_pack("{s:s, s:s}",
			    "command", name, "message", res.message ?
			    res.message : "done"));
		break;
	case OUTCOME_ERROR:
		headless_reply(h, "error", json_pack("{s:s, s:s}", "command",
		    name, "message", res.message ? res.message : "failed"));
		break;
	case OUTCOME_REPORT:
		headless_reply(h, name, json_incref(res.data));
		break;
	case OUTCOME_FRONT:
		if (c.kind == CMD_QUIT)
			team_quit_begin(h->team);
		else if (c.kind == CMD_HELP)
			headless_reply(h, "reply", json_pack("{s:s, s:s}",
			    "command", name, "message", command_help()));
		else if (def != NULL && (def->flags & CMDF_SCREEN)) {
			char *why = xasprintf("/%s works on the screen only, "
			    "not in headless mode", def->words);

			headless_reply(h, "reply", json_pack("{s:s, s:s}",
			    "command", name, "message", why));
			free(why);
		}
		break;
	}
	execute_result_clear(&res);
	command_clear(&c);
}

/* Reads what stdin has; runs each complete line. At the end of input
 * (a last line without its newline counts), the team quits. */
static void
headless_input(void *fe, struct driver *d)
{
	struct headless *h = fe;
	char chunk[4096], *nl;
	ssize_t n = read(STDIN_FILENO, chunk, sizeof chunk);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		if (h->len > 0) {
			h->buf = xappend(h->buf, &h->len, &h->cap, "", 1);
			headless_command(h, h->buf);
			h->len = 0;
		}
		driver_input_done(d);
		team_quit_begin(h->team);
		return;
	}
	h->buf = xappend(h->buf, &h->len, &h->cap, chunk, (size_t)n);
	while ((nl = memchr(h->buf, '\n', h->len)) != NULL) {
		*nl = '\0';
		if (nl > h->buf && nl[-1] == '\r')
			nl[-1] = '\0';
		headless_command(h, h->buf);
		h->len -= (size_t)(nl + 1 - h->buf);
		memmove(h->buf, nl + 1, h->len);
	}
}

static void
headless_events(void *fe, struct event *list)
{
	struct headless *h = fe;
	struct event *e;

	for (e = list; e != NULL; e = e->next)
		headless_emit(h, event_type_name(e->type), e->agent, e->data,
		    e->at_us);
}

/* Each pass's lines go out before the loop sleeps. */
static int64_t
headless_prepare(void *fe, struct driver *d)
{
	(void)fe;
	(void)d;
	fflush(stdout);
	return -1;
}

int
headless_run(struct team *t)
{
	static const struct driver_ops ops = {
		headless_input, headless_events, NULL, NULL, headless_prepare
	};
	struct headless h = { t, team_epoch_us(t), NULL, 0, 0, 0 };

	char *planted;

	if (driver_run(t, STDIN_FILENO, &ops, &h) != 0)
		h.failed = 1;
	if ((planted = team_sandbox_planted(t)) != NULL) {
		headless_reply(&h, "notice", json_pack("{s:s}", "message",
		    planted));
		free(planted);
	}
	headless_reply(&h, "exit", NULL);
	fflush(stdout);
	free(h.buf);
	return h.failed ? 1 : 0;
}
