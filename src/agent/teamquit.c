/*
 * The orderly quit (see team.h): the permission requests that wait for
 * the person are withdrawn at once (TEAM_WITHDRAWN), and named in a file
 * of the team's state that the next start reads for its notice; every
 * live teammate is asked by huddle itself to stop where it is; those
 * that approve stay members for --resume; at the deadline the rest are
 * stopped the same way and their requests withdrawn; the lead stops
 * last.
 */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/internal.h"
#include "core/permbody.h"
#include "util/safefile.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"

int
team_quitting(struct team *t)
{
	return atomic_load(&t->quitting);
}

/*
 * A copy of the list of agents. Only the main thread reaps agents, so on
 * the main thread the pointers stay valid without the lock — which must
 * not be held while calling the protocol engine (a drain holds the store
 * lock and then takes the team lock).
 */
static size_t
team_snapshot(struct team *t, struct agent ***out)
{
	size_t n;

	pthread_mutex_lock(&t->lock);
	n = t->nagents;
	*out = xcalloc(n ? n : 1, sizeof **out);
	memcpy(*out, t->agents, n * sizeof **out);
	pthread_mutex_unlock(&t->lock);
	return n;
}

/* The file of the team's state that names what the last quit withdrew. */
#define TEAM_WITHDRAWN_FILE "withdrawn-at-quit"

/* One withdrawn request in a line: "req_x carl's bash: rm -rf junk". */
static char *
team_withdrawn_line(const struct request *r)
{
	struct permbody b;
	char *what, *line;
	size_t n;

	if (permbody_parse(r->body, &b) == 0) {
		n = strcspn(b.command, "\n");
		what = xasprintf("%s: %.*s%s", b.tool, (int)(n > 80 ? 80 : n),
		    b.command, n > 80 || b.command[n] != '\0' ? "…" : "");
		permbody_clear(&b);
	} else
		what = xasprintf("%.*s", (int)strcspn(r->body, "\n"),
		    r->body);
	line = xasprintf("%s %s's %s\n", r->id, r->from, what);
	free(what);
	return line;
}

/* Writes len bytes of text as the file path, whole or not at all (a
 * file beside it, then renamed). */
static void
team_write_whole(const char *path, const char *text, size_t len)
{
	char *tmp = xasprintf("%s.tmp", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
	    O_NOFOLLOW, 0600);
	int ok = fd != -1 && write(fd, text, len) == (ssize_t)len;

	if (fd != -1 && close(fd) == -1)
		ok = 0;
	if (!ok || rename(tmp, path) == -1) {
		log_printf("quit: cannot write %s", path);
		unlink(tmp);
	}
	free(tmp);
}

/* Withdraws every permission request that waits for the person (nobody
 * will wait for the answer), and names them for the next start. */
static void
team_withdraw(struct team *t)
{
	struct request *list;
	size_t n = protocol_list(t->proto, 0, &list), i, len = 0, cap = 0;
	char *text = NULL, *line, *path, *err = NULL;

	for (i = 0; i < n; i++) {
		if (list[i].status != REQ_PENDING ||
		    list[i].type != REQ_PERMISSION)
			continue;
		if (protocol_cancel(t->proto, list[i].id, TEAM_WITHDRAWN,
		    &err) == -1) {
			log_printf("quit: %s", err);
			free(err);
			err = NULL;
			continue;
		}
		line = team_withdrawn_line(&list[i]);
		text = xappend(text, &len, &cap, line, strlen(line));
		free(line);
	}
	request_free_array(list, n);
	if (text == NULL)
		return;
	path = xasprintf("%s/%s", t->state, TEAM_WITHDRAWN_FILE);
	team_write_whole(path, text, len);
	free(path);
	free(text);
}

void
team_quit_told(struct team *t)
{
	char *path = xasprintf("%s/%s", t->state, TEAM_WITHDRAWN_FILE);
	char *text, *err = NULL;
	size_t len = 0;

	text = safefile_read(AT_FDCWD, path, 0, 64 * 1024, &len, &err);
	if (text != NULL && (len = strlen(text)) > 0) {
		size_t i, lines = 0;

		for (i = 0; i < len; i++) {
			if (text[i] == '\n' && i + 1 < len) {
				text[i] = ';';
				lines++;
			}
		}
		if (text[len - 1] == '\n')
			text[--len] = '\0';
		event_notice(&t->events, NULL, "the last quit withdrew "
		    "%s (%s waited for you; %s agent%s told)", text,
		    lines > 0 ? "they" : "it",
		    lines > 0 ? "their" : "its", lines > 0 ? "s were" :
		    " was");
		unlink(path);
	}
	free(err);
	free(text);
	free(path);
}

void
team_quit_begin(struct team *t)
{
	struct agent **agents;
	size_t n, i, asked = 0;
	char *err = NULL;

	if (atomic_load(&t->quitting))
		return;
	atomic_store(&t->quitting, 1);
	t->quit_deadline = clock_mono_ms() + t->opts.quit_timeout_ms;
	team_withdraw(t);
	n = team_snapshot(t, &agents);
	for (i = 0; i < n; i++) {
		struct agent *a = agents[i];

		if (a->is_lead || atomic_load(&a->finished))
			continue;
		if (protocol_request(t->proto, REQ_SHUTDOWN, MSG_SYSTEM,
		    a->name, TEAM_QUIT_REASON, a->quit_req, &err) == -1) {
			log_printf("quit: %s", err);
			free(err);
			err = NULL;
		} else
			asked++;
	}
	free(agents);
	event_notice_asked(&t->events, "quitting: asked every teammate to "
	    "shut down", (int)asked);
}

int64_t
team_quit_left_ms(struct team *t)
{
	int64_t left = t->quit_deadline - clock_mono_ms();

	return left > 0 ? left : 0;
}

void
team_quit_force(struct team *t)
{
	struct agent **agents;
	size_t n, i;

	team_quit_begin(t);
	t->quit_deadline = clock_mono_ms();
	(void)team_quit_poll(t);
	/* The lead too, whatever the teammates are doing. */
	n = team_snapshot(t, &agents);
	for (i = 0; i < n; i++)
		if (!atomic_load(&agents[i]->stop))
			team_stop_agent(t, agents[i], 0);
	free(agents);
}

int
team_quit_poll(struct team *t)
{
	struct agent **agents, *lead = NULL;
	size_t n, i, running = 0;
	int late = clock_mono_ms() >= t->quit_deadline;
	char *err = NULL;

	team_tick(t);
	n = team_snapshot(t, &agents);
	for (i = 0; i < n; i++) {
		struct agent *a = agents[i];

		if (a->is_lead) {
			lead = a;
			continue;
		}
		running++;
		if (late && !atomic_load(&a->stop)) {
			/* Out of time: stop it, keeping it for --resume, and
			 * withdraw the request it did not answer. */
			team_stop_agent(t, a, 0);
			if (*a->quit_req != '\0' && protocol_cancel(t->proto,
			    a->quit_req, "huddle quit first", &err) == -1) {
				free(err);
				err = NULL;
			}
		}
	}
	if (running == 0 && lead != NULL && !t->lead_stopping) {
		t->lead_stopping = 1;
		team_stop_agent(t, lead, 0);
	}
	free(agents);
	return running == 0 && lead == NULL;
}
