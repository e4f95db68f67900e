/*
 * Unit tests of util/image: the four formats' names, base64 as the
 * models take it, and the width and height read from each format's
 * header, from well-formed headers to truncated, lying and random ones.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "util/image.h"
#include "util/xmalloc.h"

/* The header of a PNG of w x h: signature, IHDR (length 13), CRC not
 * checked by the reader. */
static size_t
png_header(unsigned char *b, unsigned long w, unsigned long h)
{
	static const unsigned char head[16] = { 0x89, 'P', 'N', 'G', '\r',
	    '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R' };
	int i;

	memcpy(b, head, 16);
	for (i = 0; i < 4; i++) {
		b[16 + i] = (unsigned char)(w >> (24 - 8 * i));
		b[20 + i] = (unsigned char)(h >> (24 - 8 * i));
	}
	memset(b + 24, 0, 9);	/* depth, colour type..., CRC */
	b[24] = 8;
	b[25] = 6;
	return 33;
}

static size_t
gif_header(unsigned char *b, unsigned w, unsigned h)
{
	memcpy(b, "GIF89a", 6);
	b[6] = (unsigned char)w;
	b[7] = (unsigned char)(w >> 8);
	b[8] = (unsigned char)h;
	b[9] = (unsigned char)(h >> 8);
	b[10] = 0xf7;
	b[11] = b[12] = 0;
	return 13;
}

/* A WebP's first 30 bytes, of chunk kind "VP8 ", "VP8L" or "VP8X". */
static size_t
webp_header(unsigned char *b, const char *kind, unsigned w, unsigned h)
{
	unsigned long bits;

	memset(b, 0, 30);
	memcpy(b, "RIFF", 4);
	b[4] = 100;
	memcpy(b + 8, "WEBP", 4);
	memcpy(b + 12, kind, 4);
	b[16] = 50;
	if (strcmp(kind, "VP8 ") == 0) {
		b[23] = 0x9d;
		b[24] = 0x01;
		b[25] = 0x2a;
		b[26] = (unsigned char)w;
		b[27] = (unsigned char)(w >> 8);
		b[28] = (unsigned char)h;
		b[29] = (unsigned char)(h >> 8);
	} else if (strcmp(kind, "VP8L") == 0) {
		b[20] = 0x2f;
		bits = (unsigned long)(w - 1) | (unsigned long)(h - 1) << 14;
		b[21] = (unsigned char)bits;
		b[22] = (unsigned char)(bits >> 8);
		b[23] = (unsigned char)(bits >> 16);
		b[24] = (unsigned char)(bits >> 24);
	} else {
		b[24] = (unsigned char)(w - 1);
		b[25] = (unsigned char)((w - 1) >> 8);
		b[26] = (unsigned char)((w - 1) >> 16);
		b[27] = (unsigned char)(h - 1);
		b[28] = (unsigned char)((h - 1) >> 8);
		b[29] = (unsigned char)((h - 1) >> 16);
	}
	return 30;
}

/* A JPEG's start: SOI, an APP0 (JFIF) segment of `app` bytes, a DHT
 * segment (c4, which is no frame), fill bytes, then SOF `sof` with the
 * size, then SOS. */
static size_t
jpeg_header(unsigned char *b, size_t app, unsigned char sof, unsigned w,
    unsigned h)
{
	size_t n = 0;

	b[n++] = 0xff;
	b[n++] = 0xd8;
	b[n++] = 0xff;
	b[n++] = 0xe0;
	b[n++] = (unsigned char)((app + 2) >> 8);
	b[n++] = (unsigned char)(app + 2);
	memset(b + n, 'J', app);
	n += app;
	b[n++] = 0xff;
	b[n++] = 0xc4;
	b[n++] = 0;
	b[n++] = 3;
	b[n++] = 0;
	b[n++] = 0xff;		/* a fill byte */
	b[n++] = 0xff;
	b[n++] = sof;
	b[n++] = 0;
	b[n++] = 11;
	b[n++] = 8;
	b[n++] = (unsigned char)(h >> 8);
	b[n++] = (unsigned char)h;
	b[n++] = (unsigned char)(w >> 8);
	b[n++] = (unsigned char)w;
	memset(b + n, 1, 6);
	n += 6;
	b[n++] = 0xff;
	b[n++] = 0xda;
	return n;
}

/* Every proper prefix of a header is refused or, once the size is in
 * it, read the same. */
static void
check_prefixes(const unsigned char *b, size_t len, const char *mime,
    unsigned w, unsigned h)
{
	unsigned char *copy;
	unsigned gw, gh;
	size_t n;

	for (n = 0; n < len; n++) {
		/* A copy of exactly n bytes, so ASan sees any read past. */
		copy = xmalloc(n + 1);
		memcpy(copy, b, n);
		gw = gh = 0;
		if (image_size(copy, n, mime, &gw, &gh) == 0) {
			ck_assert_uint_eq(gw, w);
			ck_assert_uint_eq(gh, h);
		}
		free(copy);
	}
	ck_assert_int_eq(image_size(b, len, mime, &gw, &gh), 0);
	ck_assert_uint_eq(gw, w);
	ck_assert_uint_eq(gh, h);
}

START_TEST(types_are_the_four_the_models_take)
{
	ck_assert_str_eq(image_type("image/png"), "image/png");
	ck_assert_str_eq(image_type("IMAGE/PNG"), "image/png");
	ck_assert_str_eq(image_type("image/jpeg"), "image/jpeg");
	ck_assert_str_eq(image_type("image/jpg"), "image/jpeg");
	ck_assert_str_eq(image_type("image/gif"), "image/gif");
	ck_assert_str_eq(image_type("image/WebP"), "image/webp");
	ck_assert_ptr_null(image_type("image/tiff"));
	ck_assert_ptr_null(image_type("image/svg+xml"));
	ck_assert_ptr_null(image_type("image/png; charset=x"));
	ck_assert_ptr_null(image_type(""));
	ck_assert_ptr_null(image_type(NULL));
}
END_TEST

START_TEST(base64_is_checked_strictly)
{
	size_t n = 99;
	unsigned char out[16];

	ck_assert(image_base64_valid("", 0, &n));
	ck_assert_uint_eq(n, 0);
	ck_assert(image_base64_valid("aGVsbG8=", 8, &n));
	ck_assert_uint_eq(n, 5);
	ck_assert(image_base64_valid("aGk=", 4, &n) && n == 2);
	ck_assert(image_base64_valid("aA==", 4, &n) && n == 1);
	ck_assert(image_base64_valid("ab+/", 4, NULL));
	/* Length, padding in the middle or too much of it, blanks, line
	 * ends, the URL-safe alphabet, a NUL. */
	ck_assert(!image_base64_valid("aGVsbG8", 7, NULL));
	ck_assert(!image_base64_valid("a===", 4, NULL));
	ck_assert(!image_base64_valid("====", 4, NULL));
	ck_assert(!image_base64_valid("aG=k", 4, NULL));
	ck_assert(!image_base64_valid("aG k", 4, NULL));
	ck_assert(!image_base64_valid("aGk=\naGk=", 9, NULL));
	ck_assert(!image_base64_valid("ab-_", 4, NULL));
	ck_assert(!image_base64_valid("ab\0d", 4, NULL));
	ck_assert_uint_eq(image_base64_decode("aGVsbG8=", 8, out, sizeof out),
	    5);
	ck_assert(memcmp(out, "hello", 5) == 0);
	/* Decoding stops at the cap and at the first stranger. */
	ck_assert_uint_eq(image_base64_decode("aGVsbG8=", 8, out, 2), 2);
	ck_assert(memcmp(out, "he", 2) == 0);
	ck_assert_uint_eq(image_base64_decode("aGVs*G8=", 8, out, sizeof out),
	    3);
}
END_TEST

START_TEST(png_size_is_read)
{
	unsigned char b[64];
	unsigned w, h;
	size_t n = png_header(b, 640, 480);

	check_prefixes(b, n, "image/png", 640, 480);
	n = png_header(b, 9000, 1);
	ck_assert_int_eq(image_size(b, n, "image/png", &w, &h), 0);
	ck_assert_uint_eq(w, 9000);
	ck_assert_uint_eq(h, 1);
	/* Zero, past the format's bound, a chunk that is not IHDR, a
	 * length that is not 13, a broken signature. */
	n = png_header(b, 0, 10);
	ck_assert_int_eq(image_size(b, n, "image/png", &w, &h), -1);
	n = png_header(b, 0x80000000UL, 10);
	ck_assert_int_eq(image_size(b, n, "image/png", &w, &h), -1);
	n = png_header(b, 10, 10);
	b[12] = 'i';
	ck_assert_int_eq(image_size(b, n, "image/png", &w, &h), -1);
	n = png_header(b, 10, 10);
	b[11] = 14;
	ck_assert_int_eq(image_size(b, n, "image/png", &w, &h), -1);
	n = png_header(b, 10, 10);
	b[1] = 'p';
	ck_assert_int_eq(image_size(b, n, "image/png", &w, &h), -1);
	/* A PNG read as another type is not one. */
	n = png_header(b, 10, 10);
	ck_assert_int_eq(image_size(b, n, "image/jpeg", &w, &h), -1);
	ck_assert_int_eq(image_size(b, n, "image/gif", &w, &h), -1);
	ck_assert_int_eq(image_size(b, n, "image/webp", &w, &h), -1);
	ck_assert_int_eq(image_size(b, n, "image/tiff", &w, &h), -1);
	ck_assert_int_eq(image_size(NULL, 0, "image/png", &w, &h), -1);
}
END_TEST

START_TEST(gif_size_is_read)
{
	unsigned char b[16];
	unsigned w, h;
	size_t n = gif_header(b, 300, 65535);

	check_prefixes(b, n, "image/gif", 300, 65535);
	memcpy(b, "GIF87a", 6);
	check_prefixes(b, n, "image/gif", 300, 65535);
	memcpy(b, "GIF88a", 6);
	ck_assert_int_eq(image_size(b, n, "image/gif", &w, &h), -1);
	n = gif_header(b, 0, 5);
	ck_assert_int_eq(image_size(b, n, "image/gif", &w, &h), -1);
}
END_TEST

START_TEST(webp_size_is_read_from_each_kind)
{
	unsigned char b[32];
	unsigned w, h;
	size_t n;

	n = webp_header(b, "VP8 ", 1024, 768);
	check_prefixes(b, n, "image/webp", 1024, 768);
	/* The two bits above the 14 of a size are its scale, not size. */
	b[27] |= 0xc0;
	ck_assert_int_eq(image_size(b, n, "image/webp", &w, &h), 0);
	ck_assert_uint_eq(w, 1024);
	n = webp_header(b, "VP8L", 16384, 1);
	check_prefixes(b, n, "image/webp", 16384, 1);
	n = webp_header(b, "VP8X", 16777216, 9000);
	check_prefixes(b, n, "image/webp", 16777216, 9000);
	/* No key frame's start code, no lossless signature, another
	 * chunk, another form. */
	n = webp_header(b, "VP8 ", 10, 10);
	b[24] = 0;
	ck_assert_int_eq(image_size(b, n, "image/webp", &w, &h), -1);
	n = webp_header(b, "VP8L", 10, 10);
	b[20] = 0x2e;
	ck_assert_int_eq(image_size(b, n, "image/webp", &w, &h), -1);
	n = webp_header(b, "ALPH", 10, 10);
	ck_assert_int_eq(image_size(b, n, "image/webp", &w, &h), -1);
	n = webp_header(b, "VP8X", 10, 10);
	memcpy(b + 8, "AVI ", 4);
	ck_assert_int_eq(image_size(b, n, "image/webp", &w, &h), -1);
}
END_TEST

START_TEST(jpeg_size_is_read_past_its_segments)
{
	unsigned char *b = xmalloc(70000);
	unsigned w, h;
	size_t n;

	n = jpeg_header(b, 14, 0xc0, 640, 480);
	check_prefixes(b, n, "image/jpeg", 640, 480);
	/* Progressive (c2), and past a long metadata segment. */
	n = jpeg_header(b, 60000, 0xc2, 4000, 3000);
	ck_assert_int_eq(image_size(b, n, "image/jpeg", &w, &h), 0);
	ck_assert_uint_eq(w, 4000);
	ck_assert_uint_eq(h, 3000);
	ck_assert_int_eq(image_size(b, 60000, "image/jpeg", &w, &h), -1);
	/* A scan before any frame; c8 (JPG) and cc (DAC) are not
	 * frames. */
	n = jpeg_header(b, 14, 0xda, 640, 480);
	ck_assert_int_eq(image_size(b, n, "image/jpeg", &w, &h), -1);
	n = jpeg_header(b, 14, 0xc8, 640, 480);
	ck_assert_int_eq(image_size(b, n, "image/jpeg", &w, &h), -1);
	n = jpeg_header(b, 14, 0xcc, 640, 480);
	ck_assert_int_eq(image_size(b, n, "image/jpeg", &w, &h), -1);
	/* A height of 0 (given later, in a DNL) is no size to pass. */
	n = jpeg_header(b, 14, 0xc0, 640, 0);
	ck_assert_int_eq(image_size(b, n, "image/jpeg", &w, &h), -1);
	/* A segment whose length runs past the end, or is below 2; a
	 * segment not started by ff; a stuffed zero as a marker. */
	n = jpeg_header(b, 14, 0xc0, 640, 480);
	b[4] = 0xff;
	ck_assert_int_eq(image_size(b, n, "image/jpeg", &w, &h), -1);
	n = jpeg_header(b, 14, 0xc0, 640, 480);
	b[4] = 0;
	b[5] = 1;
	ck_assert_int_eq(image_size(b, n, "image/jpeg", &w, &h), -1);
	n = jpeg_header(b, 14, 0xc0, 640, 480);
	b[2] = 0x12;
	ck_assert_int_eq(image_size(b, n, "image/jpeg", &w, &h), -1);
	n = jpeg_header(b, 14, 0xc0, 640, 480);
	b[3] = 0;
	ck_assert_int_eq(image_size(b, n, "image/jpeg", &w, &h), -1);
	/* A frame segment too short to hold the size. */
	n = jpeg_header(b, 14, 0xc0, 640, 480);
	b[2 + 4 + 14 + 5 + 3 + 1] = 6;
	ck_assert_int_eq(image_size(b, n, "image/jpeg", &w, &h), -1);
	/* Nothing but SOI and fill bytes, RSTn and SOI again. */
	memset(b, 0xff, 100);
	b[1] = 0xd8;
	ck_assert_int_eq(image_size(b, 100, "image/jpeg", &w, &h), -1);
	b[3] = 0xd0;
	b[5] = 0xd8;
	ck_assert_int_eq(image_size(b, 100, "image/jpeg", &w, &h), -1);
	free(b);
}
END_TEST

/* Random bytes, and random bytes behind each format's first bytes: no
 * read past the buffer (ASan watches), and a size read is never 0. */
START_TEST(hostile_headers_are_refused_safely)
{
	static const char *const mimes[] = { "image/png", "image/jpeg",
	    "image/gif", "image/webp" };
	static const unsigned char starts[][12] = {
		{ 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13 },
		{ 0xff, 0xd8, 0xff, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ 'G', 'I', 'F', '8', '9', 'a', 0, 0, 0, 0, 0, 0 },
		{ 'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'E', 'B', 'P' },
	};
	unsigned seed = 12345, w, h;
	unsigned char *b;
	size_t len, i, k, t;

	for (i = 0; i < 20000; i++) {
		seed = seed * 1103515245 + 12345;
		len = (seed >> 16) % 80;
		t = (seed >> 8) % 4;
		b = xmalloc(len + 1);
		for (k = 0; k < len; k++) {
			seed = seed * 1103515245 + 12345;
			b[k] = (unsigned char)(seed >> 16);
			/* Often the markers a JPEG walk follows. */
			if (t == 1 && seed % 3 == 0)
				b[k] = 0xff;
		}
		if (i % 2 == 0)
			memcpy(b, starts[t], len < 12 ? len : 12);
		if (image_size(b, len, mimes[t], &w, &h) == 0)
			ck_assert(w > 0 && h > 0);
		free(b);
	}
}
END_TEST

START_TEST(base64_size_decodes_only_what_it_must)
{
	/* A 2x3 PNG's header as base64 (png_header of 2, 3). */
	unsigned char b[64];
	static const char tbl[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char text[64];
	size_t n = png_header(b, 2, 3), i, t = 0;
	unsigned w, h, v;

	for (i = 0; i + 3 <= n; i += 3) {
		v = (unsigned)b[i] << 16 | (unsigned)b[i + 1] << 8 | b[i + 2];
		text[t++] = tbl[v >> 18];
		text[t++] = tbl[v >> 12 & 63];
		text[t++] = tbl[v >> 6 & 63];
		text[t++] = tbl[v & 63];
	}
	text[t] = '\0';
	ck_assert_int_eq(image_base64_size(text, t, 32, "image/png", &w, &h),
	    0);
	ck_assert_uint_eq(w, 2);
	ck_assert_uint_eq(h, 3);
	/* Too little decoded to reach the size. */
	ck_assert_int_eq(image_base64_size(text, t, 20, "image/png", &w, &h),
	    -1);
	ck_assert_int_eq(image_base64_size("", 0, 32, "image/png", &w, &h),
	    -1);
}
END_TEST

static Suite *
image_suite(void)
{
	Suite *s = suite_create("image");
	TCase *tc = tcase_create("image");

	tcase_add_test(tc, types_are_the_four_the_models_take);
	tcase_add_test(tc, base64_is_checked_strictly);
	tcase_add_test(tc, png_size_is_read);
	tcase_add_test(tc, gif_size_is_read);
	tcase_add_test(tc, webp_size_is_read_from_each_kind);
	tcase_add_test(tc, jpeg_size_is_read_past_its_segments);
	tcase_add_test(tc, hostile_headers_are_refused_safely);
	tcase_add_test(tc, base64_size_decodes_only_what_it_must);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(image_suite());
}
