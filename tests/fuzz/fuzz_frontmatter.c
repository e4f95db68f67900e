/*
 * libFuzzer target for util/frontmatter: the YAML front matter of role
 * files, which a teammate or a cloned repository may have written, read
 * with libyaml. The input is the file's text, up to its first NUL.
 *
 * What must hold, whatever the bytes:
 *   - a refusal is one line, "f.md:LINE: " and a sentence, LINE one of
 *     the text's lines, and leaves nothing in the result;
 *   - a parse gives non-empty keys, each once, on lines of the front
 *     matter in the order of the fields; frontmatter_get finds each; a
 *     list's value is "" and its items are not empty; a scalar has no
 *     items;
 *   - the body is the text's tail, and body_line the line it starts on
 *     (one past the closing fence when the text ends on it);
 *   - the same text with CRLF line ends (when it has no CR of its own)
 *     gives the same fields on the same lines, the same body with CRLF
 *     line ends, or the same error (or, for broken UTF-8, an error).
 * Any difference calls abort(); ASan, UBSan and the leak checker watch
 * the memory.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/frontmatter.h"
#include "util/xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t
fuzz_lines(const char *s, size_t len)
{
	size_t n = 0;

	while (len-- > 0)
		n += *s++ == '\n';
	return n;
}

/* s with each "\n" written "\r\n" (malloc'd). */
static char *
fuzz_crlf(const char *s)
{
	char *out = xmalloc(2 * strlen(s) + 1), *w = out;

	for (; *s != '\0'; s++) {
		if (*s == '\n')
			*w++ = '\r';
		*w++ = *s;
	}
	*w = '\0';
	return out;
}

static void
fuzz_check_error(const char *text, const struct frontmatter *f,
    const char *err)
{
	char *end;
	long line;

	if (err == NULL || strncmp(err, "f.md:", 5) != 0)
		abort();
	line = strtol(err + 5, &end, 10);
	if (end == err + 5 || strncmp(end, ": ", 2) != 0 || end[2] == '\0')
		abort();
	if (line < 1 || (size_t)line > fuzz_lines(text, strlen(text)) + 1)
		abort();
	if (strchr(err, '\n') != NULL)
		abort();
	if (f->nfields != 0 || f->fields != NULL || f->body != NULL)
		abort();
}

static void
fuzz_check_parse(const char *text, const struct frontmatter *f)
{
	size_t len = strlen(text), blen, start, i, j, lines;
	const struct fm_field *k;

	if (f->body == NULL || (blen = strlen(f->body)) > len)
		abort();
	start = len - blen;
	if (strcmp(text + start, f->body) != 0)
		abort();
	lines = fuzz_lines(text, start);
	if ((size_t)f->body_line != lines + 1 && !(blen == 0 && len > 0 &&
	    text[len - 1] != '\n' && (size_t)f->body_line == lines + 2))
		abort();
	if (start == 0 && f->nfields != 0)
		abort();
	for (i = 0; i < f->nfields; i++) {
		k = &f->fields[i];
		if (k->key == NULL || *k->key == '\0' || k->value == NULL)
			abort();
		if (k->line < 2 || k->line >= f->body_line ||
		    (i > 0 && k->line < f->fields[i - 1].line))
			abort();
		if (frontmatter_get(f, k->key) != k)
			abort();
		if (!k->is_list && (k->nitems != 0 || k->items != NULL))
			abort();
		if (k->is_list && *k->value != '\0')
			abort();
		for (j = 0; j < k->nitems; j++) {
			if (k->items[j] == NULL || *k->items[j] == '\0')
				abort();
		}
	}
}

/* Whether two parses of the same fields agree. */
static void
fuzz_check_same(const struct frontmatter *a, const struct frontmatter *b)
{
	const struct fm_field *x, *y;
	size_t i, j;

	if (a->nfields != b->nfields || a->body_line != b->body_line)
		abort();
	for (i = 0; i < a->nfields; i++) {
		x = &a->fields[i];
		y = &b->fields[i];
		if (strcmp(x->key, y->key) != 0 || x->line != y->line ||
		    x->is_list != y->is_list || x->nitems != y->nitems ||
		    strcmp(x->value, y->value) != 0)
			abort();
		for (j = 0; j < x->nitems; j++) {
			if (strcmp(x->items[j], y->items[j]) != 0)
				abort();
		}
	}
}

/* Whether two errors for the same text agree: the same line and
 * sentence. Broken UTF-8 is the exception: libyaml decodes ahead of its
 * parse, so whether it meets the bad bytes before another error, and
 * how it names them (an incomplete sequence at the end, a bad byte
 * before a CR), depends on the bytes after them. (role.c repairs UTF-8
 * before it parses.) */
static void
fuzz_check_same_error(const char *a, const char *b)
{
	if (strstr(a, "UTF-8") != NULL || strstr(b, "UTF-8") != NULL)
		return;
	if (strcmp(a, b) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frontmatter f, g;
	char *text, *crlf, *body, *err = NULL, *err2 = NULL;
	int rc, rc2;

	text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';

	rc = frontmatter_parse(text, "f.md", &f, &err);
	if (rc == -1)
		fuzz_check_error(text, &f, err);
	else if (rc == 0 && err == NULL)
		fuzz_check_parse(text, &f);
	else
		abort();

	if (strchr(text, '\r') == NULL) {
		crlf = fuzz_crlf(text);
		rc2 = frontmatter_parse(crlf, "f.md", &g, &err2);
		if (rc2 != rc)
			abort();
		if (rc == -1)
			fuzz_check_same_error(err, err2);
		if (rc == 0) {
			fuzz_check_parse(crlf, &g);
			fuzz_check_same(&f, &g);
			body = fuzz_crlf(f.body);
			if (strcmp(body, g.body) != 0)
				abort();
			free(body);
			frontmatter_free(&g);
		}
		free(err2);
		free(crlf);
	}
	if (rc == 0)
		frontmatter_free(&f);
	free(err);
	free(text);
	return 0;
}
