/*
 * The front matter of a Markdown file (see frontmatter.h): the lines
 * between the two fences are handed to libyaml, and its events are read
 * into fields. The shape is checked as the events come: a mapping of
 * keys, each value a scalar or a sequence of scalars; anything else
 * stops the parse with the line it is on.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "util/frontmatter.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* The most keys a front matter holds: a role file has a handful. */
#define FM_MAX_KEYS	64

struct fm_parser {
	yaml_parser_t		 yaml;
	yaml_event_t		 ev;		/* the event being read */
	const char		*file;
	const char		*block;		/* what the fences hold */
	size_t			 len;
	struct frontmatter	*out;
	size_t			 cap;
	size_t			 capitems;
	char			**err;
	/* Where fm_line last stopped: a character, its byte, its line. */
	size_t			 at;
	size_t			 byte;
	int			 line;
};

/* The line of the file on which the block's character at index is:
 * libyaml's marks count characters (a CRLF as two), not bytes. The
 * block starts on the file's line 2. */
static int
fm_line(struct fm_parser *p, size_t index)
{
	if (index < p->at) {
		p->at = p->byte = 0;
		p->line = 2;
	}
	while (p->at < index && p->byte < p->len) {
		if (p->block[p->byte++] == '\n')
			p->line++;
		/* The bytes 10xxxxxx go on a character already counted. */
		while (p->byte < p->len &&
		    ((unsigned char)p->block[p->byte] & 0xc0) == 0x80)
			p->byte++;
		p->at++;
	}
	return p->line;
}

/* The line of the event being read. */
static int
fm_ev_line(struct fm_parser *p)
{
	return fm_line(p, p->ev.start_mark.index);
}

static int
fm_fail(struct fm_parser *p, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Sets *p->err to "file:line: " and the sentence; returns -1. */
static int
fm_fail(struct fm_parser *p, int line, const char *fmt, ...)
{
	char *what, *clean;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&what, fmt, ap) == -1)
		abort();
	va_end(ap);
	/* Keys come from a file that a teammate may have written: none of
	 * them reaches a message unprintable or on two lines. */
	clean = utf8_clean(what, strlen(what), 1000);
	*p->err = xasprintf("%s:%d: %s", p->file, line, clean);
	free(clean);
	free(what);
	return -1;
}

/* libyaml's own error, at its line. */
static int
fm_yaml_fail(struct fm_parser *p)
{
	yaml_parser_t *y = &p->yaml;
	const char *problem = y->problem ? y->problem : "unreadable", *hint;
	char *context = xstrdup("");
	size_t i, end;
	int line = 2, rc;

	if (y->error == YAML_MEMORY_ERROR) {
		fprintf(stderr, "huddle: out of memory (libyaml)\n");
		abort();
	}
	if (y->error == YAML_READER_ERROR) {
		/* A reader's error is at a byte, not a character. */
		end = y->problem_offset < p->len ? y->problem_offset : p->len;
		for (i = 0; i < end; i++)
			line += p->block[i] == '\n';
	} else {
		/* What libyaml was reading, from where: an unclosed quote
		 * or list is found only where the block ends. */
		if (y->context != NULL) {
			free(context);
			context = xasprintf(" (%s from line %d)", y->context,
			    fm_line(p, y->context_mark.index));
		}
		line = fm_line(p, y->problem_mark.index);
	}
	/* Claude Code's descriptions often hold "user: ..." unquoted. */
	hint = strcmp(problem, "mapping values are not allowed in this "
	    "context") == 0 ? " (quote a value that holds \": \")" : "";
	rc = fm_fail(p, line, "invalid YAML: %s%s%s", problem, context, hint);
	free(context);
	return rc;
}

/* Reads the next event into p->ev, and refuses what no event of a front
 * matter may carry: anchors, aliases and tags. */
static int
fm_next(struct fm_parser *p)
{
	const yaml_char_t *anchor = NULL, *tag = NULL;

	yaml_event_delete(&p->ev);
	if (!yaml_parser_parse(&p->yaml, &p->ev))
		return fm_yaml_fail(p);
	switch (p->ev.type) {
	case YAML_SCALAR_EVENT:
		anchor = p->ev.data.scalar.anchor;
		tag = p->ev.data.scalar.tag;
		break;
	case YAML_SEQUENCE_START_EVENT:
		anchor = p->ev.data.sequence_start.anchor;
		tag = p->ev.data.sequence_start.tag;
		break;
	case YAML_MAPPING_START_EVENT:
		anchor = p->ev.data.mapping_start.anchor;
		tag = p->ev.data.mapping_start.tag;
		break;
	case YAML_ALIAS_EVENT:
		anchor = p->ev.data.alias.anchor;
		break;
	default:
		break;
	}
	if (anchor != NULL)
		return fm_fail(p, fm_ev_line(p), "anchors and aliases are not "
		    "accepted (%c%s)", p->ev.type == YAML_ALIAS_EVENT ? '*' :
		    '&', (const char *)anchor);
	if (tag != NULL)
		return fm_fail(p, fm_ev_line(p), "tags are not accepted (%s)",
		    (const char *)tag);
	return 0;
}

/* A copy of the scalar event's text, or NULL after fm_fail when it holds
 * a NUL (which the string would silently cut). */
static char *
fm_scalar(struct fm_parser *p, const char *what)
{
	const char *s = (const char *)p->ev.data.scalar.value;
	size_t n = p->ev.data.scalar.length;
	char *v;

	if (memchr(s, '\0', n) != NULL) {
		fm_fail(p, fm_ev_line(p), "%s holds a NUL character", what);
		return NULL;
	}
	v = xmalloc(n + 1);
	memcpy(v, s, n);
	v[n] = '\0';
	return v;
}

/* The items of a sequence whose start was just read, into field f. */
static int
fm_list(struct fm_parser *p, struct fm_field *f)
{
	char *item;

	f->is_list = 1;
	f->value = xstrdup("");
	p->capitems = 0;
	for (;;) {
		if (fm_next(p) == -1)
			return -1;
		if (p->ev.type == YAML_SEQUENCE_END_EVENT)
			return 0;
		if (p->ev.type != YAML_SCALAR_EVENT)
			return fm_fail(p, fm_ev_line(p), "an item of %s is a "
			    "list or a map; a list holds text only", f->key);
		if ((item = fm_scalar(p, "an item")) == NULL)
			return -1;
		if (*item == '\0') {
			free(item);
			return fm_fail(p, fm_ev_line(p), "an empty item in a "
			    "list");
		}
		f->items = xgrow(f->items, &p->capitems, f->nitems + 1,
		    sizeof *f->items);
		f->items[f->nitems++] = item;
	}
}

/* One key, just read, and its value. */
static int
fm_field(struct fm_parser *p)
{
	struct frontmatter *o = p->out;
	struct fm_field *f;
	char *key;
	size_t i;
	int line = fm_ev_line(p);

	if (p->ev.type != YAML_SCALAR_EVENT)
		return fm_fail(p, line, "a key is text, not a list or a map");
	if ((key = fm_scalar(p, "a key")) == NULL)
		return -1;
	if (*key == '\0') {
		free(key);
		return fm_fail(p, line, "a key is empty");
	}
	for (i = 0; i < o->nfields; i++) {
		if (strcmp(o->fields[i].key, key) == 0) {
			fm_fail(p, line, "%s is given twice (first on line "
			    "%d)", key, o->fields[i].line);
			free(key);
			return -1;
		}
	}
	if (o->nfields == FM_MAX_KEYS) {
		free(key);
		return fm_fail(p, line, "more than %d keys", FM_MAX_KEYS);
	}
	o->fields = xgrow(o->fields, &p->cap, o->nfields + 1,
	    sizeof *o->fields);
	f = &o->fields[o->nfields++];
	memset(f, 0, sizeof *f);
	f->key = key;
	f->line = line;
	if (fm_next(p) == -1)
		return -1;
	switch (p->ev.type) {
	case YAML_SCALAR_EVENT:
		return (f->value = fm_scalar(p, f->key)) == NULL ? -1 : 0;
	case YAML_SEQUENCE_START_EVENT:
		return fm_list(p, f);
	default:
		return fm_fail(p, fm_ev_line(p), "%s is a map, and nested "
		    "maps are not accepted", f->key);
	}
}

/* The stream of the block: nothing, or one document that is a mapping. */
static int
fm_stream(struct fm_parser *p)
{
	/* The stream's start, then nothing or the document's start. */
	if (fm_next(p) == -1 || fm_next(p) == -1)
		return -1;
	if (p->ev.type == YAML_STREAM_END_EVENT)
		return 0;
	if (fm_next(p) == -1)
		return -1;
	if (p->ev.type != YAML_MAPPING_START_EVENT)
		return fm_fail(p, fm_ev_line(p), "the front matter is not "
		    "`key: value` lines");
	for (;;) {
		if (fm_next(p) == -1)
			return -1;
		if (p->ev.type == YAML_MAPPING_END_EVENT)
			break;
		if (fm_field(p) == -1)
			return -1;
	}
	/* The document's end, then the stream's or another document. */
	if (fm_next(p) == -1 || fm_next(p) == -1)
		return -1;
	if (p->ev.type == YAML_DOCUMENT_START_EVENT)
		return fm_fail(p, fm_ev_line(p), "the front matter holds more "
		    "than one YAML document");
	return 0;
}

/* Whether line s[0..len) is "---" (trailing blanks allowed). */
static int
fm_fence(const char *s, size_t len)
{
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	return len == 3 && strncmp(s, "---", 3) == 0;
}

/* The line of the closing fence after the block at s (the file's line
 * 2): the block's length into *len, what follows the fence into *rest.
 * Returns 0, or -1 when no fence closes it. */
static int
fm_closing(const char *s, size_t *len, const char **rest, int *line)
{
	const char *start = s, *eol;

	for (*line = 2; *s != '\0'; (*line)++) {
		eol = strchr(s, '\n');
		if (fm_fence(s, eol ? (size_t)(eol - s) : strlen(s))) {
			*len = (size_t)(s - start);
			*rest = eol ? eol + 1 : "";
			return 0;
		}
		if (eol == NULL)
			break;
		s = eol + 1;
	}
	return -1;
}

static int fm_parse(struct fm_parser *p, int *colon);
static char *fm_quote_line(const char *block, size_t len, int n);

int
frontmatter_parse(const char *text, const char *file,
    struct frontmatter *out, char **err)
{
	struct fm_parser p;
	const char *s = text, *eol, *rest;
	char *owned = NULL;
	int rc, fence, colon, tries;

	memset(out, 0, sizeof *out);
	memset(&p, 0, sizeof p);
	p.file = file;
	p.out = out;
	p.err = err;
	p.line = 2;
	/* A byte-order mark is no part of the fence. */
	if (strncmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3;
	eol = strchr(s, '\n');
	if (!fm_fence(s, eol ? (size_t)(eol - s) : strlen(s))) {
		out->body = xstrdup(text);
		out->body_line = 1;
		return 0;
	}
	if (eol == NULL || fm_closing(eol + 1, &p.len, &rest, &fence) == -1)
		return fm_fail(&p, 1, "the front matter that starts here is "
		    "not closed by a line of ---");
	p.block = eol + 1;
	rc = fm_parse(&p, &colon);
	/* Claude Code's own agent files write descriptions such as
	 * `description: Use it when… user: "…"`, which YAML refuses and
	 * Claude Code reads as the text they are. So does huddle: the line
	 * libyaml refused, when it is a top-level `key: value` with a plain
	 * value, is read again with that value quoted (its comment kept
	 * out), one refused line at a time; any other error stands. */
	for (tries = 0; rc == -1 && colon > 0 && tries < FM_MAX_KEYS; tries++) {
		char *quoted = fm_quote_line(p.block, p.len, colon - 2);

		if (quoted == NULL)
			break;
		free(*err);
		*err = NULL;
		frontmatter_free(out);
		p.cap = p.capitems = 0;
		p.at = p.byte = 0;
		p.line = 2;
		free(owned);
		p.block = owned = quoted;
		p.len = strlen(quoted);
		rc = fm_parse(&p, &colon);
	}
	free(owned);
	if (rc == -1) {
		frontmatter_free(out);
		return -1;
	}
	out->body = xstrdup(rest);
	out->body_line = fence + 1;
	return 0;
}

/* Parses p's block into p->out: 0, or -1 with *p->err; *colon is the
 * file's line on which libyaml refused a ": " in a plain value, or 0. */
static int
fm_parse(struct fm_parser *p, int *colon)
{
	int rc;

	if (!yaml_parser_initialize(&p->yaml)) {
		fprintf(stderr, "huddle: out of memory (libyaml)\n");
		abort();
	}
	yaml_parser_set_encoding(&p->yaml, YAML_UTF8_ENCODING);
	yaml_parser_set_input_string(&p->yaml, (const unsigned char *)p->block,
	    p->len);
	rc = fm_stream(p);
	*colon = 0;
	if (rc == -1 && p->yaml.error == YAML_SCANNER_ERROR &&
	    p->yaml.problem != NULL && strstr(p->yaml.problem,
	    "mapping values are not allowed") != NULL)
		*colon = fm_line(p, p->yaml.problem_mark.index);
	yaml_event_delete(&p->ev);
	yaml_parser_delete(&p->yaml);
	return rc;
}

/*
 * The block (len bytes) with its line `n` (from 0), when that is a
 * top-level `key: value` line whose plain value holds ": ", written
 * with the value single-quoted and a comment after it (" #…") left out
 * of the quotes: the same number of lines (malloc'd). NULL when line n
 * is not such a line.
 */
static char *
fm_quote_line(const char *block, size_t len, int n)
{
	const char *s = block, *end = block + len, *nl, *v, *c, *q;
	char *out = NULL;
	size_t olen = 0, ocap = 0, k;

	for (; n > 0 && s < end; n--)
		if ((s = memchr(s, '\n', (size_t)(end - s))) == NULL)
			return NULL;
		else
			s++;
	if (n != 0 || s >= end)
		return NULL;
	if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
		nl = end;
	k = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_-");
	if (k == 0 || s + k + 1 >= nl || s[k] != ':' || s[k + 1] != ' ')
		return NULL;
	for (v = s + k + 1; v < nl && (*v == ' ' || *v == '\t'); v++)
		;
	/* A value that starts as YAML's own syntax is not plain text. */
	if (v == nl || strchr("'\"[{|>&*!#%@`", *v) != NULL)
		return NULL;
	/* Its end: a comment, else the line's end, less trailing blanks. */
	for (c = v; c < nl && !(*c == '#' && (c[-1] == ' ' ||
	    c[-1] == '\t')); c++)
		;
	for (q = c; q > v && (q[-1] == '\r' || q[-1] == ' ' ||
	    q[-1] == '\t'); q--)
		;
	if (q <= v || memmem(v, (size_t)(q - v), ": ", 2) == NULL)
		return NULL;
	out = xappend(out, &olen, &ocap, block, (size_t)(v - block));
	out = xappend(out, &olen, &ocap, "'", 1);
	for (; v < q; v++)
		out = xappend(out, &olen, &ocap, *v == '\'' ? "''" : v,
		    *v == '\'' ? 2 : 1);
	out = xappend(out, &olen, &ocap, "'", 1);
	out = xappend(out, &olen, &ocap, q, (size_t)(end - q));
	return out;
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
