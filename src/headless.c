/*
 * The JSONL front end (see headless.h). One select() loop over stdin, the
 * team's event queue and a signal pipe, with a one-second tick.
 *
 * Each output line is {"event": NAME, "agent": WHO, "t": MS, …fields}; "t"
 * is milliseconds since the team was opened. Commands answer with "reply" events (or
 * "error" ones), so a script can tell what its input did.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include "agent/command.h"
#include "agent/team.h"
#include "core/roster.h"
#include "headless.h"
#include "util/clock.h"
#include "util/xmalloc.h"

static int headless_sigpipe[2] = { -1, -1 };

struct headless {
	struct team	*team;
	int64_t		 start_us;
	char		*buf;		/* partial input line */
	size_t		 len, cap;
	int		 eof;
	int		 failed;	/* stdout is gone */
};

static void
headless_on_signal(int sig)
{
	int saved = errno;
	char b = (char)sig;

	if (write(headless_sigpipe[1], &b, 1) == -1) {
	}
	errno = saved;
}

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

/* /team: the members as they are in one read of the store, and the team's
 * spend summed from that same read (so the figures always add up). */
static void
headless_team(struct headless *h)
{
	struct member *m;
	size_t n = roster_list(team_store(h->team), &m), i;
	json_t *list = json_array();
	char *sandbox;
	double spent = 0;

	for (i = 0; i < n; i++)
		spent += m[i].cost;
	for (i = 0; i < n; i++)
		json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:b, "
		    "s:b, s:I, s:I, s:I, s:I, s:f, s:s}", "name", m[i].name,
		    "role", m[i].role, "status", member_status_name(
		    m[i].status), "plan_required", m[i].plan_required,
		    "plan_approved", m[i].plan_approved, "input_tokens",
		    (json_int_t)m[i].tokens_in, "output_tokens",
		    (json_int_t)m[i].tokens_out, "cache_write_tokens",
		    (json_int_t)m[i].cache_write, "cache_read_tokens",
		    (json_int_t)m[i].cache_read, "cost_usd", m[i].cost,
		    "model", team_model_of(h->team, &m[i])));
	member_free_array(m, n);
	sandbox = team_sandbox_text(h->team);
	headless_reply(h, "team", json_pack("{s:o, s:f, s:f, s:s}", "members",
	    list, "team_cost_usd", spent, "max_cost_usd",
	    team_budget(h->team), "sandbox", sandbox));
	free(sandbox);
}

static void
headless_requests(struct headless *h)
{
	struct request *r;
	size_t n = protocol_list(team_protocol(h->team), 20, &r), i;
	json_t *list = json_array();

	for (i = 0; i < n; i++)
		json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s, "
		    "s:s, s:s}", "id", r[i].id, "type", req_type_name(r[i].type),
		    "from", r[i].from, "to", r[i].to, "status",
		    req_status_name(r[i].status), "body", r[i].body ?
		    r[i].body : ""));
	request_free_array(r, n);
	headless_reply(h, "requests", json_pack("{s:o}", "requests", list));
}

/* Reports the outcome of a command: ok with a message, or an error. */
static void
headless_outcome(struct headless *h, const char *cmd, int ok, char *msg)
{
	headless_reply(h, ok ? "reply" : "error", json_pack("{s:s, s:s}",
	    "command", cmd, "message", msg ? msg : (ok ? "done" : "failed")));
	free(msg);
}

static void
headless_command(struct headless *h, const char *line)
{
	struct command c;
	char *msg = NULL;
	enum proto_verdict v;
	int ok;

	switch (command_parse(line, &c)) {
	case CMD_EMPTY:
		break;
	case CMD_SAY:
		if (team_say(h->team, NULL, c.text, &msg) == -1)
			headless_outcome(h, "say", 0, msg);
		break;
	case CMD_APPROVE:
	case CMD_REJECT:
		v = team_decide(h->team, c.target, c.kind == CMD_APPROVE, c.text,
		    &msg);
		headless_outcome(h, c.kind == CMD_APPROVE ? "approve" :
		    "reject", v == PROTO_DECIDED, msg);
		break;
	case CMD_SHUTDOWN:
		ok = team_request_shutdown(h->team, c.name, &msg) == 0;
		headless_outcome(h, "shutdown", ok, msg);
		break;
	case CMD_STOP:
		ok = team_force_stop(h->team, c.name, &msg) == 0;
		headless_outcome(h, "stop", ok, msg);
		break;
	case CMD_MSG:
		ok = team_say(h->team, c.name, c.text, &msg) == 0;
		headless_outcome(h, "msg", ok, msg);
		break;
	case CMD_INTERRUPT:
		ok = team_interrupt(h->team, c.name, &msg) == 0;
		headless_outcome(h, "interrupt", ok, msg);
		break;
	case CMD_BUDGET:
		if (c.amount >= 0)
			team_set_budget(h->team, c.amount);
		headless_outcome(h, "budget", 1, team_budget_text(h->team));
		break;
	case CMD_TEAM:
		headless_team(h);
		break;
	case CMD_REQUESTS:
		headless_requests(h);
		break;
	case CMD_ZOOM:
		headless_outcome(h, "zoom", 1, xstrdup("there is no screen "
		    "to zoom in headless mode"));
		break;
	case CMD_HELP:
		headless_outcome(h, "help", 1, xstrdup(command_help()));
		break;
	case CMD_QUIT:
		team_quit_begin(h->team);
		break;
	case CMD_BAD:
		headless_outcome(h, "parse", 0, xstrdup(c.error));
		break;
	}
	command_clear(&c);
}

/* Reads what stdin has; runs each complete line. */
static void
headless_read(struct headless *h)
{
	char chunk[4096], *nl;
	ssize_t n = read(STDIN_FILENO, chunk, sizeof chunk);

	if (n <= 0) {
		if (n == 0 || (errno != EINTR && errno != EAGAIN))
			h->eof = 1;
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
headless_events(struct headless *h)
{
	struct event *list = evq_take(team_events(h->team)), *e;

	for (e = list; e != NULL; e = e->next)
		headless_emit(h, event_type_name(e->type), e->agent, e->data,
		    e->at_us);
	event_free_list(list);
}

int
headless_run(struct team *t)
{
	struct headless h = { t, team_epoch_us(t), NULL, 0, 0, 0, 0 };
	struct sigaction sa;
	int64_t next_tick = clock_mono_ms() + 1000;
	int evfd = evq_fd(team_events(t));

	if (pipe2(headless_sigpipe, O_NONBLOCK | O_CLOEXEC) == -1)
		return 1;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = headless_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	for (;;) {
		int64_t now = clock_mono_ms(), wait;
		int top = evfd > headless_sigpipe[0] ? evfd :
		    headless_sigpipe[0];
		struct timeval tv;
		fd_set rd;
		char sig[16];

		if (now >= next_tick) {
			team_tick(t);
			next_tick = now + 1000;
		}
		wait = next_tick - now;
		/* While quitting, look at the deadline often. */
		if (team_quitting(t) && wait > 100)
			wait = 100;
		tv.tv_sec = wait / 1000;
		tv.tv_usec = (wait % 1000) * 1000;
		FD_ZERO(&rd);
		FD_SET(evfd, &rd);
		FD_SET(headless_sigpipe[0], &rd);
		if (!h.eof)
			FD_SET(STDIN_FILENO, &rd);
		if (select(top + 1, &rd, NULL, NULL, &tv) == -1 &&
		    errno != EINTR)
			break;
		if (FD_ISSET(headless_sigpipe[0], &rd) &&
		    read(headless_sigpipe[0], sig, sizeof sig) > 0)
			team_quit_begin(t);
		if (!h.eof && FD_ISSET(STDIN_FILENO, &rd)) {
			headless_read(&h);
			if (h.eof) {
				/* A last line without its newline counts. */
				if (h.len > 0) {
					h.buf[h.len] = '\0';
					headless_command(&h, h.buf);
					h.len = 0;
				}
				team_quit_begin(t);
			}
		}
		headless_events(&h);
		fflush(stdout);
		if (team_quitting(t) && team_quit_poll(t))
			break;
	}
	headless_events(&h);
	headless_reply(&h, "exit", NULL);
	fflush(stdout);
	free(h.buf);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	close(headless_sigpipe[0]);
	close(headless_sigpipe[1]);
	return h.failed ? 1 : 0;
}
