/*
 * Whole outputs: a command's output that the model sees cut (or that is
 * longer than a pane keeps) is kept whole in the team's state, in
 * outputs/AGENT.ID.txt (ID: the tool call's; neither holds a dot), for
 * the person to read in a pager. The newest TEAM_OUTPUTS_KEEP are kept,
 * TEAM_OUTPUTS_BYTES in all; older ones go as new ones come. Commands
 * never reach the state folder, so what is kept is what the command
 * wrote, read by the person only.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/internal.h"
#include "agent/teamoutputs.h"
#include "core/statedir.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* How many whole outputs a team keeps, and how many bytes in all. */
#define TEAM_OUTPUTS_KEEP	64
#define TEAM_OUTPUTS_BYTES	(256LL << 20)

/* One file of the outputs folder, for the pruning. */
struct team_output_file {
	char	*name;
	time_t	 mtime;
	off_t	 size;
};

/* Removes what a command's output left half written in dir when huddle
 * was killed (bash's out-XXXXXX files): at the team's start, with its
 * lock held, no command of it runs. */
static void
team_outputs_sweep(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	char *path;

	while (d != NULL && (e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "out-", 4) != 0)
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		unlink(path);
		free(path);
	}
	if (d != NULL)
		closedir(d);
}

int
team_outputs_open(struct team *t, char **err)
{
	t->home.outputs = xasprintf("%s/outputs", t->home.state);
	if (statedir_make(t->home.outputs, 0, err) == -1)
		return -1;
	team_outputs_sweep(t->home.outputs);
	return 0;
}

char *
team_output_path(struct team *t, const char *agent, const char *id)
{
	size_t n = strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
	    "TUVWXYZ0123456789_-");

	/* Ids are the provider's words: only a plain one names a file. */
	if (n == 0 || n > 128 || id[n] != '\0')
		return NULL;
	return xasprintf("%s/outputs/%s.%s.txt", t->home.state, agent, id);
}

static int
team_output_newer(const void *a, const void *b)
{
	const struct team_output_file *x = a, *y = b;

	return x->mtime < y->mtime ? 1 : x->mtime > y->mtime ? -1 :
	    strcmp(x->name, y->name);
}

/* Removes the kept outputs of dir beyond the newest TEAM_OUTPUTS_KEEP
 * or TEAM_OUTPUTS_BYTES; a command's output still being written (not
 * yet named .txt) is not one of them. */
static void
team_outputs_prune(const char *dir)
{
	struct team_output_file *f = NULL;
	size_t n = 0, cap = 0, i, len;
	long long total = 0;
	struct dirent *e;
	struct stat st;
	DIR *d = opendir(dir);
	char *path;

	while (d != NULL && (e = readdir(d)) != NULL) {
		len = strlen(e->d_name);
		if (e->d_name[0] == '.' || len < 5 ||
		    strcmp(e->d_name + len - 4, ".txt") != 0)
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			f = xgrow(f, &cap, n + 1, sizeof *f);
			f[n].name = path;
			f[n].size = st.st_size;
			f[n++].mtime = st.st_mtime;
		} else
			free(path);
	}
	if (d != NULL)
		closedir(d);
	qsort(f, n, sizeof *f, team_output_newer);
	for (i = 0; i < n; i++) {
		total += f[i].size;
		if (i >= TEAM_OUTPUTS_KEEP || (i > 0 &&
		    total > TEAM_OUTPUTS_BYTES))
			unlink(f[i].name);
		free(f[i].name);
	}
	free(f);
}

char *
team_output_keep(struct team *t, const char *agent, const char *id,
    const char *tmp)
{
	char *path = team_output_path(t, agent, id);

	if (path == NULL || rename(tmp, path) == -1) {
		if (path != NULL)
			log_printf("outputs: %s: %s", path, strerror(errno));
		unlink(tmp);
		free(path);
		return NULL;
	}
	if (t->home.outputs != NULL)
		team_outputs_prune(t->home.outputs);
	return path;
}
