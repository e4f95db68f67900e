/*
 * Unit tests of tools/fstools: read_file with and without an offset and a
 * line limit, its 256 KiB cap, its repair of binary text, and a huge
 * sparse file read at once and cancelled at once; write_file creating
 * parents, replacing atomically and keeping modes; edit_file's
 * exactly-once rule; hard-linked files refused; every path refused by the
 * sandbox; and a directory swapped for a link a thousand times while the
 * tools read and write through it, never leading out.
 */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tools/fstools.h"
#include "testutil.h"
#include "util/cancel.h"
#include "util/clock.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

static char *top;	/* holds work/ and out/ */
static char *wd;	/* the canonical working directory */
static struct fstools_ctx fc;	/* wd, no cancel token */

static char *
in_wd(const char *name)
{
	return xasprintf("%s/%s", wd, name);
}

static void
put(const char *name, const char *data, size_t len, mode_t mode)
{
	char *p = in_wd(name);
	FILE *f = fopen(p, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	fclose(f);
	ck_assert_int_eq(chmod(p, mode), 0);
	free(p);
}

/* The file's contents, or NULL when it does not exist. */
static char *
get(const char *name)
{
	char *p = in_wd(name), *buf;
	FILE *f = fopen(p, "r");
	long n;

	free(p);
	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = xmalloc((size_t)n + 1);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static mode_t
mode_of(const char *name)
{
	char *p = in_wd(name);
	struct stat st;

	ck_assert_int_eq(stat(p, &st), 0);
	free(p);
	return st.st_mode & 07777;
}

/* No temporary file of an atomic write is left behind in dir. */
static void
no_leftovers(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		ck_assert_msg(strstr(e->d_name, ".huddle-write") == NULL,
		    "left behind: %s", e->d_name);
	closedir(d);
}

static void
setup(void)
{
	char *t = tu_tmpdir(), buf[PATH_MAX];
	char *p;

	ck_assert_ptr_nonnull(realpath(t, buf));
	free(t);
	top = xstrdup(buf);
	wd = xasprintf("%s/work", top);
	fc.workdir = wd;
	fc.cancel = NULL;
	ck_assert_int_eq(mkdir(wd, 0755), 0);
	p = xasprintf("%s/out", top);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	free(p);
	p = in_wd(".huddle");
	ck_assert_int_eq(mkdir(p, 0700), 0);
	free(p);
}

static void
teardown(void)
{
	tu_rmtree(top);
	free(top);
	free(wd);
}

START_TEST(read_whole_file)
{
	struct tool_output o = { 0 };

	put("f.txt", "one\ntwo\n", 8, 0644);
	ck_assert_int_eq(fstools_read(&fc, "f.txt", 0, 0, &o), 0);
	ck_assert_int_eq(o.is_error, 0);
	ck_assert_str_eq(o.text, "one\ntwo\n");
	tool_output_clear(&o);

	/* Absolute paths inside work too; a last line without a newline is
	 * shown as it is. */
	put("g.txt", "no newline", 10, 0644);
	ck_assert_int_eq(fstools_read(&fc, "g.txt", 0, 5, &o), 0);
	ck_assert_str_eq(o.text, "no newline");
	tool_output_clear(&o);

	put("empty", "", 0, 0644);
	ck_assert_int_eq(fstools_read(&fc, "empty", 0, 0, &o), 0);
	ck_assert_int_eq(o.is_error, 0);
	ck_assert_str_eq(o.text, "[the file is empty]");
	tool_output_clear(&o);
}
END_TEST

START_TEST(read_with_limit)
{
	struct tool_output o = { 0 };

	put("ten", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10", 20, 0644);
	ck_assert_int_eq(fstools_read(&fc, "ten", 0, 3, &o), 0);
	ck_assert_str_eq(o.text, "1\n2\n3\n"
	    "[showing lines 1-3; the file goes on (20 bytes in all): read on "
	    "with offset=4]\n");
	tool_output_clear(&o);

	/* A limit at or beyond the end shows everything, without a note. */
	ck_assert_int_eq(fstools_read(&fc, "ten", 0, 10, &o), 0);
	ck_assert_str_eq(o.text, "1\n2\n3\n4\n5\n6\n7\n8\n9\n10");
	tool_output_clear(&o);
	ck_assert_int_eq(fstools_read(&fc, "ten", 0, 1000, &o), 0);
	ck_assert_str_eq(o.text, "1\n2\n3\n4\n5\n6\n7\n8\n9\n10");
	tool_output_clear(&o);
	ck_assert_int_eq(fstools_read(&fc, "ten", 0, 9, &o), 0);
	ck_assert_ptr_nonnull(strstr(o.text, "9\n[showing lines 1-9; the file "
	    "goes on (20 bytes in all): read on with offset=10]"));
	tool_output_clear(&o);

	ck_assert_int_eq(fstools_read(&fc, "ten", 0, -1, &o), -1);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_ptr_nonnull(strstr(o.text, "limit"));
	tool_output_clear(&o);
}
END_TEST

START_TEST(read_pages_with_offset)
{
	struct tool_output o = { 0 };

	put("ten", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10", 20, 0644);
	ck_assert_int_eq(fstools_read(&fc, "ten", 4, 3, &o), 0);
	ck_assert_str_eq(o.text, "4\n5\n6\n"
	    "[showing lines 4-6; the file goes on (20 bytes in all): read on "
	    "with offset=7]\n");
	/* To the end: no note. */
	ck_assert_int_eq(fstools_read(&fc, "ten", 8, 0, &o), 0);
	ck_assert_str_eq(o.text, "8\n9\n10");
	ck_assert_int_eq(fstools_read(&fc, "ten", 10, 5, &o), 0);
	ck_assert_str_eq(o.text, "10");
	ck_assert_int_eq(fstools_read(&fc, "ten", 11, 0, &o), 0);
	ck_assert_str_eq(o.text, "[the file has 10 lines; offset 11 is past "
	    "its end]");
	put("nl", "a\nb\n", 4, 0644);
	ck_assert_int_eq(fstools_read(&fc, "nl", 3, 0, &o), 0);
	ck_assert_str_eq(o.text, "[the file has 2 lines; offset 3 is past "
	    "its end]");
	ck_assert_int_eq(fstools_read(&fc, "ten", -1, 0, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "offset"));
	tool_output_clear(&o);
}
END_TEST

START_TEST(read_refusals_are_tool_errors)
{
	struct tool_output o = { 0 };
	char *fifo = in_wd("fifo"), *outside = xasprintf("%s/out/s", top);
	FILE *f = fopen(outside, "w");

	fclose(f);
	ck_assert_int_eq(fstools_read(&fc, "missing.txt", 0, 0, &o), -1);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_ptr_nonnull(strstr(o.text, "'missing.txt' does not exist"));

	ck_assert_int_eq(fstools_read(&fc, ".", 0, 0, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "is a directory"));

	ck_assert_int_eq(mkfifo(fifo, 0600), 0);	/* must not hang */
	ck_assert_int_eq(fstools_read(&fc, "fifo", 0, 0, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "not a regular file"));

	ck_assert_int_eq(fstools_read(&fc, "../out/s", 0, 0, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "outside the working directory"));
	ck_assert_int_eq(fstools_read(&fc, outside, 0, 0, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "outside the working directory"));
	ck_assert_int_eq(fstools_read(&fc, "", 0, 0, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "empty"));
	tool_output_clear(&o);
	free(fifo);
	free(outside);
}
END_TEST

START_TEST(read_through_links)
{
	struct tool_output o = { 0 };
	char *outside = xasprintf("%s/out/secret", top), *link = in_wd("leak");
	char *inlink = in_wd("alias");
	FILE *f = fopen(outside, "w");

	fputs("secret\n", f);
	fclose(f);
	put("real", "inside\n", 7, 0644);
	ck_assert_int_eq(symlink(outside, link), 0);
	ck_assert_int_eq(symlink("real", inlink), 0);
	ck_assert_int_eq(fstools_read(&fc, "leak", 0, 0, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "symbolic link"));
	ck_assert_ptr_null(strstr(o.text, "secret\n"));
	ck_assert_int_eq(fstools_read(&fc, "alias", 0, 0, &o), 0);
	ck_assert_str_eq(o.text, "inside\n");
	ck_assert_int_eq(fstools_read(&fc, ".huddle/team.db", 0, 0, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "own state"));
	tool_output_clear(&o);
	free(outside);
	free(link);
	free(inlink);
}
END_TEST

START_TEST(read_binary_is_repaired)
{
	struct tool_output o = { 0 };

	put("bin", "ab\0cd\xff\n", 7, 0644);
	ck_assert_int_eq(fstools_read(&fc, "bin", 0, 0, &o), 0);
	ck_assert_int_eq(o.is_error, 0);
	ck_assert(utf8_valid(o.text));
	ck_assert_ptr_nonnull(strstr(o.text,
	    "ab\xef\xbf\xbd" "cd\xef\xbf\xbd\n"));
	ck_assert_ptr_nonnull(strstr(o.text, "looks binary (1 NUL bytes)"));
	tool_output_clear(&o);

	/* Invalid UTF-8 alone: repaired and said so, but not "binary". */
	put("latin1", "caf\xe9\n", 5, 0644);
	ck_assert_int_eq(fstools_read(&fc, "latin1", 0, 0, &o), 0);
	ck_assert(utf8_valid(o.text));
	ck_assert_ptr_nonnull(strstr(o.text, "caf\xef\xbf\xbd\n"));
	ck_assert_ptr_nonnull(strstr(o.text, "invalid UTF-8"));
	ck_assert_ptr_null(strstr(o.text, "binary"));
	tool_output_clear(&o);

	/* Valid UTF-8 comes back untouched. */
	put("utf8", "caf\xc3\xa9 \xf0\x9f\x98\x80\n", 11, 0644);
	ck_assert_int_eq(fstools_read(&fc, "utf8", 0, 0, &o), 0);
	ck_assert_str_eq(o.text, "caf\xc3\xa9 \xf0\x9f\x98\x80\n");
	tool_output_clear(&o);
}
END_TEST

START_TEST(read_is_capped)
{
	struct tool_output o = { 0 };
	size_t cap = FSTOOLS_READ_CAP, n = 3 * cap, i;
	char *big = xmalloc(n), *note;

	/* 3 * 256 KiB in lines of 8 bytes: 98304 lines. */
	for (i = 0; i < n; i += 8)
		memcpy(big + i, "1234567\n", 8);
	put("big", big, n, 0644);
	ck_assert_int_eq(fstools_read(&fc, "big", 0, 0, &o), 0);
	note = strstr(o.text, "[showing lines 1-32768; the file goes on "
	    "(786432 bytes in all): read on with offset=32769]");
	ck_assert_ptr_nonnull(note);
	ck_assert_uint_eq((size_t)(note - o.text), cap);
	/* The next page starts where the last one ended. */
	ck_assert_int_eq(fstools_read(&fc, "big", 98304, 0, &o), 0);
	ck_assert_str_eq(o.text, "1234567\n");

	/* The limit and the cap together: the first to come. */
	ck_assert_int_eq(fstools_read(&fc, "big", 0, 20000, &o), 0);
	ck_assert_ptr_nonnull(strstr(o.text, "[showing lines 1-20000;"));
	ck_assert_int_eq(fstools_read(&fc, "big", 0, 50000, &o), 0);
	ck_assert_ptr_nonnull(strstr(o.text, "[showing lines 1-32768;"));
	ck_assert_int_eq(fstools_read(&fc, "big", 0, 2, &o), 0);
	ck_assert_str_eq(o.text, "1234567\n1234567\n[showing lines 1-2; the "
	    "file goes on (786432 bytes in all): read on with offset=3]\n");

	/* A line cut at the cap: whole lines before it are kept whole. */
	memcpy(big + cap - 4, "xxxxxxxx", 8);
	put("ragged", big, n, 0644);
	ck_assert_int_eq(fstools_read(&fc, "ragged", 0, 0, &o), 0);
	ck_assert_ptr_nonnull(strstr(o.text, "1234567\n[showing lines "
	    "1-32767;"));

	/* One line longer than the cap, of two-byte characters: cut between
	 * characters, never into a U+FFFD, and said so. */
	big[0] = 'x';
	for (i = 1; i + 1 < n; i += 2)
		memcpy(big + i, "\xc3\xa9", 2);
	put("wide", big, n - 1, 0644);
	ck_assert_int_eq(fstools_read(&fc, "wide", 0, 0, &o), 0);
	ck_assert(utf8_valid(o.text));
	ck_assert_ptr_null(strstr(o.text, "\xef\xbf\xbd"));
	ck_assert_ptr_null(strstr(o.text, "invalid UTF-8"));
	ck_assert_ptr_nonnull(strstr(o.text, "line 1 is longer than 256 KiB"));
	ck_assert_ptr_nonnull(strstr(o.text, "offset=2]"));

	/* Binary repair can triple the size; the cap still holds. */
	memset(big, 0, n);
	put("zeros", big, n, 0644);
	ck_assert_int_eq(fstools_read(&fc, "zeros", 0, 0, &o), 0);
	note = strstr(o.text, "\n[showing lines 1-1;");
	ck_assert_ptr_nonnull(note);
	ck_assert_uint_le((size_t)(note - o.text), cap);
	ck_assert(utf8_valid(o.text));
	tool_output_clear(&o);
	free(big);
}
END_TEST

START_TEST(huge_sparse_file_reads_at_once_and_cancels_at_once)
{
	struct tool_output o = { 0 };
	struct fstools_ctx cc = { wd, NULL, NULL };
	struct cancel c;
	struct tu_firer f;
	pthread_t th;
	char *p = in_wd("sparse");
	int64_t t0;
	int fd;

	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(ftruncate(fd, 4LL << 30), 0);	/* 4 GiB, a hole */
	close(fd);

	/* The first page costs one cap, not 4 GiB. */
	t0 = clock_mono_ms();
	ck_assert_int_eq(fstools_read(&fc, "sparse", 0, 0, &o), 0);
	ck_assert_int_lt(clock_mono_ms() - t0, 1000);
	ck_assert_ptr_nonnull(strstr(o.text, "4294967296 bytes"));

	/* Paging past it means reading it all: a cancel ends that within
	 * 100 ms. */
	tu_fire_after(&f, &c, 50, &th);
	cc.cancel = &c;
	ck_assert_int_eq(fstools_read(&cc, "sparse", 2, 0, &o), -1);
	t0 = clock_mono_ms() - atomic_load(&f.fired_at);
	pthread_join(th, NULL);
	ck_assert_msg(t0 < 100, "the read ended %lld ms after the cancel",
	    (long long)t0);
	ck_assert_ptr_nonnull(strstr(o.text, "cancelled"));
	/* A token already fired reads nothing. */
	ck_assert_int_eq(fstools_read(&cc, "sparse", 0, 0, &o), -1);
	cancel_destroy(&c);
	tool_output_clear(&o);
	free(p);
}
END_TEST

START_TEST(write_creates_parents)
{
	struct tool_output o = { 0 };
	char *got;

	ck_assert_int_eq(fstools_write(&fc, "a/b/c.txt", "hello", &o), 0);
	ck_assert_int_eq(o.is_error, 0);
	ck_assert_str_eq(o.text, "wrote 5 bytes to a/b/c.txt");
	got = get("a/b/c.txt");
	ck_assert_str_eq(got, "hello");
	free(got);
	ck_assert_uint_eq(mode_of("a/b/c.txt"), 0644);
	no_leftovers(wd);

	/* An empty file is a file. */
	ck_assert_int_eq(fstools_write(&fc, "empty", "", &o), 0);
	got = get("empty");
	ck_assert_str_eq(got, "");
	free(got);
	tool_output_clear(&o);
}
END_TEST

/* Whether name exists in the working directory (as anything). */
static int
exists(const char *name)
{
	char *p = in_wd(name);
	struct stat st;
	int rc = lstat(p, &st) == 0;

	free(p);
	return rc;
}

/* A failed write takes away the directories it made, and only those. */
START_TEST(failed_write_leaves_no_directories)
{
	struct tool_output o = { 0 };
	char longname[NAME_MAX + 2], *path, *keep = in_wd("keep");

	memset(longname, 'n', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	ck_assert_int_eq(mkdir(keep, 0755), 0);
	free(keep);

	/* The file's name is too long: every new directory goes. */
	path = xasprintf("keep/new/deeper/%s", longname);
	ck_assert_int_eq(fstools_write(&fc, path, "x", &o), -1);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_int_eq(exists("keep/new"), 0);
	ck_assert_int_eq(exists("keep"), 1);
	free(path);
	tool_output_clear(&o);

	/* A directory's name is too long: the ones above it go too. */
	path = xasprintf("fresh/%s/f.txt", longname);
	ck_assert_int_eq(fstools_write(&fc, path, "x", &o), -1);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_msg(strstr(o.text, "cannot create directory") != NULL,
	    "%s", o.text);
	ck_assert_int_eq(exists("fresh"), 0);
	free(path);
	tool_output_clear(&o);

	/* The target is a directory: nothing was made, nothing goes. */
	ck_assert_int_eq(fstools_write(&fc, "keep", "x", &o), -1);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_int_eq(exists("keep"), 1);
	tool_output_clear(&o);
	no_leftovers(wd);
}
END_TEST

START_TEST(write_replaces_and_keeps_mode)
{
	struct tool_output o = { 0 };
	char *got, *dir;

	put("run.sh", "old old old\n", 12, 0750);
	ck_assert_int_eq(fstools_write(&fc, "run.sh", "new\n", &o), 0);
	got = get("run.sh");
	ck_assert_str_eq(got, "new\n");
	free(got);
	ck_assert_uint_eq(mode_of("run.sh"), 0750);

	put("private", "x", 1, 0600);
	ck_assert_int_eq(fstools_write(&fc, "private", "y", &o), 0);
	ck_assert_uint_eq(mode_of("private"), 0600);
	no_leftovers(wd);

	dir = in_wd("d");
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_eq(fstools_write(&fc, "d", "x", &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "is a directory"));
	ck_assert_int_eq(fstools_write(&fc, "f", NULL, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "content"));
	tool_output_clear(&o);
	free(dir);
}
END_TEST

START_TEST(write_refuses_escapes)
{
	struct tool_output o = { 0 };
	char *evil = xasprintf("%s/evil", top), *link = in_wd("outdir");
	char *outdir = xasprintf("%s/out", top), *owned;

	ck_assert_int_eq(fstools_write(&fc, "../evil", "x", &o), -1);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_ptr_nonnull(strstr(o.text, "outside the working directory"));
	ck_assert_int_eq(access(evil, F_OK), -1);
	ck_assert_int_eq(fstools_write(&fc, evil, "x", &o), -1);
	ck_assert_int_eq(access(evil, F_OK), -1);

	/* Through a linked directory, also into new subdirectories. */
	ck_assert_int_eq(symlink(outdir, link), 0);
	ck_assert_int_eq(fstools_write(&fc, "outdir/new/x", "x", &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "symbolic link"));
	owned = xasprintf("%s/new", outdir);
	ck_assert_int_eq(access(owned, F_OK), -1);

	ck_assert_int_eq(fstools_write(&fc, ".huddle/team.db", "x", &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "own state"));
	ck_assert_ptr_null(get(".huddle/team.db"));
	tool_output_clear(&o);
	free(evil);
	free(link);
	free(outdir);
	free(owned);
}
END_TEST

START_TEST(edit_replaces_exactly_once)
{
	struct tool_output o = { 0 };
	char *got;

	put("f.c", "int x = 1;\nint y = 2;\n", 22, 0640);
	ck_assert_int_eq(fstools_edit(&fc, "f.c", "y = 2", "y = 3", &o), 0);
	ck_assert_int_eq(o.is_error, 0);
	ck_assert_ptr_nonnull(strstr(o.text, "edited f.c"));
	got = get("f.c");
	ck_assert_str_eq(got, "int x = 1;\nint y = 3;\n");
	free(got);
	ck_assert_uint_eq(mode_of("f.c"), 0640);
	no_leftovers(wd);

	/* Deleting text: new_text may be empty. */
	ck_assert_int_eq(fstools_edit(&fc, "f.c", "int x = 1;\n", "", &o), 0);
	got = get("f.c");
	ck_assert_str_eq(got, "int y = 3;\n");
	free(got);
	tool_output_clear(&o);
}
END_TEST

START_TEST(edit_needs_one_occurrence)
{
	struct tool_output o = { 0 };
	char *got;

	put("f", "a = 1\nb = 1\n", 12, 0644);
	ck_assert_int_eq(fstools_edit(&fc, "f", "c = 1", "c = 2", &o), -1);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_ptr_nonnull(strstr(o.text, "occurs 0 times in 'f'"));
	ck_assert_ptr_nonnull(strstr(o.text, "surrounding lines"));

	ck_assert_int_eq(fstools_edit(&fc, "f", " = 1", " = 2", &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "occurs 2 times in 'f'"));
	ck_assert_ptr_nonnull(strstr(o.text, "more surrounding lines"));
	got = get("f");
	ck_assert_str_eq(got, "a = 1\nb = 1\n");
	free(got);

	/* Overlapping matches are ambiguous too. */
	put("aaa", "aaa", 3, 0644);
	ck_assert_int_eq(fstools_edit(&fc, "aaa", "aa", "b", &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "occurs 2 times"));

	ck_assert_int_eq(fstools_edit(&fc, "f", "", "x", &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "old_text is empty"));
	ck_assert_int_eq(fstools_edit(&fc, "f", NULL, "x", &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "old_text is empty"));
	ck_assert_int_eq(fstools_edit(&fc, "f", "a", NULL, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "new_text"));
	ck_assert_int_eq(fstools_edit(&fc, "nope", "a", "b", &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "does not exist"));
	ck_assert_int_eq(fstools_edit(&fc, "../out/x", "a", "b", &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "outside"));
	got = get("f");
	ck_assert_str_eq(got, "a = 1\nb = 1\n");
	free(got);
	tool_output_clear(&o);
}
END_TEST

START_TEST(hard_links_are_not_written)
{
	struct tool_output o = { 0 };
	char *target = xasprintf("%s/out/target", top), *got;
	char *alias = in_wd("alias");
	FILE *f = fopen(target, "w");

	fputs("outside\n", f);
	fclose(f);
	ck_assert_int_eq(link(target, alias), 0);
	ck_assert_int_eq(fstools_write(&fc, "alias", "x", &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "2 hard links"));
	ck_assert_int_eq(fstools_edit(&fc, "alias", "outside", "x", &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "2 hard links"));
	got = get("alias");
	ck_assert_str_eq(got, "outside\n");
	free(got);
	no_leftovers(wd);
	/* Reading one is no harm: bash reads anywhere too. */
	ck_assert_int_eq(fstools_read(&fc, "alias", 0, 0, &o), 0);
	tool_output_clear(&o);
	free(target);
	free(alias);
}
END_TEST

/* Swaps work/d (a directory) and work/s (a link to ../out) until told to
 * stop: in bursts, each followed by a pause of 0.1 ms, so that the tools
 * meet both a swap under way and a tree at rest however the two threads
 * are scheduled (on a busy machine a swapper that never rests can leave
 * no call a whole tree to work in). */
struct swapper {
	_Atomic int	 stop;
	long		 swaps;
};

static void *
swap_loop(void *arg)
{
	struct swapper *w = arg;

	struct timespec rest = { 0, 100000 };

	while (!atomic_load(&w->stop)) {
		if (renameat2(AT_FDCWD, "d", AT_FDCWD, "s",
		    RENAME_EXCHANGE) == 0 && ++w->swaps % 64 == 0)
			nanosleep(&rest, NULL);
	}
	return NULL;
}

START_TEST(a_swapped_link_never_leads_out)
{
	struct tool_output o = { 0 };
	struct swapper w;
	pthread_t th;
	char *out = xasprintf("%s/out", top), *p, *dir;
	int i, reads = 0, writes = 0;
	time_t deadline;

	dir = in_wd("d");
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	put("d/f", "inside\n", 7, 0644);
	p = xasprintf("%s/f", out);
	ck_assert_ptr_nonnull(fopen(p, "w"));	/* closed at exit */
	free(p);
	p = in_wd("s");
	ck_assert_int_eq(symlink("../out", p), 0);
	free(p);
	p = xasprintf("%s/out/f", top);
	{
		FILE *f = fopen(p, "w");

		fputs("secret\n", f);
		fclose(f);
	}
	free(p);
	ck_assert_int_eq(chdir(wd), 0);
	atomic_init(&w.stop, 0);
	w.swaps = 0;
	ck_assert_int_eq(pthread_create(&th, NULL, swap_loop, &w), 0);
	/* A thousand rounds at least, and until a read and a write went
	 * through (the race was run both ways), for 20 s at most. */
	deadline = time(NULL) + 20;
	for (i = 0; i < 1000 || ((reads == 0 || writes == 0) &&
	    time(NULL) < deadline); i++) {
		if (fstools_read(&fc, "d/f", 0, 0, &o) == 0) {
			ck_assert_str_eq(o.text, "inside\n");
			reads++;
		} else
			ck_assert_ptr_null(strstr(o.text, "secret"));
		if (fstools_write(&fc, "d/w", "x", &o) == 0)
			writes++;
		fstools_write(&fc, "d/new/w", "x", &o);
		fstools_edit(&fc, "d/f", "inside", "inside", &o);
	}
	atomic_store(&w.stop, 1);
	pthread_join(th, NULL);
	/* Nothing reached out/, and the race was run, both ways. */
	p = xasprintf("%s/w", out);
	ck_assert_int_eq(access(p, F_OK), -1);
	free(p);
	p = xasprintf("%s/new", out);
	ck_assert_int_eq(access(p, F_OK), -1);
	free(p);
	p = xasprintf("%s/f", out);
	{
		char buf[16] = "";
		FILE *f = fopen(p, "r");

		ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
		fclose(f);
		ck_assert_str_eq(buf, "secret\n");
	}
	free(p);
	ck_assert_int_gt(w.swaps, 100);
	ck_assert_int_gt(reads, 0);
	ck_assert_int_gt(writes, 0);
	tool_output_clear(&o);
	free(out);
	free(dir);
}
END_TEST

static Suite *
fstools_suite(void)
{
	Suite *s = suite_create("fstools");
	TCase *tc = tcase_create("fstools"), *race;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, read_whole_file);
	tcase_add_test(tc, read_with_limit);
	tcase_add_test(tc, read_refusals_are_tool_errors);
	tcase_add_test(tc, read_through_links);
	tcase_add_test(tc, read_binary_is_repaired);
	tcase_add_test(tc, read_is_capped);
	tcase_add_test(tc, read_pages_with_offset);
	tcase_add_test(tc, huge_sparse_file_reads_at_once_and_cancels_at_once);
	tcase_add_test(tc, write_creates_parents);
	tcase_add_test(tc, failed_write_leaves_no_directories);
	tcase_add_test(tc, write_replaces_and_keeps_mode);
	tcase_add_test(tc, write_refuses_escapes);
	tcase_add_test(tc, edit_replaces_exactly_once);
	tcase_add_test(tc, edit_needs_one_occurrence);
	tcase_add_test(tc, hard_links_are_not_written);
	suite_add_tcase(s, tc);

	race = tcase_create("race");
	tcase_add_checked_fixture(race, setup, teardown);
	tcase_set_timeout(race, 60);
	tcase_add_test(race, a_swapped_link_never_leads_out);
	suite_add_tcase(s, race);
	return s;
}

int
main(void)
{
	return tu_run(fstools_suite());
}
