/*
 * Unit tests of tools/bash and its reaper: output, status and errors; the
 * working directory; secrets kept out of the environment; a clean signal
 * state; timeouts and cancellation that kill the whole process group (also
 * when it ignores SIGTERM); background jobs, setsid children and daemons
 * that end with the command, also when the command kills its reaper; a
 * sweep that ends a subreaper's children only; the output cap; repair
 * of binary output; and many commands at once from many threads.
 *
 * The reaper is this test program started again (main() below answers
 * REAPER_ARG, as huddle's does). Each test process makes itself a child
 * subreaper, as huddle's main does: what escapes a killed reaper becomes
 * ours, for bash_sweep_orphans to end.
 */
#include "config.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/bash.h"
#include "tools/tmpuse.h"
#include "tools/env.h"
#include "tools/reaper.h"
#include "tools/reaperexe.h"
#include "util/cancel.h"
#include "testutil.h"
#include "util/clock.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* Prints the shell's process group, the command's, on the first line. */
#define PGID	"read -r _ _ _ _ g _ < /proc/$$/stat; echo $g; "

/* Runs command in tu_wd with the given timeout and cap; returns bash_run's
 * result and leaves the output in *o. */
static int
run(const char *command, int timeout_s, size_t cap, struct cancel *c,
    struct tool_output *o)
{
	struct bash_options bo = { .program = tu_program, .workdir = tu_wd,
	    .timeout_s = timeout_s, .output_cap = cap, .cancel = c };

	tool_output_clear(o);
	return bash_run(command, &bo, o);
}

/* The process group named by the first line of the output (PGID). */
static pid_t
first_line_pid(const char *text)
{
	long v = strtol(text, NULL, 10);

	ck_assert_int_gt(v, 1);
	return (pid_t)v;
}

static void
assert_group_gone(pid_t pgid)
{
	ck_assert_int_eq(kill(-pgid, 0), -1);
	ck_assert_int_eq(errno, ESRCH);
}

/* No such process: not running, not a zombie. */
static void
assert_gone(pid_t pid)
{
	ck_assert_int_gt(pid, 1);
	ck_assert_msg(kill(pid, 0) == -1 && errno == ESRCH,
	    "process %ld is still there", (long)pid);
}

START_TEST(output_and_exit_status)
{
	struct tool_output o = { 0 };

	ck_assert_int_eq(run("echo hello", 0, 0, NULL, &o), 0);
	ck_assert_int_eq(o.is_error, 0);
	ck_assert_str_eq(o.text, "hello\n[exit status 0]");

	/* A non-zero exit is the model's to read, not a tool error. */
	ck_assert_int_eq(run("echo oops; exit 3", 0, 0, NULL, &o), 0);
	ck_assert_int_eq(o.is_error, 0);
	ck_assert_str_eq(o.text, "oops\n[exit status 3]");

	/* No output, and output without a final newline. */
	ck_assert_int_eq(run("true", 0, 0, NULL, &o), 0);
	ck_assert_str_eq(o.text, "[exit status 0]");
	ck_assert_int_eq(run("printf abc", 0, 0, NULL, &o), 0);
	ck_assert_str_eq(o.text, "abc\n[exit status 0]");

	/* Death by a signal is reported as such. */
	ck_assert_int_eq(run("kill -KILL $$", 0, 0, NULL, &o), 0);
	ck_assert_int_eq(o.is_error, 0);
	ck_assert_str_eq(o.text, "[killed by signal SIGKILL]");
	tool_output_clear(&o);
}
END_TEST

START_TEST(stderr_is_captured_in_order)
{
	struct tool_output o = { 0 };

	ck_assert_int_eq(run("echo out; echo err >&2; echo out2", 0, 0, NULL,
	    &o), 0);
	ck_assert_str_eq(o.text, "out\nerr\nout2\n[exit status 0]");
	ck_assert_int_eq(run("ls /nonexistent-huddle", 0, 0, NULL, &o), 0);
	ck_assert_ptr_nonnull(strstr(o.text, "nonexistent-huddle"));
	ck_assert_ptr_null(strstr(o.text, "[exit status 0]"));
	tool_output_clear(&o);
}
END_TEST

START_TEST(runs_in_workdir_with_no_stdin)
{
	struct tool_output o = { 0 };
	char *want = xasprintf("%s\n[exit status 0]", tu_wd);

	ck_assert_int_eq(run("pwd", 0, 0, NULL, &o), 0);
	ck_assert_str_eq(o.text, want);
	/* stdin is /dev/null: cat ends at once. */
	ck_assert_int_eq(run("cat; echo after", 5, 0, NULL, &o), 0);
	ck_assert_str_eq(o.text, "after\n[exit status 0]");
	free(want);
	tool_output_clear(&o);
}
END_TEST

START_TEST(bad_requests_are_tool_errors)
{
	struct tool_output o = { 0 };
	struct bash_options bo = { .program = tu_program,
	    .workdir = "/nonexistent-huddle-dir" };

	ck_assert_int_eq(bash_run("echo hi", &bo, &o), -1);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_ptr_nonnull(strstr(o.text, "cannot run the command in "
	    "/nonexistent-huddle-dir"));
	bo.program = NULL;
	bo.workdir = tu_wd;
	ck_assert_int_eq(bash_run("echo hi", &bo, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "no reaper program"));
	ck_assert_int_eq(run("", 0, 0, NULL, &o), -1);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_int_eq(run(NULL, 0, 0, NULL, &o), -1);
	ck_assert_int_eq(bash_run("echo hi", NULL, &o), -1);
	tool_output_clear(&o);
}
END_TEST

START_TEST(secrets_are_not_in_the_environment)
{
	struct tool_output o = { 0 };

	setenv("ANTHROPIC_API_KEY", "sk-ant-secret", 1);
	setenv("OPENAI_API_KEY", "sk-openai-secret", 1);
	setenv("FOO_API_KEY", "foo-secret", 1);
	setenv("GH_TOKEN", "gh-secret", 1);
	setenv("ANTHROPIC_AUTH_TOKEN", "gateway-secret", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "aws-secret", 1);
	setenv("lower_api_key", "lower-secret", 1);
	setenv("HUDDLE_VISIBLE", "yes-visible", 1);
	/* A name that contains a secret word is hidden, whole word or not:
	 * better a missing variable than a leaked key. */
	setenv("TOKENIZER", "tok-secret", 1);
	setenv("EDITOR", "editor-visible", 1);
	ck_assert_int_eq(run("env", 0, 0, NULL, &o), 0);
	ck_assert_ptr_null(strstr(o.text, "secret"));
	ck_assert_ptr_null(strstr(o.text, "API_KEY"));
	ck_assert_ptr_null(strstr(o.text, "GH_TOKEN"));
	ck_assert_ptr_null(strstr(o.text, "ANTHROPIC_AUTH_TOKEN"));
	ck_assert_ptr_nonnull(strstr(o.text, "HUDDLE_VISIBLE=yes-visible\n"));
	ck_assert_ptr_null(strstr(o.text, "TOKENIZER"));
	ck_assert_ptr_nonnull(strstr(o.text, "EDITOR=editor-visible\n"));
	ck_assert_ptr_nonnull(strstr(o.text, "PATH="));
	tool_output_clear(&o);

	ck_assert(env_is_secret("ANTHROPIC_API_KEY=k"));
	ck_assert(env_is_secret("ANTHROPIC_AUTH_TOKEN=k"));
	ck_assert(env_is_secret("OPENAI_KEY=k"));
	ck_assert(env_is_secret("MY_APIKEY=k"));
	ck_assert(env_is_secret("gh_token=k"));
	ck_assert(env_is_secret("DB_PASSWD=k"));
	ck_assert(env_is_secret("GOOGLE_APPLICATION_CREDENTIALS=/x"));
	ck_assert(env_is_secret("XAUTHORITY=/x"));
	ck_assert(env_is_secret("BROWSER_COOKIE=x"));
	ck_assert(env_is_secret("SESSION_ID=x"));
	ck_assert(env_is_secret("DATABASE_URL=postgres://app:pw@db:5432/x"));
	ck_assert(env_is_secret("PROXY=http://u:p@proxy"));
	ck_assert(!env_is_secret("PATH=/usr/bin:/bin"));
	ck_assert(!env_is_secret("ANTHROPIC_BASE_URL=http://127.0.0.1:9"));
	ck_assert(!env_is_secret("DATABASE_URL=postgres://db:5432/x"));
	ck_assert(!env_is_secret("LINK=https://example.com/a:b@c"));
	ck_assert(!env_is_secret("HOME=/root"));
	/* --pass-env lets one through by its exact name. */
	env_pass("MY_APIKEY");
	ck_assert(!env_is_secret("MY_APIKEY=k"));
	ck_assert(env_is_secret("MY_APIKEY2=k"));
}
END_TEST

START_TEST(child_gets_a_clean_signal_state)
{
	struct tool_output o = { 0 };
	const char *ign;
	sigset_t set;

	/* As huddle's threads have: async signals blocked, SIGPIPE and
	 * SIGHUP ignored. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	ck_assert_int_eq(pthread_sigmask(SIG_BLOCK, &set, NULL), 0);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	ck_assert_int_eq(run("grep -E '^Sig(Blk|Ign)' /proc/self/status", 0,
	    0, NULL, &o), 0);
	ck_assert_ptr_nonnull(strstr(o.text, "SigBlk:\t0000000000000000\n"));
	ign = strstr(o.text, "SigIgn:\t");
	ck_assert_ptr_nonnull(ign);
	/* glibc's posix_spawn leaves its two internal signals (32 and 33,
	 * below SIGRTMIN) ignored, and no API can reset them; every other
	 * signal must have its default disposition. */
	ck_assert_uint_eq(strtoull(ign + 8, NULL, 16) & ~0x180000000ULL, 0);
	/* And so yes | head ends: yes dies of SIGPIPE. */
	ck_assert_int_eq(run("yes | head -n 2", 10, 0, NULL, &o), 0);
	ck_assert_str_eq(o.text, "y\ny\n[exit status 0]");
	tool_output_clear(&o);
}
END_TEST

START_TEST(timeout_kills_the_whole_group)
{
	struct tool_output o = { 0 };
	int64_t t0 = clock_mono_ms(), took;
	pid_t pgid;

	ck_assert_int_eq(run(PGID "sleep 100 & sleep 100", 1, 0, NULL,
	    &o), -1);
	took = clock_mono_ms() - t0;
	ck_assert_int_eq(o.is_error, 1);
	pgid = first_line_pid(o.text);
	assert_group_gone(pgid);
	ck_assert_ptr_nonnull(strstr(o.text, "[timed out after 1 s;"));
	ck_assert_ptr_nonnull(strstr(o.text, "[killed by signal SIGTERM]"));
	/* They died of SIGTERM: no need to wait for the SIGKILL. */
	ck_assert_int_lt(took, 1000 + BASH_GRACE_MS / 2);
	tool_output_clear(&o);
}
END_TEST

/* Runs command with wd/tmp as its TMPDIR under ceiling max. */
static int
run_tmp(const char *command, const struct tmpuse *max,
    struct tool_output *o)
{
	char *tmp = xasprintf("%s/tmp", tu_wd);
	struct bash_options bo = { .program = tu_program, .workdir = tu_wd,
	    .timeout_s = 60, .tmpdir = tmp, .tmp_max = max };
	int rc;

	mkdir(tmp, 0700);
	tool_output_clear(o);
	rc = bash_run(command, &bo, o);
	free(tmp);
	return rc;
}

/* A command that fills the TMPDIR is stopped soon after it passes the
 * ceiling, in files as in bytes, and is told why; one that passes it
 * and ends is told the next one will be stopped; one that only removes
 * is let be, though it starts past the ceiling. */
START_TEST(a_tmpdir_past_its_ceiling_stops_the_command)
{
	struct tmpuse max = { 1 << 20, 200 }, u;
	struct tool_output o = { 0 };
	char *tmp = xasprintf("%s/tmp", tu_wd);
	int64_t t0 = clock_mono_ms();

	/* Bytes: a file that keeps growing. */
	ck_assert_int_eq(run_tmp("while :; do head -c 65536 /dev/zero >> "
	    "\"$TMPDIR/fill\"; done", &max, &o), -1);
	ck_assert_msg(strstr(o.text, "[stopped: the team's TMPDIR (") !=
	    NULL && strstr(o.text, "grew past its ceiling of 1.0 MiB or 200 "
	    "files") != NULL, "%s", o.text);
	ck_assert_int_lt(clock_mono_ms() - t0, 30000);
	/* Files: many empty ones. */
	ck_assert_int_eq(run_tmp("rm -f \"$TMPDIR/fill\"; i=0; while :; do "
	    ": > \"$TMPDIR/f$i\"; i=$((i+1)); done", &max, &o), -1);
	ck_assert_msg(strstr(o.text, "grew past its ceiling") != NULL, "%s",
	    o.text);
	tmpuse_measure(tmp, NULL, &u);
	ck_assert_int_gt(u.files, 200);
	/* Past it and ended: said, not an error. */
	ck_assert_int_eq(run_tmp("head -c 2097152 /dev/zero > "
	    "\"$TMPDIR/big\"; echo wrote", &max, &o), 0);
	ck_assert_msg(strstr(o.text, "the next command that adds to it is "
	    "stopped") != NULL, "%s", o.text);
	/* Removing is let be. */
	ck_assert_int_eq(run_tmp("sleep 1.5; find \"$TMPDIR\" -mindepth 1 -delete; echo "
	    "cleaned", &max, &o), 0);
	ck_assert_msg(strstr(o.text, "cleaned") != NULL && strstr(o.text,
	    "ceiling") == NULL, "%s", o.text);
	tmpuse_measure(tmp, NULL, &u);
	ck_assert_int_eq(u.files, 0);
	tool_output_clear(&o);
	free(tmp);
}
END_TEST

/* A firer that waits for the command to say it has started (a file in
 * wd), then fires: a loaded machine may take long to start a command,
 * and a token fired before it has started tests nothing. */
struct started_firer {
	struct cancel	*cancel;
	const char	*marker;
	_Atomic int64_t	 fired_at;
};

static void *
fire_once_started(void *arg)
{
	struct started_firer *f = arg;
	int64_t deadline = clock_mono_ms() + 60000;

	while (access(f->marker, F_OK) != 0 && clock_mono_ms() < deadline)
		poll(NULL, 0, 5);
	atomic_store(&f->fired_at, clock_mono_ms());
	cancel_fire(f->cancel);
	return NULL;
}

/* Runs `setup`, says it has started, runs `rest`, and is cancelled from
 * another thread once it has started; returns how long bash_run took
 * after the token fired. */
static int64_t
run_cancelled(const char *setup, const char *rest, struct tool_output *o,
    pid_t *pgid)
{
	struct started_firer f;
	struct cancel c;
	pthread_t th;
	int64_t done;
	char *command = xasprintf(PGID "%s\ntouch started; %s", setup, rest);

	cancel_init(&c);
	f.cancel = &c;
	f.marker = xasprintf("%s/started", tu_wd);
	(void)unlink(f.marker);
	atomic_init(&f.fired_at, 0);
	ck_assert_int_eq(pthread_create(&th, NULL, fire_once_started, &f), 0);
	ck_assert_int_eq(run(command, 120, 0, &c, o), -1);
	done = clock_mono_ms();
	pthread_join(th, NULL);
	cancel_destroy(&c);
	free((char *)f.marker);
	free(command);
	ck_assert_int_eq(o->is_error, 1);
	ck_assert_ptr_nonnull(strstr(o->text, "[cancelled;"));
	*pgid = first_line_pid(o->text);
	assert_group_gone(*pgid);
	return done - atomic_load(&f.fired_at);
}

START_TEST(cancel_ends_a_command_at_once)
{
	struct tool_output o = { 0 };
	int64_t took;
	pid_t pgid;

	/* At once: not after the grace a command that ignores SIGTERM
	 * gets. (A bound of some milliseconds failed on a loaded machine:
	 * this test measures the mechanism, not the scheduler.) */
	took = run_cancelled(":", "sleep 100", &o, &pgid);
	ck_assert_msg(took < BASH_GRACE_MS / 2, "cancel took %lld ms",
	    (long long)took);
	ck_assert_ptr_nonnull(strstr(o.text, "[killed by signal SIGTERM]"));
	tool_output_clear(&o);
}
END_TEST

START_TEST(cancel_kills_what_ignores_sigterm)
{
	struct tool_output o = { 0 };
	int64_t took;
	pid_t pgid;

	took = run_cancelled("trap '' TERM; sleep 100 &", "sleep 100", &o,
	    &pgid);
	ck_assert_msg(took >= BASH_GRACE_MS - 50 && took < BASH_GRACE_MS + 500,
	    "took %lld ms", (long long)took);
	ck_assert_ptr_nonnull(strstr(o.text, "[killed by signal SIGKILL]"));
	tool_output_clear(&o);
}
END_TEST

START_TEST(a_fired_token_runs_nothing)
{
	struct tool_output o = { 0 };
	struct cancel c;
	char *marker = xasprintf("%s/ran", tu_wd);

	cancel_init(&c);
	cancel_fire(&c);
	ck_assert_int_eq(run("touch ran", 0, 0, &c, &o), -1);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_ptr_nonnull(strstr(o.text, "cancelled"));
	ck_assert_int_eq(access(marker, F_OK), -1);
	cancel_destroy(&c);
	free(marker);
	tool_output_clear(&o);
}
END_TEST

START_TEST(background_jobs_end_with_the_command)
{
	struct tool_output o = { 0 };
	int64_t t0 = clock_mono_ms();
	pid_t pgid;

	/* The job keeps the output pipe open; the shell's exit still ends
	 * the command, and the job with it. */
	ck_assert_int_eq(run(PGID "sleep 100 & echo started", 30, 0, NULL,
	    &o), 0);
	ck_assert_int_lt(clock_mono_ms() - t0, 2000);
	ck_assert_ptr_nonnull(strstr(o.text, "started\n[exit status 0]"));
	pgid = first_line_pid(o.text);
	assert_group_gone(pgid);
	tool_output_clear(&o);
}
END_TEST

/* The pids a command printed, one per line, after its first line. */
static void
printed_pids(const char *text, pid_t *pids, int n)
{
	const char *p = text;
	int i;

	for (i = 0; i < n; i++) {
		ck_assert_ptr_nonnull(p = strchr(p, '\n'));
		pids[i] = (pid_t)strtol(++p, NULL, 10);
		ck_assert_int_gt(pids[i], 1);
	}
}

START_TEST(escapees_end_with_the_command)
{
	struct tool_output o = { 0 };
	int64_t t0 = clock_mono_ms();
	pid_t pids[3];
	int i;

	/* A new session, a daemon's double fork, and one that ignores
	 * SIGTERM: all beyond the process group's reach. */
	ck_assert_int_eq(run(PGID "setsid sleep 6061 & echo $!; "
	    "(setsid sh -c 'sleep 6062 & echo $!' &); "
	    "setsid sh -c 'trap \"\" TERM; echo $$; while :; do sleep 1; "
	    "done' & sleep 0.3", 30, 0, NULL, &o), 0);
	printed_pids(o.text, pids, 3);
	for (i = 0; i < 3; i++)
		assert_gone(pids[i]);
	/* The one that ignored SIGTERM held the command for the grace. */
	ck_assert_int_ge(clock_mono_ms() - t0, BASH_GRACE_MS);
	ck_assert_int_lt(clock_mono_ms() - t0, BASH_GRACE_MS + 1500);
	tool_output_clear(&o);
}
END_TEST

START_TEST(a_killed_reaper_leaves_nothing_behind)
{
	struct tool_output o = { 0 };
	pid_t pids[1];

	/* The shell's parent is its reaper. Without it, the shell and its
	 * escapee are ours; bash_run sweeps them. */
	ck_assert_int_eq(run(PGID "setsid sleep 6063 & echo $!; "
	    "kill -KILL $PPID; sleep 100", 30, 0, NULL, &o), 0);
	printed_pids(o.text, pids, 1);
	assert_gone(pids[0]);
	assert_group_gone(first_line_pid(o.text));
	ck_assert_ptr_nonnull(strstr(o.text, "reaper was killed"));
	ck_assert_ptr_nonnull(strstr(o.text, "[exit status unknown]"));
	tool_output_clear(&o);
}
END_TEST

/* The sweep ends the children of a subreaper only: any other process's
 * children (a fuzzer's symbolizer, say) are its own. */
START_TEST(the_sweep_is_a_subreapers_only)
{
	pid_t child;
	int st;

	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
	if ((child = fork()) == 0) {
		pause();
		_exit(0);
	}
	ck_assert_int_gt(child, 0);
	bash_sweep_orphans(0);
	ck_assert_int_eq(waitpid(child, &st, WNOHANG), 0);
	ck_assert_int_eq(kill(child, SIGKILL), 0);
	ck_assert_int_eq(waitpid(child, &st, 0), child);

	/* A subreaper's are swept, and reaped. */
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	if ((child = fork()) == 0) {
		pause();
		_exit(0);
	}
	ck_assert_int_gt(child, 0);
	bash_sweep_orphans(0);
	ck_assert_int_eq(waitpid(child, &st, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
}
END_TEST

START_TEST(output_cap_keeps_head_and_tail)
{
	struct tool_output o = { 0 };
	char *mark;

	/* seq 1 100000 writes 588895 bytes; 1000 are kept. */
	ck_assert_int_eq(run("seq 1 100000", 0, 1000, NULL, &o), 0);
	ck_assert_int_eq(strncmp(o.text, "1\n2\n3\n", 6), 0);
	mark = strstr(o.text, "[... 587895 bytes of output left out ...]\n");
	ck_assert_ptr_nonnull(mark);
	ck_assert_uint_eq((size_t)(mark - o.text), 500);	/* the head */
	ck_assert_ptr_nonnull(strstr(o.text, "99999\n100000\n[exit status 0]"));
	ck_assert_uint_lt(strlen(o.text), 1000 + 80);

	/* Within the cap nothing is cut. */
	ck_assert_int_eq(run("seq 1 10", 0, 21, NULL, &o), 0);
	ck_assert_str_eq(o.text, "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	    "[exit status 0]");

	/* Two-byte characters: cut between them, never into a U+FFFD. */
	ck_assert_int_eq(run("i=0; while [ $i -lt 500 ]; do printf "
	    "'\\303\\251'; i=$((i+1)); done", 0, 101, NULL, &o), 0);
	ck_assert(utf8_valid(o.text));
	ck_assert_ptr_null(strstr(o.text, "\xef\xbf\xbd"));
	ck_assert_ptr_nonnull(strstr(o.text, "[... 900 bytes of output left "
	    "out ...]"));
	/* Shifted by one byte, so that the tail starts inside one. */
	ck_assert_int_eq(run("printf x; i=0; while [ $i -lt 500 ]; do printf "
	    "'\\303\\251'; i=$((i+1)); done", 0, 102, NULL, &o), 0);
	ck_assert(utf8_valid(o.text));
	ck_assert_ptr_null(strstr(o.text, "\xef\xbf\xbd"));
	ck_assert_ptr_nonnull(strstr(o.text, "[... 900 bytes of output left "
	    "out ...]\n\xc3\xa9"));
	tool_output_clear(&o);
}
END_TEST

START_TEST(invalid_utf8_is_repaired)
{
	struct tool_output o = { 0 };

	ck_assert_int_eq(run("printf 'a\\377b\\000c\\n'", 0, 0, NULL, &o), 0);
	ck_assert(utf8_valid(o.text));
	ck_assert_str_eq(o.text, "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\n"
	    "[exit status 0]");
	tool_output_clear(&o);
}
END_TEST

struct worker {
	int	 id;
	int	 ok;
};

static void *
work(void *arg)
{
	struct worker *w = arg;
	struct bash_options bo = { .program = tu_program, .workdir = tu_wd,
	    .timeout_s = 10 };
	struct tool_output o = { 0 };
	char *cmd, *want;
	int i;

	w->ok = 1;
	for (i = 0; i < 3; i++) {
		cmd = xasprintf("echo start %d.%d; sleep 0.5; echo end %d.%d; "
		    "exit %d", w->id, i, w->id, i, w->id);
		want = xasprintf("start %d.%d\nend %d.%d\n[exit status %d]",
		    w->id, i, w->id, i, w->id);
		if (bash_run(cmd, &bo, &o) != 0 || strcmp(o.text, want) != 0)
			w->ok = 0;
		free(cmd);
		free(want);
	}
	tool_output_clear(&o);
	return NULL;
}

START_TEST(eight_threads_at_once)
{
	struct worker w[8];
	pthread_t th[8];
	int64_t t0 = clock_mono_ms();
	int i;

	for (i = 0; i < 8; i++) {
		w[i].id = i;
		ck_assert_int_eq(pthread_create(&th[i], NULL, work, &w[i]), 0);
	}
	for (i = 0; i < 8; i++) {
		pthread_join(th[i], NULL);
		ck_assert_msg(w[i].ok, "thread %d got wrong output", i);
	}
	/* 24 commands of 0.5 s each: one after another they would take 12 s
	 * and more; in parallel 1.5 s, plus the start of each command's
	 * shell and reaper, which a sanitizer slows to a tenth of a second
	 * or so on each of two cores. */
	ck_assert_int_lt(clock_mono_ms() - t0, 8000);
}
END_TEST

/* A reaper copied into a sealed memory file runs commands, and neither
 * the copy nor its file on disk can be changed through it. */
START_TEST(a_copied_reaper_runs_and_cannot_be_written)
{
	struct bash_options bo = { .workdir = tu_wd, .timeout_s = 10 };
	struct tool_output o = { 0 };
	char *copy, *err = NULL;
	int fd;

	copy = reaperexe_copy("/proc/self/exe", &err);
	ck_assert_msg(copy != NULL, "%s", err != NULL ? err : "?");
	ck_assert(strncmp(copy, "/proc/self/fd/", 14) == 0);
	ck_assert_int_ge(atoi(copy + 14), 10);
	bo.program = copy;
	ck_assert_int_eq(bash_run("echo copied", &bo, &o), 0);
	ck_assert_str_eq(o.text, "copied\n[exit status 0]");
	tool_output_clear(&o);
	/* Sealed: no write, no truncation, by any path to it. */
	fd = open(copy, O_WRONLY | O_CLOEXEC);
	if (fd != -1) {
		ck_assert_int_eq(write(fd, "x", 1), -1);
		ck_assert_int_eq(errno, EPERM);
		ck_assert_int_eq(ftruncate(fd, 0), -1);
		close(fd);
	}
	free(copy);
	ck_assert_ptr_null(reaperexe_copy("/nonexistent/huddle-reaper",
	    &err));
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/huddle-reaper"));
	free(err);
}
END_TEST
/* The whole of file path (malloc'd), its size in *size. */
static char *
read_whole(const char *path, size_t *size)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY);

	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(fstat(fd, &st), 0);
	buf = xmalloc((size_t)st.st_size + 1);
	ck_assert_int_eq(read(fd, buf, (size_t)st.st_size), st.st_size);
	buf[st.st_size] = '\0';
	close(fd);
	*size = (size_t)st.st_size;
	return buf;
}

/* The number of files in dir (but . and ..). */
static int
files_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

START_TEST(a_long_or_cut_output_is_kept_whole)
{
	struct tool_output o = { 0 };
	char *dir = xasprintf("%s/kept", tu_wd), *text;
	struct bash_options bo = { .program = tu_program, .workdir = tu_wd,
	    .output_cap = 4096, .keep_dir = dir, .keep_lines = 50 };
	size_t size;

	ck_assert_int_eq(mkdir(dir, 0700), 0);
	/* Short: nothing kept, no file left. */
	ck_assert_int_eq(bash_run("seq 1 50", &bo, &o), 0);
	ck_assert_ptr_null(o.whole);
	ck_assert_int_eq(files_in(dir), 0);
	/* More lines than keep_lines, under the cap: kept. */
	ck_assert_int_eq(bash_run("seq 1 51", &bo, &o), 0);
	ck_assert_ptr_nonnull(o.whole);
	text = read_whole(o.whole, &size);
	ck_assert_int_eq(strncmp(text, "1\n2\n", 4), 0);
	ck_assert_ptr_nonnull(strstr(text, "\n51\n"));
	free(text);
	ck_assert_int_eq(files_in(dir), 1);
	/* Few lines, but cut for the model: kept, every byte. */
	tool_output_clear(&o);
	ck_assert_int_eq(bash_run("head -c 100000 /dev/zero | tr '\\0' x",
	    &bo, &o), 0);
	ck_assert_ptr_nonnull(strstr(o.text, "bytes of output left out"));
	ck_assert_ptr_nonnull(o.whole);
	text = read_whole(o.whole, &size);
	ck_assert_uint_eq(size, 100000);
	free(text);
	ck_assert_int_eq(files_in(dir), 2);
	/* No keep_dir: nothing kept. */
	bo.keep_dir = NULL;
	ck_assert_int_eq(bash_run("seq 1 500", &bo, &o), 0);
	ck_assert_ptr_null(o.whole);
	tool_output_clear(&o);
	free(dir);
}
END_TEST

static Suite *
bash_suite(void)
{
	Suite *s = suite_create("bash");
	TCase *tc = tcase_create("bash");
	TCase *kill = tcase_create("kill");

	tcase_add_checked_fixture(tc, tu_commands_setup,
	    tu_commands_teardown);
	tcase_add_test(tc, output_and_exit_status);
	tcase_add_test(tc, stderr_is_captured_in_order);
	tcase_add_test(tc, runs_in_workdir_with_no_stdin);
	tcase_add_test(tc, bad_requests_are_tool_errors);
	tcase_add_test(tc, secrets_are_not_in_the_environment);
	tcase_add_test(tc, child_gets_a_clean_signal_state);
	tcase_add_test(tc, output_cap_keeps_head_and_tail);
	tcase_add_test(tc, a_long_or_cut_output_is_kept_whole);
	tcase_add_test(tc, invalid_utf8_is_repaired);
	tcase_add_test(tc, a_copied_reaper_runs_and_cannot_be_written);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(kill, tu_commands_setup,
	    tu_commands_teardown);
	tcase_set_timeout(kill, 60);
	tcase_add_test(kill, timeout_kills_the_whole_group);
	tcase_add_test(kill, cancel_ends_a_command_at_once);
	tcase_add_test(kill, cancel_kills_what_ignores_sigterm);
	tcase_add_test(kill, a_fired_token_runs_nothing);
	tcase_add_test(kill, background_jobs_end_with_the_command);
	tcase_add_test(kill, escapees_end_with_the_command);
	tcase_add_test(kill, a_killed_reaper_leaves_nothing_behind);
	tcase_add_test(kill, the_sweep_is_a_subreapers_only);
	tcase_add_test(kill, eight_threads_at_once);
	tcase_add_test(kill, a_tmpdir_past_its_ceiling_stops_the_command);
	suite_add_tcase(s, kill);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, bash_suite());
}
