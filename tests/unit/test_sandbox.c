/*
 * Unit tests of tools/sandbox (R4): `..`, absolute paths and symbolic links
 * that leave the working directory are refused, wherever the link sits on
 * the path; huddle's own .huddle is out of reach; paths to create may have
 * missing parents only inside; and sandbox_open, with openat2 and with
 * its walk, opens a judged path but fails on any link met on the way,
 * the working directory's own path included.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/sandbox.h"
#include "testutil.h"
#include "util/xmalloc.h"

static char *wd;	/* canonical working directory */
static char *out;	/* a sibling directory outside it */
static char *top;	/* holds both */

static void
touch(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");

	ck_assert_ptr_nonnull(f);
	fputs("x\n", f);
	fclose(f);
	free(p);
}

static void
mkdir_in(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);

	ck_assert_int_eq(mkdir(p, 0755), 0);
	free(p);
}

static void
link_in(const char *target, const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);

	ck_assert_int_eq(symlink(target, p), 0);
	free(p);
}

/*
 * top/work is the working directory, top/out is outside it:
 *   work/f, work/sub/g, work/.huddle/team.db, work/.huddlex
 *   out/secret
 */
static void
setup(void)
{
	char *t = tu_tmpdir(), buf[PATH_MAX];

	ck_assert_ptr_nonnull(realpath(t, buf));
	free(t);
	top = xstrdup(buf);
	mkdir_in(top, "work");
	mkdir_in(top, "out");
	wd = xasprintf("%s/work", top);
	out = xasprintf("%s/out", top);
	touch(wd, "f");
	mkdir_in(wd, "sub");
	touch(wd, "sub/g");
	mkdir_in(wd, ".huddle");
	touch(wd, ".huddle/team.db");
	touch(wd, ".huddlex");
	touch(out, "secret");
}

static void
teardown(void)
{
	tu_rmtree(top);
	free(top);
	free(wd);
	free(out);
}

/* Asserts that path is refused, with a message containing want. */
static void
refused(const char *path, int for_write, const char *want)
{
	char *err = NULL, *p = sandbox_path(wd, path, for_write, &err);

	ck_assert_msg(p == NULL, "'%s' (write %d) allowed as %s", path,
	    for_write, p);
	ck_assert_ptr_nonnull(err);
	ck_assert_msg(strstr(err, want) != NULL, "'%s': '%s' lacks '%s'",
	    path, err, want);
	free(err);
}

/* Asserts that path resolves to wd/want (want "" is wd itself). */
static void
allowed(const char *path, int for_write, const char *want)
{
	char *err = NULL, *p = sandbox_path(wd, path, for_write, &err);
	char *full = want[0] ? xasprintf("%s/%s", wd, want) : xstrdup(wd);

	ck_assert_msg(p != NULL, "'%s' (write %d) refused: %s", path,
	    for_write, err);
	ck_assert_ptr_null(err);
	ck_assert_str_eq(p, full);
	free(full);
	free(p);
}

START_TEST(dotdot_escapes_are_refused)
{
	refused("../x", 0, "outside the working directory");
	refused("../x", 1, "outside the working directory");
	refused("a/../../x", 1, "outside the working directory");
	refused("sub/../../out/secret", 0, "outside the working directory");
	refused("..", 0, "outside the working directory");
	refused("sub/../..", 1, "outside the working directory");
	/* `..` that stays inside is fine, missing directories included. */
	allowed("sub/../f", 0, "f");
	allowed("a/b/../../f", 0, "f");
	allowed("./sub/./g", 0, "sub/g");
	allowed("sub//g", 0, "sub/g");
	allowed("sub/..", 0, "");
}
END_TEST

START_TEST(absolute_paths)
{
	char *in = xasprintf("%s/sub/g", wd);
	char *sib = xasprintf("%s/secret", out);
	char *prefix = xasprintf("%sx/f", wd);

	refused("/etc/passwd", 0, "outside the working directory");
	refused("/etc/huddle-new", 1, "outside the working directory");
	refused(sib, 0, "outside the working directory");
	refused(top, 0, "outside the working directory");
	/* A sibling whose name merely starts with the workdir's. */
	refused(prefix, 1, "outside the working directory");
	allowed(in, 0, "sub/g");
	allowed(in, 1, "sub/g");
	allowed(wd, 0, "");
	free(in);
	free(sib);
	free(prefix);
}
END_TEST

START_TEST(symlinks_out_are_refused)
{
	char *sib = xasprintf("%s/secret", out);

	link_in(sib, wd, "leak");			/* last component */
	link_in(out, wd, "outdir");			/* intermediate */
	link_in("../out", wd, "reldir");		/* relative target */
	link_in("/nonexistent-huddle/new", wd, "dangling");
	link_in("../../out/secret", wd, "sub/deep");

	refused("leak", 0, "symbolic link");
	refused("leak", 1, "symbolic link");
	refused("outdir/secret", 0, "symbolic link");
	refused("outdir/new", 1, "symbolic link");
	refused("outdir", 0, "symbolic link");
	refused("reldir/secret", 0, "symbolic link");
	refused("reldir/a/b/new", 1, "symbolic link");
	refused("dangling", 1, "symbolic link");
	refused("sub/deep", 0, "symbolic link");
	/* `..` after a link is taken from where the link led: outdir/..
	 * is top, not the working directory. */
	refused("outdir/../out/secret", 0, "outside");
	allowed("outdir/../work/f", 0, "f");
	free(sib);
}
END_TEST

START_TEST(symlinks_in_are_allowed)
{
	char *abs = xasprintf("%s/sub", wd);

	link_in("sub", wd, "alias");
	link_in(abs, wd, "absalias");
	link_in("../f", wd, "sub/up");
	link_in("sub/new", wd, "tobe");		/* dangling, inside */

	allowed("alias/g", 0, "sub/g");
	allowed("absalias/g", 1, "sub/g");
	allowed("alias", 0, "sub");
	allowed("sub/up", 0, "f");
	allowed("tobe", 1, "sub/new");
	/* `..` after a link inside: alias/.. is the workdir. */
	allowed("alias/../f", 0, "f");
	free(abs);
}
END_TEST

START_TEST(huddle_state_is_refused)
{
	char *abs = xasprintf("%s/.huddle/team.db", wd);

	refused(".huddle/team.db", 0, "huddle keeps its own state");
	refused(".huddle/team.db", 1, "huddle keeps its own state");
	refused(".huddle", 0, "huddle keeps its own state");
	refused(".huddle/new/x", 1, "huddle keeps its own state");
	refused("sub/../.huddle/team.db", 0, "huddle keeps its own state");
	refused(abs, 0, "huddle keeps its own state");
	link_in(".huddle", wd, "state");
	refused("state/team.db", 0, "huddle keeps its own state");
	allowed(".huddlex", 0, ".huddlex");
	free(abs);
}
END_TEST

START_TEST(missing_parents_for_write)
{
	allowed("new/dir/f.txt", 1, "new/dir/f.txt");
	allowed("sub/h", 1, "sub/h");
	refused("../new/f", 1, "outside the working directory");
	refused("/nonexistent-huddle/x/y", 1, "outside the working directory");
	/* Reading needs the file to be there. */
	refused("new/dir/f.txt", 0, "does not exist");
	refused("sub/h", 0, "does not exist");
}
END_TEST

START_TEST(bad_paths_are_refused)
{
	char *err = NULL;

	refused("", 0, "empty");
	refused("", 1, "empty");
	ck_assert_ptr_null(sandbox_path(wd, NULL, 0, &err));
	ck_assert_ptr_nonnull(strstr(err, "empty"));
	free(err);
	ck_assert_ptr_null(sandbox_path("relative/wd", "f", 0, &err));
	ck_assert_ptr_nonnull(strstr(err, "absolute"));
	free(err);
	/* The working directory is no file to write. */
	refused(".", 1, "working directory itself");
	/* A file used as a directory. */
	refused("f/x", 1, "not a directory");
	/* A link loop ends instead of spinning. */
	link_in("b", wd, "a");
	link_in("a", wd, "b");
	refused("a", 0, "too many levels");
	refused("a/x", 1, "too many levels");
}
END_TEST

START_TEST(workdir_with_trailing_slash)
{
	char *slashed = xasprintf("%s/", wd), *err = NULL, *p;

	p = sandbox_path(slashed, "sub/g", 0, &err);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_null(strstr(p, "//"));
	free(p);
	ck_assert_ptr_null(sandbox_path(slashed, "../out/secret", 0, &err));
	free(err);
	free(slashed);
}
END_TEST

/* A descriptor from sandbox_open's walk, or -1 with errno. */
static int
walk(const char *rel, int flags)
{
	int root = open(wd, O_PATH | O_DIRECTORY | O_CLOEXEC), fd, err;

	ck_assert_int_ne(root, -1);
	fd = sandbox_open_walk(root, rel, flags, 0644);
	err = errno;
	close(root);
	errno = err;
	return fd;
}

START_TEST(open_follows_no_link)
{
	char *p;
	int fd;

	/* What sandbox_path gives opens, by either way. */
	p = xasprintf("%s/sub/g", wd);
	fd = sandbox_open(wd, p, O_RDONLY, 0);
	ck_assert_int_ne(fd, -1);
	close(fd);
	free(p);
	ck_assert_int_ne(fd = walk("sub/g", O_RDONLY), -1);
	close(fd);
	ck_assert_int_ne(fd = walk(".", O_RDONLY | O_DIRECTORY), -1);
	close(fd);
	fd = sandbox_open(wd, wd, O_RDONLY | O_DIRECTORY, 0);
	ck_assert_int_ne(fd, -1);
	close(fd);

	/* A link anywhere on the way fails, even one that stays inside. */
	link_in("sub", wd, "alias");
	link_in(out, wd, "away");
	p = xasprintf("%s/alias/g", wd);
	ck_assert_int_eq(sandbox_open(wd, p, O_RDONLY, 0), -1);
	ck_assert(sandbox_race(errno));
	free(p);
	p = xasprintf("%s/away/secret", wd);
	ck_assert_int_eq(sandbox_open(wd, p, O_RDONLY, 0), -1);
	ck_assert(sandbox_race(errno));
	free(p);
	p = xasprintf("%s/alias", wd);
	ck_assert_int_eq(sandbox_open(wd, p, O_RDONLY, 0), -1);
	ck_assert(sandbox_race(errno));
	free(p);
	ck_assert_int_eq(walk("alias/g", O_RDONLY), -1);
	ck_assert(sandbox_race(errno));
	ck_assert_int_eq(walk("away/secret", O_RDONLY), -1);
	ck_assert(sandbox_race(errno));
	ck_assert_int_eq(walk("away", O_RDONLY), -1);
	ck_assert(sandbox_race(errno));

	/* Nor may the walk climb, nor sandbox_open leave the workdir. */
	ck_assert_int_eq(walk("../out/secret", O_RDONLY), -1);
	ck_assert_int_eq(walk("sub/../../out/secret", O_RDONLY), -1);
	p = xasprintf("%s/secret", out);
	ck_assert_int_eq(sandbox_open(wd, p, O_RDONLY, 0), -1);
	ck_assert_int_eq(errno, EXDEV);
	free(p);
}
END_TEST

/* A working directory that a link took the place of, on its own path
 * or above it, opens nothing: not even what the link leads to. */
START_TEST(a_workdir_behind_a_new_link_opens_nothing)
{
	char *mid = xasprintf("%s/mid", top), *moved = xasprintf("%s/moved",
	    top), *w = xasprintf("%s/mid/w", top), *f = xasprintf("%s/f", w);
	int fd;

	ck_assert_int_eq(mkdir(mid, 0700), 0);
	ck_assert_int_eq(mkdir(w, 0700), 0);
	touch(w, "f");
	ck_assert_int_ne(fd = sandbox_open(w, f, O_RDONLY, 0), -1);
	close(fd);
	ck_assert_int_ne(fd = sandbox_open_real(w, O_PATH | O_DIRECTORY), -1);
	close(fd);

	ck_assert_int_eq(rename(mid, moved), 0);
	ck_assert_int_eq(symlink(moved, mid), 0);
	ck_assert_int_eq(sandbox_open(w, f, O_RDONLY, 0), -1);
	ck_assert(sandbox_race(errno));
	ck_assert_int_eq(sandbox_open_real(w, O_PATH | O_DIRECTORY), -1);
	ck_assert(sandbox_race(errno));
	ck_assert_int_eq(sandbox_open_real("relative", O_RDONLY), -1);
	free(mid);
	free(moved);
	free(w);
	free(f);
}
END_TEST

static Suite *
sandbox_suite(void)
{
	Suite *s = suite_create("sandbox");
	TCase *tc = tcase_create("sandbox");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, dotdot_escapes_are_refused);
	tcase_add_test(tc, absolute_paths);
	tcase_add_test(tc, symlinks_out_are_refused);
	tcase_add_test(tc, symlinks_in_are_allowed);
	tcase_add_test(tc, huddle_state_is_refused);
	tcase_add_test(tc, missing_parents_for_write);
	tcase_add_test(tc, bad_paths_are_refused);
	tcase_add_test(tc, workdir_with_trailing_slash);
	tcase_add_test(tc, open_follows_no_link);
	tcase_add_test(tc, a_workdir_behind_a_new_link_opens_nothing);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(sandbox_suite());
}
