/*
 * Unit tests of llm/catalog: reading the model catalog, finding a model,
 * what a request asks of it, and what its usage costs.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm/catalog.h"
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
	struct llm_usage u = { 1000000, 100000, 200000, 100000, 2000000, 0, 0 };

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
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(catalog_suite());
}
