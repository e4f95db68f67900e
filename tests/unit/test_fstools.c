/*
 * Unit tests of agent/fstools: read_file with and without a line limit,
 * its 100 KiB cap and its repair of binary text; write_file creating
 * parents, replacing atomically and keeping modes; edit_file's
 * exactly-once rule; and every path refused by the sandbox.
 */
#include "config.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/fstools.h"
#include "testutil.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

static char *top;	/* holds work/ and out/ */
static char *wd;	/* the canonical working directory */

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
	struct tool_output o = { 0, NULL };

	put("f.txt", "one\ntwo\n", 8, 0644);
	ck_assert_int_eq(fstools_read(wd, "f.txt", 0, &o), 0);
	ck_assert_int_eq(o.is_error, 0);
	ck_assert_str_eq(o.text, "one\ntwo\n");
	tool_output_clear(&o);

	/* Absolute paths inside work too; a last line without a newline is
	 * shown as it is. */
	put("g.txt", "no newline", 10, 0644);
	ck_assert_int_eq(fstools_read(wd, "g.txt", 5, &o), 0);
	ck_assert_str_eq(o.text, "no newline");
	tool_output_clear(&o);

	put("empty", "", 0, 0644);
	ck_assert_int_eq(fstools_read(wd, "empty", 0, &o), 0);
	ck_assert_int_eq(o.is_error, 0);
	ck_assert_str_eq(o.text, "[the file is empty]");
	tool_output_clear(&o);
}
END_TEST

START_TEST(read_with_limit)
{
	struct tool_output o = { 0, NULL };

	put("ten", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10", 20, 0644);
	ck_assert_int_eq(fstools_read(wd, "ten", 3, &o), 0);
	ck_assert_str_eq(o.text, "1\n2\n3\n"
	    "[showing the first 3 of 10 lines; 7 more lines left out]\n");
	tool_output_clear(&o);

	/* A limit at or beyond the end shows everything, without a note. */
	ck_assert_int_eq(fstools_read(wd, "ten", 10, &o), 0);
	ck_assert_str_eq(o.text, "1\n2\n3\n4\n5\n6\n7\n8\n9\n10");
	tool_output_clear(&o);
	ck_assert_int_eq(fstools_read(wd, "ten", 1000, &o), 0);
	ck_assert_str_eq(o.text, "1\n2\n3\n4\n5\n6\n7\n8\n9\n10");
	tool_output_clear(&o);
	ck_assert_int_eq(fstools_read(wd, "ten", 9, &o), 0);
	ck_assert_ptr_nonnull(strstr(o.text, "9\n[showing the first 9 of 10 "
	    "lines; 1 more lines left out]"));
	tool_output_clear(&o);

	ck_assert_int_eq(fstools_read(wd, "ten", -1, &o), -1);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_ptr_nonnull(strstr(o.text, "limit"));
	tool_output_clear(&o);
}
END_TEST

START_TEST(read_refusals_are_tool_errors)
{
	struct tool_output o = { 0, NULL };
	char *fifo = in_wd("fifo"), *outside = xasprintf("%s/out/s", top);
	FILE *f = fopen(outside, "w");

	fclose(f);
	ck_assert_int_eq(fstools_read(wd, "missing.txt", 0, &o), -1);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_ptr_nonnull(strstr(o.text, "'missing.txt' does not exist"));

	ck_assert_int_eq(fstools_read(wd, ".", 0, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "is a directory"));

	ck_assert_int_eq(mkfifo(fifo, 0600), 0);	/* must not hang */
	ck_assert_int_eq(fstools_read(wd, "fifo", 0, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "not a regular file"));

	ck_assert_int_eq(fstools_read(wd, "../out/s", 0, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "outside the working directory"));
	ck_assert_int_eq(fstools_read(wd, outside, 0, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "outside the working directory"));
	ck_assert_int_eq(fstools_read(wd, "", 0, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "empty"));
	tool_output_clear(&o);
	free(fifo);
	free(outside);
}
END_TEST

START_TEST(read_through_links)
{
	struct tool_output o = { 0, NULL };
	char *outside = xasprintf("%s/out/secret", top), *link = in_wd("leak");
	char *inlink = in_wd("alias");
	FILE *f = fopen(outside, "w");

	fputs("secret\n", f);
	fclose(f);
	put("real", "inside\n", 7, 0644);
	ck_assert_int_eq(symlink(outside, link), 0);
	ck_assert_int_eq(symlink("real", inlink), 0);
	ck_assert_int_eq(fstools_read(wd, "leak", 0, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "symbolic link"));
	ck_assert_ptr_null(strstr(o.text, "secret\n"));
	ck_assert_int_eq(fstools_read(wd, "alias", 0, &o), 0);
	ck_assert_str_eq(o.text, "inside\n");
	ck_assert_int_eq(fstools_read(wd, ".huddle/team.db", 0, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "own state"));
	tool_output_clear(&o);
	free(outside);
	free(link);
	free(inlink);
}
END_TEST

START_TEST(read_binary_is_repaired)
{
	struct tool_output o = { 0, NULL };

	put("bin", "ab\0cd\xff\n", 7, 0644);
	ck_assert_int_eq(fstools_read(wd, "bin", 0, &o), 0);
	ck_assert_int_eq(o.is_error, 0);
	ck_assert(utf8_valid(o.text));
	ck_assert_ptr_nonnull(strstr(o.text,
	    "ab\xef\xbf\xbd" "cd\xef\xbf\xbd\n"));
	ck_assert_ptr_nonnull(strstr(o.text, "looks binary (1 NUL bytes)"));
	tool_output_clear(&o);

	/* Invalid UTF-8 alone: repaired and said so, but not "binary". */
	put("latin1", "caf\xe9\n", 5, 0644);
	ck_assert_int_eq(fstools_read(wd, "latin1", 0, &o), 0);
	ck_assert(utf8_valid(o.text));
	ck_assert_ptr_nonnull(strstr(o.text, "caf\xef\xbf\xbd\n"));
	ck_assert_ptr_nonnull(strstr(o.text, "invalid UTF-8"));
	ck_assert_ptr_null(strstr(o.text, "binary"));
	tool_output_clear(&o);

	/* Valid UTF-8 comes back untouched. */
	put("utf8", "caf\xc3\xa9 \xf0\x9f\x98\x80\n", 11, 0644);
	ck_assert_int_eq(fstools_read(wd, "utf8", 0, &o), 0);
	ck_assert_str_eq(o.text, "caf\xc3\xa9 \xf0\x9f\x98\x80\n");
	tool_output_clear(&o);
}
END_TEST

START_TEST(read_is_capped_at_100_kib)
{
	struct tool_output o = { 0, NULL };
	size_t cap = FSTOOLS_READ_CAP, n = 3 * cap, i;
	char *big = xmalloc(n), *note;

	/* 3 * 100 KiB in lines of 8 bytes: 38400 lines. */
	for (i = 0; i < n; i += 8)
		memcpy(big + i, "1234567\n", 8);
	put("big", big, n, 0644);
	ck_assert_int_eq(fstools_read(wd, "big", 0, &o), 0);
	note = strstr(o.text, "[cut at 100 KiB");
	ck_assert_ptr_nonnull(note);
	ck_assert_uint_eq((size_t)(note - o.text), cap);
	ck_assert_ptr_nonnull(strstr(note, "showing 12800 of 38400 lines "
	    "(307200 bytes in all)"));
	ck_assert_ptr_nonnull(strstr(note, "sed -n '12801,"));
	tool_output_clear(&o);

	/* The limit and the cap together: the cap wins. */
	ck_assert_int_eq(fstools_read(wd, "big", 20000, &o), 0);
	ck_assert_ptr_nonnull(strstr(o.text, "[cut at 100 KiB"));
	tool_output_clear(&o);
	ck_assert_int_eq(fstools_read(wd, "big", 2, &o), 0);
	ck_assert_str_eq(o.text, "1234567\n1234567\n[showing the first 2 of "
	    "38400 lines; 38398 more lines left out]\n");
	tool_output_clear(&o);

	/* Two-byte characters straddling the cap: cut between characters,
	 * never into a U+FFFD. */
	big[0] = 'x';
	for (i = 1; i + 1 < n; i += 2)
		memcpy(big + i, "\xc3\xa9", 2);
	put("wide", big, n - 1, 0644);
	ck_assert_int_eq(fstools_read(wd, "wide", 0, &o), 0);
	ck_assert(utf8_valid(o.text));
	ck_assert_ptr_null(strstr(o.text, "\xef\xbf\xbd"));
	ck_assert_ptr_null(strstr(o.text, "invalid UTF-8"));
	ck_assert_ptr_nonnull(strstr(o.text, "[cut at 100 KiB"));
	tool_output_clear(&o);

	/* Binary repair can triple the size; the cap still holds. */
	memset(big, 0, n);
	put("zeros", big, n, 0644);
	ck_assert_int_eq(fstools_read(wd, "zeros", 0, &o), 0);
	note = strstr(o.text, "\n[cut at 100 KiB");
	ck_assert_ptr_nonnull(note);
	ck_assert_uint_le((size_t)(note - o.text), cap);
	ck_assert(utf8_valid(o.text));
	tool_output_clear(&o);
	free(big);
}
END_TEST

START_TEST(write_creates_parents)
{
	struct tool_output o = { 0, NULL };
	char *got;

	ck_assert_int_eq(fstools_write(wd, "a/b/c.txt", "hello", &o), 0);
	ck_assert_int_eq(o.is_error, 0);
	ck_assert_str_eq(o.text, "wrote 5 bytes to a/b/c.txt");
	got = get("a/b/c.txt");
	ck_assert_str_eq(got, "hello");
	free(got);
	ck_assert_uint_eq(mode_of("a/b/c.txt"), 0644);
	no_leftovers(wd);

	/* An empty file is a file. */
	ck_assert_int_eq(fstools_write(wd, "empty", "", &o), 0);
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
	struct tool_output o = { 0, NULL };
	char longname[NAME_MAX + 2], *path, *keep = in_wd("keep");

	memset(longname, 'n', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	ck_assert_int_eq(mkdir(keep, 0755), 0);
	free(keep);

	/* The file's name is too long: every new directory goes. */
	path = xasprintf("keep/new/deeper/%s", longname);
	ck_assert_int_eq(fstools_write(wd, path, "x", &o), -1);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_int_eq(exists("keep/new"), 0);
	ck_assert_int_eq(exists("keep"), 1);
	free(path);
	tool_output_clear(&o);

	/* A directory's name is too long: the ones above it go too. */
	path = xasprintf("fresh/%s/f.txt", longname);
	ck_assert_int_eq(fstools_write(wd, path, "x", &o), -1);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_msg(strstr(o.text, "cannot create directory") != NULL,
	    "%s", o.text);
	ck_assert_int_eq(exists("fresh"), 0);
	free(path);
	tool_output_clear(&o);

	/* The target is a directory: nothing was made, nothing goes. */
	ck_assert_int_eq(fstools_write(wd, "keep", "x", &o), -1);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_int_eq(exists("keep"), 1);
	tool_output_clear(&o);
	no_leftovers(wd);
}
END_TEST

START_TEST(write_replaces_and_keeps_mode)
{
	struct tool_output o = { 0, NULL };
	char *got, *dir;

	put("run.sh", "old old old\n", 12, 0750);
	ck_assert_int_eq(fstools_write(wd, "run.sh", "new\n", &o), 0);
	got = get("run.sh");
	ck_assert_str_eq(got, "new\n");
	free(got);
	ck_assert_uint_eq(mode_of("run.sh"), 0750);

	put("private", "x", 1, 0600);
	ck_assert_int_eq(fstools_write(wd, "private", "y", &o), 0);
	ck_assert_uint_eq(mode_of("private"), 0600);
	no_leftovers(wd);

	dir = in_wd("d");
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_eq(fstools_write(wd, "d", "x", &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "is a directory"));
	ck_assert_int_eq(fstools_write(wd, "f", NULL, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "content"));
	tool_output_clear(&o);
	free(dir);
}
END_TEST

START_TEST(write_refuses_escapes)
{
	struct tool_output o = { 0, NULL };
	char *evil = xasprintf("%s/evil", top), *link = in_wd("outdir");
	char *outdir = xasprintf("%s/out", top), *owned;

	ck_assert_int_eq(fstools_write(wd, "../evil", "x", &o), -1);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_ptr_nonnull(strstr(o.text, "outside the working directory"));
	ck_assert_int_eq(access(evil, F_OK), -1);
	ck_assert_int_eq(fstools_write(wd, evil, "x", &o), -1);
	ck_assert_int_eq(access(evil, F_OK), -1);

	/* Through a linked directory, also into new subdirectories. */
	ck_assert_int_eq(symlink(outdir, link), 0);
	ck_assert_int_eq(fstools_write(wd, "outdir/new/x", "x", &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "symbolic link"));
	owned = xasprintf("%s/new", outdir);
	ck_assert_int_eq(access(owned, F_OK), -1);

	ck_assert_int_eq(fstools_write(wd, ".huddle/team.db", "x", &o), -1);
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
	struct tool_output o = { 0, NULL };
	char *got;

	put("f.c", "int x = 1;\nint y = 2;\n", 22, 0640);
	ck_assert_int_eq(fstools_edit(wd, "f.c", "y = 2", "y = 3", &o), 0);
	ck_assert_int_eq(o.is_error, 0);
	ck_assert_ptr_nonnull(strstr(o.text, "edited f.c"));
	got = get("f.c");
	ck_assert_str_eq(got, "int x = 1;\nint y = 3;\n");
	free(got);
	ck_assert_uint_eq(mode_of("f.c"), 0640);
	no_leftovers(wd);

	/* Deleting text: new_text may be empty. */
	ck_assert_int_eq(fstools_edit(wd, "f.c", "int x = 1;\n", "", &o), 0);
	got = get("f.c");
	ck_assert_str_eq(got, "int y = 3;\n");
	free(got);
	tool_output_clear(&o);
}
END_TEST

START_TEST(edit_needs_one_occurrence)
{
	struct tool_output o = { 0, NULL };
	char *got;

	put("f", "a = 1\nb = 1\n", 12, 0644);
	ck_assert_int_eq(fstools_edit(wd, "f", "c = 1", "c = 2", &o), -1);
	ck_assert_int_eq(o.is_error, 1);
	ck_assert_ptr_nonnull(strstr(o.text, "occurs 0 times in 'f'"));
	ck_assert_ptr_nonnull(strstr(o.text, "surrounding lines"));

	ck_assert_int_eq(fstools_edit(wd, "f", " = 1", " = 2", &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "occurs 2 times in 'f'"));
	ck_assert_ptr_nonnull(strstr(o.text, "more surrounding lines"));
	got = get("f");
	ck_assert_str_eq(got, "a = 1\nb = 1\n");
	free(got);

	/* Overlapping matches are ambiguous too. */
	put("aaa", "aaa", 3, 0644);
	ck_assert_int_eq(fstools_edit(wd, "aaa", "aa", "b", &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "occurs 2 times"));

	ck_assert_int_eq(fstools_edit(wd, "f", "", "x", &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "old_text is empty"));
	ck_assert_int_eq(fstools_edit(wd, "f", NULL, "x", &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "old_text is empty"));
	ck_assert_int_eq(fstools_edit(wd, "f", "a", NULL, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "new_text"));
	ck_assert_int_eq(fstools_edit(wd, "nope", "a", "b", &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "does not exist"));
	ck_assert_int_eq(fstools_edit(wd, "../out/x", "a", "b", &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "outside"));
	got = get("f");
	ck_assert_str_eq(got, "a = 1\nb = 1\n");
	free(got);
	tool_output_clear(&o);
}
END_TEST

static Suite *
fstools_suite(void)
{
	Suite *s = suite_create("fstools");
	TCase *tc = tcase_create("fstools");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, read_whole_file);
	tcase_add_test(tc, read_with_limit);
	tcase_add_test(tc, read_refusals_are_tool_errors);
	tcase_add_test(tc, read_through_links);
	tcase_add_test(tc, read_binary_is_repaired);
	tcase_add_test(tc, read_is_capped_at_100_kib);
	tcase_add_test(tc, write_creates_parents);
	tcase_add_test(tc, failed_write_leaves_no_directories);
	tcase_add_test(tc, write_replaces_and_keeps_mode);
	tcase_add_test(tc, write_refuses_escapes);
	tcase_add_test(tc, edit_replaces_exactly_once);
	tcase_add_test(tc, edit_needs_one_occurrence);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(fstools_suite());
}
