/*
 * The person's configuration folder (see configdir.h).
 */
#include "config.h"

#include <stdlib.h>

#include "util/configdir.h"
#include "util/xmalloc.h"

char *
configdir_path(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	/* The XDG rule: a relative XDG_CONFIG_HOME is ignored. */
	if (xdg != NULL && *xdg == '/')
		return xasprintf("%s/huddle", xdg);
	if (home != NULL && *home != '\0')
		return xasprintf("%s/.config/huddle", home);
	return NULL;
}
