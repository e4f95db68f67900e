/*
 * When a model goes: the retirement date a catalog entry gives, seen from
 * a given day (see catalog.h). A retired model's requests fail on the
 * server, so huddle refuses it before making any; one retiring soon is
 * named at start with what replaces it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "llm/catalog.h"
#include "util/xmalloc.h"

/* The day number (days since 1970-01-01, UTC) of "YYYY-MM-DD". */
static long
catalog_life_day(const char *s)
{
	struct tm tm;

	memset(&tm, 0, sizeof tm);
	tm.tm_year = atoi(s) - 1900;
	tm.tm_mon = atoi(s + 5) - 1;
	tm.tm_mday = atoi(s + 8);
	return (long)(timegm(&tm) / 86400);
}

/* "; use Claude Sonnet 5.5 (claude-sonnet-5-5)", or "" (malloc'd). */
static char *
catalog_life_instead(const struct model_info *m)
{
	if (m->replacement == NULL || *m->replacement == '\0')
		return xstrdup("");
	return xasprintf("; its replacement is %s", m->replacement);
}

enum catalog_life
catalog_life(const struct model_info *m, time_t now, char **msg)
{
	long today = (long)(now / 86400), left;
	char *instead;

	if (!m->known || m->retires == NULL || *m->retires == '\0')
		return CATALOG_SERVED;
	left = catalog_life_day(m->retires) - today;
	if (left > CATALOG_RETIRING_DAYS)
		return CATALOG_SERVED;
	instead = catalog_life_instead(m);
	if (left <= 0)
		*msg = xasprintf("%s was retired on %s: requests to it fail%s "
		    "(--model NAME)", m->id, m->retires, instead);
	else
		*msg = xasprintf("%s retires on %s, in %ld day%s%s", m->id,
		    m->retires, left, left == 1 ? "" : "s", instead);
	free(instead);
	return left <= 0 ? CATALOG_RETIRED : CATALOG_RETIRING;
}
