/*
 * One MCP server: its transport, the start of a conversation with it in
 * either revision, and its requests (see server.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llm/http.h"
#include "llm/sse.h"
#include "mcp/content.h"
#include "mcp/elicit.h"
#include "mcp/server.h"
#include "util/cancel.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* The handshake revisions we accept from a server, newest first. */
static const char *const mcp_legacy_versions[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL
};

/* The pages of tools/list read at most. */
#define MCP_MAX_PAGES	64
/* What a server's tool list may put in every request of every agent:
 * the tools kept, a description's bytes, a schema's serialized bytes. */
#define MCP_MAX_TOOLS		100
#define MCP_MAX_DESCRIPTION	1024
#define MCP_MAX_SCHEMA		8192
/* The bytes one drain of a stdio server's output reads at most. */
#define MCP_DRAIN_MAX		(1024 * 1024)

/* How an exchange ended. */
enum mcp_x {
	MCP_X_OK,
	MCP_X_RPC_ERROR,	/* the server answered with an error */
	MCP_X_TRANSPORT,	/* the server could not be reached or read */
	MCP_X_DEAD,		/* a stdio server's stdout closed */
	MCP_X_TIMEOUT,
	MCP_X_CANCELLED
};

const char *
mcp_state_name(enum mcp_state st)
{
	switch (st) {
	case MCP_NEW:
		return "not started";
	case MCP_STARTING:
		return "starting";
	case MCP_READY:
		return "ready";
	case MCP_FAILED:
		return "failed";
	case MCP_DEAD:
		return "stopped";
	}
	return "?";
}

/* --- configuration --------------------------------------------------------- */

int
mcp_server_name_ok(const char *name)
{
	size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");

	return n > 0 && n <= MCP_SERVER_NAME_MAX && name[n] == '\0' &&
	    strstr(name, "__") == NULL;
}

int
mcp_server_check(const char *name, json_t *config, int *http, char **err)
{
	const char *type = json_string_value(json_object_get(config, "type"));

	if (!mcp_server_name_ok(name)) {
		*err = xasprintf("the MCP server name \"%.40s\" must be 1 to "
		    "%d letters, digits, '_' or '-', without \"__\"", name,
		    MCP_SERVER_NAME_MAX);
		return -1;
	}
	if (!json_is_object(config)) {
		*err = xasprintf("MCP server %s: not a JSON object", name);
		return -1;
	}
	if (type == NULL || strcmp(type, "stdio") == 0) {
		json_t *args = json_object_get(config, "args"), *a;
		json_t *cwd = json_object_get(config, "cwd");
		size_t i;

		if (cwd != NULL && (!json_is_string(cwd) ||
		    json_string_value(cwd)[0] != '/')) {
			*err = xasprintf("MCP server %s: \"cwd\" must be an "
			    "absolute path (a relative one would start in "
			    "the working tree, which teammates can write)",
			    name);
			return -1;
		}
		if (!json_is_string(json_object_get(config, "command"))) {
			*err = xasprintf("MCP server %s: no \"command\" (or "
			    "\"type\": \"http\" with a \"url\")", name);
			return -1;
		}
		if (args != NULL && !json_is_array(args)) {
			*err = xasprintf("MCP server %s: \"args\" must be an "
			    "array of strings", name);
			return -1;
		}
		json_array_foreach(args, i, a) {
			if (!json_is_string(a)) {
				*err = xasprintf("MCP server %s: \"args\" must "
				    "be an array of strings", name);
				return -1;
			}
		}
		*http = 0;
	} else if (strcmp(type, "http") == 0 ||
	    strcmp(type, "streamable-http") == 0) {
		const char *url = json_string_value(json_object_get(config,
		    "url"));

		if (url == NULL || (strncmp(url, "http://", 7) != 0 &&
		    strncmp(url, "https://", 8) != 0)) {
			*err = xasprintf("MCP server %s: \"url\" must be an "
			    "http:// or https:// address", name);
			return -1;
		}
		*http = 1;
	} else {
		*err = xasprintf("MCP server %s: transport \"%s\" is not "
		    "supported (stdio or http)", name, type);
		return -1;
	}
	return 0;
}

struct mcp_server *
mcp_server_new(const char *name, json_t *config,
    const struct mcp_launch *launch, mcp_notice_fn notice, void *ud,
    char **err)
{
	struct mcp_server *s;
	pthread_condattr_t ca;
	int http;

	if (mcp_server_check(name, config, &http, err) == -1)
		return NULL;
	s = xcalloc(1, sizeof *s);
	s->name = xstrdup(name);
	s->config = json_deep_copy(config);
	s->http = http;
	s->launch = launch;
	s->notice = notice;
	s->ud = ud;
	s->next_id = 1;
	s->proc.err = -1;
	cancel_init(&s->stop);
	pthread_mutex_init(&s->io, NULL);
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->asking_one, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->changed, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&s->spawn_cv, NULL);
	return s;
}

/* Sets the state (and its error: a copy, or NULL) under the lock, and
 * wakes whoever waits for it to change. */
static void
mcp_set_state(struct mcp_server *s, enum mcp_state st, const char *error)
{
	pthread_mutex_lock(&s->lock);
	s->state = st;
	free(s->error);
	s->error = error != NULL ? xstrdup(error) : NULL;
	pthread_cond_broadcast(&s->changed);
	pthread_mutex_unlock(&s->lock);
}

static void
mcp_tell(struct mcp_server *s, const char *text)
{
	log_printf("mcp: %s", text);
	if (s->notice != NULL)
		s->notice(s->ud, text);
}

/* --- the stdio transport --------------------------------------------------- */

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

/* --- a stdio server's stderr ---------------------------------------------- */

/* Keeps one line of stderr (raw bytes), cleaned: terminal escapes (CSI,
 * OSC and the two-byte ones) are dropped, the rest as utf8_clean makes
 * it; a line left empty is not kept. */
static void
mcp_tail_add(struct mcp_server *s, const char *raw, size_t len)
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
	pthread_mutex_lock(&s->lock);
	free(s->tail[s->tail_next]);
	s->tail[s->tail_next] = line;
	s->tail_next = (s->tail_next + 1) % MCP_TAIL_LINES;
	if (s->tail_n < MCP_TAIL_LINES)
		s->tail_n++;
	pthread_mutex_unlock(&s->lock);
}

/* Forgets the stderr kept (a new process starts). */
static void
mcp_tail_clear(struct mcp_server *s)
{
	size_t i;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < MCP_TAIL_LINES; i++) {
		free(s->tail[i]);
		s->tail[i] = NULL;
	}
	s->tail_n = s->tail_next = 0;
	pthread_mutex_unlock(&s->lock);
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
	struct mcp_server *s = arg;
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

/* Ends a stdio server's process: the reaper and all beneath it, then
 * the reader of its stderr (which reads what is left), then what the
 * launch's begin set up for it. io is held. */
static void
mcp_stdio_end(struct mcp_server *s)
{
	bash_end_piped(&s->proc);
	if (s->err_reading) {
		atomic_store(&s->err_stop, 1);
		pthread_join(s->err_reader, NULL);
		s->err_reading = 0;
	}
	if (s->proc.err != -1)
		close(s->proc.err);
	s->proc.err = -1;
	if (s->handle != NULL && s->launch != NULL && s->launch->end != NULL)
		s->launch->end(s->launch->ud, s->handle);
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
	struct mcp_server *s = arg;
	struct mcp_spawn *job;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->spawner_quit && s->spawn == NULL)
			pthread_cond_wait(&s->spawn_cv, &s->lock);
		if (s->spawn == NULL)
			break;
		job = s->spawn;
		pthread_mutex_unlock(&s->lock);
		job->rc = bash_start_piped(job->command, job->bo, job->proc,
		    job->why);
		pthread_mutex_lock(&s->lock);
		job->done = 1;
		s->spawn = NULL;
		pthread_cond_broadcast(&s->spawn_cv);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* bash_start_piped on the server's spawning thread (made at its first
 * use), waiting for it. io is held: one spawn at a time. */
static int
mcp_spawn(struct mcp_server *s, const char *command,
    const struct bash_options *bo, struct bash_piped *proc, char **why)
{
	struct mcp_spawn job = { command, bo, proc, why, -1, 0 };

	pthread_mutex_lock(&s->lock);
	if (!s->spawner_live && !s->spawner_quit)
		s->spawner_live = pthread_create(&s->spawner, NULL,
		    mcp_spawner, s) == 0;
	if (!s->spawner_live) {
		pthread_mutex_unlock(&s->lock);
		*why = xstrdup("cannot start: no thread to start it on");
		return -1;
	}
	s->spawn = &job;
	pthread_cond_broadcast(&s->spawn_cv);
	while (!job.done)
		pthread_cond_wait(&s->spawn_cv, &s->lock);
	pthread_mutex_unlock(&s->lock);
	return job.rc;
}

/* Starts a stdio server's process; io is held. */
static int
mcp_stdio_start(struct mcp_server *s, char **err)
{
	struct bash_options bo = s->launch->bo;
	json_t *env = json_object_get(s->config, "env"), *v, *a;
	const char *cwd = json_string_value(json_object_get(s->config, "cwd"));
	const char *key, **extra = NULL;
	char *cmd = NULL;
	size_t len = 0, cap = 0, n = 0, i;
	int rc;

	cmd = xappend(cmd, &len, &cap, "exec", 4);
	mcp_quote(&cmd, &len, &cap, json_string_value(json_object_get(
	    s->config, "command")));
	json_array_foreach(json_object_get(s->config, "args"), i, a)
		mcp_quote(&cmd, &len, &cap, json_string_value(a));
	mcp_tail_clear(s);
	/* What this start gets of its own (its sandbox, its network pass,
	 * its cache), from the launch. */
	s->handle = NULL;
	if (s->launch->begin != NULL && s->launch->begin(s->launch->ud,
	    s->name, s->config, &bo, &s->handle, err) == -1) {
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

/*
 * Writes a line and its newline; io is held. With a deadline, waits for
 * room in the pipe until then or the cancel; with deadline < 0 (answers
 * and notifications) writes only what fits at once, else drops the line
 * (a pipe's write of at most PIPE_BUF bytes is whole or nothing). A
 * request cut short leaves half a line in the pipe: *torn is set.
 */
static enum mcp_x
mcp_stdio_write(struct mcp_server *s, const char *text, struct cancel *cancel,
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

/* --- one exchange ---------------------------------------------------------- */

/* What an exchange waits for and what it got. */
struct mcp_wait {
	struct mcp_server	*s;
	int64_t			 id;
	json_t			*result;	/* the reply's, a reference */
	json_t			*error;
	struct sse_parser	*sse;		/* kept across a resumed
						 * stream: its last id */
	int			 streaming;	/* text/event-stream */
	int			 events;	/* events on this connection */
	char			*body;		/* a JSON body */
	size_t			 len, cap;
	struct http_response	*resp;
	struct cancel		*cancel;	/* the person's, or NULL */
	int64_t			 deadline;	/* when to give up, not
						 * counting the time the
						 * person takes to answer */
	int64_t			 asked_base;	/* s->asked_ms at the start */
	enum mcp_x		 stop;		/* HTTP: why on_data stopped */
	long			 status;	/* HTTP: the last status */
	int			 own_stream;	/* the server's own stream */
	int			 handshake;	/* initialize: its answer
						 * gives the session */
	int64_t			 held_since;	/* the person is asked for
						 * the process's network since
						 * then (0: not) */
};

/* When w gives up: its deadline, moved on by the time questions to the
 * person have taken since it started; not while one is open, nor while
 * the person is asked to let the server's process reach a host (npx's
 * registry at its first start, say). */
static int64_t
mcp_deadline(struct mcp_wait *w)
{
	struct mcp_server *s = w->s;
	int64_t now;

	if (!w->own_stream && atomic_load(&s->asking) > 0)
		return INT64_MAX / 2;
	if (!s->http && s->launch != NULL && s->launch->asking != NULL &&
	    s->handle != NULL) {
		now = clock_mono_ms();
		if (s->launch->asking(s->launch->ud, s->handle)) {
			if (w->held_since == 0)
				w->held_since = now;
			return INT64_MAX / 2;
		}
		if (w->held_since != 0) {
			w->deadline += now - w->held_since;
			w->held_since = 0;
		}
	}
	return w->deadline + (int64_t)atomic_load(&s->asked_ms) -
	    w->asked_base;
}

/* --- messages the server sends unasked ------------------------------------- */

static int mcp_post_note(struct mcp_server *s, const char *text,
    struct cancel *cancel);

/* How long a message huddle sends unasked may take to go out. */
#define MCP_SEND_MS	10000

/*
 * Sends text (a notification, or a reply to the server's request) on the
 * server's transport, within MCP_SEND_MS or until cancel (may be NULL)
 * fires. On stdio only what fits in the pipe at once is written (a
 * server that floods huddle while not reading must not hold it), unless
 * `must` (the person's answer): then huddle waits for room.
 */
static void
mcp_send_text(struct mcp_server *s, const char *text, struct cancel *cancel,
    int must)
{
	int torn = 0;

	if (s->http) {
		if (mcp_post_note(s, text, cancel) == -1)
			log_printf("mcp: %s: a message could not be sent",
			    s->name);
	} else if (s->proc.pid > 0 && mcp_stdio_write(s, text, cancel, must ?
	    clock_mono_ms() + MCP_SEND_MS : -1, &torn) != MCP_X_OK)
		log_printf("mcp: %s: a message could not be written%s",
		    s->name, torn ? " whole" : "");
}

/* "file://" and path, percent-encoded where a URI needs it
 * (malloc'd). */
static char *
mcp_file_uri(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = xmalloc(7 + 3 * strlen(path) + 1);
	size_t n = 7;
	const unsigned char *p;

	memcpy(out, "file://", 7);
	for (p = (const unsigned char *)path; *p != '\0'; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/-._~", *p) != NULL)
			out[n++] = (char)*p;
		else {
			out[n++] = '%';
			out[n++] = hex[*p >> 4];
			out[n++] = hex[*p & 15];
		}
	}
	out[n] = '\0';
	return out;
}

/* Lets go of the running call's caller, taken with mcp_caller_take. */
static void
mcp_caller_give(struct mcp_server *s)
{
	pthread_mutex_lock(&s->lock);
	s->caller_uses--;
	pthread_cond_broadcast(&s->changed);
	pthread_mutex_unlock(&s->lock);
}

/* The running call's caller, held (give it back with mcp_caller_give)
 * so that the call cannot end under its user; NULL when no call runs. */
static const struct mcp_caller *
mcp_caller_take(struct mcp_server *s)
{
	const struct mcp_caller *c;

	pthread_mutex_lock(&s->lock);
	if ((c = s->caller) != NULL)
		s->caller_uses++;
	pthread_mutex_unlock(&s->lock);
	return c;
}

/*
 * Answers the server's question to the person (elicitation/create):
 * asked through the running call's caller — on the call's thread, or on
 * the thread of the server's own stream, which holds the caller until
 * the answer is sent, so that neither the call nor its agent goes on
 * before the server has it. One question at a time; the time it takes
 * stops the call's clock. A question outside a call is declined without
 * a word; one huddle cannot show is refused, and the person told once a
 * call. cancel (may be NULL) ends the sending.
 */
static void
mcp_elicit(struct mcp_wait *w, struct jsonrpc_msg *m, struct cancel *cancel)
{
	struct mcp_server *s = w->s;
	const struct mcp_caller *c = mcp_caller_take(s);
	int64_t asked;
	char *why = NULL, *reply, *text;
	int tell;

	if (c == NULL || c->elicit == NULL)
		reply = jsonrpc_result_reply(m->id, json_pack("{s:s}",
		    "action", "decline"));
	else if (mcp_elicit_check(m->params, &why) == -1) {
		pthread_mutex_lock(&s->lock);
		tell = !s->told_question;
		s->told_question = 1;
		pthread_mutex_unlock(&s->lock);
		if (tell) {
			text = xasprintf("MCP server %s asked the person "
			    "something huddle cannot show (%s); it was told "
			    "no", s->name, why);
			mcp_tell(s, text);
			free(text);
		}
		reply = jsonrpc_error_reply(m->id, -32602, why);
		free(why);
	} else {
		pthread_mutex_lock(&s->asking_one);
		asked = clock_mono_ms();
		atomic_fetch_add(&s->asking, 1);
		reply = jsonrpc_result_reply(m->id, c->elicit(c->ud, s->name,
		    m->params));
		atomic_fetch_add(&s->asked_ms, clock_mono_ms() - asked);
		atomic_fetch_sub(&s->asking, 1);
		pthread_mutex_unlock(&s->asking_one);
	}
	mcp_send_text(s, reply, cancel, 1);
	free(reply);
	if (c != NULL)
		mcp_caller_give(s);
}

/* Keeps the running call's progress for /mcp and tells its caller. */
static void
mcp_progress(struct mcp_wait *w, json_t *params)
{
	struct mcp_server *s = w->s;
	json_t *token = json_object_get(params, "progressToken");
	double done = json_number_value(json_object_get(params, "progress"));
	double total = json_number_value(json_object_get(params, "total"));
	const char *msg = json_string_value(json_object_get(params,
	    "message"));
	const struct mcp_caller *c = NULL;
	char *text, *tool = NULL;

	pthread_mutex_lock(&s->lock);
	if (s->calling != NULL && json_is_integer(token) &&
	    json_integer_value(token) == s->call_token) {
		tool = xstrdup(s->calling);
		text = total > 0 ? xasprintf("%s: %g of %g%s%.200s", tool,
		    done, total, msg ? " — " : "", msg ? msg : "") :
		    xasprintf("%s: %g%s%.200s", tool, done, msg ? " — " : "",
		    msg ? msg : "");
		free(s->progress);
		s->progress = utf8_clean(text, strlen(text), 300);
		free(text);
	}
	pthread_mutex_unlock(&s->lock);
	/* Not beside a question (which may be on another thread): the
	 * caller's progress and elicit never run at once. */
	if (tool != NULL && (c = mcp_caller_take(s)) != NULL) {
		if (c->progress != NULL &&
		    pthread_mutex_trylock(&s->asking_one) == 0) {
			c->progress(c->ud, s->name, tool, done, total, msg);
			pthread_mutex_unlock(&s->asking_one);
		}
		mcp_caller_give(s);
	}
	free(tool);
}

/* Acts on a message that is not the awaited reply: a notification, or
 * a request of the server's, answered: ping; roots (the working tree);
 * the person's answer to a question (elicitation); anything else, such
 * as sampling, "not offered". */
static void
mcp_handle(struct mcp_wait *w, struct jsonrpc_msg *m)
{
	struct mcp_server *s = w->s;
	struct cancel *cancel = w->own_stream ? w->cancel : NULL;
	const char *root = s->launch != NULL ? s->launch->bo.workdir : NULL;
	char *reply, *uri;

	if (m->kind == JSONRPC_NOTIFICATION) {
		if (strcmp(m->method, "notifications/tools/list_changed") ==
		    0) {
			pthread_mutex_lock(&s->lock);
			s->stale = 1;
			pthread_mutex_unlock(&s->lock);
		} else if (strcmp(m->method, "notifications/progress") == 0)
			mcp_progress(w, m->params);
		return;
	}
	if (m->kind != JSONRPC_REQUEST)
		return;
	if (strcmp(m->method, "ping") == 0)
		reply = jsonrpc_result_reply(m->id, json_object());
	else if (strcmp(m->method, "roots/list") == 0 && root != NULL) {
		uri = mcp_file_uri(root);
		reply = jsonrpc_result_reply(m->id, json_pack("{s:[{s:s, "
		    "s:s}]}", "roots", "uri", uri, "name", "working tree"));
		free(uri);
	} else if (strcmp(m->method, "elicitation/create") == 0) {
		mcp_elicit(w, m, cancel);
		return;
	} else
		reply = jsonrpc_error_reply(m->id, JSONRPC_METHOD_NOT_FOUND,
		    "huddle does not offer this to servers");
	mcp_send_text(s, reply, cancel, 0);
	free(reply);
}

/* Takes one message: the reply stops the wait (returns 1). */
static int
mcp_take(struct mcp_wait *w, json_t *o)
{
	struct jsonrpc_msg m;

	jsonrpc_read(o, &m);
	if (m.kind == JSONRPC_RESPONSE) {
		/* The awaited reply, once; any other is nobody's. */
		int mine = w->id >= 0 && w->result == NULL &&
		    w->error == NULL && jsonrpc_is_reply_to(&m, w->id);

		if (mine && m.error != NULL)
			w->error = json_incref(m.error);
		else if (mine)
			w->result = json_incref(m.result);
		jsonrpc_msg_clear(&m);
		return mine;
	}
	mcp_handle(w, &m);
	jsonrpc_msg_clear(&m);
	return 0;
}

/* Takes a message's text, a line or an event's data. */
static int
mcp_take_text(struct mcp_wait *w, const char *text, size_t len)
{
	json_t *o = json_loadb(text, len, 0, NULL), *e;
	size_t i;
	int done = 0;

	if (json_is_array(o)) {
		json_array_foreach(o, i, e)
			done |= mcp_take(w, e);
	} else if (o != NULL)
		done = mcp_take(w, o);
	json_decref(o);
	return done;
}

/* Waits on the stdio server for the reply, until w's deadline or
 * cancel; io is held. */
static enum mcp_x
mcp_stdio_wait(struct mcp_wait *w)
{
	struct mcp_server *s = w->s;
	struct cancel *cancel = w->cancel;
	char buf[65536], *line;
	struct pollfd p[2];
	ssize_t n;

	for (;;) {
		while ((line = jsonrpc_lines_next(&s->lines)) != NULL) {
			int done = mcp_take_text(w, line, strlen(line));

			free(line);
			if (done)
				return MCP_X_OK;
		}
		if (cancel != NULL && cancel_fired(cancel))
			return MCP_X_CANCELLED;
		if (clock_mono_ms() >= mcp_deadline(w))
			return MCP_X_TIMEOUT;
		p[0].fd = s->proc.out;
		p[0].events = POLLIN;
		p[1].fd = cancel != NULL ? cancel_fd(cancel) : -1;
		p[1].events = POLLIN;
		if (poll(p, 2, (int)(mcp_deadline(w) - clock_mono_ms() > 1000 ?
		    1000 : mcp_deadline(w) - clock_mono_ms())) <= 0)
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

/* Reads what a stdio server sent unasked, without waiting, and at most
 * MCP_DRAIN_MAX bytes (a server that never stops writing gets its turn
 * again at the next use); io is held. Returns -1 when it has died. */
static int
mcp_stdio_drain(struct mcp_server *s)
{
	struct mcp_wait w;
	struct pollfd p = { s->proc.out, POLLIN, 0 };
	char buf[65536], *line;
	size_t total = 0;
	ssize_t n;

	memset(&w, 0, sizeof w);
	w.s = s;
	w.id = -1;
	while (total < MCP_DRAIN_MAX && poll(&p, 1, 0) == 1) {
		n = read(s->proc.out, buf, sizeof buf);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			break;
		if (n <= 0 || jsonrpc_lines_feed(&s->lines, buf, (size_t)n))
			return -1;
		total += (size_t)n;
		while ((line = jsonrpc_lines_next(&s->lines)) != NULL) {
			mcp_take_text(&w, line, strlen(line));
			free(line);
		}
	}
	return 0;
}

static int
mcp_on_event(void *ud, const char *event, const char *data, size_t len)
{
	struct mcp_wait *w = ud;

	(void)event;
	w->events++;
	return mcp_take_text(w, data, len);
}

static int
mcp_on_data(void *ud, const char *buf, size_t len)
{
	struct mcp_wait *w = ud;
	const char *ct = w->resp->content_type;

	/* A server may keep a stream open for ever with keep-alives, each
	 * of which restarts the transfer's stall timer. */
	if (w->cancel != NULL && cancel_fired(w->cancel)) {
		w->stop = MCP_X_CANCELLED;
		return 1;
	}
	if (clock_mono_ms() >= mcp_deadline(w)) {
		w->stop = MCP_X_TIMEOUT;
		return 1;
	}
	if (!w->streaming && w->body == NULL && ct != NULL &&
	    strncasecmp(ct, "text/event-stream", 17) == 0) {
		w->streaming = 1;
		if (w->sse == NULL)
			w->sse = sse_new(mcp_on_event, w);
	}
	if (w->streaming) {
		int rc = sse_feed(w->sse, buf, len);

		if (rc == -1)
			w->stop = MCP_X_TRANSPORT;
		return rc != 0 ? 1 : 0;
	}
	if (w->len + len > JSONRPC_MAX_LINE)
		return 1;
	w->body = xappend(w->body, &w->len, &w->cap, buf, len);
	return 0;
}

/* The headers of a POST to the server, or with last_id of a GET (of the
 * stream it resumes; "": none); lock is not held. */
static struct curl_slist *
mcp_headers(struct mcp_server *s, const char *last_id)
{
	json_t *h = json_object_get(s->config, "headers"), *v;
	struct curl_slist *l = NULL;
	const char *key;
	char *line;

	if (last_id == NULL) {
		l = curl_slist_append(l, "Content-Type: application/json");
		l = curl_slist_append(l, "Accept: application/json, "
		    "text/event-stream");
	} else {
		l = curl_slist_append(l, "Accept: text/event-stream");
		if (*last_id != '\0') {
			line = xasprintf("Last-Event-ID: %s", last_id);
			l = curl_slist_append(l, line);
			free(line);
		}
	}
	pthread_mutex_lock(&s->lock);
	if (s->version != NULL) {
		line = xasprintf("MCP-Protocol-Version: %s", s->version);
		l = curl_slist_append(l, line);
		free(line);
	}
	if (s->session != NULL) {
		line = xasprintf("Mcp-Session-Id: %s", s->session);
		l = curl_slist_append(l, line);
		free(line);
	}
	pthread_mutex_unlock(&s->lock);
	json_object_foreach(h, key, v) {
		if (!json_is_string(v))
			continue;
		line = xasprintf("%s: %s", key, json_string_value(v));
		l = curl_slist_append(l, line);
		free(line);
	}
	return l;
}

/* "scheme://host[:port]" of url (malloc'd): what errors may show, since
 * a hosted server's address often carries a key in its user, path or
 * query, and errors reach the model. */
static char *
mcp_origin(const char *url)
{
	const char *host = strstr(url, "://"), *end, *at;

	if (host == NULL)
		return xstrdup("(the server's address)");
	host += 3;
	end = host + strcspn(host, "/?#");
	for (at = host; at < end; at++)
		if (*at == '@')
			host = at + 1;
	return xasprintf("%.*s%.*s", (int)(strstr(url, "://") + 3 - url), url,
	    (int)(end - host), host);
}

/*
 * One HTTP exchange: POSTs text, or GETs the stream that resumes after
 * last_id when text is NULL; with w, reads into it what answers. io is
 * held. A 2xx answer is MCP_X_OK whether or not it held the reply.
 */
static enum mcp_x
mcp_http_once(struct mcp_server *s, const char *text, const char *last_id,
    struct mcp_wait *w, struct cancel *cancel, int64_t deadline, char **err)
{
	const char *url = json_string_value(json_object_get(s->config, "url"));
	char *where = mcp_origin(url);
	struct curl_slist *hdrs = mcp_headers(s, text == NULL ? last_id :
	    NULL);
	struct http_response resp;
	struct cancel own;
	struct http *h;
	enum http_result r;
	enum mcp_x x = MCP_X_OK;
	long stall = (long)((deadline - clock_mono_ms() + 999) / 1000);
	int in_session;

	cancel_init(&own);
	h = http_new(cancel != NULL ? cancel : &own);
	if (w != NULL) {
		w->resp = &resp;
		w->stop = MCP_X_OK;
		w->streaming = 0;
		w->events = 0;
		free(w->body);
		w->body = NULL;
		w->len = w->cap = 0;
		if (w->sse != NULL)
			sse_reset(w->sse);
		/* A call's answer may wait for the person's. */
		if (!w->own_stream)
			http_hold(h, &s->asking);
	} else
		http_deadline(h, deadline);
	if (text != NULL)
		r = http_post(h, url, hdrs, text, strlen(text), 10000,
		    stall > 0 ? stall : 1, w != NULL ? mcp_on_data : NULL, w,
		    &resp);
	else
		r = http_get(h, url, hdrs, 10000, stall > 0 ? stall : 1,
		    mcp_on_data, w, &resp);
	curl_slist_free_all(hdrs);
	if (w != NULL)
		w->status = resp.status;
	/* The session is the one initialize's answer gives (what else
	 * answers, late, must not bring back one that ended). */
	pthread_mutex_lock(&s->lock);
	if (resp.mcp_session_id != NULL && w != NULL && w->handshake) {
		free(s->session);
		s->session = xstrdup(resp.mcp_session_id);
	}
	in_session = s->session != NULL;
	pthread_mutex_unlock(&s->lock);
	if (r == HTTP_CANCELLED)
		x = MCP_X_CANCELLED;
	else if (r == HTTP_STOPPED && w != NULL && w->stop == MCP_X_TRANSPORT) {
		*err = xasprintf("%s: an event of its answer was too large",
		    where);
		x = MCP_X_TRANSPORT;
	} else if (r == HTTP_STOPPED && w != NULL && w->stop != MCP_X_OK)
		x = w->stop;
	else if (r == HTTP_TRANSPORT && resp.timed_out)
		x = MCP_X_TIMEOUT;
	else if (r == HTTP_TRANSPORT) {
		*err = xasprintf("%s: %s", where, resp.error ? resp.error :
		    "no answer");
		x = MCP_X_TRANSPORT;
	} else if (resp.status == 404 && in_session) {
		/* The session ended on the server's side: start again. */
		*err = xasprintf("%s: the server ended the session", where);
		x = MCP_X_DEAD;
	} else if (resp.status == 401) {
		/* The server wants a sign-in (OAuth, as the specification
		 * has it), which huddle does not do yet: say so, never a
		 * bare 401. */
		*err = xasprintf("%s asks to sign in (HTTP 401): huddle does "
		    "not sign in to MCP servers yet; give it a token in the "
		    "server's \"headers\" in your settings, or leave it out",
		    where);
		x = MCP_X_TRANSPORT;
	} else if (text == NULL && resp.status == 405) {
		*err = xasprintf("%s closed the stream of its answer before "
		    "the reply and does not let it be resumed (HTTP 405 to "
		    "GET)", where);
		x = MCP_X_TRANSPORT;
	} else if (resp.status < 200 || resp.status >= 300) {
		*err = xasprintf("%s: HTTP %ld%s%.200s", where, resp.status,
		    resp.body ? ": " : "", resp.body ? resp.body : "");
		x = MCP_X_TRANSPORT;
	} else if (w != NULL && w->body != NULL && !w->streaming)
		mcp_take_text(w, w->body, w->len);
	http_response_clear(&resp);
	http_free(h);
	cancel_destroy(&own);
	free(where);
	return x;
}

/* How long to wait before resuming a stream that named no retry time,
 * and at least; how often a stream may close with nothing new (its last
 * event id did not move) before the server is taken to have lost the
 * reply. */
#define MCP_RESUME_DEFAULT_MS	1000
#define MCP_RESUME_MIN_MS	100
#define MCP_RESUME_MAX		5

/*
 * POSTs text; with w, reads the reply w waits for, resuming its stream
 * when the server closes it first: after the retry time the stream
 * asked for, a GET with the last event id, again while each resumed
 * stream moves the last event id on (MCP_RESUME_MAX times in a row
 * without). io is held.
 */
static enum mcp_x
mcp_http_post(struct mcp_server *s, const char *text, struct mcp_wait *w,
    struct cancel *cancel, char **err)
{
	int64_t deadline = w != NULL ? mcp_deadline(w) : clock_mono_ms() +
	    MCP_SEND_MS;
	enum mcp_x x = mcp_http_once(s, text, NULL, w, cancel, deadline, err);
	char *where, *seen = xstrdup("");
	int idle = 0;
	long wait;
	struct pollfd p;

	if (w == NULL) {
		free(seen);
		return x;
	}
	/* Resumed while a stream (or an empty answer after one) ended
	 * without the reply; progress is the last event id moving on. */
	while (x == MCP_X_OK && w->result == NULL && w->error == NULL &&
	    w->sse != NULL && *sse_last_id(w->sse) != '\0' &&
	    (w->streaming || w->body == NULL)) {
		idle = strcmp(sse_last_id(w->sse), seen) != 0 ? 0 : idle + 1;
		free(seen);
		seen = xstrdup(sse_last_id(w->sse));
		if (idle >= MCP_RESUME_MAX)
			break;
		wait = sse_retry_ms(w->sse) >= 0 ? sse_retry_ms(w->sse) :
		    MCP_RESUME_DEFAULT_MS;
		if (wait < MCP_RESUME_MIN_MS)
			wait = MCP_RESUME_MIN_MS;
		if (clock_mono_ms() + wait >= mcp_deadline(w)) {
			free(seen);
			return MCP_X_TIMEOUT;
		}
		p.fd = cancel != NULL ? cancel_fd(cancel) : -1;
		p.events = POLLIN;
		poll(&p, 1, (int)wait);
		if (cancel != NULL && cancel_fired(cancel)) {
			free(seen);
			return MCP_X_CANCELLED;
		}
		x = mcp_http_once(s, NULL, seen, w, cancel, mcp_deadline(w),
		    err);
	}
	free(seen);
	if (x == MCP_X_OK && w->result == NULL && w->error == NULL) {
		where = mcp_origin(json_string_value(json_object_get(s->config,
		    "url")));
		*err = xasprintf("%s: the answer held no reply to request "
		    "%lld", where, (long long)w->id);
		free(where);
		x = MCP_X_TRANSPORT;
	}
	return x;
}

static int
mcp_post_note(struct mcp_server *s, const char *text, struct cancel *cancel)
{
	char *err = NULL;
	enum mcp_x x = mcp_http_post(s, text, NULL, cancel, &err);

	free(err);
	return x == MCP_X_OK ? 0 : -1;
}

/* What huddle offers servers: the working tree as its one root, and
 * questions to the person as forms (no sampling: servers do not get the
 * team's model). */
static json_t *
mcp_capabilities(void)
{
	return json_pack("{s:{}, s:{s:{}}}", "roots", "elicitation", "form");
}

/* The _meta the stateless revision puts in every request. */
static json_t *
mcp_meta(void)
{
	return json_pack("{s:s, s:o, s:{s:s, s:s}}",
	    "io.modelcontextprotocol/protocolVersion", MCP_MODERN_VERSION,
	    "io.modelcontextprotocol/clientCapabilities", mcp_capabilities(),
	    "io.modelcontextprotocol/clientInfo", "name", "huddle",
	    "version", PACKAGE_VERSION);
}

/*
 * Sends request method with params (stolen; NULL: {}) and waits for its
 * reply until deadline or cancel; a request given up is cancelled on the
 * server. Under the stateless revision (or with `probe`) the request
 * carries its _meta; a tools/call carries the call's progress token. io
 * is held. *result gets the result (decref it) on MCP_X_OK; *err a
 * sentence otherwise.
 */
static enum mcp_x
mcp_request(struct mcp_server *s, const char *method, json_t *params,
    int probe, struct cancel *cancel, int64_t deadline, json_t **result,
    char **err)
{
	struct mcp_wait w;
	enum mcp_x x;
	char *text;
	int64_t token;
	int modern, torn = 0;

	memset(&w, 0, sizeof w);
	w.s = s;
	w.id = s->next_id++;
	w.cancel = cancel;
	w.deadline = deadline;
	w.asked_base = (int64_t)atomic_load(&s->asked_ms);
	w.handshake = strcmp(method, "initialize") == 0;
	if (params == NULL)
		params = json_object();
	pthread_mutex_lock(&s->lock);
	modern = s->modern;
	token = s->call_token;
	pthread_mutex_unlock(&s->lock);
	if (modern || probe)
		json_object_set_new(params, "_meta", mcp_meta());
	if (strcmp(method, "tools/call") == 0) {
		if (json_object_get(params, "_meta") == NULL)
			json_object_set_new(params, "_meta", json_object());
		json_object_set_new(json_object_get(params, "_meta"),
		    "progressToken", json_integer(token));
	}
	text = jsonrpc_request(w.id, method, params);
	*result = NULL;
	*err = NULL;
	if (s->http)
		x = mcp_http_post(s, text, &w, cancel, err);
	else if ((x = mcp_stdio_write(s, text, cancel, deadline, &torn)) ==
	    MCP_X_OK)
		x = mcp_stdio_wait(&w);
	else if (torn) {
		/* Half a request in its input: it cannot be spoken to. */
		*err = xstrdup("it stopped reading its input");
		x = MCP_X_DEAD;
	}
	free(text);
	sse_free(w.sse);
	free(w.body);
	if (x == MCP_X_TIMEOUT || x == MCP_X_CANCELLED) {
		json_t *p = json_pack("{s:I, s:s}", "requestId",
		    (json_int_t)w.id, "reason", x == MCP_X_TIMEOUT ?
		    "timed out" : "cancelled by the person");
		char *note = jsonrpc_notification("notifications/cancelled",
		    p);

		mcp_send_text(s, note, NULL, 0);
		free(note);
	}
	if (x == MCP_X_OK && w.error != NULL) {
		*err = jsonrpc_error_text(w.error);
		x = MCP_X_RPC_ERROR;
	} else if (x == MCP_X_OK)
		*result = json_incref(w.result);
	else if (*err == NULL)
		*err = xstrdup(x == MCP_X_DEAD ? "the server stopped" :
		    x == MCP_X_TIMEOUT ? "no answer in time" : "cancelled");
	json_decref(w.result);
	json_decref(w.error);
	return x;
}

/* --- the server's own stream ----------------------------------------------- */

/* The server's own stream is opened again after its retry time, and
 * after at least the backoff, which starts at MIN, doubles each time a
 * stream ends before it LASTED, up to MAX. */
#define MCP_LISTEN_BACKOFF_MIN_MS	1000
#define MCP_LISTEN_LASTED_MS		10000
#define MCP_LISTEN_BACKOFF_MAX_MS	30000

/* One thread reading the server's own stream for one session. */
struct mcp_listener {
	struct mcp_server	*s;
	struct cancel		 stop;		/* fired: end */
};

/*
 * Holds a GET open for what the server sends unasked, and acts on it as
 * on anything else it sends (mcp_handle): opened again after the
 * stream's retry time (or a growing wait when it failed) while the
 * session lasts; ends when told, when the server answers the GET with
 * an error (it offers no such stream: 4xx, 501) or ends the session.
 */
static void *
mcp_listen(void *arg)
{
	struct mcp_listener *me = arg;
	struct mcp_server *s = me->s;
	struct mcp_wait w;
	struct pollfd p;
	long backoff = MCP_LISTEN_BACKOFF_MIN_MS, wait;
	char *err = NULL, *last;
	int64_t opened;
	enum mcp_x x;

	memset(&w, 0, sizeof w);
	w.s = s;
	w.id = -1;
	w.own_stream = 1;
	w.cancel = &me->stop;
	while (!cancel_fired(&me->stop)) {
		opened = clock_mono_ms();
		/* A stream may be idle for hours; a day bounds one. */
		w.deadline = clock_mono_ms() + 24 * 3600 * 1000LL;
		w.asked_base = (int64_t)atomic_load(&s->asked_ms);
		last = xstrdup(w.sse != NULL ? sse_last_id(w.sse) : "");
		x = mcp_http_once(s, NULL, last, &w, &me->stop, w.deadline,
		    &err);
		free(last);
		free(err);
		err = NULL;
		if (x == MCP_X_CANCELLED || cancel_fired(&me->stop) ||
		    x == MCP_X_DEAD)
			break;
		if ((w.status >= 400 && w.status < 500) || w.status == 501) {
			log_printf("mcp: %s offers no stream of its own (HTTP "
			    "%ld to GET)", s->name, w.status);
			break;
		}
		/* A stream that lasted is opened again at once (after its
		 * retry time); one that ended soon, ever more slowly, so
		 * that no server can make huddle spin. */
		backoff = clock_mono_ms() - opened >= MCP_LISTEN_LASTED_MS ?
		    MCP_LISTEN_BACKOFF_MIN_MS : backoff * 2 >
		    MCP_LISTEN_BACKOFF_MAX_MS ? MCP_LISTEN_BACKOFF_MAX_MS :
		    backoff * 2;
		wait = w.sse != NULL && sse_retry_ms(w.sse) > backoff ?
		    sse_retry_ms(w.sse) : backoff;
		p.fd = cancel_fd(&me->stop);
		p.events = POLLIN;
		poll(&p, 1, (int)wait);
	}
	sse_free(w.sse);
	free(w.body);
	json_decref(w.result);
	json_decref(w.error);
	pthread_mutex_lock(&s->lock);
	if (s->listening == me)
		s->listening = NULL;
	cancel_destroy(&me->stop);
	free(me);
	s->listeners--;
	pthread_cond_broadcast(&s->changed);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Opens the server's own stream for its session, on a thread of its
 * own (an HTTP server of the handshake revisions, when it has none). */
static void
mcp_listen_start(struct mcp_server *s)
{
	struct mcp_listener *me;
	pthread_attr_t attr;
	pthread_t th;

	pthread_mutex_lock(&s->lock);
	if (!s->http || s->modern || s->listening != NULL ||
	    cancel_fired(&s->stop)) {
		pthread_mutex_unlock(&s->lock);
		return;
	}
	me = xcalloc(1, sizeof *me);
	me->s = s;
	cancel_init(&me->stop);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &attr, mcp_listen, me) == 0) {
		s->listening = me;
		s->listeners++;
	} else {
		cancel_destroy(&me->stop);
		free(me);
	}
	pthread_attr_destroy(&attr);
	pthread_mutex_unlock(&s->lock);
}

/* Tells the thread of the session's own stream to end (it ends on its
 * own: it may be waiting for the person). */
static void
mcp_listen_stop(struct mcp_server *s)
{
	pthread_mutex_lock(&s->lock);
	if (s->listening != NULL)
		cancel_fire(&s->listening->stop);
	s->listening = NULL;
	pthread_mutex_unlock(&s->lock);
}

/* --- starting -------------------------------------------------------------- */

/* How long a start may take, and a stdio server's server/discover. */
static int64_t
mcp_start_ms(const struct mcp_server *s)
{
	return s->launch != NULL && s->launch->start_ms > 0 ?
	    s->launch->start_ms : MCP_START_MS;
}

static int64_t
mcp_probe_ms(const struct mcp_server *s)
{
	return s->launch != NULL && s->launch->probe_ms > 0 ?
	    s->launch->probe_ms : MCP_PROBE_MS;
}

/* Ends the server's process or session; io is held. */
static void
mcp_stop(struct mcp_server *s)
{
	if (!s->http)
		mcp_stdio_end(s);
	mcp_listen_stop(s);
	jsonrpc_lines_clear(&s->lines);
	pthread_mutex_lock(&s->lock);
	free(s->session);
	s->session = NULL;
	pthread_mutex_unlock(&s->lock);
}

/* Starts the transport (a process for stdio); io is held. */
static int
mcp_open(struct mcp_server *s, char **err)
{
	pthread_mutex_lock(&s->lock);
	free(s->version);
	s->version = NULL;
	s->modern = 0;
	s->starts++;
	pthread_mutex_unlock(&s->lock);
	if (s->http)
		return 0;
	return mcp_stdio_start(s, err);
}

/* Notes the server's identity from a discover or initialize result. */
static void
mcp_note_info(struct mcp_server *s, json_t *result)
{
	json_t *si = json_object_get(result, "serverInfo");
	const char *n = json_string_value(json_object_get(si, "name"));
	const char *v = json_string_value(json_object_get(si, "version"));

	pthread_mutex_lock(&s->lock);
	free(s->info);
	s->info = n != NULL ? xasprintf("%s%s%s", n, v ? " " : "", v ? v :
	    "") : NULL;
	pthread_mutex_unlock(&s->lock);
}

/* Agrees on a revision: server/discover first, the initialize handshake
 * when the server does not know it. io is held. */
static int
mcp_negotiate(struct mcp_server *s, struct cancel *cancel, char **err)
{
	json_t *result = NULL, *v;
	const char *got;
	enum mcp_x x;
	char *why = NULL, *note;
	size_t i;
	int ok = 0;

	x = mcp_request(s, "server/discover", NULL, 1, cancel,
	    clock_mono_ms() + (s->http ? mcp_start_ms(s) : mcp_probe_ms(s)),
	    &result, &why);
	if (x == MCP_X_OK) {
		json_array_foreach(json_object_get(result, "supportedVersions"),
		    i, v) {
			if (json_is_string(v) && strcmp(json_string_value(v),
			    MCP_MODERN_VERSION) == 0)
				ok = 1;
		}
	}
	if (ok) {
		mcp_note_info(s, result);
		json_decref(result);
		free(why);
		pthread_mutex_lock(&s->lock);
		s->modern = 1;
		s->version = xstrdup(MCP_MODERN_VERSION);
		pthread_mutex_unlock(&s->lock);
		return 0;
	}
	json_decref(result);
	if (x == MCP_X_CANCELLED) {
		*err = why;
		return -1;
	}
	free(why);
	why = NULL;
	if (x == MCP_X_DEAD && !s->http) {
		/* A server that could not bear the probe: start afresh. */
		mcp_stdio_end(s);
		if (mcp_stdio_start(s, err) == -1)
			return -1;
	}
	/* The handshake of the earlier revisions. */
	x = mcp_request(s, "initialize", json_pack("{s:s, s:o, s:{s:s, "
	    "s:s}}", "protocolVersion", MCP_LEGACY_VERSION, "capabilities",
	    mcp_capabilities(), "clientInfo", "name", "huddle", "version",
	    PACKAGE_VERSION), 0, cancel, clock_mono_ms() + mcp_start_ms(s),
	    &result, &why);
	if (x != MCP_X_OK) {
		*err = xasprintf("it answered neither server/discover nor "
		    "initialize: %s", why);
		free(why);
		return -1;
	}
	got = json_string_value(json_object_get(result, "protocolVersion"));
	for (i = 0; got != NULL && mcp_legacy_versions[i] != NULL; i++)
		if (strcmp(got, mcp_legacy_versions[i]) == 0)
			break;
	if (got == NULL || mcp_legacy_versions[i] == NULL) {
		*err = xasprintf("it speaks revision %s, which huddle does not "
		    "know", got ? got : "(none)");
		json_decref(result);
		return -1;
	}
	mcp_note_info(s, result);
	pthread_mutex_lock(&s->lock);
	s->version = xstrdup(got);
	pthread_mutex_unlock(&s->lock);
	json_decref(result);
	note = jsonrpc_notification("notifications/initialized", NULL);
	mcp_send_text(s, note, cancel, 0);
	free(note);
	return 0;
}

/* Tool t as kept (a new object): its name, its description cut to
 * MCP_MAX_DESCRIPTION bytes, its input schema when it is an object of at
 * most MCP_MAX_SCHEMA bytes, else one that takes any object. */
static json_t *
mcp_tool_bounded(json_t *t)
{
	const char *d = json_string_value(json_object_get(t, "description"));
	json_t *schema = json_object_get(t, "inputSchema");
	char *text = json_is_object(schema) ? json_dumps(schema,
	    JSON_COMPACT) : NULL, *desc;
	size_t n = d != NULL ? strlen(d) : 0;
	json_t *out;

	if (n > MCP_MAX_DESCRIPTION) {
		/* Cut between characters, never inside one. */
		n = MCP_MAX_DESCRIPTION;
		while (n > 0 && ((unsigned char)d[n] & 0xC0) == 0x80)
			n--;
	}
	desc = xasprintf("%.*s%s%s", (int)n, d != NULL ? d : "", d != NULL &&
	    strlen(d) > n ? "…" : "", text != NULL && strlen(text) >
	    MCP_MAX_SCHEMA ? " (Its input schema was too large to pass on: "
	    "it takes a JSON object.)" : "");
	out = json_pack("{s:O, s:s, s:o}", "name", json_object_get(t, "name"),
	    "description", desc, "inputSchema", text != NULL && strlen(text) <=
	    MCP_MAX_SCHEMA ? json_incref(schema) : json_pack("{s:s}", "type",
	    "object"));
	if (d == NULL && strcmp(desc, "") == 0)
		json_object_del(out, "description");
	free(desc);
	free(text);
	return out;
}

/* Whether tool t runs only as an MCP task (execution.taskSupport
 * "required"). */
static int
mcp_needs_task(json_t *t)
{
	const char *v = json_string_value(json_object_get(json_object_get(t,
	    "execution"), "taskSupport"));

	return v != NULL && strcmp(v, "required") == 0;
}

/* Adds a name to a list joined by ", " (malloc'd; *list may be NULL). */
static void
mcp_name_add(char **list, const char *name)
{
	char *next = *list != NULL ? xasprintf("%s, %s", *list, name) :
	    xstrdup(name);

	free(*list);
	*list = next;
}

/* Reads the whole tool list, page by page, within MCP_START_MS in all;
 * keeps MCP_MAX_TOOLS of it. io is held. */
static int
mcp_list(struct mcp_server *s, struct cancel *cancel, char **err)
{
	json_t *all = json_array(), *result = NULL, *t;
	int64_t deadline = clock_mono_ms() + mcp_start_ms(s);
	char *cursor = NULL, *taskonly = NULL;
	size_t i, listed = 0;
	enum mcp_x x;
	int page;

	pthread_mutex_lock(&s->lock);
	s->stale = 0;
	pthread_mutex_unlock(&s->lock);
	for (page = 0; page < MCP_MAX_PAGES; page++) {
		const char *next;

		x = mcp_request(s, "tools/list", cursor != NULL ? json_pack(
		    "{s:s}", "cursor", cursor) : NULL, 0, cancel, deadline,
		    &result, err);
		free(cursor);
		cursor = NULL;
		if (x != MCP_X_OK) {
			json_decref(all);
			return -1;
		}
		json_array_foreach(json_object_get(result, "tools"), i, t) {
			if (!json_is_string(json_object_get(t, "name")))
				continue;
			/* A tool that runs only as an MCP task would fail
			 * every call: huddle does not run tasks. */
			if (mcp_needs_task(t)) {
				mcp_name_add(&taskonly, json_string_value(
				    json_object_get(t, "name")));
				continue;
			}
			if (listed++ < MCP_MAX_TOOLS)
				json_array_append_new(all,
				    mcp_tool_bounded(t));
		}
		next = json_string_value(json_object_get(result,
		    "nextCursor"));
		cursor = next != NULL && *next != '\0' ? xstrdup(next) : NULL;
		json_decref(result);
		if (cursor == NULL)
			break;
	}
	free(cursor);
	if (taskonly != NULL && !s->told_tasks) {
		char *text;

		s->told_tasks = 1;
		text = xasprintf("MCP server %s: %s not offered (%s only "
		    "as an MCP task, which huddle does not run)", s->name,
		    taskonly, strchr(taskonly, ',') != NULL ? "they run" :
		    "it runs");

		mcp_tell(s, text);
		free(text);
	}
	free(taskonly);
	if (listed > MCP_MAX_TOOLS) {
		char *text = xasprintf("MCP server %s lists %zu tools; the "
		    "agents are offered its first %d", s->name, listed,
		    MCP_MAX_TOOLS);

		mcp_tell(s, text);
		free(text);
	}
	pthread_mutex_lock(&s->lock);
	json_decref(s->tools);
	s->tools = all;
	pthread_mutex_unlock(&s->lock);
	return 0;
}

/* Starts the server and reads its tools; io is held. */
static int
mcp_start(struct mcp_server *s, struct cancel *cancel, char **err)
{
	char *why = NULL, *tail;

	mcp_set_state(s, MCP_STARTING, NULL);
	if (mcp_open(s, &why) == -1 || mcp_negotiate(s, cancel, &why) == -1 ||
	    mcp_list(s, cancel, &why) == -1) {
		/* Ended first, so that all it wrote on stderr is read. */
		mcp_stop(s);
		*err = xasprintf("MCP server %s could not start: %s", s->name,
		    why ? why : "?");
		mcp_set_state(s, MCP_FAILED, *err);
		free(*err);
		tail = mcp_server_tail(s, "  ");
		*err = xasprintf("MCP server %s could not start: %s%s%s",
		    s->name, why ? why : "?", tail != NULL ? "; the end of "
		    "its stderr:\n" : "", tail != NULL ? tail : "");
		/* (Without its last newline.) */
		if (tail != NULL)
			(*err)[strlen(*err) - 1] = '\0';
		free(tail);
		free(why);
		return -1;
	}
	mcp_set_state(s, MCP_READY, NULL);
	mcp_listen_start(s);
	return 0;
}

/* Marks a server that stopped answering, and tells. io is held. */
static void
mcp_died(struct mcp_server *s, const char *why)
{
	char *text = xasprintf("MCP server %s stopped (%s); it starts again "
	    "at its next use", s->name, why);

	mcp_stop(s);
	mcp_set_state(s, MCP_DEAD, text);
	mcp_tell(s, text);
	free(text);
}

/* --- the interface --------------------------------------------------------- */

/* The background start of a server (mcp_server_start): its failure is
 * told, unless the server is being freed. */
static void *
mcp_starter(void *arg)
{
	struct mcp_server *s = arg;
	enum mcp_state st;
	char *err = NULL;

	pthread_mutex_lock(&s->io);
	pthread_mutex_lock(&s->lock);
	st = s->state;
	pthread_mutex_unlock(&s->lock);
	if (st == MCP_STARTING && mcp_start(s, &s->stop, &err) == -1) {
		if (!cancel_fired(&s->stop))
			mcp_tell(s, err);
		free(err);
	}
	pthread_mutex_unlock(&s->io);
	pthread_mutex_lock(&s->lock);
	s->starter_done = 1;
	pthread_cond_broadcast(&s->changed);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

void
mcp_server_start(struct mcp_server *s)
{
	pthread_mutex_lock(&s->lock);
	/* A server leaves MCP_NEW once: there is one background start at
	 * most, joined when the server is freed. */
	if (s->state == MCP_NEW && !cancel_fired(&s->stop)) {
		s->state = MCP_STARTING;
		s->starter_live = pthread_create(&s->starter, NULL,
		    mcp_starter, s) == 0;
		if (!s->starter_live)
			s->state = MCP_NEW;
		pthread_cond_broadcast(&s->changed);
	}
	pthread_mutex_unlock(&s->lock);
}

enum mcp_state
mcp_server_wait(struct mcp_server *s, int64_t deadline)
{
	struct timespec ts;
	enum mcp_state st;

	ts.tv_sec = (time_t)(deadline / 1000);
	ts.tv_nsec = (long)(deadline % 1000) * 1000000;
	pthread_mutex_lock(&s->lock);
	while ((s->state == MCP_STARTING || (s->starter_live &&
	    !s->starter_done)) &&
	    pthread_cond_timedwait(&s->changed, &s->lock, &ts) == 0)
		;
	st = s->state;
	pthread_mutex_unlock(&s->lock);
	return st;
}

char *
mcp_server_tail(struct mcp_server *s, const char *indent)
{
	char *out = NULL;
	size_t len = 0, cap = 0, i, k;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->tail_n; i++) {
		k = (s->tail_next + MCP_TAIL_LINES - s->tail_n + i) %
		    MCP_TAIL_LINES;
		out = xappend(out, &len, &cap, indent, strlen(indent));
		out = xappend(out, &len, &cap, s->tail[k], strlen(s->tail[k]));
		out = xappend(out, &len, &cap, "\n", 1);
	}
	pthread_mutex_unlock(&s->lock);
	return out;
}

json_t *
mcp_server_tools(struct mcp_server *s, int start)
{
	enum mcp_state st;
	json_t *copy;
	char *err = NULL;
	int stale;

	pthread_mutex_lock(&s->lock);
	st = s->state;
	pthread_mutex_unlock(&s->lock);
	if (start && st == MCP_NEW)
		mcp_server_start(s);
	else if (start && st == MCP_READY &&
	    pthread_mutex_trylock(&s->io) == 0) {
		if (!s->http && mcp_stdio_drain(s) == -1)
			mcp_died(s, "its output ended");
		pthread_mutex_lock(&s->lock);
		stale = s->stale && s->state == MCP_READY;
		pthread_mutex_unlock(&s->lock);
		if (stale && mcp_list(s, NULL, &err) == -1) {
			log_printf("mcp: %s: %s", s->name, err);
			free(err);
		}
		pthread_mutex_unlock(&s->io);
	}
	pthread_mutex_lock(&s->lock);
	copy = s->tools != NULL ? json_deep_copy(s->tools) : NULL;
	pthread_mutex_unlock(&s->lock);
	return copy;
}

int
mcp_server_call(struct mcp_server *s, const char *tool, json_t *args,
    const struct mcp_caller *caller, struct cancel *cancel, int timeout_s,
    size_t cap, struct tool_output *out)
{
	json_t *result = NULL, *params, *images;
	char *err = NULL, *text;
	enum mcp_x x;
	int is_error, stale;
	const char *rt;

	if (timeout_s <= 0)
		timeout_s = BASH_TIMEOUT_S;
	pthread_mutex_lock(&s->io);
	if (s->state != MCP_READY && mcp_start(s, cancel, &err) == -1) {
		pthread_mutex_unlock(&s->io);
		tool_error(out, "%s", err);
		free(err);
		return -1;
	}
	params = json_pack("{s:s, s:o}", "name", tool, "arguments",
	    json_is_object(args) ? json_incref(args) : json_object());
	pthread_mutex_lock(&s->lock);
	s->caller = caller;
	s->calling = tool;
	s->call_token++;
	s->told_question = 0;
	pthread_mutex_unlock(&s->lock);
	x = mcp_request(s, "tools/call", params, 0, cancel, clock_mono_ms() +
	    (int64_t)timeout_s * 1000, &result, &err);
	/* The server's own stream may still be using the caller (a
	 * question the person has not answered, when the call was given
	 * up): it is told so, and the call waits until it lets go. */
	pthread_mutex_lock(&s->lock);
	s->caller = NULL;
	s->calling = NULL;
	if (s->caller_uses > 0 && caller != NULL && caller->abandon != NULL) {
		pthread_mutex_unlock(&s->lock);
		caller->abandon(caller->ud);
		pthread_mutex_lock(&s->lock);
	}
	while (s->caller_uses > 0)
		pthread_cond_wait(&s->changed, &s->lock);
	free(s->progress);
	s->progress = NULL;
	pthread_mutex_unlock(&s->lock);
	if (x == MCP_X_DEAD || x == MCP_X_TRANSPORT)
		mcp_died(s, err);
	pthread_mutex_lock(&s->lock);
	stale = s->stale && s->state == MCP_READY;
	pthread_mutex_unlock(&s->lock);
	if (stale) {
		char *e2 = NULL;

		if (mcp_list(s, NULL, &e2) == -1)
			free(e2);
	}
	pthread_mutex_unlock(&s->io);
	switch (x) {
	case MCP_X_OK:
		break;
	case MCP_X_TIMEOUT:
		free(err);
		return tool_error(out, "%s on MCP server %s timed out after "
		    "%d s; the server was told to stop it", tool, s->name,
		    timeout_s);
	case MCP_X_CANCELLED:
		free(err);
		return tool_error(out, "%s on MCP server %s: cancelled", tool,
		    s->name);
	default:
		tool_error(out, "%s on MCP server %s failed: %s", tool,
		    s->name, err);
		free(err);
		return -1;
	}
	rt = json_string_value(json_object_get(result, "resultType"));
	if (rt != NULL && strcmp(rt, "input_required") == 0) {
		json_decref(result);
		return tool_error(out, "%s on MCP server %s asks for more "
		    "input, which huddle cannot give servers yet", tool,
		    s->name);
	}
	text = mcp_content_text(result, cap, &is_error, &images);
	json_decref(result);
	tool_output_clear(out);
	out->is_error = is_error;
	out->text = text;
	out->images = images;
	return is_error ? -1 : 0;
}

char *
mcp_server_describe(struct mcp_server *s)
{
	char *out = NULL, *line, *origin, *tail;
	size_t len = 0, cap = 0, i;
	int show_tail;
	json_t *t;

	pthread_mutex_lock(&s->lock);
	origin = s->http ? mcp_origin(json_string_value(json_object_get(
	    s->config, "url"))) : NULL;
	line = xasprintf("%s (%s%s): %s%s%s%s%s\n", s->name,
	    s->http ? "http " : "stdio", s->http ? origin : "",
	    mcp_state_name(s->state), s->version ? ", revision " : "",
	    s->version ? s->version : "", s->error ? " — " : "",
	    s->error ? s->error : "");
	out = xappend(out, &len, &cap, line, strlen(line));
	free(line);
	free(origin);
	if (s->progress != NULL) {
		line = xasprintf("  running %s\n", s->progress);
		out = xappend(out, &len, &cap, line, strlen(line));
		free(line);
	}
	if (s->info != NULL) {
		line = xasprintf("  server: %s\n", s->info);
		out = xappend(out, &len, &cap, line, strlen(line));
		free(line);
	}
	json_array_foreach(s->tools, i, t) {
		const char *d = json_string_value(json_object_get(t,
		    "description"));

		line = xasprintf("  %s%s%.80s\n", json_string_value(
		    json_object_get(t, "name")), d ? ": " : "", d ? d : "");
		out = xappend(out, &len, &cap, line, strlen(line));
		free(line);
	}
	show_tail = s->state == MCP_FAILED || s->state == MCP_DEAD;
	pthread_mutex_unlock(&s->lock);
	/* Why a server failed is often only in what it wrote. */
	if (show_tail && (tail = mcp_server_tail(s, "    ")) != NULL) {
		out = xappend(out, &len, &cap, "  its stderr ends:\n", 19);
		out = xappend(out, &len, &cap, tail, strlen(tail));
		free(tail);
	}
	return out;
}

void
mcp_server_free(struct mcp_server *s)
{
	size_t i;
	int live;

	if (s == NULL)
		return;
	/* A start under way gives up at once. */
	cancel_fire(&s->stop);
	pthread_mutex_lock(&s->lock);
	live = s->starter_live;
	s->starter_live = 0;
	pthread_mutex_unlock(&s->lock);
	if (live)
		pthread_join(s->starter, NULL);
	pthread_mutex_lock(&s->io);
	mcp_stop(s);
	pthread_mutex_unlock(&s->io);
	/* The threads of its own stream end once their GET does. */
	pthread_mutex_lock(&s->lock);
	while (s->listeners > 0)
		pthread_cond_wait(&s->changed, &s->lock);
	pthread_mutex_unlock(&s->lock);
	/* Its processes have ended: so may the thread that started them. */
	pthread_mutex_lock(&s->lock);
	s->spawner_quit = 1;
	live = s->spawner_live;
	pthread_cond_broadcast(&s->spawn_cv);
	pthread_mutex_unlock(&s->lock);
	if (live)
		pthread_join(s->spawner, NULL);
	pthread_cond_destroy(&s->spawn_cv);
	for (i = 0; i < MCP_TAIL_LINES; i++)
		free(s->tail[i]);
	cancel_destroy(&s->stop);
	pthread_cond_destroy(&s->changed);
	pthread_mutex_destroy(&s->io);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->asking_one);
	json_decref(s->config);
	json_decref(s->tools);
	free(s->name);
	free(s->error);
	free(s->version);
	free(s->session);
	free(s->info);
	free(s->progress);
	free(s);
}
