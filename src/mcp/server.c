/*
 * One MCP server: the start of a conversation with it in either
 * revision, its requests and their replies, its tool list, and what it
 * asks of huddle (see server.h). It reaches the server through its
 * transport (stdio.c or http.c), only by the operations of transport.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mcp/content.h"
#include "mcp/elicit.h"
#include "mcp/jsonrpc.h"
#include "mcp/server.h"
#include "mcp/transport.h"
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

static char *mcp_server_tail(struct mcp_server *s, const char *indent);

/* "ready", "not started", "starting", "failed", "stopped". */
static const char *
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

static int mcp_take_text(struct mcp_wait *w, const char *text, size_t len);
static int64_t mcp_deadline(struct mcp_wait *w);

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
	cancel_init(&s->stop);
	pthread_mutex_init(&s->io, NULL);
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->asking_one, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->changed, &ca);
	pthread_condattr_destroy(&ca);
	/* What its transport is lent, and the transport. */
	s->link.name = s->name;
	s->link.config = s->config;
	s->link.launch = launch;
	s->link.lock = &s->lock;
	s->link.changed = &s->changed;
	s->link.stop = &s->stop;
	s->link.asking = &s->asking;
	s->link.asked_ms = &s->asked_ms;
	s->link.version = &s->version;
	s->link.take = mcp_take_text;
	s->link.until = mcp_deadline;
	s->link.ud = s;
	s->transport = (http ? &mcp_http_ops : &mcp_stdio_ops)->new(&s->link);
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

/* --- one exchange ---------------------------------------------------------- */

/* When w gives up (the link's until): its deadline, moved on by the
 * time questions to the person have taken since it started; not while
 * one is open, nor while the person is asked to let the server's
 * process reach a host (npx's registry at its first start, say). */
static int64_t
mcp_deadline(struct mcp_wait *w)
{
	struct mcp_server *s = w->link->ud;
	struct mcp_transport *tr = s->transport;
	int64_t now;

	if (!w->own_stream && atomic_load(&s->asking) > 0)
		return INT64_MAX / 2;
	if (tr->ops->held != NULL) {
		now = clock_mono_ms();
		if (tr->ops->held(tr)) {
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
	s->transport->ops->send(s->transport, text, cancel, must);
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
	struct mcp_server *s = w->link->ud;
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
	struct mcp_server *s = w->link->ud;
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
	struct mcp_server *s = w->link->ud;
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

/* Takes a message's text, a line, a body or an event's data (the
 * link's take): 1 when it held the reply w waits for. */
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
	int modern;

	memset(&w, 0, sizeof w);
	w.link = &s->link;
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
	x = s->transport->ops->request(s->transport, text, &w, err);
	free(text);
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
	s->transport->ops->stop(s->transport);
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
	return s->transport->ops->start(s->transport, err);
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
		mcp_stop(s);
		if (s->transport->ops->start(s->transport, err) == -1)
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
	int modern;

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
	/* A server of the handshake revisions may have a stream of its own
	 * for its session (HTTP); a stateless one has no session. */
	pthread_mutex_lock(&s->lock);
	modern = s->modern;
	pthread_mutex_unlock(&s->lock);
	if (!modern && s->transport->ops->listen != NULL)
		s->transport->ops->listen(s->transport);
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

/* The last lines of its stderr (MCP_TAIL_LINES at most), each indented
 * by `indent` and ending in a newline (malloc'd), or NULL when it wrote
 * none. */
static char *
mcp_server_tail(struct mcp_server *s, const char *indent)
{
	struct mcp_transport *tr = s->transport;

	return tr->ops->tail != NULL ? tr->ops->tail(tr, indent) : NULL;
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
		if (s->transport->ops->drain != NULL &&
		    s->transport->ops->drain(s->transport) == -1)
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
	int is_error, stale, ready;
	const char *rt;

	if (timeout_s <= 0)
		timeout_s = BASH_TIMEOUT_S;
	pthread_mutex_lock(&s->io);
	/* The state is written under the lock alone (mcp_server_start). */
	pthread_mutex_lock(&s->lock);
	ready = s->state == MCP_READY;
	pthread_mutex_unlock(&s->lock);
	if (!ready && mcp_start(s, cancel, &err) == -1) {
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
	char *out = NULL, *line, *label, *tail;
	size_t len = 0, cap = 0, i;
	int show_tail;
	json_t *t;

	pthread_mutex_lock(&s->lock);
	label = s->transport->ops->label(s->transport);
	line = xasprintf("%s (%s): %s%s%s%s%s\n", s->name, label,
	    mcp_state_name(s->state), s->version ? ", revision " : "",
	    s->version ? s->version : "", s->error ? " — " : "",
	    s->error ? s->error : "");
	out = xappend(out, &len, &cap, line, strlen(line));
	free(line);
	free(label);
	if (s->transport->ops->signin_text != NULL &&
	    (label = s->transport->ops->signin_text(s->transport)) != NULL) {
		line = xasprintf("  sign-in: %s\n", label);
		out = xappend(out, &len, &cap, line, strlen(line));
		free(line);
		free(label);
	}
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

int
mcp_server_logout(struct mcp_server *s)
{
	struct mcp_transport *tr = s->transport;

	return tr->ops->logout != NULL ? tr->ops->logout(tr) : -1;
}

void
mcp_server_free(struct mcp_server *s)
{
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
	/* The threads of its transport (its own stream's, the one that
	 * started its processes) end before what they use does. */
	s->transport->ops->free(s->transport);
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
	free(s->info);
	free(s->progress);
	free(s);
}
