/*
 * Unit tests of core/mcpoffer and util/sha256: the digest of a project
 * MCP server's entry, and the answers kept by name and digest.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/mcpoffer.h"
#include "core/store.h"
#include "testutil.h"
#include "util/sha256.h"
#include "util/xmalloc.h"

START_TEST(sha256_known_answers)
{
	char out[65];
	char *million = xmalloc(1000000);

	sha256_hex("", 0, out);
	ck_assert_str_eq(out, "e3b0c44298fc1c149afbf4c8996fb924"
	    "27ae41e4649b934ca495991b7852b855");
	sha256_hex("abc", 3, out);
	ck_assert_str_eq(out, "ba7816bf8f01cfea414140de5dae2223"
	    "b00361a396177a9cb410ff61f20015ad");
	/* 56 bytes: the length no longer fits the first padded block. */
	sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	    56, out);
	ck_assert_str_eq(out, "248d6a61d20638b8e5c026930c3e6039"
	    "a33ce45964ff2167f6ecedd419db06c1");
	memset(million, 'a', 1000000);
	sha256_hex(million, 1000000, out);
	ck_assert_str_eq(out, "cdc76e5c9914fb9281a1c7e284d73e67"
	    "f1809a48a497200e046d39ccc7112cd0");
	free(million);
}
END_TEST

/* The same entry digests the same however it is laid out; any change to
 * what would run digests differently. */
START_TEST(digest_follows_the_entry_not_its_layout)
{
	char a[MCPOFFER_DIGEST_SIZE], b[MCPOFFER_DIGEST_SIZE];
	json_t *x = json_loads("{\"command\": \"python3\", \"args\": "
	    "[\"s.py\"], \"env\": {\"A\": \"1\"}}", 0, NULL);
	json_t *y = json_loads("{\"env\":{\"A\":\"1\"},\"args\":[\"s.py\"],"
	    "\"command\":\"python3\"}", 0, NULL);
	json_t *z = json_loads("{\"command\": \"python3\", \"args\": "
	    "[\"s.py\", \"--x\"], \"env\": {\"A\": \"1\"}}", 0, NULL);
	json_t *w = json_loads("{\"command\": \"python3\", \"args\": "
	    "[\"s.py\"], \"env\": {\"A\": \"2\"}}", 0, NULL);

	mcpoffer_digest(x, a);
	mcpoffer_digest(y, b);
	ck_assert_str_eq(a, b);
	ck_assert_uint_eq(strlen(a), 64);
	mcpoffer_digest(z, b);
	ck_assert_str_ne(a, b);
	mcpoffer_digest(w, b);
	ck_assert_str_ne(a, b);
	json_decref(x);
	json_decref(y);
	json_decref(z);
	json_decref(w);
}
END_TEST

/* An answer is kept by name and digest, replaced by a later one, and
 * outlives the store's closing. */
START_TEST(answers_are_kept_by_name_and_digest)
{
	char *dir = tu_tmpdir(), *err = NULL;
	struct store *s = tu_store_open(dir);

	ck_assert_int_eq(mcpoffer_get(s, "db", "d1"), MCPOFFER_NONE);
	ck_assert_int_eq(mcpoffer_set(s, "db", "d1", 0, &err), 0);
	ck_assert_int_eq(mcpoffer_set(s, "web", "d1", 1, &err), 0);
	ck_assert_int_eq(mcpoffer_get(s, "db", "d1"), MCPOFFER_REJECTED);
	ck_assert_int_eq(mcpoffer_get(s, "web", "d1"), MCPOFFER_APPROVED);
	/* Another configuration of the same name is a new question. */
	ck_assert_int_eq(mcpoffer_get(s, "db", "d2"), MCPOFFER_NONE);
	ck_assert_int_eq(mcpoffer_set(s, "db", "d1", 1, &err), 0);
	ck_assert_int_eq(mcpoffer_get(s, "db", "d1"), MCPOFFER_APPROVED);
	store_close(s);
	s = tu_store_open(dir);
	ck_assert_int_eq(mcpoffer_get(s, "db", "d1"), MCPOFFER_APPROVED);
	ck_assert_int_eq(mcpoffer_get(s, "web", "d1"), MCPOFFER_APPROVED);
	store_close(s);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

static Suite *
mcpoffer_suite(void)
{
	Suite *s = suite_create("mcpoffer");
	TCase *tc = tcase_create("mcpoffer");

	tcase_add_test(tc, sha256_known_answers);
	tcase_add_test(tc, digest_follows_the_entry_not_its_layout);
	tcase_add_test(tc, answers_are_kept_by_name_and_digest);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(mcpoffer_suite());
}
