/*
 * Unit tests of ui/input's editing: a long paste folded into one piece
 * the cursor steps over and Backspace, Delete and C-w remove whole, that
 * moves with the text typed before it, and that becomes text when edited
 * while shown (C-o); a short paste stays text.
 */
#include "config.h"

#include <string.h>

#include "ui/input.h"
#include "testutil.h"

/* Types s at the cursor, as a bracketed paste when `paste`. */
static void
type(struct input *in, const char *s, int paste)
{
	if (paste)
		input_paste_begin(in);
	for (; *s != '\0'; s++)
		input_insert(in, (wchar_t)(unsigned char)*s);
	if (paste)
		input_paste_end(in);
}

#define TEN "1\n2\n3\n4\n5\n6\n7\n8\n9\n10"

START_TEST(a_short_paste_stays_text)
{
	struct input in;

	input_init(&in);
	type(&in, "a\nb\nc\nd\ne", 1);		/* five lines: text */
	ck_assert_int_eq(in.nfolds, 0);
	input_left(&in);
	ck_assert_uint_eq(in.cursor, in.len - 1);
	input_free(&in);
}
END_TEST

START_TEST(a_long_paste_is_one_piece)
{
	struct input in;

	input_init(&in);
	type(&in, "see ", 0);
	type(&in, TEN, 1);
	type(&in, " ok", 0);
	ck_assert_int_eq(in.nfolds, 1);
	ck_assert_uint_eq(in.folds[0].lines, 10);
	ck_assert_uint_eq(in.folds[0].start, 4);
	ck_assert_uint_eq(in.folds[0].end, 4 + strlen(TEN));
	/* Left steps over it, right too. */
	input_left(&in);
	input_left(&in);
	input_left(&in);
	ck_assert_uint_eq(in.cursor, 4 + strlen(TEN));
	input_left(&in);
	ck_assert_uint_eq(in.cursor, 4);
	input_right(&in);
	ck_assert_uint_eq(in.cursor, 4 + strlen(TEN));
	/* Text typed before it moves it. */
	input_home(&in);
	type(&in, ">", 0);
	ck_assert_uint_eq(in.folds[0].start, 5);
	/* Delete at its start removes it whole; the rest stays. */
	input_right(&in);
	input_right(&in);
	input_right(&in);
	input_right(&in);
	ck_assert_uint_eq(in.cursor, 5);
	input_delete(&in);
	ck_assert_int_eq(in.nfolds, 0);
	ck_assert_str_eq(in.buf, ">see  ok");
	input_free(&in);
}
END_TEST

START_TEST(backspace_and_ctrl_w_take_it_whole)
{
	struct input in;

	input_init(&in);
	type(&in, TEN, 1);
	input_backspace(&in);
	ck_assert_str_eq(in.buf, "");
	ck_assert_int_eq(in.nfolds, 0);
	type(&in, "x ", 0);
	type(&in, TEN, 1);
	input_kill_word(&in);
	ck_assert_str_eq(in.buf, "x ");
	ck_assert_int_eq(in.nfolds, 0);
	/* A word jump stops at its ends. */
	type(&in, TEN, 1);
	input_word_left(&in);
	ck_assert_uint_eq(in.cursor, 2);
	input_word_right(&in);
	ck_assert_uint_eq(in.cursor, in.len);
	/* Two pastes, the first removed: the second moves down. */
	input_home(&in);
	type(&in, TEN, 1);
	ck_assert_int_eq(in.nfolds, 2);
	ck_assert_uint_eq(in.folds[0].start, 0);
	ck_assert_uint_eq(in.folds[1].start, strlen(TEN) + 2);
	input_delete(&in);		/* the cursor is after the first */
	ck_assert_int_eq(in.nfolds, 2);
	input_backspace(&in);
	ck_assert_int_eq(in.nfolds, 1);
	ck_assert_uint_eq(in.folds[0].start, 1);
	ck_assert_str_eq(in.buf + in.folds[0].start, TEN);
	input_free(&in);
}
END_TEST

START_TEST(shown_it_is_edited_as_text)
{
	struct input in;

	input_init(&in);
	type(&in, TEN, 1);
	in.unfold = 1;
	input_left(&in);
	input_left(&in);
	ck_assert_uint_eq(in.cursor, strlen(TEN) - 2);
	input_backspace(&in);
	ck_assert_int_eq(in.nfolds, 0);
	ck_assert_str_eq(in.buf, "1\n2\n3\n4\n5\n6\n7\n8\n910");
	/* Sent, kept in the history, and gone from the line. */
	free(input_take(&in));
	ck_assert_uint_eq(in.len, 0);
	ck_assert_int_eq(in.nfolds, 0);
	input_free(&in);
}
END_TEST

/* A word typed right after a paste is a word of its own: C-w takes the
 * word, not the paste; shown (C-o), the paste's own words are words. */
START_TEST(a_word_beside_it_is_a_word)
{
	struct input in;

	input_init(&in);
	type(&in, TEN, 1);
	type(&in, "abc", 0);
	input_kill_word(&in);
	ck_assert_int_eq(in.nfolds, 1);
	ck_assert_str_eq(in.buf, TEN);
	input_word_left(&in);
	ck_assert_uint_eq(in.cursor, 0);
	input_word_right(&in);
	ck_assert_uint_eq(in.cursor, in.len);
	in.unfold = 1;
	input_kill_word(&in);
	ck_assert_str_eq(in.buf, "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
	ck_assert_int_eq(in.nfolds, 0);
	input_free(&in);
}
END_TEST

static Suite *
input_suite(void)
{
	Suite *s = suite_create("input");
	TCase *tc = tcase_create("input");

	tcase_add_test(tc, a_short_paste_stays_text);
	tcase_add_test(tc, a_long_paste_is_one_piece);
	tcase_add_test(tc, backspace_and_ctrl_w_take_it_whole);
	tcase_add_test(tc, shown_it_is_edited_as_text);
	tcase_add_test(tc, a_word_beside_it_is_a_word);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(input_suite());
}
