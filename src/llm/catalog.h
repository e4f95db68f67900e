/*
 * The model catalog: what huddle knows about each model it may talk to —
 * its context window and largest output, how it thinks, whether it takes
 * sampling parameters, whether the server compacts for it, and its prices.
 *
 * The facts live in a data file, data/models.json (doc/models.md says
 * where each comes from), built into the program and replaceable at run
 * time with --catalog FILE; a person's own catalog (catalog_user.c) adds
 * models or changes fields on top of it. A model the catalog does not
 * know still works: with the limits and rules of its family's nearest
 * entry where its name tells the family (claude-opus-…, gpt-…), else
 * with the defaults of the file's "unknown_model" entry; either way with
 * no price unless the person gives one (--price).
 *
 * A catalog is read once, before any thread starts, and only read after.
 */
#ifndef HUDDLE_LLM_CATALOG_H
#define HUDDLE_LLM_CATALOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "llm/llm.h"

/* How a model thinks. */
enum model_thinking {
	MODEL_THINKING_NONE,		/* it does not */
	MODEL_THINKING_MANUAL,		/* only {type: enabled, budget} */
	MODEL_THINKING_ADAPTIVE		/* {type: adaptive} */
};

/* How a model's up-front thinking is turned off. */
enum model_thinking_off {
	MODEL_OFF_DISABLED,		/* {type: disabled} */
	MODEL_OFF_BETWEEN_TOOLS,	/* {type: between_tools} */
	MODEL_OFF_IMPOSSIBLE		/* it always thinks */
};

/* US dollars per million tokens. */
struct model_rates {
	double	 input;
	double	 output;
	double	 cache_write_5m;
	double	 cache_write_1h;
	double	 cache_read;
};

/* A model's prices: one band, or a second one for every token of a call
 * whose prompt (input, cache reads and writes) is longer than long_above. */
struct model_prices {
	double			 input;
	double			 output;
	double			 cache_write_5m;
	double			 cache_write_1h;
	double			 cache_read;
	int64_t			 long_above;	/* 0: no second band */
	struct model_rates	 long_rates;
};

/* Where a figure was read: a page's title and address, and the day. */
struct model_source {
	const char	*title;		/* "" when not recorded */
	const char	*url;
	const char	*checked;	/* "YYYY-MM-DD" or "" */
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
	enum model_thinking_off	 thinking_off;
	int			 thinking_budget; /* takes budget_tokens */
	int			 thinking_display; /* takes thinking.display */
	int			 words_in_thinking; /* its words between tool
						 * calls come in thinking */
	int			 forced_tool_choice; /* takes tool_choice
						 * any / tool */
	int			 sampling_params;
	int			 compaction;
	int64_t			 cache_min_tokens;
	const char		*reasoning_effort; /* OpenAI: the effort asked
						 * for by default, or NULL */
	struct model_prices	 prices;	/* all 0 when unknown */
	const char		*retires;	/* "YYYY-MM-DD", or "" */
	const char		*replacement;	/* the successor's id, or "" */
	struct model_source	 source;	/* window, output, status */
	struct model_source	 prices_source;
	const char		*origin;	/* "built-in", "user file" or
						 * "built-in, changed by user
						 * file" */
	const char		*family;	/* not in the catalog: the id of
						 * the entry whose limits and
						 * rules it took, or NULL */
};

struct catalog;

/*
 * Reads the catalog from `path`, or the built-in copy when path is NULL.
 * Returns NULL with *err (malloc'd) naming the file and what is wrong.
 */
struct catalog *catalog_load(const char *path, char **err);

/*
 * Reads the catalog as catalog_load does, then the person's catalog at
 * `user` over it (catalog_user.c; none when user is NULL or the file does
 * not exist). A user file that cannot be read or used is an error naming
 * it.
 */
struct catalog *catalog_open(const char *path, const char *user,
    char **err);
void catalog_free(struct catalog *c);

/* The default model's id (the current Sonnet). */
const char *catalog_default_model(const struct catalog *c);

/*
 * Fills *out for model `id` (an id, an alias, or an id with a date suffix,
 * -YYYYMMDD or -YYYY-MM-DD, the catalog lists without one). Returns 1 when
 * the catalog knows it; else 0, with out->id = id and no price, and the
 * window, largest output and thinking rules of its family's entry
 * (out->family names it) where the name tells the family: of the entries
 * whose ids start as its does (claude-opus-, claude-sonnet-, gpt-, …;
 * for gpt- and o- the same tier word, sol, mini …, where one has it),
 * the newest that is not newer than it by the version in the id. A model
 * older than every entry of its family, or of none, gets the
 * unknown-model defaults. The strings belong to the catalog and to `id`.
 */
int catalog_lookup(const struct catalog *c, const char *id,
    struct model_info *out);

/*
 * The model a family word names: "opus", "sonnet" or "haiku" is the
 * catalog's first current model of that family (catalog_alias.c); any
 * other name is returned as it is (the catalog may know it, or its
 * dated form). Used wherever a person or a role names a model.
 */
const char *catalog_alias(const struct catalog *c, const char *name);

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
	int			 display_omitted; /* no thinking summaries */
	const char		*reasoning_effort; /* replaces the catalog's */
	int			 budget;	/* a spending limit is set */
	int			 priced;	/* --price was given: */
	double			 price_in;	/* US dollars per million */
	double			 price_out;	/* input / output tokens */
};

/*
 * The price of a model the catalog has none for (input and output both
 * 0): the person's --price, when given, becomes m's (input, cache reads
 * and cache writes at IN, output at OUT). Returns 0; or -1 with *err
 * (malloc'd) when m has no price, none was given and a spending limit is
 * set, which could not count what m spends.
 */
int catalog_price(struct model_info *m, const struct model_choice *choice,
    char **err);

/* For a model the catalog does not know: a sentence saying so and what
 * huddle assumes of it, its window, output, thinking and price
 * (malloc'd). */
char *catalog_assumed(const struct model_info *m);

/*
 * Sets cfg's max_tokens, thinking and streaming for model m and the
 * person's choice, within the model's rules: adaptive thinking where the
 * model has it, nothing where it does not; "off" as the model turns
 * thinking off (between_tools where disabled is refused), refused where
 * it always thinks; a budget only where the model takes one; summarised
 * thinking asked for where it takes a display (unless the person chose
 * omitted); a forced tool choice never sent where it is refused;
 * max_tokens the model's largest output (capped), and no more than a
 * whole, unstreamed reply may hold when cfg asks for no stream. Returns
 * 0, or -1 with *err (malloc'd) when the choice cannot work with this
 * model, or when the model is retired (catalog_life).
 */
int catalog_configure(const struct model_info *m,
    const struct model_choice *choice, struct llm_config *cfg, char **err);

/* What one call's usage costs at these prices, in US dollars: the
 * second band, where there is one, when the call's prompt is above it. */
double catalog_cost(const struct model_prices *p, const struct llm_usage *u);

/* Days before a retirement from which huddle warns at start. */
#define CATALOG_RETIRING_DAYS	30

enum catalog_life {
	CATALOG_SERVED,		/* no retirement near */
	CATALOG_RETIRING,	/* within CATALOG_RETIRING_DAYS */
	CATALOG_RETIRED		/* requests to it fail */
};

/*
 * Where model m stands on day `now` (UTC): retired from its retirement
 * date on. For RETIRING and RETIRED, *msg (malloc'd) says so and names
 * the replacement.
 */
enum catalog_life catalog_life(const struct model_info *m, time_t now,
    char **msg);

/* --models: the catalog as a table, each model followed by where its
 * figures come from (catalog_print.c). */
void catalog_print(FILE *out, const struct catalog *c, time_t now);

/* The built-in catalog's text (generated from data/models.json). */
extern const char catalog_builtin[];

#endif
