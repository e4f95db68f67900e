/*
 * The model catalog: what huddle knows about each model it may talk to —
 * its context window and largest output, how it thinks, whether it takes
 * sampling parameters, whether the server compacts for it, and its prices.
 *
 * The facts live in a data file, data/models.json (doc/models.md says
 * where each comes from), built into the program and replaceable at run
 * time with --catalog FILE. A model the catalog does not know still works,
 * with the conservative defaults of the file's "unknown_model" entry.
 *
 * A catalog is read once, before any thread starts, and only read after.
 */
#ifndef HUDDLE_LLM_CATALOG_H
#define HUDDLE_LLM_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#include "llm/llm.h"

/* How a model thinks. */
enum model_thinking {
	MODEL_THINKING_NONE,		/* it does not */
	MODEL_THINKING_MANUAL,		/* only {type: enabled, budget} */
	MODEL_THINKING_ADAPTIVE		/* {type: adaptive} */
};

/* US dollars per million tokens. */
struct model_prices {
	double	 input;
	double	 output;
	double	 cache_write_5m;
	double	 cache_write_1h;
	double	 cache_read;
};

struct model_info {
	const char		*id;		/* as asked for */
	const char		*name;		/* "Claude Sonnet 5.5"; or id */
	const char		*provider;	/* "anthropic", "openai", … */
	const char		*status;	/* "current", "legacy", "" */
	int			 known;		/* in the catalog */
	int64_t			 context_window;
	int64_t			 max_output;
	enum model_thinking	 thinking;
	int			 thinking_always_on;
	int			 sampling_params;
	int			 compaction;
	int64_t			 cache_min_tokens;
	const char		*reasoning_effort; /* OpenAI: the effort asked
						 * for by default, or NULL */
	struct model_prices	 prices;	/* all 0 when unknown */
};

struct catalog;

/*
 * Reads the catalog from `path`, or the built-in copy when path is NULL.
 * Returns NULL with *err (malloc'd) naming the file and what is wrong.
 */
struct catalog *catalog_load(const char *path, char **err);
void catalog_free(struct catalog *c);

/* The default model's id (the current Sonnet). */
const char *catalog_default_model(const struct catalog *c);

/*
 * Fills *out for model `id` (an id, an alias, or an id with a date suffix
 * the catalog lists without one). Returns 1 when the catalog knows it;
 * else 0, with the unknown-model defaults and out->id = id. The strings
 * belong to the catalog and to `id`.
 */
int catalog_lookup(const struct catalog *c, const char *id,
    struct model_info *out);

/* The models in the catalog's order, for --models. */
size_t catalog_count(const struct catalog *c);
const struct model_info *catalog_model(const struct catalog *c, size_t i);

/* What the person chose on the command line; a zero field keeps what the
 * catalog says. */
struct model_choice {
	enum llm_thinking	 thinking;	/* UNSET: the model's default */
	int			 thinking_budget; /* LLM_THINKING_BUDGET's */
	int64_t			 max_tokens;	/* caps the model's output */
	int64_t			 context_window; /* replaces the catalog's */
	const char		*reasoning_effort; /* replaces the catalog's */
};

/*
 * Sets cfg's max_tokens, thinking and streaming for model m and the
 * person's choice: adaptive thinking where the model has it, nothing where
 * it does not; max_tokens the model's largest output (capped), and no more
 * than a whole, unstreamed reply may hold when cfg asks for no stream.
 * Returns 0, or -1 with *err (malloc'd) when the choice cannot work with
 * this model.
 */
int catalog_configure(const struct model_info *m,
    const struct model_choice *choice, struct llm_config *cfg, char **err);

/* What usage costs at these prices, in US dollars. */
double catalog_cost(const struct model_prices *p, const struct llm_usage *u);

/* The built-in catalog's text (generated from data/models.json). */
extern const char catalog_builtin[];

#endif
