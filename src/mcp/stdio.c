/*
 * The stdio transport of an MCP server (transport.h): its process,
 * started through the reaper on a thread of the server's own; JSON-RPC
 * lines written on its stdin and read from its stdout; and its stderr,
 * read on a thread of its own into the tail kept for the person.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp/jsonrpc.h"
#include "mcp/transport.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* The bytes one drain of a stdio server's output reads at most. */
#define MCP_DRAIN_MAX		(1024 * 1024)

struct mcp_spawn;

/* A stdio server's side of it. */
struct mcp_stdio {
	struct mcp_transport	 base;

	struct bash_piped	 proc;		/* io */
	struct jsonrpc_lines	 lines;		/* io */
	void			*handle;	/* io: launch->begin's */
	pthread_t		 err_reader;	/* io: reads proc.err */
	int			 err_reading;	/* io */
	atomic_int		 err_stop;	/* the reader: finish */

	/* Under the server's lock: */
	pthread_t		 spawner;	/* starts its processes */
	int			 spawner_live;
	int			 spawner_quit;
	pthread_cond_t		 spawn_cv;	/* a spawn asked or done */
	struct mcp_spawn	*spawn;		/* the spawn asked, or NULL */
	char			*tail[MCP_TAIL_LINES];	/* stderr, a ring */
	size_t			 tail_n, tail_next;
};

/* Appends 'word' to *cmd, quoted for /bin/sh. */
static void
mcp_quote(char **cmd, size_t *len, size_t *cap, const char *word)
{
	const char *p;

	*cmd = xappend(*cmd, len, cap, " '", 2);
	for (p = word; *p != '\0'; p++) {
		if (*p == '\'')
			*cmd = xappend(*cmd, len, cap, "'\\''", 4);
		else
			*cmd = xappend(*cmd, len, cap, p, 1);
	}
	*cmd = xappend(*cmd, len, cap, "'", 1);
}

/* --- a stdio server's stderr --------------------------------------------- */

/* Keeps one line of stderr (raw bytes), cleaned: terminal escapes (CSI,
 * OSC and the two-byte ones) are dropped, the rest as utf8_clean makes
 * it; a line left empty is not kept. */
static void
mcp_tail_add(struct mcp_stdio *p, const char *raw, size_t len)
{
	char *plain = xmalloc(len + 1), *line;
	size_t i = 0, n = 0;

	while (i < len) {
		unsigned char c = (unsigned char)raw[i];

		if (c != 0x1b) {
			plain[n++] = (char)c;
			i++;
			continue;
		}
		if (++i >= len)
			break;
		if (raw[i] == '[') {
			/* CSI: parameters, then a final byte @ to ~. */
			for (i++; i < len && !((unsigned char)raw[i] >= 0x40 &&
			    (unsigned char)raw[i] <= 0x7e); i++)
				;
			i++;
		} else if (raw[i] == ']') {
			/* OSC: up to BEL or ESC \. */
			for (i++; i < len && raw[i] != '\a' && raw[i] != 0x1b;
			    i++)
				;
			i += i < len && raw[i] == 0x1b ? 2 : 1;
		} else
			i++;
	}
	line = utf8_clean(plain, n, MCP_TAIL_LINE_MAX);
	free(plain);
	if (line[strspn(line, " ")] == '\0') {
		free(line);
		return;
	}
	pthread_mutex_lock(p->base.link->lock);
	free(p->tail[p->tail_next]);
	p->tail[p->tail_next] = line;
	p->tail_next = (p->tail_next + 1) % MCP_TAIL_LINES;
	if (p->tail_n < MCP_TAIL_LINES)
		p->tail_n++;
	pthread_mutex_unlock(p->base.link->lock);
}

/* Forgets the stderr kept (a new process starts). */
static void
mcp_tail_clear(struct mcp_stdio *p)
{
	size_t i;

	pthread_mutex_lock(p->base.link->lock);
	for (i = 0; i < MCP_TAIL_LINES; i++) {
		free(p->tail[i]);
		p->tail[i] = NULL;
	}
	p->tail_n = p->tail_next = 0;
	pthread_mutex_unlock(p->base.link->lock);
}

/* The bytes of one stderr line looked at at most: the rest of a longer
 * line is dropped. */
#define MCP_TAIL_RAW_MAX	(4 * MCP_TAIL_LINE_MAX)
/* What the reader still reads once told to finish. */
#define MCP_TAIL_FINISH_MAX	(1024 * 1024)

/* The thread that reads a stdio server's stderr while it runs, so that
 * a server that writes much there never blocks on it: line by line into
 * the tail. A carriage return not followed by a newline starts the line
 * again, as on a terminal (progress bars). Ends at the end of the pipe,
 * or once told to finish (err_stop) when nothing more is there at once. */
static void *
mcp_err_read(void *arg)
{
	struct mcp_stdio *s = arg;
	struct pollfd p = { s->proc.err, POLLIN, 0 };
	char buf[4096], line[MCP_TAIL_RAW_MAX];
	size_t len = 0, late = 0;
	ssize_t n, i;
	int stopping, cr = 0;

	for (;;) {
		stopping = atomic_load(&s->err_stop);
		if (stopping && late > MCP_TAIL_FINISH_MAX)
			break;
		if (poll(&p, 1, stopping ? 0 : 200) <= 0) {
			if (stopping)
				break;
			continue;
		}
		n = read(p.fd, buf, sizeof buf);
		if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
			if (stopping && errno == EAGAIN)
				break;
			continue;
		}
		if (n <= 0)
			break;
		if (stopping)
			late += (size_t)n;
		for (i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				mcp_tail_add(s, line, len);
				len = 0;
				cr = 0;
				continue;
			}
			/* "\r\n" ends a line; "\r" then more redraws it. */
			if (cr)
				len = 0;
			cr = buf[i] == '\r';
			if (!cr && len < sizeof line)
				line[len++] = buf[i];
		}
	}
	if (len > 0)
		mcp_tail_add(s, line, len);
	return NULL;
}

/* The last lines of its stderr, each indented, under the server's
 * lock (mcp_server_tail). */
static char *
mcp_stdio_tail(struct mcp_transport *t, const char *indent)
{
	struct mcp_stdio *s = (struct mcp_stdio *)t;
	char *out = NULL;
	size_t len = 0, cap = 0, i, k;

	pthread_mutex_lock(t->link->lock);
	for (i = 0; i < s->tail_n; i++) {
		k = (s->tail_next + MCP_TAIL_LINES - s->tail_n + i) %
		    MCP_TAIL_LINES;
		out = xappend(out, &len, &cap, indent, strlen(indent));
		out = xappend(out, &len, &cap, s->tail[k], strlen(s->tail[k]));
		out = xappend(out, &len, &cap, "\n", 1);
	}
	pthread_mutex_unlock(t->link->lock);
	return out;
}

/* --- the process --------------------------------------------------------- */

/* Ends a stdio server's process: the reaper and all beneath it, then
 * the reader of its stderr (which reads what is left), then what the
 * launch's begin set up for it. io is held. */
static void
mcp_stdio_end(struct mcp_stdio *s)
{
	const struct mcp_launch *launch = s->base.link->launch;

	bash_end_piped(&s->proc);
	if (s->err_reading) {
		atomic_store(&s->err_stop, 1);
		pthread_join(s->err_reader, NULL);
		s->err_reading = 0;
	}
	if (s->proc.err != -1)
		close(s->proc.err);
	s->proc.err = -1;
	if (s->handle != NULL && launch != NULL && launch->end != NULL)
		launch->end(launch->ud, s->handle);
	s->handle = NULL;
}

/*
 * A process started through the reaper dies with the thread that started
 * it (the reaper's parent-death signal follows the thread), so a
 * server's processes are all started by a thread of its own, which lives
 * until the server is freed: a background start, an agent's call or a
 * listing may each start it, and end before it does.
 */
struct mcp_spawn {
	const char			*command;
	const struct bash_options	*bo;
	struct bash_piped		*proc;
	char				**why;
	int				 rc;
	int				 done;
};

/* The server's spawning thread: one spawn at a time, until told to
 * quit. */
static void *
mcp_spawner(void *arg)
{
	struct mcp_stdio *s = arg;
	pthread_mutex_t *lock = s->base.link->lock;
	struct mcp_spawn *job;

	pthread_mutex_lock(lock);
	for (;;) {
		while (!s->spawner_quit && s->spawn == NULL)
			pthread_cond_wait(&s->spawn_cv, lock);
		if (s->spawn == NULL)
			break;
		job = s->spawn;
		pthread_mutex_unlock(lock);
		job->rc = bash_start_piped(job->command, job->bo, job->proc,
		    job->why);
		pthread_mutex_lock(lock);
		job->done = 1;
		s->spawn = NULL;
		pthread_cond_broadcast(&s->spawn_cv);
	}
	pthread_mutex_unlock(lock);
	return NULL;
}

/* bash_start_piped on the server's spawning thread (made at its first
 * use), waiting for it. io is held: one spawn at a time. */
static int
mcp_spawn(struct mcp_stdio *s, const char *command,
    const struct bash_options *bo, struct bash_piped *proc, char **why)
{
	struct mcp_spawn job = { command, bo, proc, why, -1, 0 };
	pthread_mutex_t *lock = s->base.link->lock;

	pthread_mutex_lock(lock);
	if (!s->spawner_live && !s->spawner_quit)
		s->spawner_live = pthread_create(&s->spawner, NULL,
		    mcp_spawner, s) == 0;
	if (!s->spawner_live) {
		pthread_mutex_unlock(lock);
		*why = xstrdup("cannot start: no thread to start it on");
		return -1;
	}
	s->spawn = &job;
	pthread_cond_broadcast(&s->spawn_cv);
	while (!job.done)
		pthread_cond_wait(&s->spawn_cv, lock);
	pthread_mutex_unlock(lock);
	return job.rc;
}

/* Starts a stdio server's process; io is held. */
static int
mcp_stdio_start(struct mcp_transport *t, char **err)
{
	struct mcp_stdio *s = (struct mcp_stdio *)t;
	const struct mcp_link *link = t->link;
	struct bash_options bo = link->launch->bo;
	json_t *env = json_object_get(link->config, "env"), *v, *a;
	const char *cwd = json_string_value(json_object_get(link->config,
	    "cwd"));
	const char *key, **extra = NULL;
	char *cmd = NULL;
	size_t len = 0, cap = 0, n = 0, i;
	int rc;

	cmd = xappend(cmd, &len, &cap, "exec", 4);
	mcp_quote(&cmd, &len, &cap, json_string_value(json_object_get(
	    link->config, "command")));
	json_array_foreach(json_object_get(link->config, "args"), i, a)
		mcp_quote(&cmd, &len, &cap, json_string_value(a));
	mcp_tail_clear(s);
	/* What this start gets of its own (its sandbox, its network pass,
	 * its cache), from the launch. */
	s->handle = NULL;
	if (link->launch->begin != NULL && link->launch->begin(
	    link->launch->ud, link->name, link->config, &bo, &s->handle,
	    err) == -1) {
		free(cmd);
		return -1;
	}
	/* The person's own variables for it, after the filtered ones. */
	for (i = 0; bo.extra_env != NULL && bo.extra_env[i] != NULL; i++)
		;
	extra = xcalloc(json_object_size(env) + i + 1, sizeof *extra);
	/* The launch's own (the proxy's variables) first, copied. */
	for (i = 0; bo.extra_env != NULL && bo.extra_env[i] != NULL; i++)
		extra[n++] = xstrdup(bo.extra_env[i]);
	json_object_foreach(env, key, v) {
		if (json_is_string(v))
			extra[n++] = xasprintf("%s=%s", key,
			    json_string_value(v));
	}
	extra[n] = NULL;
	if (n > 0)
		bo.extra_env = extra;
	/* Never the working tree: tools such as npx or uvx read files of
	 * their directory (.npmrc, package.json, node_modules/.bin) that
	 * teammates can write, and would run their code beside the
	 * server's secrets. Only an absolute "cwd" is accepted. */
	bo.workdir = cwd != NULL && cwd[0] == '/' ? cwd : "/";
	bo.cancel = NULL;
	memset(&s->proc, 0, sizeof s->proc);
	s->proc.err = -1;
	rc = mcp_spawn(s, cmd, &bo, &s->proc, err);
	/* A server that stops reading must not block huddle's writes. */
	if (rc == 0)
		fcntl(s->proc.in, F_SETFL, fcntl(s->proc.in, F_GETFL) |
		    O_NONBLOCK);
	if (rc == 0) {
		atomic_store(&s->err_stop, 0);
		s->err_reading = pthread_create(&s->err_reader, NULL,
		    mcp_err_read, s) == 0;
	}
	if (rc == -1)
		mcp_stdio_end(s);
	for (i = 0; i < n; i++)
		free((char *)extra[i]);
	free(extra);
	free(cmd);
	jsonrpc_lines_clear(&s->lines);
	return rc;
}

/* Whether the person is asked something for the start of its process
 * (the launch's asking, once begin gave a handle); io is held. */
static int
mcp_stdio_held(struct mcp_transport *t)
{
	struct mcp_stdio *s = (struct mcp_stdio *)t;
	const struct mcp_launch *launch = t->link->launch;

	return launch != NULL && launch->asking != NULL && s->handle != NULL &&
	    launch->asking(launch->ud, s->handle);
}

/* Ends its process and forgets what it left half read; io is held. */
static void
mcp_stdio_stop(struct mcp_transport *t)
{
	struct mcp_stdio *s = (struct mcp_stdio *)t;

	mcp_stdio_end(s);
	jsonrpc_lines_clear(&s->lines);
}

/* --- lines in and out ---------------------------------------------------- */

/*
 * Writes a line and its newline; io is held. With a deadline, waits for
 * room in the pipe until then or the cancel; with deadline < 0 (answers
 * and notifications) writes only what fits at once, else drops the line
 * (a pipe's write of at most PIPE_BUF bytes is whole or nothing). A
 * request cut short leaves half a line in the pipe: *torn is set.
 */
static enum mcp_x
mcp_stdio_write(struct mcp_stdio *s, const char *text, struct cancel *cancel,
    int64_t deadline, int *torn)
{
	size_t len = strlen(text) + 1, off = 0;
	char *line;
	struct pollfd p[2];
	enum mcp_x x = MCP_X_OK;
	ssize_t n;

	if (torn != NULL)
		*torn = 0;
	if (deadline < 0 && len > PIPE_BUF)
		return MCP_X_TIMEOUT;
	line = xasprintf("%s\n", text);
	while (off < len) {
		n = write(s->proc.in, line + off, len - off);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 || errno != EAGAIN) {
			x = MCP_X_DEAD;
			break;
		}
		if (deadline < 0 || clock_mono_ms() >= deadline) {
			x = MCP_X_TIMEOUT;
			break;
		}
		if (cancel != NULL && cancel_fired(cancel)) {
			x = MCP_X_CANCELLED;
			break;
		}
		p[0].fd = s->proc.in;
		p[0].events = POLLOUT;
		p[1].fd = cancel != NULL ? cancel_fd(cancel) : -1;
		p[1].events = POLLIN;
		poll(p, 2, (int)(deadline - clock_mono_ms() > 1000 ? 1000 :
		    deadline - clock_mono_ms()));
	}
	if (torn != NULL && x != MCP_X_OK && off > 0)
		*torn = 1;
	free(line);
	return x;
}

/* Sends text the server did not ask for an answer to (mcp_transport_ops'
 * send): only what fits in the pipe at once is written (a server that
 * floods huddle while not reading must not hold it), unless `must` (the
 * person's answer): then huddle waits for room. */
static void
mcp_stdio_send(struct mcp_transport *t, const char *text,
    struct cancel *cancel, int must)
{
	struct mcp_stdio *s = (struct mcp_stdio *)t;
	int torn = 0;

	if (s->proc.pid > 0 && mcp_stdio_write(s, text, cancel, must ?
	    clock_mono_ms() + MCP_SEND_MS : -1, &torn) != MCP_X_OK)
		log_printf("mcp: %s: a message could not be written%s",
		    t->link->name, torn ? " whole" : "");
}

/* Waits on the stdio server for the reply, until w's deadline or
 * cancel; io is held. */
static enum mcp_x
mcp_stdio_wait(struct mcp_stdio *s, struct mcp_wait *w)
{
	const struct mcp_link *link = s->base.link;
	struct cancel *cancel = w->cancel;
	char buf[65536], *line;
	struct pollfd p[2];
	ssize_t n;

	for (;;) {
		while ((line = jsonrpc_lines_next(&s->lines)) != NULL) {
			int done = link->take(w, line, strlen(line));

			free(line);
			if (done)
				return MCP_X_OK;
		}
		if (cancel != NULL && cancel_fired(cancel))
			return MCP_X_CANCELLED;
		if (clock_mono_ms() >= link->until(w))
			return MCP_X_TIMEOUT;
		p[0].fd = s->proc.out;
		p[0].events = POLLIN;
		p[1].fd = cancel != NULL ? cancel_fd(cancel) : -1;
		p[1].events = POLLIN;
		if (poll(p, 2, (int)(link->until(w) - clock_mono_ms() > 1000 ?
		    1000 : link->until(w) - clock_mono_ms())) <= 0)
			continue;
		if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = read(s->proc.out, buf, sizeof buf);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return MCP_X_DEAD;
		if (jsonrpc_lines_feed(&s->lines, buf, (size_t)n) == -1)
			return MCP_X_DEAD;
	}
}

/* Writes a request's line and waits for its reply; io is held. */
static enum mcp_x
mcp_stdio_request(struct mcp_transport *t, const char *text,
    struct mcp_wait *w, char **err)
{
	struct mcp_stdio *s = (struct mcp_stdio *)t;
	enum mcp_x x;
	int torn = 0;

	if ((x = mcp_stdio_write(s, text, w->cancel, w->deadline, &torn)) ==
	    MCP_X_OK)
		x = mcp_stdio_wait(s, w);
	else if (torn) {
		/* Half a request in its input: it cannot be spoken to. */
		*err = xstrdup("it stopped reading its input");
		x = MCP_X_DEAD;
	}
	return x;
}

/* Reads what a stdio server sent unasked, without waiting, and at most
 * MCP_DRAIN_MAX bytes (a server that never stops writing gets its turn
 * again at the next use); io is held. Returns -1 when it has died. */
static int
mcp_stdio_drain(struct mcp_transport *t)
{
	struct mcp_stdio *s = (struct mcp_stdio *)t;
	struct mcp_wait w;
	struct pollfd p = { s->proc.out, POLLIN, 0 };
	char buf[65536], *line;
	size_t total = 0;
	ssize_t n;

	memset(&w, 0, sizeof w);
	w.link = t->link;
	w.id = -1;
	while (total < MCP_DRAIN_MAX && poll(&p, 1, 0) == 1) {
		n = read(s->proc.out, buf, sizeof buf);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			break;
		if (n <= 0 || jsonrpc_lines_feed(&s->lines, buf, (size_t)n))
			return -1;
		total += (size_t)n;
		while ((line = jsonrpc_lines_next(&s->lines)) != NULL) {
			t->link->take(&w, line, strlen(line));
			free(line);
		}
	}
	return 0;
}

/* --- its life ------------------------------------------------------------ */

/* "stdio", for the person. */
static char *
mcp_stdio_label(struct mcp_transport *t)
{
	return xstrdup("stdio");
}

/* A stdio server's side, with no process yet. */
static struct mcp_transport *
mcp_stdio_new(struct mcp_link *link)
{
	struct mcp_stdio *s = xcalloc(1, sizeof *s);

	s->base.ops = &mcp_stdio_ops;
	s->base.link = link;
	s->proc.err = -1;
	pthread_cond_init(&s->spawn_cv, NULL);
	return &s->base;
}

/* Its processes have ended: so may the thread that started them. */
static void
mcp_stdio_free(struct mcp_transport *t)
{
	struct mcp_stdio *s = (struct mcp_stdio *)t;
	size_t i;
	int live;

	pthread_mutex_lock(t->link->lock);
	s->spawner_quit = 1;
	live = s->spawner_live;
	pthread_cond_broadcast(&s->spawn_cv);
	pthread_mutex_unlock(t->link->lock);
	if (live)
		pthread_join(s->spawner, NULL);
	pthread_cond_destroy(&s->spawn_cv);
	for (i = 0; i < MCP_TAIL_LINES; i++)
		free(s->tail[i]);
	free(s);
}

const struct mcp_transport_ops mcp_stdio_ops = {
	.new = mcp_stdio_new,
	.start = mcp_stdio_start,
	.request = mcp_stdio_request,
	.send = mcp_stdio_send,
	.drain = mcp_stdio_drain,
	.listen = NULL,
	.held = mcp_stdio_held,
	.stop = mcp_stdio_stop,
	.tail = mcp_stdio_tail,
	.label = mcp_stdio_label,
	.free = mcp_stdio_free,
};
