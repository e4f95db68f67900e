/*
 * A rough shell lexer, for judging commands (see policy.h), never for
 * running them. It splits a command line into words, with quotes and
 * backslashes removed, and operators, the way sh would at a first
 * glance; it does not expand anything. What it cannot follow it
 * approximates: command substitutions `$(...)`, backquotes and process
 * substitutions only separate commands (their nesting is lost), `$(`
 * inside double quotes stays text, and an unterminated quote runs to the
 * end. Here-document bodies are skipped.
 */
#ifndef HUDDLE_TOOLS_SHLEX_H
#define HUDDLE_TOOLS_SHLEX_H

#include <stddef.h>

enum shlex_kind {
	SHLEX_WORD,	/* a word, unquoted */
	SHLEX_PIPE,	/* | or |& */
	SHLEX_SEP,	/* ; & && || newline ( ) $( <( >( ` and the like */
	SHLEX_REDIR	/* < > >> >| <> &> &>> >& <& << <<- <<< */
};

struct shlex_token {
	enum shlex_kind	 kind;
	char		*text;	/* the word, or the operator */
	size_t		 start;	/* where it was written in the line: */
	size_t		 end;	/* bytes [start, end), quotes included */
};

/*
 * Splits s into tokens. Never fails. Returns a malloc'd array of *n tokens
 * (NULL when there are none); free it with shlex_free. A file-descriptor
 * number before a redirection (the 2 of 2>) is dropped.
 */
struct shlex_token *shlex_split(const char *s, size_t *n);
void shlex_free(struct shlex_token *t, size_t n);

#endif
