/*
 * huddle --models: the catalog in use as a table, each model followed by
 * where its figures come from — the built-in data or the person's own
 * catalog, and the page and day each was read (see catalog.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "llm/catalog.h"

/* How a model thinks, in a word. */
static const char *
catalog_print_thinking(const struct model_info *m)
{
	if (m->thinking_always_on)
		return "always";
	return m->thinking == MODEL_THINKING_ADAPTIVE ? "adaptive" :
	    m->thinking == MODEL_THINKING_MANUAL ? "budget" : "none";
}

/* "Pricing <https://…>, checked 2026-11-26", or that none is recorded. */
static void
catalog_print_source(FILE *out, const char *what, const struct model_source *s)
{
	fprintf(out, "      %s: ", what);
	if (*s->title == '\0' && *s->url == '\0')
		fputs("no source recorded", out);
	else
		fprintf(out, "%s <%s>", s->title, s->url);
	if (*s->checked != '\0')
		fprintf(out, ", checked %s", s->checked);
	fputc('\n', out);
}

/* The status as of now: a retirement date that has passed wins. */
static const char *
catalog_print_status(const struct model_info *m, time_t now)
{
	char *msg = NULL;
	enum catalog_life life = catalog_life(m, now, &msg);

	free(msg);
	if (life == CATALOG_RETIRED)
		return "retired";
	return *m->status != '\0' ? m->status : "-";
}

void
catalog_print(FILE *out, const struct catalog *c, time_t now)
{
	const struct model_info *m;
	const struct model_rates *l;
	size_t i;

	fprintf(out, "%-28s %-10s %9s %8s %-9s %7s %7s %7s %7s %7s  %s\n",
	    "MODEL", "STATUS", "CONTEXT", "OUTPUT", "THINKING", "IN $/M",
	    "OUT $/M", "CW5M", "CW1H", "CREAD", "NAME");
	for (i = 0; (m = catalog_model(c, i)) != NULL; i++) {
		fprintf(out, "%-28s %-10s %9lld %8lld %-9s %7.3g %7.3g %7.3g "
		    "%7.3g %7.3g  %s%s\n", m->id, catalog_print_status(m, now),
		    (long long)m->context_window, (long long)m->max_output,
		    catalog_print_thinking(m), m->prices.input,
		    m->prices.output, m->prices.cache_write_5m,
		    m->prices.cache_write_1h, m->prices.cache_read, m->name,
		    strcmp(m->id, catalog_default_model(c)) == 0 ?
		    " (default)" : "");
		if (m->prices.long_above > 0) {
			l = &m->prices.long_rates;
			fprintf(out, "      prompts above %lld tokens: %g %g %g "
			    "%g %g (in, out, cache writes 5m and 1h, cache "
			    "read)\n", (long long)m->prices.long_above,
			    l->input, l->output, l->cache_write_5m,
			    l->cache_write_1h, l->cache_read);
		}
		if (*m->retires != '\0')
			fprintf(out, "      retires %s%s%s\n", m->retires,
			    *m->replacement != '\0' ? "; replacement " : "",
			    m->replacement);
		fprintf(out, "      from: %s\n", m->origin);
		catalog_print_source(out, "model", &m->source);
		catalog_print_source(out, "prices", &m->prices_source);
	}
}
