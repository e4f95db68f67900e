/*
 * bench/gitrun: what one call of huddle's own git costs (git_run, for
 * `git rev-parse HEAD` in a small repository), from the call to its
 * return, with huddle-reaper as the reaper:
 *
 *   before   as huddle ran its git until it had a profile of its own:
 *            the same git command line (the safe settings), in a
 *            Landlock ruleset alone, the repository found by git;
 *   after    git_run now: the repository pinned (GIT_DIR,
 *            GIT_COMMON_DIR, GIT_WORK_TREE, checked not replaced), the
 *            configuration's filters and drivers listed and emptied
 *            first, in the profile places.c builds for it (Landlock,
 *            seccomp, no capabilities, no network, the hooks and
 *            configuration read-only in pinned namespaces);
 *   after, a worktree   the same on a linked worktree (git_run_at).
 *
 * The three are taken in turn, call by call, so that a machine busy now
 * and then weighs on all alike, and the ratio of the medians printed.
 *
 * usage: bench/gitrun [RUNS]   (default 100)
 */
#include "config.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "tools/bash.h"
#include "tools/git.h"
#include "tools/landlock.h"
#include "tools/mountns.h"
#include "tools/profile.h"
#include "tools/reaper.h"
#include "tools/reaperexe.h"
#include "util/clock.h"
#include "util/xmalloc.h"

static int
cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static void
report(const char *label, int64_t *us, int runs)
{
	qsort(us, (size_t)runs, sizeof *us, cmp);
	printf("%-22s p50 %6.2f ms  p99 %6.2f ms  max %6.2f ms\n", label,
	    us[runs / 2] / 1000.0, us[runs * 99 / 100] / 1000.0,
	    us[runs - 1] / 1000.0);
}

/* One call the old way: git's safe command line through bash_run,
 * Landlock alone; its time in microseconds. */
static int64_t
before(const struct git *g, const char *dir, int fd)
{
	struct bash_options o = { 0 };
	struct tool_output out = { 0 };
	int64_t t0 = clock_mono_us(), us;
	char *cmd = xasprintf("LC_ALL=C GIT_TERMINAL_PROMPT=0 "
	    "GIT_OPTIONAL_LOCKS=0 exec '%s' -c core.hooksPath=/dev/null "
	    "-c core.fsmonitor=false -c commit.gpgSign=false "
	    "-c tag.gpgSign=false -c diff.external= -c core.quotePath=false "
	    "-c submodule.recurse=false -c protocol.allow=never "
	    "rev-parse HEAD", g->path);

	o.program = g->program;
	o.workdir = dir;
	o.sandboxed = 1;
	o.sandbox_fd = fd;
	if (bash_run(cmd, &o, &out) != 0 ||
	    strstr(out.text, "[exit status 0]") == NULL) {
		fprintf(stderr, "bench/gitrun: %s\n", out.text);
		exit(1);
	}
	us = clock_mono_us() - t0;
	tool_output_clear(&out);
	free(cmd);
	return us;
}

/* One call of git_run_at now; its time in microseconds. */
static int64_t
after(const struct git *g, const char *dir, const char *admin)
{
	const char *args[] = { "rev-parse", "HEAD", NULL };
	int64_t t0 = clock_mono_us(), us;
	char *out;

	if (git_run_at(g, dir, admin, 0, 0, &out, args) != 0) {
		fprintf(stderr, "bench/gitrun: %s\n", out);
		exit(1);
	}
	us = clock_mono_us() - t0;
	free(out);
	return us;
}

/* A repository with one commit and a linked worktree, in a new
 * directory (malloc'd). */
static char *
repository(void)
{
	char tmpl[] = "/tmp/huddle-bench-git-XXXXXX", *dir, *cmd;

	if (mkdtemp(tmpl) == NULL || (dir = realpath(tmpl, NULL)) == NULL)
		return NULL;
	cmd = xasprintf("cd '%s' && git init -q -b main . && "
	    "git -c user.name=b -c user.email=b@x commit -q --allow-empty "
	    "-m x && git worktree add -q -b w w >/dev/null 2>&1", dir);
	if (system(cmd) != 0) {
		free(cmd);
		free(dir);
		return NULL;
	}
	free(cmd);
	return dir;
}

/* The three rows, each call of one taken in turn with the others' (so
 * that a machine busy now and then weighs on all alike). */
static void
rows(const struct git *old, int fd, const struct git *g, const char *dir,
    const char *wt, const char *admin, int runs)
{
	int64_t *b = xcalloc((size_t)runs, sizeof *b);
	int64_t *a = xcalloc((size_t)runs, sizeof *a);
	int64_t *w = xcalloc((size_t)runs, sizeof *w);
	int i;

	for (i = 0; i < runs; i++) {
		b[i] = before(old, dir, fd);
		a[i] = after(g, dir, NULL);
		w[i] = after(g, wt, admin);
	}
	report("before", b, runs);
	report("after", a, runs);
	report("after, a worktree", w, runs);
	printf("after / before, p50: %.2f\n", (double)a[runs / 2] /
	    (double)b[runs / 2]);
	free(b);
	free(a);
	free(w);
}

/* The rows, in dir, with reaper program. */
static int
measure(const char *program, const char *dir, int runs)
{
	struct git g = { 0 }, old;
	struct profile_spec s = { 0 };
	struct bash_options bo = { 0 };
	struct landlock_rules rules = { 0 };
	char *hidden[] = { NULL }, *err = NULL, *common, *wt, *admin;
	const char *writable[] = { dir, "/tmp" };
	struct profile *p;
	int fd;

	g.program = program;
	if (git_find(&g) == -1 || landlock_abi() == 0) {
		printf("(no git, or no Landlock: no figure)\n");
		return 0;
	}
	rules.writable = writable;
	rules.nwritable = 2;
	if ((fd = landlock_ruleset(&rules, &err)) == -1) {
		fprintf(stderr, "bench/gitrun: %s\n", err);
		return -1;
	}
	old = g;
	s.root = dir;
	s.tmpdir = "/tmp";
	s.program = program;
	s.hidden = hidden;
	s.sandbox = 1;
	s.confined = 1;
	s.net = CONFINE_NET_NONE;
	s.max_procs = CONFINE_DEFAULT_PROCS;
	s.max_memory = CONFINE_DEFAULT_MEMORY;
	s.max_file_size = CONFINE_DEFAULT_FILE_SIZE;
	s.git_admin = 1;
	if ((p = profile_new(&s, &err)) == NULL) {
		fprintf(stderr, "bench/gitrun: %s\n", err);
		return -1;
	}
	profile_bash_options(p, &bo);
	git_confine(&g, &bo);
	common = xasprintf("%s/.git", dir);
	if (git_pin(&g, common, &err) == -1) {
		fprintf(stderr, "bench/gitrun: %s\n", err);
		return -1;
	}
	wt = xasprintf("%s/w", dir);
	admin = xasprintf("%s/worktrees/w", common);
	rows(&old, fd, &g, dir, wt, admin, runs);
	close(fd);
	free(wt);
	free(admin);
	free(common);
	profile_free(p);
	git_clear(&g);
	return 0;
}

int
main(int argc, char **argv)
{
	char *self, *file, *program, *dir, *rm, *err = NULL;
	int runs, rc;

	if (argc > 1 && strcmp(argv[1], REAPER_ARG) == 0)
		return reaper_main(argc, argv);
	if (argc > 1 && strcmp(argv[1], MOUNTNS_HOLDER_ARG) == 0)
		return mountns_holder_main(argc, argv);
	runs = argc > 1 ? atoi(argv[1]) : 100;
	if (runs < 1)
		runs = 100;
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if ((self = realpath(argv[0], NULL)) == NULL)
		self = xstrdup(".");
	dirname(self);
	file = xasprintf("%s/../src/" REAPEREXE_NAME, self);
	/* As huddle runs it: huddle-reaper reaps and holds. */
	if ((program = reaperexe_copy(file, &err)) == NULL) {
		printf("(no %s: %s; this program reaps)\n", REAPEREXE_NAME,
		    err);
		free(err);
		program = reaperexe_self();
	}
	if ((dir = repository()) == NULL) {
		fprintf(stderr, "bench/gitrun: cannot make a repository\n");
		return 1;
	}
	printf("bench/gitrun: %d runs of `git rev-parse HEAD` each\n", runs);
	rc = measure(program, dir, runs);
	rm = xasprintf("rm -rf '%s'", dir);
	if (system(rm) != 0)
		rc = -1;
	free(rm);
	free(dir);
	free(program);
	free(file);
	free(self);
	return rc == 0 ? 0 : 1;
}
