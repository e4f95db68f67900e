/*
 * bench/spawn: what starting a teammate costs in the sandbox, as the team
 * does it: its profile for the working directory (team_tool_member builds
 * it as team_launch does) and its first command (`true` through the bash
 * tool), from the call to the command's end. Each case also times the
 * team's start (team_open and team_start, the lead's profile included)
 * before the screen would appear.
 *
 * The profile's Landlock ruleset walks to every hidden path, and each
 * directory on the way costs one rule per entry, so two homes are
 * measured: one of 5,000 entries, and one inside a folder of 20,000.
 * Every teammate stays alive until its case ends, as a team's do; the
 * first spawn of a case is reported apart from the later ones. The homes
 * are made in the current directory: not in /tmp, whose entries other
 * programs change all the time, as a home's parent's seldom are.
 *
 * usage: bench/spawn [RUNS]   (default 30 spawns a case)
 */
#include "config.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/team.h"
#include "llm/catalog.h"
#include "llm/script.h"
#include "tools/mountns.h"
#include "tools/reaper.h"
#include "tools/tool.h"
#include "util/clock.h"
#include "util/xmalloc.h"

static void
die(const char *what, const char *err)
{
	fprintf(stderr, "bench/spawn: %s: %s\n", what, err ? err : "?");
	exit(1);
}

static int
cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Makes dir with n empty files in it. */
static void
fill(const char *dir, int n)
{
	char *path;
	int i, fd;

	if (mkdir(dir, 0755) == -1)
		die("mkdir", dir);
	for (i = 0; i < n; i++) {
		path = xasprintf("%s/entry-%05d", dir, i);
		if ((fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)) ==
		    -1)
			die("create", path);
		close(fd);
		free(path);
	}
}

/* Runs `true` as member a; dies unless it ran. */
static void
run_true(struct agent *a)
{
	struct tool_output out = { 0 };

	team_tool_call(a, "bash", json_pack("{s:s}", "command", "true"), &out);
	if (out.is_error || out.text == NULL ||
	    strstr(out.text, "exit status 0") == NULL)
		die("bash", out.text);
	tool_output_clear(&out);
}

/* One case: a team in workdir with HOME at home; runs spawns. */
static void
measure(const char *label, const char *base, const char *workdir,
    const char *home, int runs)
{
	struct team_options o;
	struct catalog *cat;
	struct team *t;
	struct agent **members = xcalloc((size_t)runs, sizeof *members);
	int64_t *us = xcalloc((size_t)runs, sizeof *us), t0, start, first;
	char *err = NULL, *text, *state, *name;
	int i;

	setenv("HOME", home, 1);
	state = xasprintf("%s/state-%s", base, label);
	team_options_defaults(&o);
	if ((cat = catalog_load(NULL, &err)) == NULL)
		die("catalog", err);
	o.catalog = cat;
	o.workdir = workdir;
	o.state_base = state;
	o.llm.provider = LLM_SCRIPT;
	o.llm.model = "script";
	text = xstrdup("{\"agents\": {\"lead\": [{\"text\": \"ok\"}]}}");
	if ((o.llm.script = script_parse(text, &err)) == NULL)
		die("scenario", err);
	free(text);
	t0 = clock_mono_us();
	if ((t = team_open(&o, &err)) == NULL || team_start(t, &err) == -1)
		die("team", err);
	start = clock_mono_us() - t0;
	for (i = 0; i < runs; i++) {
		name = xasprintf("mate%d", i);
		t0 = clock_mono_us();
		if ((members[i] = team_tool_member(t, name, &err)) == NULL)
			die("spawn", err);
		run_true(members[i]);
		us[i] = clock_mono_us() - t0;
		free(name);
	}
	first = us[0];
	qsort(us + 1, (size_t)runs - 1, sizeof *us, cmp);
	printf("%-22s start %7.2f ms  first spawn %7.2f ms  later: p50 %7.2f "
	    "ms  p99 %7.2f ms  max %7.2f ms\n", label, start / 1000.0,
	    first / 1000.0, us[1 + (runs - 1) / 2] / 1000.0,
	    us[1 + (runs - 1) * 99 / 100] / 1000.0, us[runs - 1] / 1000.0);
	for (i = 0; i < runs; i++)
		team_tool_member_free(members[i]);
	team_free(t);
	script_free(o.llm.script);
	catalog_free(cat);
	free(members);
	free(us);
	free(state);
}

/*
 * huddle starts huddle-reaper, found beside it, for each command and
 * namespace holder; a benchmark without one would start itself, far
 * bigger, instead. So the one built in ../src is linked beside this
 * program for the run (the name made here, removed at the end). Returns
 * the link's name, or NULL when there was one already or none to link.
 */
static char *
link_reaper(const char *self)
{
	char *dir = realpath(self, NULL), *slash, *link = NULL, *target;

	if (dir == NULL || (slash = strrchr(dir, '/')) == NULL) {
		free(dir);
		return NULL;
	}
	*slash = '\0';
	target = xasprintf("%s/../src/huddle-reaper", dir);
	link = xasprintf("%s/huddle-reaper", dir);
	if (access(target, X_OK) != 0 || access(link, F_OK) == 0 ||
	    symlink(target, link) == -1) {
		free(link);
		link = NULL;
	}
	free(target);
	free(dir);
	return link;
}

int
main(int argc, char **argv)
{
	char tmpl[] = "huddle-bench-spawn-XXXXXX";
	char *dir, *work, *home, *big, *bighome, *cmd, *reaper;
	int runs;

	if (argc > 1 && strcmp(argv[1], REAPER_ARG) == 0)
		return reaper_main(argc, argv);
	if (argc > 1 && strcmp(argv[1], MOUNTNS_HOLDER_ARG) == 0)
		return mountns_holder_main(argc, argv);
	runs = argc > 1 ? atoi(argv[1]) : 30;
	if (runs < 2 || mkdtemp(tmpl) == NULL ||
	    (dir = realpath(tmpl, NULL)) == NULL)
		die("setup", "bad RUNS or an unwritable directory");
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	reaper = link_reaper(argv[0]);
	curl_global_init(CURL_GLOBAL_ALL);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("XDG_DATA_HOME");
	work = xasprintf("%s/work", dir);
	home = xasprintf("%s/home", dir);
	big = xasprintf("%s/big", dir);
	bighome = xasprintf("%s/big/home", dir);
	cmd = xasprintf("git init -q '%s'", work);
	if (system(cmd) != 0)
		die("setup", cmd);
	free(cmd);
	fill(home, 5000);
	fill(big, 19999);
	fill(bighome, 0);
	printf("bench/spawn: %d spawns a case, each with its first command\n",
	    runs);
	measure("home of 5,000", dir, work, home, runs);
	measure("home among 20,000", dir, work, bighome, runs);
	cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench/spawn: could not remove %s\n", dir);
	free(cmd);
	free(work);
	free(home);
	free(big);
	free(bighome);
	free(dir);
	if (reaper != NULL)
		unlink(reaper);
	free(reaper);
	curl_global_cleanup();
	return 0;
}
