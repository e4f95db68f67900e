/*
 * Unit tests of agent/instructions.c beyond what test_roles checks (the
 * choice of AGENTS.md and the size cap): nothing to read, the framing
 * of each file, the person's file shown under ~, files left out (a link
 * out of the tree, a FIFO, what the guard hides, a tree that cannot be
 * opened), and a cut that keeps characters whole.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/instructions.h"
#include "testutil.h"
#include "tools/profile.h"
#include "util/xmalloc.h"

START_TEST(nothing_to_read_is_empty)
{
	char *work = tu_tmpdir();
	struct instructions in;

	instructions_read(work, NULL, NULL, NULL, &in);
	ck_assert_str_eq(in.text, "");
	ck_assert_str_eq(in.sources, "");
	ck_assert_ptr_null(in.notice);
	instructions_clear(&in);
	ck_assert_ptr_null(in.text);
	ck_assert_ptr_null(in.sources);
	tu_rmtree(work);
	free(work);
}
END_TEST

START_TEST(each_file_is_framed_and_ends_its_line)
{
	char *work = tu_tmpdir(), *home = tu_tmpdir(), *conf, *old;
	struct instructions in;
	json_t *extra = json_pack("[i, s, n]", 3, "HACKING");

	old = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;
	setenv("HOME", home, 1);
	conf = xasprintf("%s/.config", home);
	ck_assert_int_eq(mkdir(conf, 0700), 0);
	tu_write_file(conf, "AGENTS.md", "MINE");
	tu_write_file(work, "CLAUDE.md", "PROJECT");
	tu_write_file(work, "HACKING", "MORE\n");
	instructions_read(work, conf, extra, NULL, &in);
	ck_assert_ptr_nonnull(strstr(in.text, "\n[The person's instructions, "
	    "from ~/.config/AGENTS.md:]\nMINE\n"));
	ck_assert_ptr_nonnull(strstr(in.text, "\n[The project's "
	    "instructions, from CLAUDE.md:]\nPROJECT\n"));
	ck_assert_ptr_nonnull(strstr(in.text, "from HACKING:]\nMORE\n"));
	ck_assert_ptr_null(strstr(in.text, "MORE\n\n"));
	ck_assert_str_eq(in.sources, "~/.config/AGENTS.md (4 B), CLAUDE.md "
	    "(7 B), HACKING (5 B)");
	/* The entries that are not paths are passed over in silence. */
	ck_assert_ptr_null(in.notice);
	instructions_clear(&in);
	if (old != NULL) {
		setenv("HOME", old, 1);
		free(old);
	} else
		unsetenv("HOME");
	json_decref(extra);
	free(conf);
	tu_rmtree(work);
	tu_rmtree(home);
	free(work);
	free(home);
}
END_TEST

START_TEST(what_may_not_be_read_is_left_out_with_a_notice)
{
	char *work = tu_tmpdir(), *out = tu_tmpdir(), *path, *secret, *why;
	struct instructions in;
	struct profile_spec s = { 0 };
	struct profile *guard;
	char *hidden[2] = { NULL, NULL };
	json_t *extra = json_pack("[s, s]", "pipe.md", "keys/notes.md");

	/* AGENTS.md links out of the tree: not read, and CLAUDE.md is not
	 * taken in its place. */
	tu_write_file(out, "elsewhere.md", "OUTSIDE");
	path = xasprintf("%s/AGENTS.md", work);
	secret = xasprintf("%s/elsewhere.md", out);
	ck_assert_int_eq(symlink(secret, path), 0);
	free(path);
	free(secret);
	tu_write_file(work, "CLAUDE.md", "CLAUDE");
	path = xasprintf("%s/pipe.md", work);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	free(path);
	secret = xasprintf("%s/keys", work);
	ck_assert_int_eq(mkdir(secret, 0700), 0);
	tu_write_file(secret, "notes.md", "SECRET");
	hidden[0] = secret;
	s.root = work;
	s.tmpdir = out;
	s.hidden = hidden;
	guard = profile_new(&s, &why);
	ck_assert_ptr_nonnull(guard);

	instructions_read(work, NULL, extra, guard, &in);
	ck_assert_ptr_null(strstr(in.text, "OUTSIDE"));
	/* CLAUDE.md is read beside AGENTS.md, whatever became of that. */
	ck_assert_ptr_nonnull(strstr(in.text, "CLAUDE"));
	ck_assert_ptr_null(strstr(in.text, "SECRET"));
	ck_assert_ptr_nonnull(in.notice);
	ck_assert_msg(strstr(in.notice, "AGENTS.md left out") != NULL, "%s",
	    in.notice);
	ck_assert_ptr_nonnull(strstr(in.notice, "pipe.md left out"));
	ck_assert_ptr_nonnull(strstr(in.notice, "keys/notes.md left out"));
	ck_assert_ptr_nonnull(strstr(in.notice, "hidden from the team"));
	instructions_clear(&in);

	/* Without the guard the file is read. */
	json_array_remove(extra, 0);
	instructions_read(work, NULL, extra, NULL, &in);
	ck_assert_ptr_nonnull(strstr(in.text, "SECRET"));
	instructions_clear(&in);
	profile_free(guard);
	json_decref(extra);
	free(secret);
	tu_rmtree(work);
	tu_rmtree(out);
	free(work);
	free(out);
}
END_TEST

START_TEST(a_tree_that_cannot_be_opened_is_noted)
{
	char *work = tu_tmpdir(), *gone = xasprintf("%s/gone", work);
	struct instructions in;

	instructions_read(gone, NULL, NULL, NULL, &in);
	ck_assert_str_eq(in.text, "");
	ck_assert_ptr_nonnull(in.notice);
	ck_assert_ptr_nonnull(strstr(in.notice, "the working tree cannot be "
	    "opened"));
	instructions_clear(&in);
	free(gone);
	tu_rmtree(work);
	free(work);
}
END_TEST

START_TEST(a_cut_keeps_characters_whole)
{
	char *work = tu_tmpdir(), *big, *mark;
	struct instructions in;
	size_t i, n = 20000;

	/* 40,000 bytes of two-byte characters, past the cap. */
	big = xmalloc(2 * n + 1);
	for (i = 0; i < n; i++)
		memcpy(big + 2 * i, "\xc3\xa9", 2);
	big[2 * n] = '\0';
	tu_write_file(work, "AGENTS.md", big);
	instructions_read(work, NULL, NULL, NULL, &in);
	mark = strstr(in.text, "\n[huddle cut AGENTS.md here");
	ck_assert_ptr_nonnull(mark);
	ck_assert_uint_le((size_t)(mark - in.text), INSTRUCTIONS_MAX + 1024);
	/* The last byte before the mark ends a character. */
	ck_assert_uint_eq((unsigned char)mark[-1], 0xa9);
	ck_assert_uint_eq((unsigned char)mark[-2], 0xc3);
	ck_assert_ptr_nonnull(strstr(in.sources, "AGENTS.md (39.1 KiB, "
	    "cut)"));
	instructions_clear(&in);
	free(big);
	tu_rmtree(work);
	free(work);
}
END_TEST

/* In a repository, the folders' files from its top down to the working
 * tree, nearest last; CLAUDE.md's @imports of the tree, and none out of
 * it. */
START_TEST(the_repository_down_to_the_tree_and_claude_imports)
{
	char *top = tu_tmpdir(), *work = xasprintf("%s/app/web", top), *p;
	struct instructions in;
	const char *a, *b, *c;

	p = xasprintf("%s/.git", top);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	free(p);
	p = xasprintf("%s/app", top);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	tu_write_file(p, "AGENTS.md", "APP-MARK");
	free(p);
	ck_assert_int_eq(mkdir(work, 0700), 0);
	p = xasprintf("%s/docs", work);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	free(p);
	tu_write_file(top, "AGENTS.md", "TOP-MARK");
	tu_write_file(top, "secret.md", "ESCAPED");
	tu_write_file(work, "AGENTS.md", "WEB-MARK");
	tu_write_file(work, "CLAUDE.md", "Style in @docs/style.md, mail "
	    "@alice, not @../../secret.md nor @/etc/hostname.\n```\n"
	    "@docs/code.md\n```\n");
	tu_write_file(work, "docs/style.md", "STYLE-MARK see @more.md");
	tu_write_file(work, "docs/more.md", "MORE-MARK");
	tu_write_file(work, "docs/code.md", "CODE-MARK");
	instructions_read(work, NULL, NULL, NULL, &in);
	a = strstr(in.text, "TOP-MARK");
	b = strstr(in.text, "APP-MARK");
	c = strstr(in.text, "WEB-MARK");
	ck_assert_msg(a != NULL && b != NULL && c != NULL && a < b && b < c,
	    "%s", in.text);
	ck_assert_ptr_nonnull(strstr(in.text, "from ../../AGENTS.md"));
	ck_assert_ptr_nonnull(strstr(in.text, "STYLE-MARK"));
	ck_assert_ptr_nonnull(strstr(in.text, "MORE-MARK"));
	ck_assert_ptr_null(strstr(in.text, "CODE-MARK"));
	ck_assert_ptr_null(strstr(in.text, "ESCAPED"));
	ck_assert_ptr_nonnull(in.notice);
	ck_assert_msg(strstr(in.notice, "@/etc/hostname in CLAUDE.md left "
	    "out") != NULL, "%s", in.notice);
	ck_assert_msg(strstr(in.notice, "../../secret.md left out") != NULL,
	    "%s", in.notice);
	instructions_clear(&in);
	tu_rmtree(top);
	free(top);
	free(work);
}
END_TEST

static Suite *
instructions_suite(void)
{
	Suite *s = suite_create("instructions");
	TCase *tc = tcase_create("instructions");

	tcase_add_test(tc, nothing_to_read_is_empty);
	tcase_add_test(tc, each_file_is_framed_and_ends_its_line);
	tcase_add_test(tc, the_repository_down_to_the_tree_and_claude_imports);
	tcase_add_test(tc, what_may_not_be_read_is_left_out_with_a_notice);
	tcase_add_test(tc, a_tree_that_cannot_be_opened_is_noted);
	tcase_add_test(tc, a_cut_keeps_characters_whole);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(instructions_suite());
}
