/*
 * bench/command: what a bash tool call costs beyond the command itself,
 * from bash_run's call to its return, for `true`: the output pipe, the
 * reaper (this program started again, as huddle starts itself), the
 * shell, and the Landlock sandbox when the kernel has one. Runs it
 * unsandboxed, sandboxed, and sandboxed and confined as a teammate's
 * command is (tools/confine.h: the default limits, a read-only path,
 * Unix sockets and the network judged), and prints p50/p99/max of each.
 *
 * The rows run twice: with huddle's own program as the reaper (as huddle
 * ran before huddle-reaper, and runs when it is missing), found at
 * ../src/huddle from here, and with huddle-reaper, the small program
 * huddle uses, found beside it.
 *
 * usage: bench/command [RUNS]   (default 200)
 */
#include "config.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/bash.h"
#include "tools/confine.h"
#include "tools/landlock.h"
#include "tools/mountns.h"
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
measure(const char *label, const struct bash_options *o, int runs)
{
	struct tool_output out = { 0 };
	int64_t *us = xcalloc((size_t)runs, sizeof *us), t0;
	int i;

	for (i = 0; i < runs; i++) {
		t0 = clock_mono_us();
		if (bash_run("true", o, &out) != 0 ||
		    strcmp(out.text, "[exit status 0]") != 0) {
			fprintf(stderr, "bench/command: %s\n", out.text);
			exit(1);
		}
		us[i] = clock_mono_us() - t0;
		tool_output_clear(&out);
	}
	qsort(us, (size_t)runs, sizeof *us, cmp);
	printf("%-30s p50 %6.2f ms  p99 %6.2f ms  max %6.2f ms\n", label,
	    us[runs / 2] / 1000.0, us[runs * 99 / 100] / 1000.0,
	    us[runs - 1] / 1000.0);
	free(us);
}

/* The four rows for reaper program `program` (named `who`). */
static int
measure_all(const char *who, const char *program, int runs)
{
	const char *roots[] = { "/tmp" };
	struct landlock_rules rules = { NULL, 0, NULL, 0, roots, 1, 0, 0 };
	char *unix_roots[] = { (char *)"/tmp", NULL };
	char *readonly[] = { (char *)"/tmp/.huddle-bench-ro", NULL };
	struct confine c = { .net = CONFINE_NET_PROXY, .proxy_port = 9,
	    .unix_roots = unix_roots, .readonly = readonly,
	    .max_procs = CONFINE_DEFAULT_PROCS,
	    .max_memory = CONFINE_DEFAULT_MEMORY,
	    .max_file_size = CONFINE_DEFAULT_FILE_SIZE };
	struct bash_options o = { 0 };
	struct mountns_pin pin;
	char *err = NULL;

	printf("reaper: %s\n", who);
	o.program = program;
	o.workdir = "/tmp";
	measure("bash_run, no sandbox", &o, runs);
	if (landlock_abi() == 0) {
		printf("(no Landlock on this kernel: no sandboxed figure)\n");
		return 0;
	}
	if ((o.sandbox_fd = landlock_ruleset(&rules, &err)) == -1) {
		fprintf(stderr, "bench/command: %s\n", err);
		return -1;
	}
	o.sandboxed = 1;
	measure("bash_run, Landlock sandbox", &o, runs);
	(void)mkdir(readonly[0], 0700);
	o.confine = &c;
	measure("bash_run, sandbox + confine", &o, runs);
	if (mountns_pin_new(o.program, readonly, &pin, &err) == -1) {
		fprintf(stderr, "bench/command: %s\n", err);
		return -1;
	}
	o.pinned = 1;
	o.pin_fd = pin.pidfd;
	measure("... its namespaces pinned", &o, runs);
	mountns_pin_free(&pin);
	rmdir(readonly[0]);
	close(o.sandbox_fd);
	return 0;
}

int
main(int argc, char **argv)
{
	char *dir, *own, *file, *small, *err = NULL;
	int runs, rc;

	if (argc > 1 && strcmp(argv[1], REAPER_ARG) == 0)
		return reaper_main(argc, argv);
	if (argc > 1 && strcmp(argv[1], MOUNTNS_HOLDER_ARG) == 0)
		return mountns_holder_main(argc, argv);
	runs = argc > 1 ? atoi(argv[1]) : 200;
	if (runs < 1)
		runs = 200;
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	printf("bench/command: %d runs of `true` each\n", runs);
	/* Absolute: the reaper starts in the command's directory. */
	if ((dir = realpath(argv[0], NULL)) == NULL)
		dir = xstrdup(".");
	dirname(dir);
	own = xasprintf("%s/../src/huddle", dir);
	if (access(own, X_OK) != 0) {
		free(own);
		own = reaperexe_self();
	}
	rc = measure_all("huddle's own program", own, runs);
	file = xasprintf("%s/../src/" REAPEREXE_NAME, dir);
	if (rc == 0 && (small = reaperexe_copy(file, &err)) != NULL) {
		rc = measure_all(REAPEREXE_NAME, small, runs);
		free(small);
	} else if (rc == 0) {
		printf("(no %s: %s)\n", REAPEREXE_NAME, err);
		free(err);
	}
	free(file);
	free(own);
	free(dir);
	return rc == 0 ? 0 : 1;
}
