/*
 * A rough shell lexer (see shlex.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tools/shlex.h"
#include "util/xmalloc.h"

#define SHLEX_HEREDOCS	8	/* pending here-documents on one line */

struct shlex {
	const char		*s;		/* the line */
	const char		*p;		/* next character */
	size_t			 wstart;	/* where the word began */
	struct shlex_token	*tok;
	size_t			 n;
	size_t			 cap;
	char			*word;		/* being built */
	size_t			 wlen;
	size_t			 wcap;
	int			 in_word;	/* begun ('' too) */
	int			 quoted;	/* some of it was quoted */
	int			 want_delim;	/* next word ends a heredoc */
	int			 want_dash;	/* ... and it was <<- */
	char			*delim[SHLEX_HEREDOCS];
	int			 dash[SHLEX_HEREDOCS];
	int			 ndelim;
};

/* The operators, longest first so that a prefix never wins. */
static const struct {
	const char	*op;
	enum shlex_kind	 kind;
} shlex_ops[] = {
	{ "&>>", SHLEX_REDIR }, { "<<<", SHLEX_REDIR }, { "<<-", SHLEX_REDIR },
	{ "&&", SHLEX_SEP }, { "||", SHLEX_SEP }, { "|&", SHLEX_PIPE },
	{ ";;", SHLEX_SEP }, { ";&", SHLEX_SEP }, { "$(", SHLEX_SEP },
	{ "<(", SHLEX_SEP }, { ">(", SHLEX_SEP }, { ">>", SHLEX_REDIR },
	{ ">|", SHLEX_REDIR }, { ">&", SHLEX_REDIR }, { "<&", SHLEX_REDIR },
	{ "<>", SHLEX_REDIR }, { "&>", SHLEX_REDIR }, { "<<", SHLEX_REDIR },
	{ "|", SHLEX_PIPE }, { "&", SHLEX_SEP }, { ";", SHLEX_SEP },
	{ "(", SHLEX_SEP }, { ")", SHLEX_SEP }, { "`", SHLEX_SEP },
	{ "<", SHLEX_REDIR }, { ">", SHLEX_REDIR }, { "\n", SHLEX_SEP },
};

/* Adds a token written at [start, the next character). */
static void
shlex_push(struct shlex *l, enum shlex_kind kind, const char *text,
    size_t start)
{
	l->tok = xgrow(l->tok, &l->cap, l->n + 1, sizeof *l->tok);
	l->tok[l->n].kind = kind;
	l->tok[l->n].text = xstrdup(text);
	l->tok[l->n].start = start;
	l->tok[l->n].end = (size_t)(l->p - l->s);
	l->n++;
}

static void
shlex_addc(struct shlex *l, char c)
{
	l->word = xgrow(l->word, &l->wcap, l->wlen + 2, 1);
	l->word[l->wlen++] = c;
	l->word[l->wlen] = '\0';
	l->in_word = 1;
}

static void
shlex_reset_word(struct shlex *l)
{
	l->wlen = 0;
	l->in_word = 0;
	l->quoted = 0;
}

static void
shlex_end_word(struct shlex *l)
{
	const char *w = l->wlen > 0 ? l->word : "";

	if (!l->in_word)
		return;
	shlex_push(l, SHLEX_WORD, w, l->wstart);
	if (l->want_delim && l->ndelim < SHLEX_HEREDOCS) {
		l->delim[l->ndelim] = xstrdup(w);
		l->dash[l->ndelim++] = l->want_dash;
	}
	l->want_delim = 0;
	shlex_reset_word(l);
}

/* Whether the word so far is a file-descriptor number (the 2 of 2>). */
static int
shlex_io_number(const struct shlex *l)
{
	size_t i;

	if (!l->in_word || l->quoted || l->wlen == 0)
		return 0;
	for (i = 0; i < l->wlen; i++)
		if (l->word[i] < '0' || l->word[i] > '9')
			return 0;
	return 1;
}

/* Skips the bodies of the here-documents begun on the line just ended. */
static void
shlex_heredocs(struct shlex *l)
{
	const char *line, *end;
	size_t len;
	int i;

	for (i = 0; i < l->ndelim; i++) {
		while (*l->p != '\0') {
			line = l->p;
			end = line + strcspn(line, "\n");
			l->p = *end == '\n' ? end + 1 : end;
			if (l->dash[i])
				line += strspn(line, "\t");
			len = (size_t)(end - line);
			if (len == strlen(l->delim[i]) &&
			    memcmp(line, l->delim[i], len) == 0)
				break;
		}
		free(l->delim[i]);
	}
	l->ndelim = 0;
}

/* Consumes an operator at l->p, if there is one. */
static int
shlex_operator(struct shlex *l)
{
	const char *op;
	size_t i, len;

	for (i = 0; i < sizeof shlex_ops / sizeof shlex_ops[0]; i++) {
		op = shlex_ops[i].op;
		len = strlen(op);
		if (strncmp(l->p, op, len) != 0)
			continue;
		if (shlex_ops[i].kind == SHLEX_REDIR &&
		    (op[0] == '<' || op[0] == '>') && shlex_io_number(l))
			shlex_reset_word(l);
		else
			shlex_end_word(l);
		l->p += len;
		shlex_push(l, shlex_ops[i].kind, op, (size_t)(l->p - l->s) -
		    len);
		if (strcmp(op, "<<") == 0 || strcmp(op, "<<-") == 0) {
			l->want_delim = 1;
			l->want_dash = op[2] == '-';
		} else if (op[0] == '\n')
			shlex_heredocs(l);
		return 1;
	}
	return 0;
}

/* '...': everything literal up to the next quote. */
static void
shlex_single(struct shlex *l)
{
	l->p++;
	l->in_word = l->quoted = 1;
	while (*l->p != '\0' && *l->p != '\'')
		shlex_addc(l, *l->p++);
	if (*l->p == '\'')
		l->p++;
}

/* "...": backslash escapes only $ ` " \ and the newline. */
static void
shlex_double(struct shlex *l)
{
	l->p++;
	l->in_word = l->quoted = 1;
	while (*l->p != '\0' && *l->p != '"') {
		if (l->p[0] == '\\' && l->p[1] != '\0' &&
		    strchr("$`\"\\\n", l->p[1]) != NULL) {
			if (l->p[1] != '\n')
				shlex_addc(l, l->p[1]);
			l->p += 2;
		} else
			shlex_addc(l, *l->p++);
	}
	if (*l->p == '"')
		l->p++;
}

/* $'...': kept as written, but for \' and \\. */
static void
shlex_ansi(struct shlex *l)
{
	l->p += 2;
	l->in_word = l->quoted = 1;
	while (*l->p != '\0' && *l->p != '\'') {
		if (l->p[0] == '\\' && (l->p[1] == '\'' || l->p[1] == '\\')) {
			shlex_addc(l, l->p[1]);
			l->p += 2;
		} else
			shlex_addc(l, *l->p++);
	}
	if (*l->p == '\'')
		l->p++;
}

/* $((...)): arithmetic, kept in the word as written. */
static void
shlex_arith(struct shlex *l)
{
	int depth = 0;

	shlex_addc(l, *l->p++);		/* the $ */
	do {
		if (*l->p == '(')
			depth++;
		else if (*l->p == ')')
			depth--;
		shlex_addc(l, *l->p++);
	} while (*l->p != '\0' && depth > 0);
}

static void
shlex_step(struct shlex *l)
{
	char c = *l->p;

	if (!l->in_word)
		l->wstart = (size_t)(l->p - l->s);
	if (c == ' ' || c == '\t' || c == '\r') {
		shlex_end_word(l);
		l->p++;
	} else if (c == '#' && !l->in_word)
		l->p += strcspn(l->p, "\n");
	else if (c == '\\') {
		if (l->p[1] != '\0' && l->p[1] != '\n') {
			shlex_addc(l, l->p[1]);
			l->quoted = 1;
		}
		l->p += l->p[1] != '\0' ? 2 : 1;
	} else if (c == '\'')
		shlex_single(l);
	else if (c == '"')
		shlex_double(l);
	else if (c == '$' && l->p[1] == '\'')
		shlex_ansi(l);
	else if (c == '$' && l->p[1] == '(' && l->p[2] == '(')
		shlex_arith(l);
	else if (!shlex_operator(l))
		shlex_addc(l, *l->p++);
}

struct shlex_token *
shlex_split(const char *s, size_t *n)
{
	struct shlex l;
	int i;

	memset(&l, 0, sizeof l);
	l.s = l.p = s;
	while (*l.p != '\0')
		shlex_step(&l);
	shlex_end_word(&l);
	for (i = 0; i < l.ndelim; i++)
		free(l.delim[i]);
	free(l.word);
	*n = l.n;
	return l.tok;
}

void
shlex_free(struct shlex_token *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(t[i].text);
	free(t);
}
