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
#include "llm/catalog_user.h"
#include "util/xmalloc.h"

struct catalog {
	json_t			*doc;
	struct model_info	*models;
	size_t			 n;
	json_t			*aliases;	/* {alias: index} */
	const char		*default_model;
	struct model_info	 unknown;
	json_t			*origins;	/* {id: "user"|"both"} */
};

static const char *const catalog_off_names[] = {
	[MODEL_OFF_DISABLED] = "disabled",
	[MODEL_OFF_BETWEEN_TOOLS] = "between_tools",
	[MODEL_OFF_IMPOSSIBLE] = "impossible",
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

/* Reads one rate of a price band; -1 with *why when it is wrong. */
static int
catalog_rate(json_t *prices, const char *key, double *out,
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

/* Reads a field whose value is one of names[]; -1 with *why when it is
 * another. */
static int
catalog_enum(json_t *o, const char *key, const char *const *names,
    size_t n, int *out, const char **why)
{
	json_t *v = json_object_get(o, key);
	size_t k;

	if (v == NULL)
		return 0;
	for (k = 0; k < n; k++) {
		if (json_is_string(v) && strcmp(json_string_value(v),
		    names[k]) == 0) {
			*out = (int)k;
			return 0;
		}
	}
	*why = key;
	return -1;
}

/* Reads a model's rules: how thinking is turned off, whether it takes a
 * budget, a display, a forced tool choice, where its words go. */
static int
catalog_rules(json_t *o, struct model_info *m, const char **why)
{
	int off = m->thinking_always_on ? MODEL_OFF_IMPOSSIBLE :
	    MODEL_OFF_DISABLED;

	if (catalog_enum(o, "thinking_off", catalog_off_names,
	    sizeof catalog_off_names / sizeof *catalog_off_names, &off,
	    why) == -1 || catalog_bool(o, "thinking_budget",
	    &m->thinking_budget, why) == -1 || catalog_bool(o,
	    "thinking_display", &m->thinking_display, why) == -1 ||
	    catalog_bool(o, "words_in_thinking", &m->words_in_thinking,
	    why) == -1 || catalog_bool(o, "forced_tool_choice",
	    &m->forced_tool_choice, why) == -1)
		return -1;
	m->thinking_off = (enum model_thinking_off)off;
	if (m->thinking_always_on != (off == MODEL_OFF_IMPOSSIBLE)) {
		*why = "thinking_off (it says otherwise than "
		    "thinking_always_on)";
		return -1;
	}
	return 0;
}

/* Reads the five rates of a price band (absent ones stay 0). */
static int
catalog_rates(json_t *prices, struct model_rates *r, const char **why)
{
	memset(r, 0, sizeof *r);
	return catalog_rate(prices, "input", &r->input, why) |
	    catalog_rate(prices, "output", &r->output, why) |
	    catalog_rate(prices, "cache_write_5m", &r->cache_write_5m,
	    why) | catalog_rate(prices, "cache_write_1h", &r->cache_write_1h,
	    why) | catalog_rate(prices, "cache_read", &r->cache_read, why);
}

/* Reads the fields shared by a model and the unknown-model defaults. */
static int
catalog_fields(json_t *o, struct model_info *m, int need, const char **why)
{
	json_t *v = json_object_get(o, "thinking"), *prices;
	struct model_rates rates;
	size_t k;

	if (catalog_int(o, "context_window", &m->context_window, need,
	    why) == -1 || catalog_int(o, "max_output", &m->max_output, need,
	    why) == -1 || catalog_int(o, "cache_min_tokens",
	    &m->cache_min_tokens, 0, why) == -1 ||
	    catalog_bool(o, "thinking_always_on", &m->thinking_always_on,
	    why) == -1 || catalog_bool(o, "sampling_params",
	    &m->sampling_params, why) == -1 || catalog_bool(o, "compaction",
	    &m->compaction, why) == -1 || catalog_rules(o, m, why) == -1)
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
	if (catalog_rates(prices, &rates, why) == -1)
		return -1;
	m->prices.input = rates.input;
	m->prices.output = rates.output;
	m->prices.cache_write_5m = rates.cache_write_5m;
	m->prices.cache_write_1h = rates.cache_write_1h;
	m->prices.cache_read = rates.cache_read;
	/* The second band: both fields or neither. */
	prices = json_object_get(o, "prices_long");
	if (catalog_int(o, "prices_above", &m->prices.long_above, 0,
	    why) == -1)
		return -1;
	if ((prices != NULL) != (m->prices.long_above > 0) ||
	    (prices != NULL && !json_is_object(prices))) {
		*why = prices != NULL ? "prices_above" : "prices_long";
		return -1;
	}
	return catalog_rates(prices, &m->prices.long_rates, why);
}

static const char *
catalog_str(json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : dflt;
}

/* Where model id's entry came from, for --models. */
static const char *
catalog_origin(const struct catalog *c, const char *id)
{
	const char *o = json_string_value(json_object_get(c->origins, id));

	if (o == NULL)
		return "built-in";
	return strcmp(o, "user") == 0 ? "user file" :
	    "built-in, changed by user file";
}

/* Whether s is a day as "YYYY-MM-DD". */
static int
catalog_is_day(const char *s)
{
	size_t i;

	for (i = 0; i < 10; i++) {
		if (i == 4 || i == 7 ? s[i] != '-' :
		    !isdigit((unsigned char)s[i]))
			return 0;
	}
	return s[10] == '\0';
}

/* Reads an optional day field; -1 when it is not one. */
static int
catalog_day(json_t *o, const char *key, const char **out)
{
	json_t *v = json_object_get(o, key);

	*out = "";
	if (v == NULL)
		return 0;
	if (!json_is_string(v) || !catalog_is_day(json_string_value(v)))
		return -1;
	*out = json_string_value(v);
	return 0;
}

/* Reads a {"title", "url"} source and the day it was checked. */
static int
catalog_source(json_t *o, const char *key, const char *day,
    struct model_source *s, const char **why)
{
	json_t *v = json_object_get(o, key);

	s->title = s->url = "";
	if (v != NULL && (!json_is_object(v) || !json_is_string(
	    json_object_get(v, "title")) || !json_is_string(json_object_get(v,
	    "url")))) {
		*why = key;
		return -1;
	}
	if (v != NULL) {
		s->title = json_string_value(json_object_get(v, "title"));
		s->url = json_string_value(json_object_get(v, "url"));
	}
	if (catalog_day(o, day, &s->checked) == -1) {
		*why = day;
		return -1;
	}
	return 0;
}

/* Reads what says when a model goes and where a figure came from. */
static int
catalog_life_fields(json_t *o, struct model_info *m, const char **why)
{
	if (catalog_day(o, "retires", &m->retires) == -1) {
		*why = "retires (a day as YYYY-MM-DD)";
		return -1;
	}
	m->replacement = catalog_str(o, "replacement", "");
	return catalog_source(o, "source", "checked", &m->source, why) |
	    catalog_source(o, "prices_source", "prices_checked",
	    &m->prices_source, why);
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
	c->unknown.thinking_budget = 1;
	c->unknown.forced_tool_choice = 1;
	c->unknown.name = c->unknown.provider = c->unknown.status = "";
	c->unknown.retires = c->unknown.replacement = c->unknown.origin = "";
	c->unknown.source.title = c->unknown.source.url =
	    c->unknown.source.checked = "";
	c->unknown.prices_source = c->unknown.source;
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
		m->thinking_budget = 1;
		m->forced_tool_choice = 1;
		m->origin = catalog_origin(c, m->id);
		if (catalog_fields(o, m, 1, &why) == -1 ||
		    catalog_life_fields(o, m, &why) == -1) {
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

/* A catalog of doc (taken) with the origins of its entries (taken, or
 * NULL); NULL with *why when the document is wrong. */
static struct catalog *
catalog_of(json_t *doc, json_t *origins, char **why)
{
	struct catalog *c = xcalloc(1, sizeof *c);

	c->doc = doc;
	c->origins = origins != NULL ? origins : json_object();
	if (catalog_read(c, why) == -1) {
		catalog_free(c);
		return NULL;
	}
	return c;
}

struct catalog *
catalog_load(const char *path, char **err)
{
	struct catalog *c;
	json_error_t jerr;
	json_t *doc;
	char *why = NULL;

	doc = path != NULL ? json_load_file(path, 0, &jerr) :
	    json_loads(catalog_builtin, 0, &jerr);
	if (doc == NULL) {
		*err = xasprintf("model catalog %s: line %d: %s", path ? path :
		    "(built in)", jerr.line, jerr.text);
		return NULL;
	}
	if ((c = catalog_of(doc, NULL, &why)) == NULL) {
		*err = xasprintf("model catalog %s: %s", path ? path :
		    "(built in)", why);
		free(why);
	}
	return c;
}

struct catalog *
catalog_open(const char *path, const char *user, char **err)
{
	struct catalog *c = catalog_load(path, err), *merged;
	json_t *doc, *origins;
	char *why = NULL;
	int rc;

	if (c == NULL || user == NULL)
		return c;
	doc = json_deep_copy(c->doc);
	origins = json_object();
	if ((rc = catalog_user_merge(doc, user, origins, &why)) != 0) {
		json_decref(doc);
		json_decref(origins);
		if (rc == 1)		/* no such file: the catalog as is */
			return c;
		*err = xasprintf("your model catalog %s: %s", user, why);
		free(why);
		catalog_free(c);
		return NULL;
	}
	catalog_free(c);
	if ((merged = catalog_of(doc, origins, &why)) == NULL) {
		*err = xasprintf("your model catalog %s: %s", user, why);
		free(why);
	}
	return merged;
}

void
catalog_free(struct catalog *c)
{
	if (c == NULL)
		return;
	free(c->models);
	json_decref(c->aliases);
	json_decref(c->origins);
	json_decref(c->doc);
	free(c);
}

const char *
catalog_default_model(const struct catalog *c)
{
	return c->default_model;
}

/* The index of the first len bytes of id, or -1. */
static long
catalog_index(const struct catalog *c, const char *id, size_t len)
{
	char *key = xmalloc(len + 1);
	json_t *v;

	memcpy(key, id, len);
	key[len] = '\0';
	v = json_object_get(c->aliases, key);
	free(key);
	return v != NULL ? (long)json_integer_value(v) : -1;
}

/* Whether the n bytes at s are all digits. */
static int
catalog_digits(const char *s, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (!isdigit((unsigned char)s[k]))
			return 0;
	return 1;
}

/* The length of id without a snapshot date at its end, -YYYYMMDD or
 * -YYYY-MM-DD; strlen(id) when it ends in none. */
static size_t
catalog_undated(const char *id)
{
	size_t len = strlen(id);

	if (len > 9 && id[len - 9] == '-' && catalog_digits(id + len - 8, 8))
		return len - 9;
	if (len > 11 && id[len - 11] == '-' && id[len - 6] == '-' &&
	    id[len - 3] == '-' && catalog_digits(id + len - 10, 4) &&
	    catalog_digits(id + len - 5, 2) && catalog_digits(id + len - 2, 2))
		return len - 11;
	return len;
}

/* What a model's name tells of its kin. */
struct catalog_kin {
	size_t		 prefix;	/* of the family's ids, e.g. 6 for
					 * "claude-opus-"; 0: no family */
	long		 version[4];	/* 4-8 or 6.2: {4, 8}, {6, 2} */
	const char	*tier;		/* "sol", "mini"; "" when none */
	size_t		 tierlen;
};

/* Reads the first len bytes of id (a date already left out) into *k: its
 * family's prefix, "claude-WORD-", "gpt-" or "o" before a digit; the
 * numbers of its version, joined by '.' or '-' (a group of six digits or
 * more is a date and ends it); and its last word when that is letters. */
static void
catalog_kin(const char *id, size_t len, struct catalog_kin *k)
{
	const char *p, *end = id + len, *w;
	size_t n, i = 0;

	memset(k, 0, sizeof *k);
	k->tier = "";
	if (len > 7 && strncmp(id, "claude-", 7) == 0) {
		for (p = id + 7; p < end && isalpha((unsigned char)*p); p++)
			;
		if (p == id + 7 || p >= end || *p != '-')
			return;
		k->prefix = (size_t)(p - id) + 1;
	} else if (len > 4 && strncmp(id, "gpt-", 4) == 0)
		k->prefix = 4;
	else if (len > 1 && id[0] == 'o')
		k->prefix = 1;
	else
		return;
	for (p = id + k->prefix; p < end && isdigit((unsigned char)*p); ) {
		for (n = 0; p + n < end && isdigit((unsigned char)p[n]); n++)
			;
		if (n >= 6)
			break;
		if (i < sizeof k->version / sizeof *k->version)
			k->version[i++] = strtol(p, NULL, 10);
		p += n;
		if (p + 1 < end && (*p == '.' || *p == '-') &&
		    isdigit((unsigned char)p[1]))
			p++;
		else
			break;
	}
	if (i == 0) {		/* no version: no family told */
		k->prefix = 0;
		return;
	}
	for (w = end; w > id && w[-1] != '-'; w--)
		;
	for (p = w; p < end && isalpha((unsigned char)*p); p++)
		;
	if (w > id + k->prefix && w < end && p == end) {
		k->tier = w;
		k->tierlen = (size_t)(end - w);
	}
}

/* Compares two versions, as strcmp does. */
static int
catalog_version_cmp(const long *a, const long *b)
{
	size_t i;

	for (i = 0; i < 4; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* The entry whose limits and rules model id (not in the catalog) takes:
 * of its family's entries (of its tier first, when it names one), the
 * newest not newer than it; NULL when there is none. */
static const struct model_info *
catalog_family(const struct catalog *c, const char *id)
{
	const char *bare = strrchr(id, '/') ? strrchr(id, '/') + 1 : id;
	const struct model_info *m, *best = NULL;
	struct catalog_kin want, k, bestk;
	size_t i, len;
	int pass;

	catalog_kin(bare, catalog_undated(bare), &want);
	if (want.prefix == 0)
		return NULL;
	for (pass = want.tierlen > 0 ? 0 : 1; pass < 2 && best == NULL;
	    pass++) {
		for (i = 0; i < c->n; i++) {
			m = &c->models[i];
			len = catalog_undated(m->id);
			if (strncmp(m->id, bare, want.prefix) != 0)
				continue;
			catalog_kin(m->id, len, &k);
			if (k.prefix != want.prefix || (pass == 0 &&
			    (k.tierlen != want.tierlen || strncmp(k.tier,
			    want.tier, k.tierlen) != 0)))
				continue;
			if (catalog_version_cmp(k.version, want.version) > 0)
				continue;
			if (best == NULL || catalog_version_cmp(k.version,
			    bestk.version) > 0) {
				best = m;
				bestk = k;
			}
		}
	}
	return best;
}

int
catalog_lookup(const struct catalog *c, const char *id,
    struct model_info *out)
{
	long i = catalog_index(c, id, strlen(id));
	const struct model_info *f;

	/* "claude-x-20261001" or "gpt-x-2026-10-01" is "claude-x" or
	 * "gpt-x" when only that is listed. */
	if (i < 0)
		i = catalog_index(c, id, catalog_undated(id));
	if (i >= 0) {
		*out = c->models[i];
		out->id = id;
		return 1;
	}
	*out = c->unknown;
	out->id = id;
	out->name = id;
	if ((f = catalog_family(c, id)) == NULL)
		return 0;
	/* Its family's limits and rules; never its prices. */
	out->family = f->id;
	out->context_window = f->context_window;
	out->max_output = f->max_output;
	out->thinking = f->thinking;
	out->thinking_always_on = f->thinking_always_on;
	out->thinking_off = f->thinking_off;
	out->thinking_budget = f->thinking_budget;
	out->thinking_display = f->thinking_display;
	out->words_in_thinking = f->words_in_thinking;
	out->forced_tool_choice = f->forced_tool_choice;
	out->sampling_params = f->sampling_params;
	out->cache_min_tokens = f->cache_min_tokens;
	out->reasoning_effort = f->reasoning_effort;
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

/* The band a prompt of n tokens is billed in. */
static struct model_rates
catalog_band(const struct model_prices *p, int64_t n)
{
	struct model_rates r = { p->input, p->output, p->cache_write_5m,
	    p->cache_write_1h, p->cache_read };

	return p->long_above > 0 && n > p->long_above ? p->long_rates : r;
}

/* A count, or 0 for one not given (-1). */
static int64_t
catalog_pos(int64_t n)
{
	return n > 0 ? n : 0;
}

double
catalog_cost(const struct model_prices *p, const struct llm_usage *u)
{
	struct model_rates r = catalog_band(p, u->input + u->cache_read +
	    u->cache_write_5m + u->cache_write_1h), cr;
	double cost;

	cost = (double)u->input * r.input + (double)u->output * r.output +
	    (double)u->cache_write_5m * r.cache_write_5m +
	    (double)u->cache_write_1h * r.cache_write_1h +
	    (double)u->cache_read * r.cache_read;
	/* A compaction on the server is one more sampling step, billed
	 * like the rest (input, output, the cache read and written), in
	 * the band of what it read. */
	if (u->compaction_input > 0 || u->compaction_output > 0 ||
	    u->compaction_cache_read > 0 || u->compaction_cache_write > 0) {
		cr = catalog_band(p, catalog_pos(u->compaction_input) +
		    catalog_pos(u->compaction_cache_read) +
		    catalog_pos(u->compaction_cache_write));
		cost += (double)catalog_pos(u->compaction_input) * cr.input +
		    (double)catalog_pos(u->compaction_output) * cr.output +
		    (double)catalog_pos(u->compaction_cache_read) *
		    cr.cache_read +
		    (double)catalog_pos(u->compaction_cache_write) *
		    cr.cache_write_5m;
	}
	return cost / 1e6;
}

/* Above this many output tokens a reply may take longer than a plain
 * request is allowed to: such requests stream (doc/models.md). */
#define CATALOG_STREAM_ABOVE	21333

/* Whether model m follows known rules: the catalog's entry, or that of
 * its family. */
static int
catalog_ruled(const struct model_info *m)
{
	return m->known || m->family != NULL;
}

/* The thinking the person's choice comes to for model m. */
static int
catalog_thinking(const struct model_info *m, const struct model_choice *ch,
    struct llm_config *cfg, char **err)
{
	enum model_thinking mt = catalog_ruled(m) ? m->thinking :
	    MODEL_THINKING_ADAPTIVE;	/* an unknown model: as asked */

	cfg->thinking = LLM_THINKING_UNSET;
	switch (ch->thinking) {
	case LLM_THINKING_UNSET:
		if (catalog_ruled(m) && mt == MODEL_THINKING_ADAPTIVE)
			cfg->thinking = LLM_THINKING_ADAPTIVE;
		return 0;
	case LLM_THINKING_DISABLED:
	case LLM_THINKING_BETWEEN_TOOLS:
		if (m->thinking_always_on ||
		    m->thinking_off == MODEL_OFF_IMPOSSIBLE) {
			*err = xasprintf("%s always thinks: its thinking "
			    "cannot be turned off, so --thinking off cannot "
			    "be used with it", m->id);
			return -1;
		}
		/* Where "disabled" is refused, between_tools is the way:
		 * no thinking up front, short notes between tool calls. */
		if (mt == MODEL_THINKING_ADAPTIVE)
			cfg->thinking = m->thinking_off ==
			    MODEL_OFF_BETWEEN_TOOLS ?
			    LLM_THINKING_BETWEEN_TOOLS : LLM_THINKING_DISABLED;
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
		if (catalog_ruled(m) && !m->thinking_budget) {
			*err = xasprintf("%s takes no thinking budget: %s",
			    m->id, mt == MODEL_THINKING_NONE ? "it does not "
			    "think" : "use --thinking adaptive or off");
			return -1;
		}
		if (catalog_ruled(m) && mt != MODEL_THINKING_MANUAL) {
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
	char *msg = NULL;

	/* A retired model is refused before any request; a warning about
	 * one retiring soon is main.c's to give at start. */
	if (catalog_life(m, time(NULL), &msg) == CATALOG_RETIRED) {
		*err = msg;
		return -1;
	}
	free(msg);
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
	/* A model of no known family is taken not to reason: asking one
	 * that does not for its reasoning is refused on every call. */
	cfg->reasons = catalog_ruled(m) && m->thinking != MODEL_THINKING_NONE;
	if (catalog_thinking(m, ch, cfg, err) == -1)
		return -1;
	cfg->forced_tool_choice = m->forced_tool_choice;
	cfg->thinking_words = m->words_in_thinking;
	/* Thinking that shows, where the model takes a display: today's
	 * models omit it unless asked (doc/models.md, "Model rules"). */
	cfg->thinking_display = NULL;
	if (m->thinking_display && cfg->thinking != LLM_THINKING_UNSET &&
	    cfg->thinking != LLM_THINKING_DISABLED)
		cfg->thinking_display = ch->display_omitted ? "omitted" :
		    "summarized";
	return 0;
}

int
catalog_price(struct model_info *m, const struct model_choice *ch,
    char **err)
{
	if (m->prices.input > 0 || m->prices.output > 0)
		return 0;
	if (ch->priced) {
		/* Cached input is billed as input: over rather than under
		 * the reads, which is what a limit wants. */
		memset(&m->prices, 0, sizeof m->prices);
		m->prices.input = ch->price_in;
		m->prices.output = ch->price_out;
		m->prices.cache_write_5m = m->prices.cache_write_1h =
		    m->prices.cache_read = ch->price_in;
		return 0;
	}
	if (!ch->budget)
		return 0;
	*err = xasprintf("%s has no price in the model catalog, so "
	    "--max-cost cannot count what it spends: give its price with "
	    "--price IN/OUT (US dollars per million input and output tokens, "
	    "e.g. --price 3/15) or in your model catalog (doc/models.md)",
	    m->id);
	return -1;
}

/* How model m thinks, in words. */
static const char *
catalog_thinking_words(const struct model_info *m)
{
	if (m->thinking_always_on)
		return "always on";
	return m->thinking == MODEL_THINKING_ADAPTIVE ? "adaptive" :
	    m->thinking == MODEL_THINKING_MANUAL ? "with a budget" : "none";
}

char *
catalog_assumed(const struct model_info *m)
{
	char *price, *s;

	if (m->prices.input > 0 || m->prices.output > 0)
		price = xasprintf("prices it at $%g and $%g per million input "
		    "and output tokens", m->prices.input, m->prices.output);
	else
		price = xstrdup("knows no price for it (--price IN/OUT gives "
		    "one)");
	if (m->family != NULL)
		s = xasprintf("%s is not in the model catalog: huddle takes "
		    "the limits and rules of %s, the nearest of its family (a "
		    "%lld-token window, replies of up to %lld tokens, thinking "
		    "%s), and %s", m->id, m->family,
		    (long long)m->context_window, (long long)m->max_output,
		    catalog_thinking_words(m), price);
	else
		s = xasprintf("%s is not in the model catalog: huddle assumes "
		    "a %lld-token window, replies of up to %lld tokens and no "
		    "thinking unless asked, and %s (see --models, "
		    "--context-window, --max-tokens)", m->id,
		    (long long)m->context_window, (long long)m->max_output,
		    price);
	free(price);
	return s;
}
