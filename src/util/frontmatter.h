/*
 * Markdown files with a front matter: a block between two lines of
 * "---" at the top, in a strict subset of YAML, then the body. The
 * subset: `key: value` lines (a value plain, or quoted with ' or "),
 * lists as `key: [a, b]` or as `- item` lines under a bare `key:`,
 * block text as `key: |` or `key: >` with indented lines, and comments
 * starting with #. Nothing else: no nesting, anchors or tags.
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
 * that starts with "file:line: " (file names the text in messages).
 */
int frontmatter_parse(const char *text, const char *file,
    struct frontmatter *out, char **err);

/* The field called key, or NULL. */
const struct fm_field *frontmatter_get(const struct frontmatter *f,
    const char *key);

void frontmatter_free(struct frontmatter *f);

#endif
