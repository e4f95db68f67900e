/*
 * Unit tests of llm/catalog: reading the model catalog, finding a model,
 * what a model the catalog lacks takes from its family, what a request
 * asks of it, what its usage costs in which price band, a spending limit
 * refusing a model with no price unless --price gives one, when it
 * retires, and a person's own catalog merged over the built-in.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "llm/catalog.h"
#include "llm/catalog_user.h"
#include "options.h"
#include "testutil.h"
#include "util/xmalloc.h"

/* A small catalog with one model of each kind. */
static const char small[] =
"{\"default_model\": \"m-adaptive\",\n"
" \"unknown_model\": {\"context_window\": 100000, \"max_output\": 8000,"
" \"thinking\": \"none\"},\n"
" \"models\": [\n"
"  {\"id\": \"m-adaptive\", \"aliases\": [\"m-adaptive-latest\"],"
"   \"context_window\": 1000000, \"max_output\": 128000,"
"   \"thinking\": \"adaptive\", \"sampling_params\": false,"
"   \"prices\": {\"input\": 2, \"output\": 10, \"cache_write_5m\": 2.5,"
"   \"cache_write_1h\": 4, \"cache_read\": 0.2}},\n"
"  {\"id\": \"m-always\", \"context_window\": 1000000, \"max_output\":"
"   64000, \"thinking\": \"adaptive\", \"thinking_always_on\": true,"
"   \"prices\": {\"input\": 1, \"output\": 1, \"cache_write_5m\": 1,"
"   \"cache_write_1h\": 1, \"cache_read\": 1}},\n"
"  {\"id\": \"m-manual\", \"context_window\": 200000, \"max_output\":"
"   64000, \"thinking\": \"manual\", \"prices\": {\"input\": 1,"
"   \"output\": 5, \"cache_write_5m\": 1.25, \"cache_write_1h\": 2,"
"   \"cache_read\": 0.1}},\n"
"  {\"id\": \"m-none\", \"context_window\": 200000, \"max_output\": 8192,"
"   \"thinking\": \"none\", \"prices\": {\"input\": 1, \"output\": 1,"
"   \"cache_write_5m\": 1, \"cache_write_1h\": 1, \"cache_read\": 1}}\n"
" ]}\n";

/* The directory of the catalog files a test writes; removed at its end. */
static char *scratch;

static void
scratch_make(void)
{
	scratch = tu_tmpdir();
}

static void
scratch_remove(void)
{
	tu_rmtree(scratch);
	free(scratch);
	scratch = NULL;
}

static char *
write_catalog(const char *text)
{
	char *path = xasprintf("%s/models.json", scratch);
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static struct catalog *
load_small(void)
{
	char *path = write_catalog(small), *err = NULL;
	struct catalog *c = catalog_load(path, &err);

	ck_assert_msg(c != NULL, "%s", err);
	free(path);
	return c;
}

/* The catalog built into the program: a current Sonnet is the default,
 * and every model it lists has what huddle needs. */
START_TEST(builtin_catalog_is_complete)
{
	char *err = NULL;
	struct catalog *c = catalog_load(NULL, &err);
	const struct model_info *m;
	struct model_info d;
	size_t i;

	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_int_gt(catalog_count(c), 0);
	ck_assert_int_eq(catalog_lookup(c, catalog_default_model(c), &d), 1);
	ck_assert_ptr_nonnull(strstr(d.name, "Sonnet"));
	ck_assert_str_eq(d.status, "current");
	for (i = 0; (m = catalog_model(c, i)) != NULL; i++) {
		ck_assert_int_gt(m->context_window, 0);
		ck_assert_int_gt(m->max_output, 0);
		ck_assert_int_le(m->max_output, m->context_window);
		if (strcmp(m->provider, "anthropic") == 0) {
			ck_assert(m->prices.input > 0 && m->prices.output > 0);
			ck_assert(m->prices.cache_read < m->prices.input);
			ck_assert(m->prices.cache_write_5m > m->prices.input);
		}
	}
	catalog_free(c);
}
END_TEST

START_TEST(lookup_by_id_alias_and_date)
{
	struct catalog *c = load_small();
	struct model_info m;

	ck_assert_int_eq(catalog_lookup(c, "m-adaptive-latest", &m), 1);
	ck_assert_int_eq(m.max_output, 128000);
	ck_assert_str_eq(m.id, "m-adaptive-latest");
	ck_assert_int_eq(catalog_lookup(c, "m-manual-20260101", &m), 1);
	ck_assert_int_eq(m.thinking, MODEL_THINKING_MANUAL);
	/* Not a date: eight characters that are not all digits. */
	ck_assert_int_eq(catalog_lookup(c, "m-manual-2026010x", &m), 0);
	ck_assert_int_eq(catalog_lookup(c, "someone-elses-model", &m), 0);
	ck_assert_int_eq(m.known, 0);
	ck_assert_int_eq(m.context_window, 100000);
	ck_assert_int_eq(m.max_output, 8000);
	ck_assert(m.prices.input == 0);
	catalog_free(c);
}
END_TEST

/* Configures cfg for model id with the choice; returns catalog_configure's
 * result and leaves any error in *err. */
static int
configure(struct catalog *c, const char *id, struct model_choice *ch,
    struct llm_config *cfg, char **err)
{
	struct model_info m;

	llm_config_defaults(cfg);
	catalog_lookup(c, id, &m);
	*err = NULL;
	return catalog_configure(&m, ch, cfg, err);
}

START_TEST(thinking_follows_the_model)
{
	struct catalog *c = load_small();
	struct model_choice ch = { 0 };
	struct llm_config cfg;
	char *err;

	/* By default: adaptive where the model has it, nothing elsewhere. */
	ck_assert_int_eq(configure(c, "m-adaptive", &ch, &cfg, &err), 0);
	ck_assert_int_eq(cfg.thinking, LLM_THINKING_ADAPTIVE);
	ck_assert_int_eq(cfg.max_tokens, 128000);
	ck_assert_int_eq(configure(c, "m-manual", &ch, &cfg, &err), 0);
	ck_assert_int_eq(cfg.thinking, LLM_THINKING_UNSET);
	ck_assert_int_eq(configure(c, "m-none", &ch, &cfg, &err), 0);
	ck_assert_int_eq(cfg.thinking, LLM_THINKING_UNSET);
	ck_assert_int_eq(configure(c, "unknown-x", &ch, &cfg, &err), 0);
	ck_assert_int_eq(cfg.thinking, LLM_THINKING_UNSET);

	/* Off: disabled where thinking is adaptive, refused where it is
	 * always on, nothing to send elsewhere. */
	ch.thinking = LLM_THINKING_DISABLED;
	ck_assert_int_eq(configure(c, "m-adaptive", &ch, &cfg, &err), 0);
	ck_assert_int_eq(cfg.thinking, LLM_THINKING_DISABLED);
	ck_assert_int_eq(configure(c, "m-always", &ch, &cfg, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "always thinks"));
	free(err);
	ck_assert_int_eq(configure(c, "m-manual", &ch, &cfg, &err), 0);
	ck_assert_int_eq(cfg.thinking, LLM_THINKING_UNSET);

	/* A budget: for manual models (and unknown ones) only. */
	ch.thinking = LLM_THINKING_BUDGET;
	ch.thinking_budget = 4000;
	ck_assert_int_eq(configure(c, "m-manual", &ch, &cfg, &err), 0);
	ck_assert_int_eq(cfg.thinking, LLM_THINKING_BUDGET);
	ck_assert_int_eq(cfg.thinking_budget, 4000);
	ck_assert_int_eq(configure(c, "unknown-x", &ch, &cfg, &err), 0);
	ck_assert_int_eq(cfg.thinking, LLM_THINKING_BUDGET);
	ck_assert_int_eq(configure(c, "m-adaptive", &ch, &cfg, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "adaptively"));
	free(err);
	ck_assert_int_eq(configure(c, "m-none", &ch, &cfg, &err), -1);
	free(err);
	/* The budget must leave room for the answer. */
	ch.max_tokens = 4000;
	ck_assert_int_eq(configure(c, "m-manual", &ch, &cfg, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "below max_tokens"));
	free(err);

	/* Adaptive, asked for: refused where the model cannot. */
	ch.thinking = LLM_THINKING_ADAPTIVE;
	ch.max_tokens = 0;
	ck_assert_int_eq(configure(c, "m-manual", &ch, &cfg, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "--thinking TOKENS"));
	free(err);
	ck_assert_int_eq(configure(c, "m-always", &ch, &cfg, &err), 0);
	ck_assert_int_eq(cfg.thinking, LLM_THINKING_ADAPTIVE);
	catalog_free(c);
}
END_TEST

/* The built-in catalog's models, each configured within its rules. */
START_TEST(configure_keeps_each_models_rules)
{
	struct catalog *c;
	struct model_choice ch = { 0 };
	struct llm_config cfg;
	char *err = NULL;
	static const char *const always[] = { "claude-opus-5-5",
	    "claude-fable-5-1" };
	size_t i;

	c = catalog_load(NULL, &err);
	ck_assert_ptr_nonnull(c);

	/* By default, summarised thinking where the model takes a display;
	 * the words of the 5.5 models between tool calls shown as text;
	 * no forced tool choice where it is refused. */
	ck_assert_int_eq(configure(c, "claude-sonnet-5-5", &ch, &cfg, &err), 0);
	ck_assert_int_eq(cfg.thinking, LLM_THINKING_ADAPTIVE);
	ck_assert_str_eq(cfg.thinking_display, "summarized");
	ck_assert_int_eq(cfg.thinking_words, 1);
	ck_assert_int_eq(cfg.forced_tool_choice, 0);
	ck_assert_int_eq(configure(c, "claude-haiku-5-5", &ch, &cfg, &err), 0);
	ck_assert_str_eq(cfg.thinking_display, "summarized");
	ck_assert_int_eq(cfg.thinking_words, 0);
	ck_assert_int_eq(cfg.forced_tool_choice, 1);
	/* A model whose display is not known to be taken gets none. */
	ck_assert_int_eq(configure(c, "claude-sonnet-4-5", &ch, &cfg, &err), 0);
	ck_assert_ptr_null(cfg.thinking_display);
	/* The person may choose no summaries. */
	ch.display_omitted = 1;
	ck_assert_int_eq(configure(c, "claude-sonnet-5-5", &ch, &cfg, &err), 0);
	ck_assert_str_eq(cfg.thinking_display, "omitted");
	ch.display_omitted = 0;

	/* Off: between_tools on Sonnet 5.5, disabled on Haiku 5.5 (and no
	 * display with it), refused before any request where the model
	 * always thinks, nothing to send on a manual model. */
	ch.thinking = LLM_THINKING_DISABLED;
	ck_assert_int_eq(configure(c, "claude-sonnet-5-5", &ch, &cfg, &err), 0);
	ck_assert_int_eq(cfg.thinking, LLM_THINKING_BETWEEN_TOOLS);
	ck_assert_str_eq(cfg.thinking_display, "summarized");
	ck_assert_int_eq(configure(c, "claude-haiku-5-5", &ch, &cfg, &err), 0);
	ck_assert_int_eq(cfg.thinking, LLM_THINKING_DISABLED);
	ck_assert_ptr_null(cfg.thinking_display);
	for (i = 0; i < sizeof always / sizeof *always; i++) {
		ck_assert_int_eq(configure(c, always[i], &ch, &cfg, &err), -1);
		ck_assert_ptr_nonnull(strstr(err, "always thinks"));
		ck_assert_ptr_nonnull(strstr(err, "--thinking off"));
		free(err);
	}
	ck_assert_int_eq(configure(c, "claude-haiku-4-5", &ch, &cfg, &err), 0);
	ck_assert_int_eq(cfg.thinking, LLM_THINKING_UNSET);

	/* A budget: only where the model takes one. */
	ch.thinking = LLM_THINKING_BUDGET;
	ch.thinking_budget = 4000;
	ck_assert_int_eq(configure(c, "claude-haiku-5-5", &ch, &cfg, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "no thinking budget"));
	free(err);
	ck_assert_int_eq(configure(c, "claude-haiku-4-5", &ch, &cfg, &err), 0);
	ck_assert_int_eq(cfg.thinking, LLM_THINKING_BUDGET);
	catalog_free(c);
}
END_TEST

START_TEST(max_tokens_is_capped)
{
	struct catalog *c = load_small();
	struct model_choice ch = { 0 };
	struct llm_config cfg;
	char *err;

	ch.max_tokens = 5000;
	ck_assert_int_eq(configure(c, "m-adaptive", &ch, &cfg, &err), 0);
	ck_assert_int_eq(cfg.max_tokens, 5000);
	/* A cap above the model's largest output is no use to a known
	 * model, but is taken as given for an unknown one. */
	ch.max_tokens = 500000;
	ck_assert_int_eq(configure(c, "m-adaptive", &ch, &cfg, &err), 0);
	ck_assert_int_eq(cfg.max_tokens, 128000);
	ck_assert_int_eq(configure(c, "unknown-x", &ch, &cfg, &err), 0);
	ck_assert_int_eq(cfg.max_tokens, 500000);
	/* Whole, unstreamed replies are kept short enough to arrive. */
	ch.max_tokens = 0;
	llm_config_defaults(&cfg);
	{
		struct model_info m;

		catalog_lookup(c, "m-adaptive", &m);
		cfg.stream = 0;
		ck_assert_int_eq(catalog_configure(&m, &ch, &cfg, &err), 0);
		ck_assert_int_le(cfg.max_tokens, 21333);
		ck_assert_int_eq(cfg.stream, 0);
	}
	catalog_free(c);
}
END_TEST

START_TEST(cost_prices_each_kind_of_token)
{
	struct catalog *c = load_small();
	struct model_info m;
	struct llm_usage u = { 1000000, 100000, 200000, 100000, 2000000, 0, 0,
	    0, 0 };

	catalog_lookup(c, "m-adaptive", &m);
	/* 2 + 1 + 0.5 + 0.4 + 0.4 */
	ck_assert_double_eq_tol(catalog_cost(&m.prices, &u), 4.3, 1e-9);
	catalog_free(c);
}
END_TEST

START_TEST(bad_catalogs_are_refused_with_a_reason)
{
	static const struct {
		const char	*text;
		const char	*why;
	} bad[] = {
		{ "{", "line" },
		{ "{\"models\": []}", "default_model" },
		{ "{\"default_model\": \"x\", \"models\": [{\"id\": \"y\","
		  " \"context_window\": 1, \"max_output\": 1, \"thinking\":"
		  " \"none\", \"prices\": {\"input\": 1, \"output\": 1,"
		  " \"cache_write_5m\": 1, \"cache_write_1h\": 1,"
		  " \"cache_read\": 1}}]}", "not in the list" },
		{ "{\"default_model\": \"y\", \"models\": [{\"id\": \"y\","
		  " \"max_output\": 1, \"thinking\": \"none\"}]}",
		  "context_window" },
		{ "{\"default_model\": \"y\", \"models\": [{\"id\": \"y\","
		  " \"context_window\": 1, \"max_output\": 1, \"thinking\":"
		  " \"sometimes\"}]}", "thinking" },
		{ "{\"default_model\": \"y\", \"models\": [{\"id\": \"y\","
		  " \"context_window\": 1, \"max_output\": 1, \"thinking\":"
		  " \"none\", \"prices\": {\"input\": \"cheap\"}}]}", "input" },
		{ "{\"default_model\": \"y\", \"models\": [{\"id\": \"y\","
		  " \"context_window\": 1, \"max_output\": 1, \"thinking\":"
		  " \"adaptive\", \"thinking_off\": \"never\"}]}",
		  "thinking_off" },
		{ "{\"default_model\": \"y\", \"models\": [{\"id\": \"y\","
		  " \"context_window\": 1, \"max_output\": 1, \"thinking\":"
		  " \"adaptive\", \"thinking_always_on\": true,"
		  " \"thinking_off\": \"disabled\"}]}", "thinking_always_on" },
		{ "{\"default_model\": \"y\", \"models\": [{\"id\": \"y\","
		  " \"context_window\": 1, \"max_output\": 1, \"thinking\":"
		  " \"adaptive\", \"forced_tool_choice\": \"no\"}]}",
		  "forced_tool_choice" },
	};
	size_t i;

	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		char *path = write_catalog(bad[i].text), *err = NULL;

		ck_assert_ptr_null(catalog_load(path, &err));
		ck_assert_msg(err != NULL && strstr(err, bad[i].why) != NULL,
		    "case %zu: %s", i, err ? err : "(no error)");
		ck_assert_ptr_nonnull(strstr(err, path));
		free(err);
		free(path);
	}
}
END_TEST

/* Builds the day number 12:00 UTC of "YYYY-MM-DD" as a time. */
static time_t
noon(const char *day)
{
	struct tm tm;

	memset(&tm, 0, sizeof tm);
	tm.tm_year = atoi(day) - 1900;
	tm.tm_mon = atoi(day + 5) - 1;
	tm.tm_mday = atoi(day + 8);
	tm.tm_hour = 12;
	return timegm(&tm);
}

/* The built-in catalog as the platforms' pages gave it on 2026-11-26 and
 * 2026-11-28: per-model cache reads on the 5.x models, Haiku 5.5's second
 * band, Fable 5.2, the 1M windows of the 4.6 models, Sonnet 4.5's
 * retirement, the models added on 2026-11-28 and the second band of the
 * GPT models priced higher above 272K input tokens, and a source and a
 * date for every price. */
START_TEST(builtin_prices_follow_the_pages)
{
	char *err = NULL;
	struct catalog *c = catalog_load(NULL, &err);
	const struct model_info *mi;
	struct model_info m;
	size_t i;

	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_int_eq(catalog_lookup(c, "claude-sonnet-5-5", &m), 1);
	ck_assert_double_eq_tol(m.prices.cache_read, 0.10, 1e-9);
	ck_assert_int_eq(m.cache_min_tokens, 512);
	ck_assert_int_eq(catalog_lookup(c, "claude-opus-5-5", &m), 1);
	ck_assert_double_eq_tol(m.prices.cache_read, 0.20, 1e-9);
	ck_assert_int_eq(catalog_lookup(c, "claude-fable-5-1", &m), 1);
	ck_assert_double_eq_tol(m.prices.cache_read, 0.25, 1e-9);
	ck_assert_int_eq(catalog_lookup(c, "claude-fable-5-2", &m), 1);
	ck_assert_double_eq_tol(m.prices.input, 8, 1e-9);
	ck_assert_double_eq_tol(m.prices.cache_read, 0.20, 1e-9);
	ck_assert_int_eq(m.thinking_always_on, 1);
	ck_assert_int_eq(m.context_window, 1000000);
	ck_assert_int_eq(catalog_lookup(c, "claude-haiku-5-5", &m), 1);
	ck_assert_int_eq(m.prices.long_above, 100000);
	ck_assert_double_eq_tol(m.prices.long_rates.input, 0.5, 1e-9);
	ck_assert_double_eq_tol(m.prices.long_rates.cache_read, 0.05, 1e-9);
	ck_assert_int_eq(catalog_lookup(c, "claude-opus-4-6", &m), 1);
	ck_assert_int_eq(m.context_window, 1000000);
	ck_assert_int_eq(catalog_lookup(c, "claude-sonnet-4-6", &m), 1);
	ck_assert_int_eq(m.context_window, 1000000);
	ck_assert_int_eq(catalog_lookup(c, "claude-sonnet-4-5-20250929", &m),
	    1);
	ck_assert_str_eq(m.retires, "2026-11-30");
	ck_assert_str_eq(m.replacement, "claude-sonnet-5-5");
	ck_assert_int_eq(catalog_lookup(c, "claude-opus-4-8", &m), 1);
	ck_assert_double_eq_tol(m.prices.input, 5, 1e-9);
	ck_assert_double_eq_tol(m.prices.cache_read, 0.5, 1e-9);
	ck_assert_int_eq(m.thinking_budget, 0);
	ck_assert_int_eq(catalog_lookup(c, "claude-fable-5", &m), 1);
	ck_assert_double_eq_tol(m.prices.cache_read, 1, 1e-9);
	ck_assert_int_eq(m.thinking_always_on, 1);
	ck_assert_int_eq(catalog_lookup(c, "claude-opus-4-5-20251101", &m), 1);
	ck_assert_int_eq(m.context_window, 200000);
	ck_assert_int_eq(m.thinking, MODEL_THINKING_MANUAL);
	/* gpt-6.2-sol: above 272,000 input tokens, input and cache x2,
	 * output x1.5, for the whole request. */
	ck_assert_int_eq(catalog_lookup(c, "gpt-6.2-sol", &m), 1);
	ck_assert_int_eq(m.prices.long_above, 272000);
	ck_assert_double_eq_tol(m.prices.long_rates.input, 4, 1e-9);
	ck_assert_double_eq_tol(m.prices.long_rates.cache_read, 0.2, 1e-9);
	ck_assert_double_eq_tol(m.prices.long_rates.output, 15, 1e-9);
	ck_assert_int_eq(catalog_lookup(c, "gpt-6.1-terra", &m), 1);
	ck_assert_double_eq_tol(m.prices.cache_read, 0.05, 1e-9);
	ck_assert_double_eq_tol(m.prices.long_rates.output, 7.5, 1e-9);
	ck_assert_int_eq(m.thinking_always_on, 0);
	ck_assert_int_eq(catalog_lookup(c, "gpt-6-astra", &m), 1);
	ck_assert_int_eq(m.thinking_always_on, 1);
	ck_assert_double_eq_tol(m.prices.cache_read, 1, 1e-9);
	for (i = 0; (mi = catalog_model(c, i)) != NULL; i++) {
		ck_assert_msg(*mi->prices_source.url != '\0' &&
		    *mi->prices_source.checked != '\0', "%s", mi->id);
		ck_assert_msg(*mi->source.url != '\0', "%s", mi->id);
		ck_assert_str_eq(mi->origin, "built-in");
	}
	catalog_free(c);
}
END_TEST

/* A call is billed in one band, chosen by its whole prompt: input, cache
 * reads and cache writes. */
START_TEST(cost_uses_the_band_of_the_prompt)
{
	char *err = NULL;
	struct catalog *c = catalog_load(NULL, &err);
	struct model_info m;
	struct llm_usage under = { 1000, 500, 0, 0, 99000, 0, 0, 0, 0 };
	struct llm_usage big = { 1000, 500, 0, 0, 99001, 0, 0, 0, 0 };
	struct llm_usage writes = { 100, 10, 60000, 50000, 0, 0, 0, 0, 0 };

	ck_assert_msg(c != NULL, "%s", err);
	catalog_lookup(c, "claude-haiku-5-5", &m);
	/* 100,000 tokens: the first band. 1000*0.1 + 500*0.5 + 99000*0.01 */
	ck_assert_double_eq_tol(catalog_cost(&m.prices, &under),
	    (100.0 + 250.0 + 990.0) / 1e6, 1e-12);
	/* One more: every token in the second. */
	ck_assert_double_eq_tol(catalog_cost(&m.prices, &big),
	    (500.0 + 1250.0 + 99001 * 0.05) / 1e6, 1e-12);
	/* Cache writes count toward the prompt, and are billed at their own
	 * rates of the band. */
	ck_assert_double_eq_tol(catalog_cost(&m.prices, &writes),
	    (100 * 0.5 + 10 * 2.5 + 60000 * 0.625 + 50000 * 1.0) / 1e6,
	    1e-12);
	/* A model with one band never changes rate. */
	catalog_lookup(c, "claude-sonnet-5-5", &m);
	ck_assert_double_eq_tol(catalog_cost(&m.prices, &big),
	    (1000 * 2.0 + 500 * 10.0 + 99001 * 0.1) / 1e6, 1e-12);
	catalog_free(c);
}
END_TEST

/* Retirement: served until 30 days before, then warned about with the
 * replacement named, then refused before any request. */
START_TEST(retirement_warns_then_refuses)
{
	char *err = NULL, *msg = NULL;
	struct catalog *c = catalog_load(NULL, &err);
	struct model_info m;
	struct model_choice ch = { 0 };
	struct llm_config cfg;

	ck_assert_msg(c != NULL, "%s", err);
	catalog_lookup(c, "claude-sonnet-4-5", &m);
	ck_assert_int_eq(catalog_life(&m, noon("2026-10-30"), &msg),
	    CATALOG_SERVED);
	ck_assert_ptr_null(msg);
	ck_assert_int_eq(catalog_life(&m, noon("2026-11-26"), &msg),
	    CATALOG_RETIRING);
	ck_assert_ptr_nonnull(strstr(msg, "in 4 days"));
	ck_assert_ptr_nonnull(strstr(msg, "claude-sonnet-5-5"));
	free(msg);
	msg = NULL;
	ck_assert_int_eq(catalog_life(&m, noon("2026-11-30"), &msg),
	    CATALOG_RETIRED);
	ck_assert_ptr_nonnull(strstr(msg, "retired on 2026-11-30"));
	ck_assert_ptr_nonnull(strstr(msg, "claude-sonnet-5-5"));
	free(msg);
	msg = NULL;
	/* A model with no date, and one the catalog does not know. */
	catalog_lookup(c, "claude-sonnet-5-5", &m);
	ck_assert_int_eq(catalog_life(&m, noon("2030-01-01"), &msg),
	    CATALOG_SERVED);
	catalog_lookup(c, "someone-elses-model", &m);
	ck_assert_int_eq(catalog_life(&m, noon("2030-01-01"), &msg),
	    CATALOG_SERVED);
	/* catalog_configure refuses a retired model today. */
	catalog_lookup(c, "claude-sonnet-4-5", &m);
	m.retires = "2020-01-01";
	llm_config_defaults(&cfg);
	ck_assert_int_eq(catalog_configure(&m, &ch, &cfg, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "retired on 2020-01-01"));
	free(err);
	catalog_free(c);
}
END_TEST

/* Writes text as the user catalog in the scratch directory. */
static char *
write_user(const char *text)
{
	char *path = xasprintf("%s/user.json", scratch);
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* The user catalog changes a known model field by field (prices rate by
 * rate), adds a new one, and may choose the default; --models says where
 * each came from. */
START_TEST(user_catalog_merges_field_by_field)
{
	char *base = write_catalog(small), *err = NULL, *user;
	struct catalog *c;
	struct model_info m;

	user = write_user("{\"default_model\": \"m-mine\", \"models\": [\n"
	    " {\"id\": \"m-adaptive-latest\", \"prices\": {\"cache_read\":"
	    " 0.05}, \"retires\": \"2027-01-01\", \"replacement\": \"m-mine\"},"
	    "\n {\"id\": \"m-mine\", \"context_window\": 32000, \"max_output\":"
	    " 4000, \"thinking\": \"none\", \"prices\": {\"input\": 0.5,"
	    " \"output\": 1}, \"prices_source\": {\"title\": \"my gateway\","
	    " \"url\": \"https://gw.example/prices\"}, \"prices_checked\":"
	    " \"2026-11-20\"}]}\n");
	c = catalog_open(base, user, &err);
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_str_eq(catalog_default_model(c), "m-mine");
	ck_assert_int_eq(catalog_count(c), 5);
	/* Changed: the one rate given, the rest as built. */
	ck_assert_int_eq(catalog_lookup(c, "m-adaptive", &m), 1);
	ck_assert_double_eq_tol(m.prices.cache_read, 0.05, 1e-9);
	ck_assert_double_eq_tol(m.prices.input, 2, 1e-9);
	ck_assert_double_eq_tol(m.prices.cache_write_1h, 4, 1e-9);
	ck_assert_int_eq(m.context_window, 1000000);
	ck_assert_str_eq(m.retires, "2027-01-01");
	ck_assert_str_eq(m.origin, "built-in, changed by user file");
	ck_assert_str_eq(m.prices_source.url, user);
	ck_assert_str_eq(m.prices_source.checked, "");
	/* Added. */
	ck_assert_int_eq(catalog_lookup(c, "m-mine", &m), 1);
	ck_assert_int_eq(m.context_window, 32000);
	ck_assert_str_eq(m.origin, "user file");
	ck_assert_str_eq(m.prices_source.title, "my gateway");
	ck_assert_str_eq(m.prices_source.checked, "2026-11-20");
	/* Untouched. */
	ck_assert_int_eq(catalog_lookup(c, "m-manual", &m), 1);
	ck_assert_str_eq(m.origin, "built-in");
	catalog_free(c);
	free(user);
	/* No file there: the catalog as built. */
	user = xasprintf("%s/none.json", scratch);
	c = catalog_open(base, user, &err);
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_int_eq(catalog_count(c), 4);
	catalog_free(c);
	free(user);
	free(base);
}
END_TEST

/* A user catalog that cannot be used is an error that names it and says
 * what is wrong, never half applied. */
START_TEST(broken_user_catalog_is_refused)
{
	static const struct {
		const char	*text;
		const char	*why;
	} bad[] = {
		{ "{\"models\": [", "line" },
		{ "[]", "JSON object" },
		{ "{\"modles\": []}", "unknown field \"modles\"" },
		{ "{\"models\": {}}", "must be a list" },
		{ "{\"models\": [{\"name\": \"x\"}]}", "models[0]: no \"id\"" },
		{ "{\"models\": [{\"id\": \"m-new\"}]}",
		  "model m-new: missing or bad context_window" },
		{ "{\"models\": [{\"id\": \"m-none\", \"prices\": {\"input\":"
		  " -1}}]}", "model m-none: missing or bad input" },
		{ "{\"models\": [{\"id\": \"m-none\", \"retires\": \"soon\"}]}",
		  "retires" },
		{ "{\"models\": [{\"id\": \"m-none\", \"prices_above\":"
		  " 1000}]}", "prices_long" },
		{ "{\"default_model\": \"nobody\"}", "not in the list" },
	};
	char *base = write_catalog(small);
	size_t i;

	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		char *user = write_user(bad[i].text), *err = NULL;

		ck_assert_ptr_null(catalog_open(base, user, &err));
		ck_assert_msg(err != NULL && strstr(err, bad[i].why) != NULL,
		    "case %zu: %s", i, err ? err : "(no error)");
		ck_assert_msg(strstr(err, user) != NULL, "case %zu: %s", i,
		    err);
		free(err);
		free(user);
	}
	free(base);
}
END_TEST

/* The user catalog's place: XDG_CONFIG_HOME when absolute, else HOME. */
START_TEST(user_catalog_path_follows_xdg)
{
	char *p;

	setenv("XDG_CONFIG_HOME", "/x/conf", 1);
	setenv("HOME", "/home/p", 1);
	p = catalog_user_path();
	ck_assert_str_eq(p, "/x/conf/huddle/models.json");
	free(p);
	setenv("XDG_CONFIG_HOME", "relative", 1);
	p = catalog_user_path();
	ck_assert_str_eq(p, "/home/p/.config/huddle/models.json");
	free(p);
	unsetenv("XDG_CONFIG_HOME");
	p = catalog_user_path();
	ck_assert_str_eq(p, "/home/p/.config/huddle/models.json");
	free(p);
	unsetenv("HOME");
	ck_assert_ptr_null(catalog_user_path());
}
END_TEST

/* Looks model id up in c; returns what catalog_lookup says. */
static int
lookup(struct catalog *c, const char *id, struct model_info *m)
{
	memset(m, 0xa5, sizeof *m);
	return catalog_lookup(c, id, m);
}

/* A model the catalog lacks takes the window, output and thinking rules
 * (never the prices) of its family's newest entry not newer than it; one
 * of no family, or older than all of it, the unknown-model defaults. */
START_TEST(unknown_models_take_their_familys_rules)
{
	static const struct {
		const char	*id;
		const char	*family;	/* NULL: none */
	} cases[] = {
		{ "claude-opus-4-9", "claude-opus-4-8" },
		{ "claude-opus-6", "claude-opus-5-5" },
		{ "claude-opus-5-6-20270101", "claude-opus-5-5" },
		{ "claude-sonnet-5-7", "claude-sonnet-5-5" },
		{ "claude-haiku-6", "claude-haiku-5-5" },
		{ "claude-fable-5-3", "claude-fable-5-2" },
		{ "claude-mythos-5-2", "claude-mythos-5" },
		{ "gpt-6.3-sol", "gpt-6.2-sol" },
		{ "gpt-6.2-astra", "gpt-6-astra" },
		{ "openai/gpt-6.1-luna", "gpt-6-luna" },
		{ "gpt-5.5", "gpt-5.4" },
		{ "gpt-5.4-mini-2026-03-17", "gpt-5.4" },
		{ "gpt-7", "gpt-6.2-sol" },
		/* Older than every entry of the family, or of none. */
		{ "gpt-4.1", NULL },
		{ "claude-opus-4-1", NULL },
		{ "o3", NULL },
		{ "claude-test-1", NULL },
		{ "gpt-fake", NULL },
		{ "llama3.3", NULL },
	};
	char *err = NULL;
	struct catalog *c = catalog_load(NULL, &err);
	struct model_info m, f;
	size_t i;

	ck_assert_msg(c != NULL, "%s", err);
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		ck_assert_msg(lookup(c, cases[i].id, &m) == 0, "%s",
		    cases[i].id);
		ck_assert_int_eq(m.known, 0);
		ck_assert_str_eq(m.id, cases[i].id);
		ck_assert(m.prices.input == 0 && m.prices.output == 0 &&
		    m.prices.cache_read == 0 && m.prices.long_above == 0);
		if (cases[i].family == NULL) {
			ck_assert_msg(m.family == NULL, "%s: family %s",
			    cases[i].id, m.family);
			ck_assert_int_eq(m.context_window, 200000);
			ck_assert_int_eq(m.max_output, 8192);
			continue;
		}
		ck_assert_msg(m.family != NULL && strcmp(m.family,
		    cases[i].family) == 0, "%s: family %s, not %s",
		    cases[i].id, m.family ? m.family : "none",
		    cases[i].family);
		ck_assert_int_eq(lookup(c, cases[i].family, &f), 1);
		ck_assert_int_eq(m.context_window, f.context_window);
		ck_assert_int_eq(m.max_output, f.max_output);
		ck_assert_int_eq(m.thinking, f.thinking);
		ck_assert_int_eq(m.thinking_always_on, f.thinking_always_on);
		ck_assert_int_eq(m.thinking_off, f.thinking_off);
		ck_assert_int_eq(m.thinking_budget, f.thinking_budget);
		ck_assert_int_eq(m.forced_tool_choice, f.forced_tool_choice);
		ck_assert_int_eq(m.compaction, 0);
		ck_assert_str_eq(m.retires, "");
	}
	/* A dated OpenAI snapshot is its listed base, as a Claude one is. */
	ck_assert_int_eq(lookup(c, "gpt-5.4-2026-03-05", &m), 1);
	ck_assert_int_eq(m.context_window, 1050000);
	ck_assert_int_eq(lookup(c, "claude-opus-4-5-20251101", &m), 1);
	ck_assert_int_eq(m.max_output, 64000);
	catalog_free(c);
}
END_TEST

/* A family's rules are applied as a known model's are: thinking as the
 * family thinks, reasoning asked for, the family's largest output; and
 * the notice says what was assumed. */
START_TEST(family_rules_configure_requests)
{
	char *err = NULL, *msg;
	struct catalog *c = catalog_load(NULL, &err);
	struct model_choice ch = { 0 };
	struct llm_config cfg;
	struct model_info m;

	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_int_eq(configure(c, "claude-opus-6", &ch, &cfg, &err), 0);
	ck_assert_int_eq(cfg.thinking, LLM_THINKING_ADAPTIVE);
	ck_assert_int_eq(cfg.max_tokens, 128000);
	ck_assert_int_eq(cfg.reasons, 1);
	ck_assert_int_eq(configure(c, "gpt-6.3-sol", &ch, &cfg, &err), 0);
	ck_assert_str_eq(cfg.reasoning_effort, "medium");
	ck_assert_int_eq(cfg.reasons, 1);
	/* Off, where the family always thinks, is refused at start. */
	ch.thinking = LLM_THINKING_DISABLED;
	ck_assert_int_eq(configure(c, "claude-opus-6", &ch, &cfg, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "always thinks"));
	free(err);
	/* A model of no family: thinking as asked, no reasoning, and the
	 * unknown-model output (8192 tokens). */
	ch.thinking = LLM_THINKING_UNSET;
	ck_assert_int_eq(configure(c, "llama3.3", &ch, &cfg, &err), 0);
	ck_assert_int_eq(cfg.thinking, LLM_THINKING_UNSET);
	ck_assert_int_eq(cfg.reasons, 0);
	ck_assert_int_eq(cfg.max_tokens, 8192);

	lookup(c, "claude-opus-4-9", &m);
	msg = catalog_assumed(&m);
	ck_assert_ptr_nonnull(strstr(msg, "claude-opus-4-9 is not in the "
	    "model catalog"));
	ck_assert_ptr_nonnull(strstr(msg, "claude-opus-4-8"));
	ck_assert_ptr_nonnull(strstr(msg, "1000000-token window"));
	ck_assert_ptr_nonnull(strstr(msg, "128000 tokens"));
	ck_assert_ptr_nonnull(strstr(msg, "knows no price"));
	free(msg);
	lookup(c, "llama3.3", &m);
	msg = catalog_assumed(&m);
	ck_assert_ptr_nonnull(strstr(msg, "200000-token window"));
	ck_assert_ptr_nonnull(strstr(msg, "8192 tokens"));
	free(msg);
	catalog_free(c);
}
END_TEST

/* A spending limit cannot count a model with no price: it is refused
 * with a sentence that says how to give one; --price gives one (input,
 * cached or not, at IN; output at OUT) and never replaces the catalog's;
 * without a limit an unpriced model goes on, as before. */
START_TEST(max_cost_needs_a_price)
{
	char *err = NULL, *msg;
	struct catalog *c = catalog_load(NULL, &err);
	struct model_choice ch = { 0 };
	struct model_info m;
	struct llm_usage u = { 1000000, 100000, 200000, 100000, 2000000, 0, 0,
	    0, 0 };

	ck_assert_msg(c != NULL, "%s", err);
	lookup(c, "llama3.3", &m);
	ck_assert_int_eq(catalog_price(&m, &ch, &err), 0);
	ck_assert(m.prices.input == 0 && m.prices.output == 0);

	ch.budget = 1;
	ck_assert_int_eq(catalog_price(&m, &ch, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "llama3.3 has no price"));
	ck_assert_ptr_nonnull(strstr(err, "--max-cost"));
	ck_assert_ptr_nonnull(strstr(err, "--price IN/OUT"));
	free(err);
	err = NULL;
	/* A family gives rules, not a price. */
	lookup(c, "gpt-6.3-sol", &m);
	ck_assert_int_eq(catalog_price(&m, &ch, &err), -1);
	free(err);
	err = NULL;

	ch.priced = 1;
	ch.price_in = 3;
	ch.price_out = 15;
	ck_assert_int_eq(catalog_price(&m, &ch, &err), 0);
	ck_assert_double_eq_tol(m.prices.input, 3, 1e-9);
	ck_assert_double_eq_tol(m.prices.output, 15, 1e-9);
	ck_assert_double_eq_tol(m.prices.cache_read, 3, 1e-9);
	ck_assert_double_eq_tol(m.prices.cache_write_1h, 3, 1e-9);
	ck_assert_int_eq(m.prices.long_above, 0);
	/* 3 + 1.5 + 0.6 + 0.3 + 6 */
	ck_assert_double_eq_tol(catalog_cost(&m.prices, &u), 11.4, 1e-9);
	msg = catalog_assumed(&m);
	ck_assert_ptr_nonnull(strstr(msg, "prices it at $3 and $15"));
	free(msg);

	/* The catalog's price stays the catalog's. */
	lookup(c, "claude-sonnet-5-5", &m);
	ck_assert_int_eq(catalog_price(&m, &ch, &err), 0);
	ck_assert_double_eq_tol(m.prices.input, 2, 1e-9);
	ck_assert_double_eq_tol(m.prices.cache_read, 0.1, 1e-9);
	/* A free local model may be priced at nothing. */
	lookup(c, "llama3.3", &m);
	ch.price_in = ch.price_out = 0;
	ck_assert_int_eq(catalog_price(&m, &ch, &err), 0);
	catalog_free(c);
}
END_TEST

/* --price IN/OUT: two amounts of dollars, 0 or more, a gate. */
START_TEST(price_option_reads_in_and_out)
{
	static const char *const bad[] = { "3", "3/", "/15", "-1/2", "3/x",
	    "3/15/1", "abc", "2000000/1" };
	struct options o;
	char *argv[] = { "huddle", "--price", "2.5/12.5", NULL };
	char *err = NULL;
	size_t i;
	int id = options_find("price");

	ck_assert_int_ge(id, 0);
	ck_assert_int_eq(options_table[id].place, OPT_GATE);
	options_init(&o);
	ck_assert_int_eq(options_given(&o, id), 0);
	ck_assert_int_eq(options_parse(&o, 3, argv), -1);
	ck_assert_int_eq(options_given(&o, id), 1);
	ck_assert_double_eq_tol(o.price_in, 2.5, 1e-9);
	ck_assert_double_eq_tol(o.price_out, 12.5, 1e-9);
	ck_assert_int_eq(options_set(&o, id, "0/0", NULL, OPT_FROM_CMDLINE,
	    NULL, &err), 0);
	ck_assert(o.price_in == 0 && o.price_out == 0);
	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		ck_assert_msg(options_set(&o, id, bad[i], NULL,
		    OPT_FROM_CMDLINE, NULL, &err) == -1, "%s taken", bad[i]);
		ck_assert_ptr_nonnull(strstr(err, "IN/OUT"));
		free(err);
		err = NULL;
	}
	options_free(&o);
}
END_TEST

static Suite *
catalog_suite(void)
{
	Suite *s = suite_create("catalog");
	TCase *tc = tcase_create("catalog");

	tcase_add_checked_fixture(tc, scratch_make, scratch_remove);
	tcase_add_test(tc, builtin_catalog_is_complete);
	tcase_add_test(tc, lookup_by_id_alias_and_date);
	tcase_add_test(tc, thinking_follows_the_model);
	tcase_add_test(tc, configure_keeps_each_models_rules);
	tcase_add_test(tc, max_tokens_is_capped);
	tcase_add_test(tc, cost_prices_each_kind_of_token);
	tcase_add_test(tc, bad_catalogs_are_refused_with_a_reason);
	tcase_add_test(tc, builtin_prices_follow_the_pages);
	tcase_add_test(tc, cost_uses_the_band_of_the_prompt);
	tcase_add_test(tc, retirement_warns_then_refuses);
	tcase_add_test(tc, user_catalog_merges_field_by_field);
	tcase_add_test(tc, broken_user_catalog_is_refused);
	tcase_add_test(tc, user_catalog_path_follows_xdg);
	tcase_add_test(tc, unknown_models_take_their_familys_rules);
	tcase_add_test(tc, family_rules_configure_requests);
	tcase_add_test(tc, max_cost_needs_a_price);
	tcase_add_test(tc, price_option_reads_in_and_out);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(catalog_suite());
}
