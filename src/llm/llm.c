/*
 * The LLM client (see llm.h): builds the request through a provider, runs
 * it over HTTP, splits a streamed reply into SSE events for the provider,
 * and retries transient failures for as long as the config allows.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/cancel.h"
#include "util/clock.h"
#include "llm/errors.h"
#include "llm/http.h"
#include "llm/provider.h"
#include "llm/retry.h"
#include "llm/script.h"
#include "llm/sse.h"
#include "llm/turn.h"
#include "util/log.h"
#include "util/xmalloc.h"

struct llm_client {
	struct llm_config		 cfg;
	const struct llm_provider	*prov;	/* NULL: the script plays */
	struct cancel			 cancel;
	struct http			*http;
	unsigned int			 seed;	/* for retry jitter */
};

/* One attempt's streaming state. */
struct llm_attempt {
	const struct llm_provider	*prov;
	struct llm_turn			*turn;
	struct llm_result		*res;
	struct sse_parser		*sse;
	int				 done;	/* PROVIDER_DONE seen */
	int				 failed; /* PROVIDER_FAIL seen */
};

void
llm_config_defaults(struct llm_config *c)
{
	memset(c, 0, sizeof *c);
	c->provider = LLM_ANTHROPIC;
	c->max_tokens = 4096;
	c->cache = 1;
	c->max_retries = -1;
	c->retry_for_ms = RETRY_DEFAULT_FOR_MS;
	c->retry_max_delay_ms = RETRY_DEFAULT_CAP_MS;
	c->retry_streams = 1;
	c->stream = 1;
	c->forced_tool_choice = 1;
	c->connect_timeout_ms = 10000;
	c->stall_timeout_s = 60;
}

void
llm_result_clear(struct llm_result *r)
{
	json_decref(r->message);
	free(r->stop_reason);
	free(r->error_type);
	free(r->error_message);
	free(r->request_id);
	free(r->where);
	json_decref(r->ratelimit);
	memset(r, 0, sizeof *r);
}

/* The API's address as the person gave it, and what set it: "http://
 * 127.0.0.1:9 (ANTHROPIC_BASE_URL)" (malloc'd). Only scheme, host and
 * port: a gateway's address may carry a key in its path or query. */
static char *
llm_where(const struct llm_config *c)
{
	const char *url = c->base_url ? c->base_url : "", *host;
	size_t n;

	host = strstr(url, "://");
	host = host != NULL ? host + 3 : url;
	if (strchr(host, '@') != NULL && strchr(host, '@') < host +
	    strcspn(host, "/?#"))
		host = strchr(host, '@') + 1;
	n = strcspn(host, "/?#");
	return xasprintf("%.*s%.*s%s%s%s", (int)(strstr(url, "://") ?
	    strstr(url, "://") + 3 - url : 0), url, (int)n, host,
	    c->base_url_from ? " (" : "", c->base_url_from ?
	    c->base_url_from : "", c->base_url_from ? ")" : "");
}

/* The line of a failure; with `advise`, what to check after it (a
 * failure that is final; a retry's line has none). */
static char *
llm_error_text(const struct llm_result *r, int advise)
{
	char *status = r->http_status ? xasprintf("HTTP %d ", r->http_status)
	    : xstrdup("");
	char *rid = r->request_id ? xasprintf(" (request-id %s)",
	    r->request_id) : xstrdup("");
	const char *advice;
	char *line;

	switch (r->status) {
	case LLM_OK:
		line = xstrdup("no error");
		break;
	case LLM_ERR_CANCELLED:
		line = xstrdup("cancelled");
		break;
	case LLM_ERR_TRANSPORT:
		/* Where first: at 80 columns it is what shows. */
		if (r->where != NULL) {
			line = xasprintf("%s at %s: %s%s%s", r->error_type ?
			    r->error_type : "connection_error", r->where,
			    r->error_message ? r->error_message : "no answer",
			    rid, advise ? "; check the address and that the "
			    "server runs" : "");
			break;
		}
		/* FALLTHROUGH */
	default:
		advice = advise ? errors_advice(r) : NULL;
		line = xasprintf("%s%s%s%s%s%s%s", status,
		    r->error_type ? r->error_type : "error",
		    r->error_message ? ": " : "",
		    r->error_message ? r->error_message : "", rid,
		    advice ? "; " : "", advice ? advice : "");
		break;
	}
	free(status);
	free(rid);
	return line;
}

char *
llm_result_error_line(const struct llm_result *r)
{
	return llm_error_text(r, 1);
}

struct llm_client *
llm_client_new(const struct llm_config *c)
{
	struct llm_client *cl = xcalloc(1, sizeof *cl);

	cl->cfg = *c;
	switch (c->provider) {
	case LLM_ANTHROPIC:
		cl->prov = &provider_anthropic;
		break;
	case LLM_OPENAI:
		cl->prov = &provider_openai;
		break;
	case LLM_RESPONSES:
		cl->prov = &provider_responses;
		break;
	case LLM_SCRIPT:
		cl->prov = NULL;
		break;
	}
	cancel_init(&cl->cancel);
	if (cl->prov != NULL)
		cl->http = http_new(&cl->cancel);
	cl->seed = (unsigned int)time(NULL) ^ (unsigned int)(uintptr_t)cl;
	return cl;
}

void
llm_client_free(struct llm_client *cl)
{
	if (cl == NULL)
		return;
	http_free(cl->http);
	cancel_destroy(&cl->cancel);
	free(cl);
}

void
llm_cancel(struct llm_client *cl)
{
	cancel_fire(&cl->cancel);
}

void
llm_reset_cancel(struct llm_client *cl)
{
	cancel_reset(&cl->cancel);
}

/* Whether data holds nothing but blanks. */
static int
llm_blank(const char *data, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (data[i] != ' ' && data[i] != '\t' && data[i] != '\n' &&
		    data[i] != '\r')
			return 0;
	return 1;
}

static int
llm_on_sse(void *ud, const char *event, const char *data, size_t len)
{
	struct llm_attempt *a = ud;
	int rc;

	if (a->done || a->failed)
		return 0;
	/* An event with empty data is a proxy's keep-alive: skipped, as
	 * the SDKs skip it. */
	if (llm_blank(data, len))
		return 0;
	rc = a->prov->stream_event(a->turn, event, data, len, a->res);
	if (rc == PROVIDER_DONE)
		a->done = 1;
	else if (rc == PROVIDER_FAIL) {
		a->failed = 1;
		return 1;
	}
	return 0;
}

static int
llm_on_data(void *ud, const char *buf, size_t len)
{
	struct llm_attempt *a = ud;
	int rc = sse_feed(a->sse, buf, len);

	if (rc == -1 && !a->failed) {
		a->failed = 1;
		a->res->status = LLM_ERR_STREAM;
		a->res->error_type = xstrdup("invalid_response");
		a->res->error_message = xstrdup("a stream event exceeds the "
		    "size limit");
	}
	return rc != 0;
}

static struct curl_slist *
llm_headers(const struct llm_client *cl)
{
	const struct llm_config *c = &cl->cfg;
	struct curl_slist *h = cl->prov->headers(c, NULL);

	h = curl_slist_append(h, "content-type: application/json");
	h = curl_slist_append(h, c->stream ? "accept: text/event-stream" :
	    "accept: application/json");
	if (c->agent != NULL) {
		char *line = xasprintf("x-huddle-agent: %s", c->agent);

		h = curl_slist_append(h, line);
		free(line);
	}
	return h;
}

/* The headers of attempt n: the shared ones plus the SDKs' retry count
 * (0 on the first attempt). */
static struct curl_slist *
llm_attempt_headers(const struct curl_slist *base, int n)
{
	struct curl_slist *h = NULL;
	char line[64];

	for (; base != NULL; base = base->next)
		h = curl_slist_append(h, base->data);
	snprintf(line, sizeof line, "x-stainless-retry-count: %d", n);
	return curl_slist_append(h, line);
}

/*
 * A 429 that waiting will not pass: Anthropic's spent monthly budget
 * (error.details.error_code "enforced_spend_limit_reached") and OpenAI's
 * account without credit (error.code or error.type
 * "insufficient_quota"). Returns the sentence that says what to do, or
 * NULL for a 429 that is a rate limit.
 */
static const char *
llm_quota_spent(const struct http_response *resp)
{
	json_t *doc = provider_json(resp->body ? resp->body : "", resp->len,
	    NULL), *err = json_object_get(doc, "error");
	const char *detail = json_string_value(json_object_get(
	    json_object_get(err, "details"), "error_code"));
	const char *code = json_string_value(json_object_get(err, "code"));
	const char *type = json_string_value(json_object_get(err, "type"));
	const char *why = NULL;

	if (detail != NULL && strcmp(detail, "enforced_spend_limit_reached") ==
	    0)
		why = "the organisation's spend limit is reached; waiting will "
		    "not pass it: raise the limit in the Anthropic Console "
		    "(Limits), then try again";
	else if ((code != NULL && strcmp(code, "insufficient_quota") == 0) ||
	    (type != NULL && strcmp(type, "insufficient_quota") == 0))
		why = "the OpenAI account has no credit left; waiting will not "
		    "bring it back: add credit in the platform's billing "
		    "settings, then try again";
	json_decref(doc);
	return why;
}

static void
llm_set(char **slot, const char *value)
{
	free(*slot);
	*slot = xstrdup_or_null(value);
}

/*
 * Runs one attempt. Returns 1 when the attempt may be retried (res says
 * why it failed), 0 when res is final (success or a final failure).
 */
static int
llm_attempt(struct llm_client *cl, const char *url, struct curl_slist *hdrs,
    const char *body, llm_event_fn fn, void *ud, struct llm_result *res,
    struct http_response *resp)
{
	struct llm_attempt a = { cl->prov, turn_new(fn, ud), res, NULL, 0, 0 };
	const struct llm_config *c = &cl->cfg;
	enum http_result hr;
	const char *spent;
	char *why;
	int retry = 0;

	turn_words_in_thinking(a.turn, c->thinking_words);

	if (c->stream)
		a.sse = sse_new(llm_on_sse, &a);
	/* A whole reply sends nothing until it is done: allow it the SDKs'
	 * ten minutes rather than the stream's stall limit. */
	hr = http_post(cl->http, url, hdrs, body, strlen(body),
	    c->connect_timeout_ms, c->stream ? c->stall_timeout_s :
	    (c->stall_timeout_s > 600 ? c->stall_timeout_s : 600), c->stream ?
	    llm_on_data : NULL, &a, resp);
	res->http_status = (int)resp->status;
	llm_set(&res->request_id, resp->request_id);
	json_decref(res->ratelimit);
	res->ratelimit = json_incref(resp->ratelimit);

	if (hr == HTTP_CANCELLED) {
		res->status = LLM_ERR_CANCELLED;
		llm_set(&res->error_type, "cancelled");
		llm_set(&res->error_message, "the call was cancelled");
	} else if (resp->status >= 200 && resp->status < 300) {
		if (a.failed)
			/* The provider filled res: an error event of a
			 * passing kind is retried, a bad stream is not. */
			retry = c->retry_streams &&
			    retry_stream_error(res->error_type);
		else if (c->stream && a.done)
			turn_finish(a.turn, res);
		else if (c->stream) {
			/* The stream ended (or broke) before its end: the
			 * reply starts again from the top. */
			res->status = LLM_ERR_STREAM;
			llm_set(&res->error_type, resp->timed_out ?
			    "timeout_error" : "connection_error");
			free(res->error_message);
			res->error_message = hr == HTTP_TRANSPORT ?
			    xasprintf("the stream broke off: %s", resp->error) :
			    xstrdup("the stream ended before the reply was "
			    "complete");
			retry = c->retry_streams;
		} else if (hr == HTTP_TRANSPORT) {
			res->status = LLM_ERR_TRANSPORT;
			llm_set(&res->error_type, "connection_error");
			llm_set(&res->error_message, resp->error);
			free(res->where);
			res->where = llm_where(&cl->cfg);
			retry = 1;
		} else if (cl->prov->parse_body(a.turn, resp->body ?
		    resp->body : "", resp->len, res) == 0)
			turn_finish(a.turn, res);
	} else if (resp->status == 0 || hr == HTTP_TRANSPORT) {
		res->status = LLM_ERR_TRANSPORT;
		llm_set(&res->error_type, resp->timed_out ? "timeout_error" :
		    "connection_error");
		llm_set(&res->error_message, resp->error);
		free(res->where);
		res->where = llm_where(&cl->cfg);
		retry = retry_should(0, NULL);
	} else {
		res->status = LLM_ERR_API;
		llm_set(&res->error_type, NULL);
		llm_set(&res->error_message, NULL);
		cl->prov->parse_error(resp->body ? resp->body : "", resp->len,
		    res);
		retry = retry_should(resp->status, resp->should_retry);
		if (resp->status == 429 && (spent = llm_quota_spent(resp)) !=
		    NULL) {
			why = xasprintf("%s (%s)", spent, res->error_message !=
			    NULL ? res->error_message : "429");
			free(res->error_message);
			res->error_message = why;
			retry = 0;
		}
	}
	sse_free(a.sse);
	turn_free(a.turn);
	return retry;
}

/* Passes an attempt's events on, noting whether it showed anything: a
 * retry after a reply began to stream says that reply is void. */
struct llm_relay {
	llm_event_fn	 fn;
	void		*ud;
	int		 shown;
};

static void
llm_relay_event(void *ud, const struct llm_event *ev)
{
	struct llm_relay *r = ud;

	r->shown = 1;
	if (r->fn != NULL)
		r->fn(r->ud, ev);
}

int
llm_call(struct llm_client *cl, const struct llm_request *req,
    llm_event_fn fn, void *ud, struct llm_result *res)
{
	const struct llm_config *c = &cl->cfg;
	struct retry_policy policy;
	struct curl_slist *hdrs;
	char *url, *body;
	int64_t began = clock_mono_ms();
	struct llm_relay relay = { NULL, NULL, 0 };
	int attempt;

	memset(res, 0, sizeof *res);
	if (cl->prov == NULL)
		return script_play(c->script, c->agent, req, &cl->cancel, fn,
		    ud, res);

	relay.fn = fn;
	relay.ud = ud;
	retry_policy_defaults(&policy);
	policy.budget_ms = c->retry_for_ms;
	policy.max_retries = c->max_retries;
	if (c->retry_max_delay_ms > 0)
		policy.cap_ms = c->retry_max_delay_ms;
	url = xasprintf("%s%s", c->base_url, cl->prov->path);
	body = cl->prov->body(c, req);
	hdrs = llm_headers(cl);
	for (attempt = 1;; attempt++) {
		struct http_response resp;
		struct llm_event ev = { .type = LLM_EV_RETRY };
		struct curl_slist *ah = llm_attempt_headers(hdrs, attempt - 1);
		char *why;
		int retry;

		/* Each attempt starts from a clean result. */
		llm_result_clear(res);
		res->attempts = attempt;
		relay.shown = 0;
		retry = llm_attempt(cl, url, ah, body, llm_relay_event,
		    &relay, res, &resp);
		curl_slist_free_all(ah);
		if (retry)
			ev.delay_ms = retry_next_ms(&policy, attempt - 1,
			    clock_mono_ms() - began, retry_server_ms(
			    resp.retry_after_ms, resp.retry_after, time(NULL)),
			    (double)rand_r(&cl->seed) / ((double)RAND_MAX +
			    1.0));
		if (!retry || ev.delay_ms < 0) {
			http_response_clear(&resp);
			break;
		}
		ev.attempt = attempt;
		ev.discard = relay.shown;
		why = llm_error_text(res, 0);
		ev.error = why;
		log_printf("llm %s: attempt %d failed: %s; retrying in %lld ms",
		    c->agent ? c->agent : "-", attempt, why,
		    (long long)ev.delay_ms);
		if (fn != NULL)
			fn(ud, &ev);
		free(why);
		http_response_clear(&resp);
		/* Never a plain sleep: a cancel ends the wait at once. */
		if (cancel_sleep(&cl->cancel, ev.delay_ms) == -1) {
			res->status = LLM_ERR_CANCELLED;
			llm_set(&res->error_type, "cancelled");
			llm_set(&res->error_message, "the call was cancelled");
			break;
		}
	}
	curl_slist_free_all(hdrs);
	free(body);
	free(url);
	res->provider = c->provider;
	return res->status == LLM_OK ? 0 : -1;
}

int64_t
llm_compaction_read(const struct llm_usage *u)
{
	return (u->compaction_input > 0 ? u->compaction_input : 0) +
	    (u->compaction_cache_read > 0 ? u->compaction_cache_read : 0) +
	    (u->compaction_cache_write > 0 ? u->compaction_cache_write : 0);
}

int
llm_refused(const struct llm_result *r)
{
	return r->status == LLM_OK && r->stop_reason != NULL &&
	    strcmp(r->stop_reason, "refusal") == 0;
}

int
llm_context_exceeded(const struct llm_result *r)
{
	const char *msg = r->error_message ? r->error_message : "";
	const char *type = r->error_type ? r->error_type : "";

	if (r->status == LLM_OK)
		return r->stop_reason != NULL && strcmp(r->stop_reason,
		    "model_context_window_exceeded") == 0;
	if (r->status != LLM_ERR_API)
		return 0;
	return strstr(msg, "prompt is too long") != NULL ||
	    strcmp(type, "context_length_exceeded") == 0 ||
	    strstr(msg, "context_length_exceeded") != NULL ||
	    strstr(msg, "maximum context length") != NULL;
}
