/*
 * libFuzzer target for ui/text: the sanitiser that stands between model
 * and tool output and the terminal, and the wrapping of what it lets
 * through. The input is the untrusted text; its first byte also chooses
 * where a stream is cut and the width rows are wrapped to.
 *
 * What must hold, whatever the bytes:
 *   - the clean text is valid UTF-8 without NUL, without any control
 *     character but '\n' (no ESC, DEL or C1, whether raw or encoded), and
 *     at most 3 bytes per input byte;
 *   - it keeps every '\n' of the input, so the shape of the text survives;
 *   - fed as a stream, cut anywhere, it comes out byte for byte the same;
 *   - it is already clean: sanitising it again changes nothing;
 *   - its ASCII form (for a terminal that is not UTF-8) is ASCII, no
 *     longer, and exactly as wide as the text;
 *   - each of its lines wraps into rows that start on character
 *     boundaries, in order, within the line, whose drawn part (text_fit)
 *     fits the width and is empty only where nothing could fit.
 * Any difference calls abort(); ASan, UBSan and the leak checker watch
 * the memory.
 */
#include "config.h"

#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ui/text.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* Widths from wcwidth(3), as on a UTF-8 terminal. */
	setlocale(LC_CTYPE, "C.UTF-8");
	return 0;
}

static size_t
fuzz_count(const char *s, size_t len, char c)
{
	size_t n = 0;

	while (len-- > 0)
		n += *s++ == c;
	return n;
}

/* Nothing the terminal could take for a control: bytes below 0x20 but
 * '\n', DEL, and U+0080..U+009F (0xc2 0x80..0x9f in UTF-8). */
static void
fuzz_check_clean(const char *s, size_t len, size_t inlen)
{
	size_t i;

	if (len > 3 * inlen || !utf8_valid(s) || s[len] != '\0')
		abort();
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c < 0x20 && c != '\n') || c == 0x7f)
			abort();
		if (c == 0xc2 && i + 1 < len &&
		    (unsigned char)s[i + 1] >= 0x80 &&
		    (unsigned char)s[i + 1] <= 0x9f)
			abort();
	}
}

/* Feeds the input in pieces of 1..16 bytes, sizes taken from `seed`. */
static char *
fuzz_stream(const char *s, size_t len, unsigned seed, size_t *outlen)
{
	struct text_stream ts;
	char *out = NULL;
	size_t cap = 0, pos = 0;

	*outlen = 0;
	text_stream_init(&ts);
	while (pos < len) {
		size_t n = 1 + (seed & 15);

		seed = seed * 1103515245u + 12345u;
		if (n > len - pos)
			n = len - pos;
		text_stream_feed(&ts, s + pos, n, &out, outlen, &cap);
		pos += n;
	}
	text_stream_flush(&ts, &out, outlen, &cap);
	if (out == NULL)
		out = xstrdup("");
	return out;
}

static void
fuzz_check_wrap(const char *line, size_t len, int cols)
{
	size_t max = len + 1, *starts = xcalloc(max, sizeof *starts);
	size_t rows = text_wrap(line, len, cols, starts, max), i;

	if (rows < 1 || rows > max || starts[0] != 0)
		abort();
	for (i = 0; i < rows; i++) {
		size_t from = starts[i], to = i + 1 < rows ? starts[i + 1] : len;
		size_t fit;

		if (from > len || to > len || (i > 0 && from <= starts[i - 1]))
			abort();
		if (from < len && ((unsigned char)line[from] & 0xc0) == 0x80)
			abort();
		fit = text_fit(line + from, to - from, cols);
		if (fit > to - from)
			abort();
		if (text_width(line + from, fit) > (size_t)cols)
			abort();
		/* A row shows something, unless it is the empty line's, or
		 * all it holds is the space it broke at, or (one column) a
		 * wide character. */
		if (fit == 0 && to > from && !(to - from == 1 &&
		    line[from] == ' ') && cols >= 2)
			abort();
	}
	free(starts);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	char *clean, *streamed, *again, *line, *nl, *ascii;
	size_t len, slen, alen, i;
	unsigned seed = size > 0 ? data[0] : 0;
	int cols = 1 + (int)(seed % 97);

	clean = text_sanitize(in, size);
	len = strlen(clean);
	fuzz_check_clean(clean, len, size);
	if (fuzz_count(clean, len, '\n') != fuzz_count(in, size, '\n'))
		abort();

	streamed = fuzz_stream(in, size, seed, &slen);
	if (slen != len || memcmp(streamed, clean, len) != 0)
		abort();

	again = text_sanitize(clean, len);
	if (strcmp(again, clean) != 0)
		abort();

	ascii = xmalloc(len + 1);
	alen = text_ascii(clean, len, ascii);
	if (alen > len)
		abort();
	for (i = 0; i < alen; i++)
		if ((unsigned char)ascii[i] >= 0x80)
			abort();
	if (alen != text_width(clean, len))
		abort();
	free(ascii);

	for (line = clean; ; line = nl + 1) {
		nl = strchr(line, '\n');
		fuzz_check_wrap(line, nl ? (size_t)(nl - line) : strlen(line),
		    cols);
		if (nl == NULL)
			break;
	}
	free(again);
	free(streamed);
	free(clean);
	return 0;
}
