/*
 * The LLM client: one provider-neutral call that sends a conversation to a
 * model and streams back what it writes.
 *
 * A conversation is Messages-API JSON (the transcript's own format): a
 * system prompt, messages of text, tool_use and tool_result blocks, and
 * tools with an input_schema. Each provider translates it to its wire
 * format (Anthropic Messages, OpenAI chat completions, OpenAI Responses)
 * or plays a script.
 *
 * One client belongs to one thread (it owns a CURL handle). Any thread, or
 * a signal handler, may cancel the call in progress with llm_cancel(): the
 * call then returns LLM_ERR_CANCELLED within 100 ms, whether it is
 * connecting, streaming or waiting to retry.
 */
#ifndef HUDDLE_LLM_LLM_H
#define HUDDLE_LLM_LLM_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

enum llm_provider_kind {
	LLM_ANTHROPIC,
	LLM_OPENAI,		/* chat completions (compatible servers) */
	LLM_RESPONSES,		/* OpenAI's own Responses API */
	LLM_SCRIPT
};

struct script;

/* What a request asks of the model's thinking (Anthropic). */
enum llm_thinking {
	LLM_THINKING_UNSET,	/* send nothing: the model's own default */
	LLM_THINKING_ADAPTIVE,	/* {"type":"adaptive"} */
	LLM_THINKING_DISABLED,	/* {"type":"disabled"} */
	LLM_THINKING_BUDGET,	/* {"type":"enabled","budget_tokens":N} */
	LLM_THINKING_BETWEEN_TOOLS /* {"type":"between_tools"}: no up-front
				 * thinking, where "disabled" is refused */
};

struct llm_config {
	enum llm_provider_kind	 provider;
	const char	*base_url;	/* Anthropic: no /v1; OpenAI: ends in /v1 */
	const char	*base_url_from;	/* what set it ("ANTHROPIC_BASE_URL",
					 * "--base-url", …), for errors; may
					 * be NULL */
	const char	*api_key;	/* never logged or shown */
	const char	*auth_token;	/* Anthropic: sent as a Bearer token
					 * (gateways); never logged or shown */
	const char	*model;
	const char	*agent;		/* sent as x-huddle-agent; may be NULL */
	int		 max_tokens;	/* default 4096 */
	enum llm_thinking thinking;	/* default LLM_THINKING_UNSET */
	int		 thinking_budget; /* LLM_THINKING_BUDGET's tokens */
	const char	*thinking_display; /* "summarized", "omitted", or NULL:
					 * sent as thinking.display */
	int		 thinking_words; /* the model puts the words it writes
					 * between tool calls in thinking
					 * blocks: report those as text */
	int		 forced_tool_choice; /* takes tool_choice any/tool; 1 */
	int		 reasons;	/* Responses: the model reasons, so its
					 * encrypted reasoning is asked for and
					 * an effort may be sent; 0: neither
					 * (the API refuses both) */
	const char	*reasoning_effort; /* Responses: "low", …; NULL: the
					 * model's default */
	int		 cache;		/* ask for prompt caching; 1 */
	int		 max_retries;	/* at most this many retries of a
					 * call; -1 (default): as many as
					 * retry_for_ms allows */
	int64_t		 retry_for_ms;	/* retry transient failures until
					 * this long after the call began;
					 * default 10 minutes; 0: never */
	int64_t		 retry_max_delay_ms; /* the longest computed wait
					 * between attempts; 40 s */
	int		 retry_streams;	/* a stream that breaks after its
					 * 200 is asked for again; 1 (0
					 * where its text cannot be taken
					 * back, as on --ask's stdout) */
	int		 stream;	/* default 1 */
	int64_t		 compact_trigger; /* Anthropic: compact on the server
					 * when the prompt passes this many
					 * tokens (>= 50,000); 0: never */
	long		 connect_timeout_ms;	/* default 10000 */
	long		 stall_timeout_s;	/* no bytes for this long: fail; 60 */
	struct script	*script;	/* LLM_SCRIPT: the scenario (shared) */
};

/* Fills c with the defaults above (provider anthropic, no URL/key/model). */
void llm_config_defaults(struct llm_config *c);

struct llm_request {
	const char	*system;	/* may be NULL */
	json_t		*messages;	/* [{role, content: [blocks]}] */
	json_t		*tools;		/* [{name, description, input_schema}]
					 * or NULL */
	const char	*tool_choice;	/* "auto", "none", "any", or NULL (the
					 * API's default, auto) */
};

enum llm_event_type {
	LLM_EV_TEXT,		/* text, len: a piece of the reply */
	LLM_EV_THINKING,	/* text, len: a piece of the model's thinking;
				 * redacted: an encrypted block (no text) */
	LLM_EV_TOOL,		/* tool_id, tool_name: a tool call begins */
	LLM_EV_RETRY		/* attempt failed (error); the next one, number
				 * attempt + 1, starts in delay_ms; with
				 * discard, what the failed attempt streamed
				 * is void (the next streams the reply anew) */
};

struct llm_event {
	enum llm_event_type	 type;
	const char		*text;
	size_t			 len;
	int			 redacted;
	const char		*tool_id;
	const char		*tool_name;
	int			 attempt;	/* the attempt that failed, 1.. */
	int64_t			 delay_ms;
	const char		*error;
	int			 discard;
};

/* Called on the calling thread while the reply streams in; the event and
 * its strings are valid only during the call. */
typedef void (*llm_event_fn)(void *ud, const struct llm_event *ev);

enum llm_status {
	LLM_OK,
	LLM_ERR_API,		/* the API answered with an error status */
	LLM_ERR_TRANSPORT,	/* connect failed, connection dropped, stall */
	LLM_ERR_STREAM,		/* the stream failed after a 200 */
	LLM_ERR_PARSE,		/* the response could not be understood */
	LLM_ERR_CANCELLED
};

/*
 * The tokens of one call. Input is split the way it is billed: `input`
 * is what was neither written to nor read from the prompt cache.
 */
struct llm_usage {
	int64_t	 input;
	int64_t	 output;
	int64_t	 cache_write_5m;	/* written to the cache, 5-minute TTL */
	int64_t	 cache_write_1h;	/* written with the 1-hour TTL */
	int64_t	 cache_read;		/* read from the cache */
	int64_t	 compaction_input;	/* a compaction on the server: the
					 * context it summarised, billed */
	int64_t	 compaction_output;	/* and the summary it wrote */
	int64_t	 compaction_cache_read;	/* what it read from the cache */
	int64_t	 compaction_cache_write; /* and wrote to it (5 minutes) */
};

struct llm_result {
	enum llm_status	 status;
	json_t		*message;	/* LLM_OK: {"role":"assistant",
					 * "content":[blocks as received]} */
	char		*stop_reason;	/* "end_turn", "tool_use", … */
	struct llm_usage usage;
	int		 http_status;	/* 0 when no response came */
	char		*error_type;	/* "rate_limit_error", "connection_error" */
	char		*error_message;
	char		*request_id;	/* the server's request-id header */
	json_t		*ratelimit;	/* the last response's rate-limit
					 * headers by name, or NULL */
	int		 attempts;
	enum llm_provider_kind provider; /* whose API answered */
	char		*where;		/* a failure to reach the API: its
					 * address and what set it, for the
					 * person; else NULL */
};

/* The context a compaction on the server read (its input, cached or
 * not), or 0 when the call had none. */
int64_t llm_compaction_read(const struct llm_usage *u);

/* Frees what a result holds and zeroes it. */
void llm_result_clear(struct llm_result *r);

/*
 * Returns a malloc'd one-line description of a failed result, e.g.
 * "HTTP 429 rate_limit_error: Too many requests (request-id req_…)",
 * followed, for a failure no wait cures, by what to check
 * (llm/errors.h): "…; check the API key (…)".
 */
char *llm_result_error_line(const struct llm_result *r);

/*
 * Whether a successful call ended in a refusal: the model declined to go
 * on (Anthropic's stop_reason "refusal", a Responses message made of a
 * refusal part). What it said is in the message; the conversation must
 * not carry the refused turn into the next request.
 */
int llm_refused(const struct llm_result *r);

/* Whether the call failed, or stopped, because the prompt did not fit
 * the model's context window: Anthropic's 400 "prompt is too long" or
 * stop reason model_context_window_exceeded, an OpenAI-compatible
 * server's context_length_exceeded. */
int llm_context_exceeded(const struct llm_result *r);

struct llm_client;

/* Creates a client for one thread. The config's strings must outlive it. */
struct llm_client *llm_client_new(const struct llm_config *c);
void llm_client_free(struct llm_client *cl);

/*
 * Sends the conversation and waits for the whole reply, calling fn (may be
 * NULL) as it streams. Retries transient failures (retry.h) within
 * retry_for_ms, announcing each wait with an LLM_EV_RETRY event; the wait
 * ends at once on llm_cancel. Always fills *res; returns 0 when
 * res->status is LLM_OK, else -1.
 */
int llm_call(struct llm_client *cl, const struct llm_request *req,
    llm_event_fn fn, void *ud, struct llm_result *res);

/*
 * Cancels the call in progress (and the next one, until llm_reset_cancel).
 * Safe from any thread and from a signal handler.
 */
void llm_cancel(struct llm_client *cl);

/* Clears a cancellation so the client can be used again. */
void llm_reset_cancel(struct llm_client *cl);

#endif
