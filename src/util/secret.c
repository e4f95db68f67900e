/*
 * Keeping the API key out of reach (see secret.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "util/secret.h"
#include "util/xmalloc.h"

extern char **environ;

char *
secret_take(const char *name)
{
	size_t len = strlen(name), i;
	char *copy = NULL;

	for (i = 0; environ[i] != NULL; i++) {
		char *entry = environ[i];

		if (strncmp(entry, name, len) != 0 || entry[len] != '=')
			continue;
		if (copy == NULL && entry[len + 1] != '\0')
			copy = xstrdup(entry + len + 1);
		/* The bytes /proc/PID/environ shows are these very ones. */
		memset(entry + len + 1, 0, strlen(entry + len + 1));
	}
	unsetenv(name);
	return copy;
}

void
secret_harden(void)
{
	struct rlimit none = { 0, 0 };

	setrlimit(RLIMIT_CORE, &none);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}
