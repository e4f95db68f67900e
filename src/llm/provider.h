/*
 * What an HTTP provider (Anthropic Messages, OpenAI chat completions and
 * Responses)
 * supplies to the client in llm.c: how to address and authenticate a
 * request, how to write its body, and how to read a streamed or whole
 * reply and an error body. The client does the HTTP, the SSE splitting and
 * the retries; a provider only translates.
 */
#ifndef HUDDLE_LLM_PROVIDER_H
#define HUDDLE_LLM_PROVIDER_H

#include <curl/curl.h>
#include <stddef.h>

#include "llm/llm.h"
#include "llm/turn.h"

/* stream_event() results. */
#define PROVIDER_MORE	0	/* keep reading */
#define PROVIDER_DONE	1	/* the reply is complete */
#define PROVIDER_FAIL	(-1)	/* res->status and error fields are set */

struct llm_provider {
	const char *name;

	/* The URL path appended to the base URL ("/v1/messages"). */
	const char *path;

	/* Appends the provider's headers (auth, version, content type). */
	struct curl_slist *(*headers)(const struct llm_config *c,
	    struct curl_slist *list);

	/* Returns the malloc'd JSON body for the request. */
	char *(*body)(const struct llm_config *c,
	    const struct llm_request *req);

	/*
	 * Handles one SSE event (`event` is "message" when the stream names
	 * none; `data` is NUL-terminated). Returns PROVIDER_MORE,
	 * PROVIDER_DONE or PROVIDER_FAIL.
	 */
	int (*stream_event)(struct llm_turn *t, const char *event,
	    const char *data, size_t len, struct llm_result *res);

	/* Reads a whole 200 body into the turn. Returns 0, or -1 with res
	 * filled (LLM_ERR_PARSE or LLM_ERR_API). */
	int (*parse_body)(struct llm_turn *t, const char *body, size_t len,
	    struct llm_result *res);

	/* Fills res->error_type and res->error_message from an error body
	 * (which may not be JSON at all). */
	void (*parse_error)(const char *body, size_t len,
	    struct llm_result *res);
};

/*
 * For an error body that is not the API's JSON (an HTML page from a
 * proxy, say): sets res->error_message to its first non-blank line, made
 * printable and cut to 200 bytes (utf8_clean). A blank body leaves res
 * untouched.
 */
void provider_error_text(struct llm_result *res, const char *body,
    size_t len);

extern const struct llm_provider provider_anthropic;
extern const struct llm_provider provider_openai;
extern const struct llm_provider provider_responses;

/*
 * Parses JSON from a server, forgiving what real servers send that
 * jansson refuses: a \u0000 escape in a string becomes U+FFFD (a NUL
 * would cut the text short), and invalid UTF-8 is repaired (U+FFFD) so an
 * error's text is not lost. Returns NULL with *err (may be NULL) when it
 * is not JSON at all.
 */
json_t *provider_json(const char *data, size_t len, json_error_t *err);

/* Ends an OpenAI-style request's body (root, stolen): the tools (stolen;
 * none when NULL) with their choice; returns the whole as compact text
 * (malloc'd). */
char *provider_body_text(json_t *root, json_t *tools,
    const struct llm_request *req);

/*
 * Records the usage object of an OpenAI-style reply: its input and output
 * counts under `in` and `out`, and the cached part of the input under
 * details.cached_tokens, which is split off as a cache read so that the
 * input counts only what was not cached, as on the Messages API. A
 * usage that is not an object records nothing.
 */
void provider_usage(struct llm_turn *t, json_t *usage, const char *in,
    const char *out, const char *details);

#endif
