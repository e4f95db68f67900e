/*
 * The Streamable HTTP transport of an MCP server (transport.h): each
 * message a POST whose answer is one JSON body or an event stream, the
 * session the server gives, a stream resumed with Last-Event-ID when the
 * server closes it before the reply, and the GET stream on which the
 * server sends unasked, read on a thread of its own per session.
 */
#include "config.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "llm/http.h"
#include "llm/sse.h"
#include "mcp/jsonrpc.h"
#include "mcp/oauth.h"
#include "mcp/transport.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"

struct mcp_listener;

/* An HTTP server's side of it. */
struct mcp_http {
	struct mcp_transport	 base;
	struct mcp_oauth	*oauth;		/* its sign-in (oauth.h) */

	/* Under the server's lock: */
	char			*session;	/* Mcp-Session-Id */
	struct mcp_listener	*listening;	/* the own stream's thread
						 * of this session, or NULL */
	int			 listeners;	/* such threads alive */
	/* The request in flight (io is held for it), and its reply when
	 * the server sent it on its own stream instead, as a server may
	 * that takes any GET for the resumption of the call's stream:
	 * the listener keeps it here and fires came, which stops the
	 * request's transfer (mcp_http_relay). */
	struct mcp_wait		*asking;
	json_t			*relayed_result, *relayed_error;
	int			 relayed;
	struct cancel		 came;
};

/* What one exchange reads over HTTP, for w (may be NULL: nothing is
 * read); kept across the connections of a resumed stream. */
struct mcp_read {
	struct mcp_http		*mh;
	struct mcp_wait		*w;
	struct sse_parser	*sse;		/* kept across a resumed
						 * stream: its last id */
	int			 streaming;	/* text/event-stream */
	char			*body;		/* a JSON body */
	size_t			 len, cap;
	struct http_response	*resp;
	enum mcp_x		 stop;		/* why on_data stopped */
	long			 status;	/* the last status */
	int			 relayed;	/* the own stream handed a
						 * call its reply */
};

/* Lets go of what rd read. */
static void
mcp_read_clear(struct mcp_read *rd)
{
	sse_free(rd->sse);
	free(rd->body);
}

/* An event of the answer's stream: its data is a message for w. */
static int
mcp_on_event(void *ud, const char *event, const char *data, size_t len)
{
	struct mcp_read *rd = ud;
	struct mcp_wait *w = rd->w;
	struct mcp_http *mh = rd->mh;
	int done;

	(void)event;
	if (!w->own_stream)
		return w->link->take(w, data, len);
	/* The server's own stream: a reply to the request in flight is
	 * taken for it, and handed over. */
	pthread_mutex_lock(w->link->lock);
	w->id = mh->asking != NULL ? mh->asking->id : -1;
	pthread_mutex_unlock(w->link->lock);
	if ((done = w->link->take(w, data, len)) != 0) {
		pthread_mutex_lock(w->link->lock);
		if (mh->asking != NULL && mh->asking->id == w->id &&
		    !mh->relayed) {
			mh->relayed_result = w->result;
			mh->relayed_error = w->error;
			mh->relayed = 1;
			rd->relayed = 1;
			cancel_fire(&mh->came);
		} else {
			json_decref(w->result);
			json_decref(w->error);
		}
		w->result = w->error = NULL;
		pthread_mutex_unlock(w->link->lock);
	}
	return 0;
}

/* Takes into w the reply the listener was handed for it, if any. */
static void
mcp_http_relay(struct mcp_http *mh, struct mcp_wait *w)
{
	pthread_mutex_lock(w->link->lock);
	if (mh->relayed && w->result == NULL && w->error == NULL) {
		w->result = mh->relayed_result;
		w->error = mh->relayed_error;
		mh->relayed_result = mh->relayed_error = NULL;
	}
	pthread_mutex_unlock(w->link->lock);
}

/* The bytes of an answer as they come: an event stream, or a JSON
 * body kept whole; stops the transfer at w's time or cancel. */
static int
mcp_on_data(void *ud, const char *buf, size_t len)
{
	struct mcp_read *rd = ud;
	struct mcp_wait *w = rd->w;
	const char *ct = rd->resp->content_type;

	/* A server may keep a stream open for ever with keep-alives, each
	 * of which restarts the transfer's stall timer. */
	if (w->cancel != NULL && cancel_fired(w->cancel)) {
		rd->stop = MCP_X_CANCELLED;
		return 1;
	}
	if (clock_mono_ms() >= w->link->until(w)) {
		rd->stop = MCP_X_TIMEOUT;
		return 1;
	}
	if (!rd->streaming && rd->body == NULL && ct != NULL &&
	    strncasecmp(ct, "text/event-stream", 17) == 0) {
		rd->streaming = 1;
		if (rd->sse == NULL)
			rd->sse = sse_new(mcp_on_event, rd);
	}
	if (rd->streaming) {
		int rc = sse_feed(rd->sse, buf, len);

		if (rc == -1)
			rd->stop = MCP_X_TRANSPORT;
		return rc != 0 ? 1 : 0;
	}
	if (rd->len + len > JSONRPC_MAX_LINE)
		return 1;
	rd->body = xappend(rd->body, &rd->len, &rd->cap, buf, len);
	return 0;
}

/* The headers of a POST to the server, or with last_id of a GET (of the
 * stream it resumes; "": none); lock is not held. */
static struct curl_slist *
mcp_headers(struct mcp_http *mh, const char *last_id)
{
	const struct mcp_link *link = mh->base.link;
	json_t *h = json_object_get(link->config, "headers"), *v;
	struct curl_slist *l = NULL;
	const char *key;
	char *line;
	int own_auth = 0;

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
	pthread_mutex_lock(link->lock);
	if (*link->version != NULL) {
		line = xasprintf("MCP-Protocol-Version: %s", *link->version);
		l = curl_slist_append(l, line);
		free(line);
	}
	if (mh->session != NULL) {
		line = xasprintf("Mcp-Session-Id: %s", mh->session);
		l = curl_slist_append(l, line);
		free(line);
	}
	pthread_mutex_unlock(link->lock);
	json_object_foreach(h, key, v) {
		if (!json_is_string(v))
			continue;
		own_auth |= strcasecmp(key, "Authorization") == 0;
		line = xasprintf("%s: %s", key, json_string_value(v));
		l = curl_slist_append(l, line);
		free(line);
	}
	/* A token of the person's own, in the headers, is theirs to
	 * give; else the sign-in's, if any. */
	if (!own_auth && (line = mcp_oauth_header(mh->oauth)) != NULL) {
		l = curl_slist_append(l, line);
		explicit_bzero(line, strlen(line));
		free(line);
	}
	return l;
}

/* Whether the person's settings give the server's Authorization header
 * themselves: then it is theirs alone, and a 401 is an error, not a
 * sign-in. */
static int
mcp_own_auth(const struct mcp_link *link)
{
	json_t *h = json_object_get(link->config, "headers"), *v;
	const char *key;

	json_object_foreach(h, key, v) {
		if (json_is_string(v) && strcasecmp(key, "Authorization") == 0)
			return 1;
	}
	return 0;
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
 * last_id when text is NULL; with rd, reads into it what answers. io is
 * held (or, for a GET, the thread of the server's own stream runs it). A
 * 2xx answer is MCP_X_OK whether or not it held the reply.
 */
static enum mcp_x
mcp_http_once(struct mcp_http *mh, const char *text, const char *last_id,
    struct mcp_read *rd, struct cancel *cancel, int64_t deadline,
    long *auth, char **www, char **err)
{
	const struct mcp_link *link = mh->base.link;
	struct mcp_wait *w = rd != NULL ? rd->w : NULL;
	const char *url = json_string_value(json_object_get(link->config,
	    "url"));
	char *where = mcp_origin(url);
	struct curl_slist *hdrs = mcp_headers(mh, text == NULL ? last_id :
	    NULL);
	struct http_response resp;
	struct cancel own;
	struct http *h;
	enum http_result r;
	enum mcp_x x = MCP_X_OK;
	long stall = (long)((deadline - clock_mono_ms() + 999) / 1000);
	int in_session;

	if (auth != NULL) {
		*auth = 0;
		*www = NULL;
	}
	cancel_init(&own);
	h = http_new(cancel != NULL ? cancel : &own);
	if (rd != NULL) {
		rd->resp = &resp;
		rd->stop = MCP_X_OK;
		rd->streaming = 0;
		free(rd->body);
		rd->body = NULL;
		rd->len = rd->cap = 0;
		if (rd->sse != NULL)
			sse_reset(rd->sse);
		/* A call's answer may wait for the person's, and may come
		 * on the server's own stream instead. */
		if (!w->own_stream) {
			http_hold(h, link->asking);
			http_stop_on(h, &mh->came);
		}
	} else
		http_deadline(h, deadline);
	if (text != NULL)
		r = http_post(h, url, hdrs, text, strlen(text), 10000,
		    stall > 0 ? stall : 1, rd != NULL ? mcp_on_data : NULL,
		    rd, &resp);
	else
		r = http_get(h, url, hdrs, 10000, stall > 0 ? stall : 1,
		    mcp_on_data, rd, &resp);
	curl_slist_free_all(hdrs);
	if (rd != NULL)
		rd->status = resp.status;
	/* The session is the one initialize's answer gives (what else
	 * answers, late, must not bring back one that ended). */
	pthread_mutex_lock(link->lock);
	if (resp.mcp_session_id != NULL && w != NULL && w->handshake) {
		free(mh->session);
		mh->session = xstrdup(resp.mcp_session_id);
	}
	in_session = mh->session != NULL;
	pthread_mutex_unlock(link->lock);
	if (r == HTTP_CANCELLED)
		x = MCP_X_CANCELLED;
	else if (r == HTTP_STOPPED && rd != NULL && rd->stop == MCP_X_OK &&
	    !w->own_stream && cancel_fired(&mh->came))
		x = MCP_X_OK;		/* the reply came on the own stream */
	else if (r == HTTP_STOPPED && rd != NULL &&
	    rd->stop == MCP_X_TRANSPORT) {
		*err = xasprintf("%s: an event of its answer was too large",
		    where);
		x = MCP_X_TRANSPORT;
	} else if (r == HTTP_STOPPED && rd != NULL && rd->stop != MCP_X_OK)
		x = rd->stop;
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
	} else if (resp.status == 401 || (resp.status == 403 &&
	    resp.www_authenticate != NULL &&
	    strstr(resp.www_authenticate, "insufficient_scope") != NULL)) {
		/* The server wants a sign-in (oauth.h), or one with more
		 * scopes: the caller may get one and try again. */
		*err = xasprintf("%s asks to sign in (HTTP %ld)", where,
		    resp.status);
		if (auth != NULL) {
			*auth = resp.status;
			*www = xstrdup(resp.www_authenticate != NULL ?
			    resp.www_authenticate : "");
		}
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
	} else if (rd != NULL && rd->body != NULL && !rd->streaming)
		link->take(w, rd->body, rd->len);
	http_response_clear(&resp);
	http_free(h);
	cancel_destroy(&own);
	free(where);
	return x;
}

/*
 * POSTs text as mcp_http_once does, and when the server asks for a
 * sign-in (or for more scopes), gets one (oauth.h: a refreshed token, or
 * the person's sign-in, during which w's clock stands still) and POSTs
 * again: at most a sign-in and MCP_OAUTH_STEP_UPS more in one exchange.
 * io is held; the server's own stream never signs in.
 */
static enum mcp_x
mcp_http_signed(struct mcp_http *mh, const char *text, struct mcp_read *rd,
    struct cancel *cancel, char **err)
{
	struct mcp_link *link = mh->base.link;
	struct mcp_wait *w = rd->w;
	enum mcp_x x;
	long auth;
	char *www, *why = NULL, *where;
	int tries, step_ups = 0, own = mcp_own_auth(link);

	if (!own && !w->own_stream)
		mcp_oauth_prepare(mh->oauth, cancel != NULL ? cancel :
		    link->stop);
	for (tries = 0;; tries++) {
		x = mcp_http_once(mh, text, NULL, rd, cancel, link->until(w),
		    &auth, &www, err);
		if (auth != 0 && own) {
			/* No sign-in replaces the person's own header. */
			where = mcp_origin(json_string_value(json_object_get(
			    link->config, "url")));
			free(*err);
			*err = xasprintf("%s refused the Authorization header "
			    "your settings give it (HTTP %ld)", where, auth);
			free(where);
		}
		if (auth == 0 || w->own_stream || own ||
		    tries > MCP_OAUTH_STEP_UPS) {
			free(www);
			return x;
		}
		if (mcp_oauth_answer(mh->oauth, auth, www, step_ups,
		    cancel != NULL ? cancel : link->stop, link->asking,
		    link->asked_ms, &why) == -1) {
			free(www);
			where = mcp_origin(json_string_value(json_object_get(
			    link->config, "url")));
			free(*err);
			*err = xasprintf("%s %s", where, why);
			free(where);
			free(why);
			return MCP_X_TRANSPORT;
		}
		free(www);
		free(*err);
		*err = NULL;
		if (auth == 403)
			step_ups++;
	}
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
mcp_http_post(struct mcp_http *mh, const char *text, struct mcp_wait *w,
    struct cancel *cancel, char **err)
{
	struct mcp_read rd;
	int64_t deadline = w != NULL ? w->link->until(w) : clock_mono_ms() +
	    MCP_SEND_MS;
	enum mcp_x x;
	char *where, *seen;
	int idle = 0;
	long wait;
	struct pollfd p;

	if (w == NULL)
		return mcp_http_once(mh, text, NULL, NULL, cancel, deadline,
		    NULL, NULL, err);
	memset(&rd, 0, sizeof rd);
	rd.mh = mh;
	rd.w = w;
	cancel_reset(&mh->came);
	pthread_mutex_lock(w->link->lock);
	mh->asking = w;
	mh->relayed = 0;
	pthread_mutex_unlock(w->link->lock);
	(void)deadline;
	x = mcp_http_signed(mh, text, &rd, cancel, err);
	mcp_http_relay(mh, w);
	seen = xstrdup("");
	/* Resumed while a stream (or an empty answer after one) ended
	 * without the reply; progress is the last event id moving on. */
	while (x == MCP_X_OK && w->result == NULL && w->error == NULL &&
	    rd.sse != NULL && *sse_last_id(rd.sse) != '\0' &&
	    (rd.streaming || rd.body == NULL)) {
		idle = strcmp(sse_last_id(rd.sse), seen) != 0 ? 0 : idle + 1;
		free(seen);
		seen = xstrdup(sse_last_id(rd.sse));
		if (idle >= MCP_RESUME_MAX)
			break;
		wait = sse_retry_ms(rd.sse) >= 0 ? sse_retry_ms(rd.sse) :
		    MCP_RESUME_DEFAULT_MS;
		if (wait < MCP_RESUME_MIN_MS)
			wait = MCP_RESUME_MIN_MS;
		if (clock_mono_ms() + wait >= w->link->until(w)) {
			x = MCP_X_TIMEOUT;
			goto out;
		}
		p.fd = cancel != NULL ? cancel_fd(cancel) : -1;
		p.events = POLLIN;
		poll(&p, 1, (int)wait);
		if (cancel != NULL && cancel_fired(cancel)) {
			x = MCP_X_CANCELLED;
			goto out;
		}
		x = mcp_http_once(mh, NULL, seen, &rd, cancel,
		    w->link->until(w), NULL, NULL, err);
		mcp_http_relay(mh, w);
	}
	if (x == MCP_X_OK && w->result == NULL && w->error == NULL) {
		where = mcp_origin(json_string_value(json_object_get(
		    mh->base.link->config, "url")));
		*err = xasprintf("%s: the answer held no reply to request "
		    "%lld", where, (long long)w->id);
		free(where);
		x = MCP_X_TRANSPORT;
	}
out:
	pthread_mutex_lock(w->link->lock);
	mh->asking = NULL;
	json_decref(mh->relayed_result);
	json_decref(mh->relayed_error);
	mh->relayed_result = mh->relayed_error = NULL;
	mh->relayed = 0;
	pthread_mutex_unlock(w->link->lock);
	free(seen);
	mcp_read_clear(&rd);
	return x;
}

/* POSTs a request and reads its reply (mcp_transport_ops' request). */
static enum mcp_x
mcp_http_request(struct mcp_transport *t, const char *text,
    struct mcp_wait *w, char **err)
{
	return mcp_http_post((struct mcp_http *)t, text, w, w->cancel, err);
}

/* POSTs a notification, or an answer to the server's request; the
 * failure is logged. */
static void
mcp_http_send(struct mcp_transport *t, const char *text,
    struct cancel *cancel, int must)
{
	char *err = NULL;
	enum mcp_x x = mcp_http_post((struct mcp_http *)t, text, NULL,
	    cancel, &err);

	free(err);
	if (x != MCP_X_OK)
		log_printf("mcp: %s: a message could not be sent",
		    t->link->name);
}

/* --- the server's own stream --------------------------------------------- */

/* The server's own stream is opened again after its retry time, and
 * after at least the backoff, which starts at MIN, doubles each time a
 * stream ends before it LASTED, up to MAX. */
#define MCP_LISTEN_BACKOFF_MIN_MS	1000
#define MCP_LISTEN_LASTED_MS		10000
#define MCP_LISTEN_BACKOFF_MAX_MS	30000

/* One thread reading the server's own stream for one session. */
struct mcp_listener {
	struct mcp_http		*mh;
	struct cancel		 stop;		/* fired: end */
};

/*
 * Holds a GET open for what the server sends unasked, and acts on it as
 * on anything else it sends (link->take): opened again after the
 * stream's retry time (or a growing wait when it failed) while the
 * session lasts; ends when told, when the server answers the GET with
 * an error (it offers no such stream: 4xx, 501) or ends the session.
 */
static void *
mcp_listen(void *arg)
{
	struct mcp_listener *me = arg;
	struct mcp_http *mh = me->mh;
	struct mcp_link *link = mh->base.link;
	struct mcp_wait w;
	struct mcp_read rd;
	struct pollfd p;
	long backoff = MCP_LISTEN_BACKOFF_MIN_MS, wait;
	char *err = NULL, *last;
	int64_t opened;
	enum mcp_x x;

	memset(&w, 0, sizeof w);
	w.link = link;
	w.id = -1;
	w.own_stream = 1;
	w.cancel = &me->stop;
	memset(&rd, 0, sizeof rd);
	rd.mh = mh;
	rd.w = &w;
	while (!cancel_fired(&me->stop)) {
		opened = clock_mono_ms();
		/* A stream may be idle for hours; a day bounds one. */
		w.deadline = clock_mono_ms() + 24 * 3600 * 1000LL;
		w.asked_base = (int64_t)atomic_load(link->asked_ms);
		last = xstrdup(rd.sse != NULL ? sse_last_id(rd.sse) : "");
		x = mcp_http_once(mh, NULL, last, &rd, &me->stop, w.deadline,
		    NULL, NULL, &err);
		free(last);
		free(err);
		err = NULL;
		if (x == MCP_X_CANCELLED || cancel_fired(&me->stop) ||
		    x == MCP_X_DEAD)
			break;
		if ((rd.status >= 400 && rd.status < 500) ||
		    rd.status == 501) {
			log_printf("mcp: %s offers no stream of its own (HTTP "
			    "%ld to GET)", link->name, rd.status);
			break;
		}
		/* A stream that lasted is opened again at once (after its
		 * retry time); one that ended soon, ever more slowly, so
		 * that no server can make huddle spin. */
		backoff = clock_mono_ms() - opened >= MCP_LISTEN_LASTED_MS ?
		    MCP_LISTEN_BACKOFF_MIN_MS : backoff * 2 >
		    MCP_LISTEN_BACKOFF_MAX_MS ? MCP_LISTEN_BACKOFF_MAX_MS :
		    backoff * 2;
		wait = rd.sse != NULL && sse_retry_ms(rd.sse) > backoff ?
		    sse_retry_ms(rd.sse) : backoff;
		/* A stream that carried a call's reply stood for the call's
		 * resumed stream: its retry time holds, as for that one. */
		if (rd.relayed && rd.sse != NULL && sse_retry_ms(rd.sse) >= 0)
			wait = sse_retry_ms(rd.sse) > MCP_RESUME_MIN_MS ?
			    sse_retry_ms(rd.sse) : MCP_RESUME_MIN_MS;
		rd.relayed = 0;
		p.fd = cancel_fd(&me->stop);
		p.events = POLLIN;
		poll(&p, 1, (int)wait);
	}
	mcp_read_clear(&rd);
	json_decref(w.result);
	json_decref(w.error);
	pthread_mutex_lock(link->lock);
	if (mh->listening == me)
		mh->listening = NULL;
	cancel_destroy(&me->stop);
	free(me);
	mh->listeners--;
	pthread_cond_broadcast(link->changed);
	pthread_mutex_unlock(link->lock);
	return NULL;
}

/* Opens the server's own stream for its session, on a thread of its
 * own, when it has none (mcp_transport_ops' listen). */
static void
mcp_http_listen(struct mcp_transport *t)
{
	struct mcp_http *mh = (struct mcp_http *)t;
	struct mcp_listener *me;
	pthread_attr_t attr;
	pthread_t th;

	pthread_mutex_lock(t->link->lock);
	if (mh->listening != NULL || cancel_fired(t->link->stop)) {
		pthread_mutex_unlock(t->link->lock);
		return;
	}
	me = xcalloc(1, sizeof *me);
	me->mh = mh;
	cancel_init(&me->stop);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &attr, mcp_listen, me) == 0) {
		mh->listening = me;
		mh->listeners++;
	} else {
		cancel_destroy(&me->stop);
		free(me);
	}
	pthread_attr_destroy(&attr);
	pthread_mutex_unlock(t->link->lock);
}

/* Tells the thread of the session's own stream to end (it ends on its
 * own: it may be waiting for the person). */
static void
mcp_listen_stop(struct mcp_http *mh)
{
	pthread_mutex_lock(mh->base.link->lock);
	if (mh->listening != NULL)
		cancel_fire(&mh->listening->stop);
	mh->listening = NULL;
	pthread_mutex_unlock(mh->base.link->lock);
}

/* --- its life ------------------------------------------------------------ */

/* Nothing to start: a session begins with the answer to initialize. */
static int
mcp_http_start(struct mcp_transport *t, char **err)
{
	return 0;
}

/* Ends the session's own stream and forgets the session. */
static void
mcp_http_stop(struct mcp_transport *t)
{
	struct mcp_http *mh = (struct mcp_http *)t;

	mcp_listen_stop(mh);
	pthread_mutex_lock(t->link->lock);
	free(mh->session);
	mh->session = NULL;
	pthread_mutex_unlock(t->link->lock);
}

/* "http " and the scheme, host and port of its address. */
static char *
mcp_http_label(struct mcp_transport *t)
{
	char *origin = mcp_origin(json_string_value(json_object_get(
	    t->link->config, "url"))), *label;

	label = xasprintf("http %s", origin);
	free(origin);
	return label;
}

/* What /mcp says of its sign-in. */
static char *
mcp_http_signin_text(struct mcp_transport *t)
{
	return mcp_oauth_text(((struct mcp_http *)t)->oauth);
}

/* Forgets its sign-in. The session stays: the server ends it, or
 * answers the next request 401 and the person is asked again. */
static int
mcp_http_logout(struct mcp_transport *t)
{
	return mcp_oauth_logout(((struct mcp_http *)t)->oauth);
}

/* An HTTP server's side, with no session yet. */
static struct mcp_transport *
mcp_http_new(struct mcp_link *link)
{
	struct mcp_http *mh = xcalloc(1, sizeof *mh);

	mh->base.ops = &mcp_http_ops;
	mh->base.link = link;
	mh->oauth = mcp_oauth_new(link->name, link->config, link->launch);
	cancel_init(&mh->came);
	return &mh->base;
}

/* The threads of its own stream end once their GET does. */
static void
mcp_http_free(struct mcp_transport *t)
{
	struct mcp_http *mh = (struct mcp_http *)t;

	pthread_mutex_lock(t->link->lock);
	while (mh->listeners > 0)
		pthread_cond_wait(t->link->changed, t->link->lock);
	pthread_mutex_unlock(t->link->lock);
	cancel_destroy(&mh->came);
	mcp_oauth_free(mh->oauth);
	free(mh->session);
	free(mh);
}

const struct mcp_transport_ops mcp_http_ops = {
	.new = mcp_http_new,
	.start = mcp_http_start,
	.request = mcp_http_request,
	.send = mcp_http_send,
	.drain = NULL,
	.listen = mcp_http_listen,
	.held = NULL,
	.stop = mcp_http_stop,
	.tail = NULL,
	.signin_text = mcp_http_signin_text,
	.logout = mcp_http_logout,
	.label = mcp_http_label,
	.free = mcp_http_free,
};
