/*
 * Reading the model catalog (see catalog.h). The file is checked whole
 * when it is read: a catalog with a bad entry is refused with the entry
 * and field named, rather than half used.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "llm/catalog.h"
#include "util/xmalloc.h"

struct catalog {
	json_t			*doc;
	struct model_info	*models;
	size_t			 n;
	json_t			*aliases;	/* {alias: index} */
	const char		*default_model;
	struct model_info	 unknown;
};

static const char *const catalog_thinking_names[] = {
	[MODEL_THINKING_NONE] = "none",
	[MODEL_THINKING_MANUAL] = "manual",
	[MODEL_THINKING_ADAPTIVE] = "adaptive",
};

/* Reads a non-negative integer field; -1 with *why when it is wrong. */
static int
catalog_int(json_t *o, const char *key, int64_t *out, int need,
    const char **why)
{
	json_t *v = json_object_get(o, key);

	if (v == NULL && !need)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0) {
		*why = key;
		return -1;
	}
	*out = (int64_t)json_integer_value(v);
	return 0;
}

static int
catalog_bool(json_t *o, const char *key, int *out, const char **why)
{
	json_t *v = json_object_get(o, key);

	if (v == NULL)
		return 0;
	if (!json_is_boolean(v)) {
		*why = key;
		return -1;
	}
	*out = json_is_true(v);
	return 0;
}

static int
catalog_price(json_t *prices, const char *key, double *out,
    const char **why)
{
	json_t *v = json_object_get(prices, key);

	if (v == NULL)
		return 0;
	if (!json_is_number(v) || json_number_value(v) < 0) {
		*why = key;
		return -1;
	}
	*out = json_number_value(v);
	return 0;
}

/* Reads the fields shared by a model and the unknown-model defaults. */
static int
catalog_fields(json_t *o, struct model_info *m, int need, const char **why)
{
	json_t *v = json_object_get(o, "thinking"), *prices;
	size_t k;

	if (catalog_int(o, "context_window", &m->context_window, need,
	    why) == -1 || catalog_int(o, "max_output", &m->max_output, need,
	    why) == -1 || catalog_int(o, "cache_min_tokens",
	    &m->cache_min_tokens, 0, why) == -1 ||
	    catalog_bool(o, "thinking_always_on", &m->thinking_always_on,
	    why) == -1 || catalog_bool(o, "sampling_params",
	    &m->sampling_params, why) == -1 || catalog_bool(o, "compaction",
	    &m->compaction, why) == -1)
		return -1;
	if (m->context_window == 0 || m->max_output == 0) {
		*why = m->context_window == 0 ? "context_window" :
		    "max_output";
		return -1;
	}
	if (v != NULL) {
		for (k = 0; k < sizeof catalog_thinking_names /
		    sizeof *catalog_thinking_names; k++) {
			if (json_is_string(v) && strcmp(json_string_value(v),
			    catalog_thinking_names[k]) == 0)
				break;
		}
		if (k == sizeof catalog_thinking_names /
		    sizeof *catalog_thinking_names) {
			*why = "thinking";
			return -1;
		}
		m->thinking = (enum model_thinking)k;
	}
	prices = json_object_get(o, "prices");
	if (prices != NULL && !json_is_object(prices)) {
		*why = "prices";
		return -1;
	}
	return catalog_price(prices, "input", &m->prices.input, why) |
	    catalog_price(prices, "output", &m->prices.output, why) |
	    catalog_price(prices, "cache_write_5m", &m->prices.cache_write_5m,
	    why) | catalog_price(prices, "cache_write_1h",
	    &m->prices.cache_write_1h, why) | catalog_price(prices,
	    "cache_read", &m->prices.cache_read, why);
}

static const char *
catalog_str(json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : dflt;
}

/* Checks and indexes the parsed document. */
static int
catalog_read(struct catalog *c, char **err)
{
	json_t *models = json_object_get(c->doc, "models"), *o, *a;
	const char *why = NULL;
	size_t i, k;

	c->default_model = json_string_value(json_object_get(c->doc,
	    "default_model"));
	if (c->default_model == NULL || !json_is_array(models) ||
	    json_array_size(models) == 0) {
		*err = xstrdup("it needs \"default_model\" and a non-empty "
		    "\"models\" list");
		return -1;
	}
	/* What an unknown model gets: a modest window, no thinking. */
	c->unknown.context_window = 200000;
	c->unknown.max_output = 8192;
	c->unknown.sampling_params = 1;
	c->unknown.name = c->unknown.provider = c->unknown.status = "";
	if ((o = json_object_get(c->doc, "unknown_model")) != NULL &&
	    (!json_is_object(o) || catalog_fields(o, &c->unknown, 0,
	    &why) == -1)) {
		*err = xasprintf("unknown_model: bad %s", why ? why :
		    "entry");
		return -1;
	}
	c->n = json_array_size(models);
	c->models = xcalloc(c->n, sizeof *c->models);
	c->aliases = json_object();
	json_array_foreach(models, i, o) {
		struct model_info *m = &c->models[i];

		m->id = json_string_value(json_object_get(o, "id"));
		if (!json_is_object(o) || m->id == NULL || *m->id == '\0') {
			*err = xasprintf("models[%zu]: no \"id\"", i);
			return -1;
		}
		m->known = 1;
		m->name = catalog_str(o, "name", m->id);
		m->provider = catalog_str(o, "provider", "anthropic");
		m->status = catalog_str(o, "status", "");
		m->reasoning_effort = catalog_str(o, "reasoning_effort", NULL);
		m->sampling_params = 1;
		if (catalog_fields(o, m, 1, &why) == -1) {
			*err = xasprintf("model %s: missing or bad %s", m->id,
			    why);
			return -1;
		}
		if (json_object_get(c->aliases, m->id) != NULL) {
			*err = xasprintf("model %s is listed twice", m->id);
			return -1;
		}
		json_object_set_new(c->aliases, m->id, json_integer(
		    (json_int_t)i));
		json_array_foreach(json_object_get(o, "aliases"), k, a) {
			if (json_is_string(a))
				json_object_set_new(c->aliases,
				    json_string_value(a), json_integer(
				    (json_int_t)i));
		}
	}
	if (json_object_get(c->aliases, c->default_model) == NULL) {
		*err = xasprintf("default_model %s is not in the list",
		    c->default_model);
		return -1;
	}
	return 0;
}

struct catalog *
catalog_load(const char *path, char **err)
{
	struct catalog *c = xcalloc(1, sizeof *c);
	json_error_t jerr;
	char *why = NULL;

	c->doc = path != NULL ? json_load_file(path, 0, &jerr) :
	    json_loads(catalog_builtin, 0, &jerr);
	if (c->doc == NULL) {
		*err = xasprintf("model catalog %s: line %d: %s", path ? path :
		    "(built in)", jerr.line, jerr.text);
		catalog_free(c);
		return NULL;
	}
	if (catalog_read(c, &why) == -1) {
		*err = xasprintf("model catalog %s: %s", path ? path :
		    "(built in)", why);
		free(why);
		catalog_free(c);
		return NULL;
	}
	return c;
}

void
catalog_free(struct catalog *c)
{
	if (c == NULL)
		return;
	free(c->models);
	json_decref(c->aliases);
	json_decref(c->doc);
	free(c);
}

const char *
catalog_default_model(const struct catalog *c)
{
	return c->default_model;
}

/* The index of id, or -1. */
static long
catalog_index(const struct catalog *c, const char *id)
{
	json_t *v = json_object_get(c->aliases, id);

	return v != NULL ? (long)json_integer_value(v) : -1;
}

int
catalog_lookup(const struct catalog *c, const char *id,
    struct model_info *out)
{
	long i = catalog_index(c, id);
	size_t len = strlen(id), k;

	/* "claude-x-20261001" is "claude-x" when only that is listed. */
	if (i < 0 && len > 9 && id[len - 9] == '-') {
		char *base = xstrdup(id);

		for (k = len - 8; k < len && isdigit((unsigned char)id[k]);
		    k++)
			;
		if (k == len) {
			base[len - 9] = '\0';
			i = catalog_index(c, base);
		}
		free(base);
	}
	if (i >= 0) {
		*out = c->models[i];
		out->id = id;
		return 1;
	}
	*out = c->unknown;
	out->id = id;
	out->name = id;
	return 0;
}

size_t
catalog_count(const struct catalog *c)
{
	return c->n;
}

const struct model_info *
catalog_model(const struct catalog *c, size_t i)
{
	return i < c->n ? &c->models[i] : NULL;
}

double
catalog_cost(const struct model_prices *p, const struct llm_usage *u)
{
	/* A compaction on the server is one more sampling step, billed
	 * as input and output like the rest. */
	return ((double)(u->input + u->compaction_input) * p->input +
	    (double)(u->output + u->compaction_output) * p->output +
	    (double)u->cache_write_5m * p->cache_write_5m +
	    (double)u->cache_write_1h * p->cache_write_1h +
	    (double)u->cache_read * p->cache_read) / 1e6;
}

/* Above this many output tokens a reply may take longer than a plain
 * request is allowed to: such requests stream (doc/models.md). */
#define CATALOG_STREAM_ABOVE	21333

/* The thinking the person's choice comes to for model m. */
static int
catalog_thinking(const struct model_info *m, const struct model_choice *ch,
    struct llm_config *cfg, char **err)
{
	enum model_thinking mt = m->known ? m->thinking :
	    MODEL_THINKING_ADAPTIVE;	/* an unknown model: as asked */

	cfg->thinking = LLM_THINKING_UNSET;
	switch (ch->thinking) {
	case LLM_THINKING_UNSET:
		if (m->known && mt == MODEL_THINKING_ADAPTIVE)
			cfg->thinking = LLM_THINKING_ADAPTIVE;
		return 0;
	case LLM_THINKING_DISABLED:
		if (m->thinking_always_on) {
			*err = xasprintf("%s always thinks: it cannot be "
			    "turned off", m->id);
			return -1;
		}
		if (mt == MODEL_THINKING_ADAPTIVE)
			cfg->thinking = LLM_THINKING_DISABLED;
		return 0;
	case LLM_THINKING_ADAPTIVE:
		if (mt != MODEL_THINKING_ADAPTIVE) {
			*err = xasprintf("%s does not think adaptively%s", m->id,
			    mt == MODEL_THINKING_MANUAL ? "; give it a budget "
			    "(--thinking TOKENS)" : "");
			return -1;
		}
		cfg->thinking = LLM_THINKING_ADAPTIVE;
		return 0;
	case LLM_THINKING_BUDGET:
		if (m->known && mt != MODEL_THINKING_MANUAL) {
			*err = xasprintf("%s %s", m->id, mt ==
			    MODEL_THINKING_NONE ? "does not think" : "thinks "
			    "adaptively: use --thinking adaptive or off");
			return -1;
		}
		if (ch->thinking_budget < 1024 ||
		    ch->thinking_budget >= cfg->max_tokens) {
			*err = xasprintf("a thinking budget is at least 1024 "
			    "tokens and below max_tokens (%d)",
			    cfg->max_tokens);
			return -1;
		}
		cfg->thinking = LLM_THINKING_BUDGET;
		cfg->thinking_budget = ch->thinking_budget;
		return 0;
	}
	return 0;
}

int
catalog_configure(const struct model_info *m,
    const struct model_choice *ch, struct llm_config *cfg, char **err)
{
	int64_t max = m->max_output;

	if (ch->max_tokens > 0 && (!m->known || ch->max_tokens < max))
		max = ch->max_tokens;
	if (max > INT32_MAX)
		max = INT32_MAX;
	/* Whole replies were asked for: keep them within the limit. */
	if (!cfg->stream && max > CATALOG_STREAM_ABOVE)
		max = CATALOG_STREAM_ABOVE;
	cfg->max_tokens = (int)(max > 0 ? max : 4096);
	cfg->reasoning_effort = ch->reasoning_effort != NULL ?
	    ch->reasoning_effort : m->reasoning_effort;
	return catalog_thinking(m, ch, cfg, err);
}
