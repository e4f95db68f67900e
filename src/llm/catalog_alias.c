/*
 * The family words a person writes for a model (see catalog.h): the
 * same in settings, on the command line, in a role and in the lead's
 * spawn.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "llm/catalog.h"

const char *
catalog_alias(const struct catalog *c, const char *name)
{
	static const char *const families[] = { "opus", "sonnet", "haiku" };
	const struct model_info *m;
	char family[16];
	size_t i, k;

	if (name == NULL)
		return NULL;
	for (k = 0; k < sizeof families / sizeof *families; k++)
		if (strcmp(name, families[k]) == 0)
			break;
	if (k == sizeof families / sizeof *families)
		return name;
	/* The catalog lists the newest first: its first current model of
	 * the family. */
	snprintf(family, sizeof family, "-%s-", name);
	for (i = 0; c != NULL && i < catalog_count(c); i++) {
		m = catalog_model(c, i);
		if (strstr(m->id, family) != NULL && m->status != NULL &&
		    strcmp(m->status, "current") == 0)
			return m->id;
	}
	return name;
}
