/*
 * The environment a tool's processes get (see env.h).
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "tools/env.h"
#include "util/xmalloc.h"

extern char **environ;

#define ENV_PASS_MAX	32

static const char *env_passed[ENV_PASS_MAX];
static size_t env_npassed;

void
env_pass(const char *name)
{
	if (env_npassed < ENV_PASS_MAX)
		env_passed[env_npassed++] = name;
}

/* Whether `name` (len bytes) contains `word`, ignoring case. */
static int
env_name_has(const char *name, size_t len, const char *word)
{
	size_t wl = strlen(word), i;

	for (i = 0; i + wl <= len; i++) {
		if (strncasecmp(name + i, word, wl) == 0)
			return 1;
	}
	return 0;
}

/* Whether a value is a URL carrying a password: scheme://user:pw@host. */
static int
env_url_has_password(const char *v)
{
	const char *p = v, *end;

	if (!isalpha((unsigned char)*p))
		return 0;
	while (isalnum((unsigned char)*p) || *p == '+' || *p == '-' ||
	    *p == '.')
		p++;
	if (strncmp(p, "://", 3) != 0)
		return 0;
	p += 3;
	end = p + strcspn(p, "/?#");
	for (; p < end; p++) {
		if (*p == ':' && memchr(p, '@', (size_t)(end - p)) != NULL)
			return 1;
	}
	return 0;
}

int
env_is_secret(const char *entry)
{
	static const char *const words[] = { "KEY", "TOKEN", "SECRET",
	    "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE", "SESSION" };
	const char *eq = strchr(entry, '=');
	size_t len = eq != NULL ? (size_t)(eq - entry) : strlen(entry), i;

	for (i = 0; i < env_npassed; i++) {
		if (strlen(env_passed[i]) == len &&
		    strncmp(env_passed[i], entry, len) == 0)
			return 0;
	}
	for (i = 0; i < sizeof words / sizeof *words; i++) {
		if (env_name_has(entry, len, words[i]))
			return 1;
	}
	return eq != NULL && env_url_has_password(eq + 1);
}

char **
env_for_tools(void)
{
	size_t n, k = 0;
	char **env;

	for (n = 0; environ[n] != NULL; n++)
		;
	env = xcalloc(n + 1, sizeof *env);
	for (n = 0; environ[n] != NULL; n++) {
		if (!env_is_secret(environ[n]))
			env[k++] = environ[n];
	}
	env[k] = NULL;
	return env;
}
