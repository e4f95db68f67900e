/*
 * Completing a command line (see complete.h).
 */
#include "config.h"

#include <string.h>

#include "agent/command.h"
#include "ui/complete.h"
#include "util/xmalloc.h"

/* The candidates of prefix among words (n), joined by blanks, and their
 * longest shared start (both malloc'd); returns how many there are. */
static size_t
complete_among(const char *prefix, const char *const *words, size_t n,
    char **shared, char **all)
{
	size_t len = strlen(prefix), found = 0, i, k, alen = 0, acap = 0;

	*shared = NULL;
	*all = NULL;
	for (i = 0; i < n; i++) {
		if (strncmp(words[i], prefix, len) != 0)
			continue;
		if (*all != NULL)
			*all = xappend(*all, &alen, &acap, " ", 1);
		*all = xappend(*all, &alen, &acap, words[i], strlen(words[i]));
		if (found++ == 0) {
			*shared = xstrdup(words[i]);
			continue;
		}
		for (k = 0; (*shared)[k] != '\0' && (*shared)[k] == words[i][k];
		    k++)
			;
		(*shared)[k] = '\0';
	}
	return found;
}

char *
complete_line(const char *line, const char *const *names, size_t nnames,
    char **choices)
{
	const struct command_def *defs;
	const char **words, *last;
	size_t n, i, found;
	char *shared, *all, *out, *cmd;

	*choices = NULL;
	if (line[0] != '/')
		return xstrdup(line);
	defs = command_defs(&n);
	words = xcalloc(n, sizeof *words);
	for (i = 0; i < n; i++)
		words[i] = defs[i].words;
	/* Still in the command's words: complete them. */
	found = complete_among(line + 1, words, n, &shared, &all);
	if (found > 0) {
		free(words);
		out = xasprintf("/%s%s", shared, found == 1 ? " " : "");
		if (found > 1)
			*choices = all;
		else
			free(all);
		free(shared);
		return out;
	}
	free(words);
	/* Past them: a name for the last word. */
	last = strrchr(line, ' ');
	if (last == NULL)
		return xstrdup(line);
	last++;
	found = complete_among(last, names, nnames, &shared, &all);
	if (found == 0)
		return xstrdup(line);
	cmd = xasprintf("%.*s", (int)(last - line), line);
	out = xasprintf("%s%s%s", cmd, shared, found == 1 ? " " : "");
	free(cmd);
	if (found > 1)
		*choices = all;
	else
		free(all);
	free(shared);
	return out;
}

int
complete_is_command(const char *text)
{
	const struct command_def *defs;
	size_t n, i, len = strcspn(text, " "), wl;

	defs = command_defs(&n);
	for (i = 0; i < n; i++) {
		wl = strcspn(defs[i].words, " ");
		if (wl != len || strncmp(defs[i].words, text, len) != 0)
			continue;
		if (text[len] == ' ' || defs[i].args == ARGS_NONE)
			return 1;
	}
	return 0;
}
