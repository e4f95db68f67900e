/*
 * The tables of final errors (see errors.h). A row matches an HTTP status
 * and, when it names one, an error type or code, or a phrase of the
 * message (some refusals differ only there); the first row that matches
 * gives the sentence. Anthropic's types are those of its error objects
 * (invalid_request_error, authentication_error, …); OpenAI's come as
 * `type` or `code` (invalid_api_key, model_not_found, …), which huddle
 * keeps as the result's error type.
 */
#include "config.h"

#include <string.h>

#include "llm/errors.h"

struct errors_row {
	int		 status;	/* 0: any */
	const char	*type;		/* NULL: any */
	const char	*phrase;	/* in the message; NULL: any */
	const char	*advice;
};

static const char KEY_ANTHROPIC[] = "check the API key "
    "(ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN, or the key in your "
    "settings): it is missing, mistyped or revoked";
static const char KEY_OPENAI[] = "check the API key (OPENAI_API_KEY, or "
    "the key in your settings): it is missing, mistyped or revoked";
static const char ACCESS[] = "the key may not do this: check the "
    "account's permissions for the model (and a gateway's access rules)";
static const char MODEL[] = "check the model's name (--model; huddle "
    "--models lists the ones it knows) and the base URL";
static const char TOO_LONG[] = "the conversation no longer fits the "
    "model's window: compact it (/compact NAME) or start afresh";
static const char TOO_LARGE[] = "the request is larger than the API takes: "
    "compact the agent (/compact NAME) or send less";
static const char POLICY[] = "the provider's usage policy refused the "
    "request: change what was asked";
static const char REQUEST[] = "the API refused the request as huddle built "
    "it: please report it, with the line above";
static const char BUSY[] = "the API stayed busy or failing through every "
    "retry: try again later, or give it longer (--retry-for)";

/* Anthropic's error types: invalid_request_error (400),
 * authentication_error (401), permission_error (403), not_found_error
 * (404), request_too_large (413), rate_limit_error (429), api_error
 * (500), timeout_error (504), overloaded_error (529). */
static const struct errors_row errors_anthropic[] = {
	{ 401, NULL, NULL, KEY_ANTHROPIC },
	{ 403, NULL, NULL, ACCESS },
	{ 404, NULL, NULL, MODEL },
	{ 413, NULL, NULL, TOO_LARGE },
	{ 400, NULL, "prompt is too long", TOO_LONG },
	{ 400, NULL, "usage policy", POLICY },
	{ 400, NULL, NULL, REQUEST },
	{ 429, NULL, NULL, BUSY },
	{ 0, "overloaded_error", NULL, BUSY },
	{ 0, "api_error", NULL, BUSY },
	{ 0, "timeout_error", NULL, BUSY },
};

/* OpenAI's: a type (invalid_request_error, …) or a code
 * (invalid_api_key, model_not_found, context_length_exceeded,
 * content_policy_violation, rate_limit_exceeded, server_error, …):
 * the type when both come, so most refusals are told apart by status or
 * by a phrase of the message.
 * insufficient_quota is final at once with a sentence of its own
 * (llm.c). Compatible servers send the same shapes, or none. */
static const struct errors_row errors_openai[] = {
	{ 401, NULL, NULL, KEY_OPENAI },
	{ 403, NULL, NULL, ACCESS },
	{ 404, NULL, NULL, MODEL },
	{ 0, "model_not_found", NULL, MODEL },
	{ 0, "context_length_exceeded", NULL, TOO_LONG },
	{ 400, NULL, "maximum context length", TOO_LONG },
	{ 0, "content_policy_violation", NULL, POLICY },
	{ 0, "content_filter", NULL, POLICY },
	{ 400, NULL, "safety system", POLICY },
	{ 400, NULL, "usage polic", POLICY },
	{ 400, NULL, NULL, REQUEST },
	{ 413, NULL, NULL, TOO_LARGE },
	{ 429, NULL, NULL, BUSY },
	{ 0, "server_error", NULL, BUSY },
	{ 500, NULL, NULL, BUSY },
	{ 502, NULL, NULL, BUSY },
	{ 503, NULL, NULL, BUSY },
};

static const char *
errors_find(const struct errors_row *rows, size_t n,
    const struct llm_result *r)
{
	const char *type = r->error_type ? r->error_type : "";
	const char *msg = r->error_message ? r->error_message : "";
	size_t i;

	for (i = 0; i < n; i++) {
		if (rows[i].status != 0 && rows[i].status != r->http_status)
			continue;
		if (rows[i].type != NULL && strcmp(rows[i].type, type) != 0)
			continue;
		if (rows[i].phrase != NULL && strstr(msg, rows[i].phrase) ==
		    NULL)
			continue;
		return rows[i].advice;
	}
	return NULL;
}

const char *
errors_advice(const struct llm_result *r)
{
	if (r->status != LLM_ERR_API || r->http_status == 0)
		return NULL;
	if (r->provider == LLM_ANTHROPIC)
		return errors_find(errors_anthropic,
		    sizeof errors_anthropic / sizeof *errors_anthropic,
		    r);
	return errors_find(errors_openai, sizeof errors_openai /
	    sizeof *errors_openai, r);
}
