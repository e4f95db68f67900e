/*
 * Markdown files with a front matter: a block between two lines of
 * "---" at the top, read as YAML by libyaml, then the body. The block is
 * one mapping of keys, each value a scalar or a list of scalars: plain,
 * '…' or "…" scalars, lists as `[a, b]` or `- item` lines, block text
 * as `|` or `>` (with their chomping indicators `-` and `+`), comments.
 * Values stay text as written: `true`, `12` and `~` are not typed, and a
 * bare `key:` is "". Refused, with the file and line: nested maps, lists
 * of lists or maps, an empty item, anchors and aliases, tags, a key
 * given twice, more than one document, and what libyaml cannot parse.
 */
#ifndef HUDDLE_UTIL_FRONTMATTER_H
#define HUDDLE_UTIL_FRONTMATTER_H

#include <stddef.h>

/* One key of the front matter. */
struct fm_field {
	char		*key;
	int		 line;		/* where the key is, from 1 */
	int		 is_list;
	char		*value;		/* a scalar's text ("" for a list) */
	char		**items;	/* a list's items */
	size_t		 nitems;
};

struct frontmatter {
	struct fm_field	*fields;
	size_t		 nfields;
	char		*body;		/* what follows the closing "---" */
	int		 body_line;	/* the body's first line */
};

/*
 * Parses text (NUL-terminated) into *out. A text without a front matter
 * has no fields and is all body. Returns 0, or -1 with *err: a sentence
 * that starts with "file:line: " (file names the text in messages; the
 * line counts from the text's first), which the caller frees; *out is
 * then empty.
 */
int frontmatter_parse(const char *text, const char *file,
    struct frontmatter *out, char **err);

/* The field called key (f's own), or NULL. */
const struct fm_field *frontmatter_get(const struct frontmatter *f,
    const char *key);

/* Frees what f holds and zeroes it (f itself is the caller's). */
void frontmatter_free(struct frontmatter *f);

#endif
