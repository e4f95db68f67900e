/*
 * The front matter of a Markdown file (see frontmatter.h): read line by
 * line, each line either a key, an item of the list being read, a line
 * of the block text being read, a comment or blank.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/frontmatter.h"
#include "util/xmalloc.h"

/* What the lines after a key continue. */
enum fm_mode { FM_KEYS, FM_LIST, FM_BLOCK };

struct fm_parser {
	const char		*file;
	struct frontmatter	*out;
	size_t			 cap;
	enum fm_mode		 mode;
	int			 fold;		/* a > block: lines joined */
	size_t			 indent;	/* the block's, once known */
	size_t			 capitems;
	char			**err;
	int			 line;
};

static char *
fm_strndup(const char *s, size_t n)
{
	return xasprintf("%.*s", (int)n, s);
}

static int
fm_fail(struct fm_parser *p, const char *what)
{
	*p->err = xasprintf("%s:%d: %s", p->file, p->line, what);
	return -1;
}

static struct fm_field *
fm_last(struct fm_parser *p)
{
	return &p->out->fields[p->out->nfields - 1];
}

static void
fm_add_item(struct fm_parser *p, char *item)
{
	struct fm_field *f = fm_last(p);

	f->items = xgrow(f->items, &p->capitems, f->nitems + 1,
	    sizeof *f->items);
	f->items[f->nitems++] = item;
}

/* A scalar of s[0..len): quoted or plain. Returns it, or NULL after
 * fm_fail. In a flow list a plain scalar may not hold brackets. */
static char *
fm_scalar(struct fm_parser *p, const char *s, size_t len)
{
	char *v, *w;
	size_t i;

	while (len > 0 && isspace((unsigned char)*s))
		s++, len--;
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	if (len > 0 && (*s == '"' || *s == '\'')) {
		char q = *s;

		v = w = xmalloc(len + 1);
		for (i = 1; i < len; i++) {
			if (s[i] == q && q == '\'' && i + 1 < len &&
			    s[i + 1] == '\'') {
				*w++ = '\'';
				i++;
			} else if (s[i] == q) {
				break;
			} else if (s[i] == '\\' && q == '"' && i + 1 < len) {
				i++;
				*w++ = s[i] == 'n' ? '\n' : s[i] == 't' ?
				    '\t' : s[i];
			} else
				*w++ = s[i];
		}
		*w = '\0';
		/* Only a comment may follow the closing quote. */
		for (i++; i < len && isspace((unsigned char)s[i]); i++)
			;
		if (i > len || (i < len && s[i] != '#')) {
			free(v);
			fm_fail(p, i > len ? "a quoted value is not closed" :
			    "text after a quoted value");
			return NULL;
		}
		return v;
	}
	/* Plain: a comment starts at " #". */
	for (i = 0; i < len; i++) {
		if (s[i] == '#' && i > 0 && isspace((unsigned char)s[i - 1]))
			break;
	}
	len = i;
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	return fm_strndup(s, len);
}

/* `[a, b, c]`: the items of the open list field. */
static int
fm_flow(struct fm_parser *p, const char *s)
{
	size_t len = strlen(s), i, start;
	char *item;

	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	if (len < 2 || s[len - 1] != ']')
		return fm_fail(p, "a list written [a, b] must end with ] on "
		    "its line");
	s++;
	len -= 2;
	for (i = 0; i < len; i++) {
		if (s[i] == '[' || s[i] == ']' || s[i] == '{')
			return fm_fail(p, "nested lists and maps are not "
			    "supported");
	}
	if (strspn(s, " \t") >= len)
		return 0;
	for (start = i = 0; i <= len; i++) {
		if (i < len && s[i] != ',')
			continue;
		if ((item = fm_scalar(p, s + start, i - start)) == NULL)
			return -1;
		if (*item == '\0') {
			free(item);
			return fm_fail(p, "an empty item in a list");
		}
		fm_add_item(p, item);
		start = i + 1;
	}
	return 0;
}

/* A `key: value` line. */
static int
fm_key(struct fm_parser *p, const char *s)
{
	struct frontmatter *o = p->out;
	struct fm_field *f;
	size_t klen = strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
	const char *v;
	size_t i;

	if (klen == 0 || s[klen] != ':' || (s[klen + 1] != '\0' &&
	    !isspace((unsigned char)s[klen + 1])))
		return fm_fail(p, "expected a line `key: value`");
	for (i = 0; i < o->nfields; i++) {
		if (strlen(o->fields[i].key) == klen &&
		    strncmp(o->fields[i].key, s, klen) == 0) {
			char *why = xasprintf("%.*s is given twice (first on "
			    "line %d)", (int)klen, s, o->fields[i].line);
			int rc = fm_fail(p, why);

			free(why);
			return rc;
		}
	}
	o->fields = xgrow(o->fields, &p->cap, o->nfields + 1,
	    sizeof *o->fields);
	f = &o->fields[o->nfields++];
	memset(f, 0, sizeof *f);
	f->key = fm_strndup(s, klen);
	f->line = p->line;
	p->capitems = 0;
	for (v = s + klen + 1; isspace((unsigned char)*v); v++)
		;
	if (*v == '\0' || *v == '#') {
		/* Items may follow; none make it an empty value. */
		f->is_list = 1;
		p->mode = FM_LIST;
		return 0;
	}
	if ((*v == '|' || *v == '>') && (v[1] == '\0' || ((v[1] == '-' ||
	    v[1] == '+') && v[2] == '\0'))) {
		f->value = xstrdup("");
		p->mode = FM_BLOCK;
		p->fold = *v == '>';
		p->indent = 0;
		return 0;
	}
	if (*v == '[') {
		f->is_list = 1;
		f->value = xstrdup("");
		return fm_flow(p, v);
	}
	if (*v == '{' || *v == '&' || *v == '*' || *v == '!')
		return fm_fail(p, "maps, anchors and tags are not supported");
	return (f->value = fm_scalar(p, v, strlen(v))) == NULL ? -1 : 0;
}

/* Ends a list or block whose lines are over. */
static void
fm_close(struct fm_parser *p)
{
	struct fm_field *f;
	size_t n;

	if (p->out->nfields == 0)
		return;
	f = fm_last(p);
	if (p->mode == FM_LIST && f->nitems == 0 && f->value == NULL) {
		f->is_list = 0;
		f->value = xstrdup("");
	} else if (p->mode == FM_LIST && f->value == NULL)
		f->value = xstrdup("");
	if (p->mode == FM_BLOCK) {
		n = strlen(f->value);
		while (n > 0 && (f->value[n - 1] == '\n' ||
		    f->value[n - 1] == ' '))
			f->value[--n] = '\0';
	}
	p->mode = FM_KEYS;
}

/* A line of block text (s: the whole line). */
static void
fm_block_line(struct fm_parser *p, const char *s)
{
	struct fm_field *f = fm_last(p);
	size_t ind = strspn(s, " \t"), n = strlen(f->value);
	char *next;

	if (s[ind] == '\0') {
		next = xasprintf("%s\n", f->value);
	} else {
		if (p->indent == 0)
			p->indent = ind;
		ind = ind < p->indent ? ind : p->indent;
		next = xasprintf("%s%s%s", f->value, n == 0 ||
		    f->value[n - 1] == '\n' ? "" : p->fold ? " " : "\n",
		    s + ind);
	}
	free(f->value);
	f->value = next;
}

/* One line of the front matter (its end of line cut off). */
static int
fm_line(struct fm_parser *p, const char *s)
{
	size_t ind = strspn(s, " \t");
	char *item;

	if (p->mode == FM_BLOCK) {
		if (ind > 0 || s[ind] == '\0') {
			fm_block_line(p, s);
			return 0;
		}
		fm_close(p);
	}
	if (p->mode == FM_LIST && s[ind] == '-' && (s[ind + 1] == '\0' ||
	    isspace((unsigned char)s[ind + 1]))) {
		if ((item = fm_scalar(p, s + ind + 1, strlen(s + ind + 1))) ==
		    NULL)
			return -1;
		if (*item == '\0') {
			free(item);
			return fm_fail(p, "an empty item in a list");
		}
		fm_add_item(p, item);
		return 0;
	}
	if (s[ind] == '\0' || s[ind] == '#')
		return 0;
	if (p->mode == FM_LIST)
		fm_close(p);
	if (ind > 0)
		return fm_fail(p, "unexpected indentation (nested values are "
		    "not supported)");
	if (*s == '-')
		return fm_fail(p, "a list item with no key above it");
	return fm_key(p, s);
}

/* Whether line s[0..len) is "---" (trailing blanks allowed). */
static int
fm_fence(const char *s, size_t len)
{
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	return len == 3 && strncmp(s, "---", 3) == 0;
}

int
frontmatter_parse(const char *text, const char *file,
    struct frontmatter *out, char **err)
{
	struct fm_parser p = { 0 };
	const char *s = text, *eol;
	char *line;
	size_t len;
	int rc;

	memset(out, 0, sizeof *out);
	p.file = file;
	p.out = out;
	p.err = err;
	p.line = 1;
	/* A byte-order mark is no part of the fence. */
	if (strncmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3;
	eol = strchr(s, '\n');
	if (!fm_fence(s, eol ? (size_t)(eol - s) : strlen(s))) {
		out->body = xstrdup(text);
		out->body_line = 1;
		return 0;
	}
	for (s = eol ? eol + 1 : s + strlen(s); *s != '\0' || eol != NULL;
	    s = eol + 1) {
		p.line++;
		eol = strchr(s, '\n');
		len = eol ? (size_t)(eol - s) : strlen(s);
		if (fm_fence(s, len)) {
			fm_close(&p);
			out->body = xstrdup(eol ? eol + 1 : "");
			out->body_line = p.line + 1;
			return 0;
		}
		if (eol == NULL && len == 0)
			break;
		while (len > 0 && (s[len - 1] == '\r' || s[len - 1] == ' ' ||
		    s[len - 1] == '\t'))
			len--;
		line = fm_strndup(s, len);
		rc = fm_line(&p, line);
		free(line);
		if (rc == -1) {
			frontmatter_free(out);
			return -1;
		}
		if (eol == NULL)
			break;
	}
	p.line = 1;
	fm_fail(&p, "the front matter that starts here is not closed by a "
	    "line of ---");
	frontmatter_free(out);
	return -1;
}

const struct fm_field *
frontmatter_get(const struct frontmatter *f, const char *key)
{
	size_t i;

	for (i = 0; i < f->nfields; i++) {
		if (strcmp(f->fields[i].key, key) == 0)
			return &f->fields[i];
	}
	return NULL;
}

void
frontmatter_free(struct frontmatter *f)
{
	size_t i, j;

	for (i = 0; i < f->nfields; i++) {
		free(f->fields[i].key);
		free(f->fields[i].value);
		for (j = 0; j < f->fields[i].nitems; j++)
			free(f->fields[i].items[j]);
		free(f->fields[i].items);
	}
	free(f->fields);
	free(f->body);
	memset(f, 0, sizeof *f);
}
