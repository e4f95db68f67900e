/*
 * Claude Code's permission rules (see ccrules.h): each parsed once into
 * the tools it covers and a pattern, then matched against a command's
 * words (tools/policy.h finds the commands) or a file's path.
 */
#include "config.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ccrules.h"
#include "tools/policy.h"
#include "tools/shlex.h"
#include "util/xmalloc.h"

/* The huddle tools a rule covers. */
#define CC_BASH		0x1
#define CC_READ		0x2
#define CC_WRITE	0x4
#define CC_EDIT		0x8

/* What a rule's parenthesis holds. */
enum ccrule_kind {
	CCR_ALL,	/* none: every call of the tools */
	CCR_PREFIX,	/* Bash(words:*) */
	CCR_EXACT,	/* Bash(words) */
	CCR_GLOB,	/* Bash(with * inside) */
	CCR_REL,	/* a path from the project's top */
	CCR_ANY,	/* a name at any depth */
	CCR_ABS		/* an absolute path */
};

struct ccrule {
	int			 tools;
	enum ccrule_kind	 kind;
	char			*pattern;	/* words joined by blanks, or a
						 * path pattern without its
						 * leading slash */
	char			*text;		/* as written */
	char			*origin;	/* its file */
};

struct ccrules {
	struct ccrule	*v[CCRULES__COUNT];
	size_t		 n[CCRULES__COUNT];
};

/* Claude Code's tool names that huddle has a counterpart for. */
static const struct {
	const char	*name;
	int		 tools;
} ccrules_tools[] = {
	{ "Bash", CC_BASH }, { "Read", CC_READ },
	{ "Edit", CC_EDIT | CC_WRITE }, { "MultiEdit", CC_EDIT },
	{ "Write", CC_WRITE },
};

struct ccrules *
ccrules_new(void)
{
	return xcalloc(1, sizeof(struct ccrules));
}

void
ccrules_free(struct ccrules *r)
{
	size_t l, i;

	if (r == NULL)
		return;
	for (l = 0; l < CCRULES__COUNT; l++) {
		for (i = 0; i < r->n[l]; i++) {
			free(r->v[l][i].pattern);
			free(r->v[l][i].text);
			free(r->v[l][i].origin);
		}
		free(r->v[l]);
	}
	free(r);
}

size_t
ccrules_count(const struct ccrules *r, enum ccrules_list list)
{
	return r != NULL ? r->n[list] : 0;
}

/* The shell words of s joined by single blanks (malloc'd). */
static char *
ccrules_words(const char *s)
{
	struct shlex_token *t;
	size_t n, i, len = 1;
	char *out;

	t = shlex_split(s, &n);
	for (i = 0; i < n; i++)
		len += strlen(t[i].text) + 1;
	out = xcalloc(1, len);
	for (i = 0; i < n; i++) {
		if (i > 0)
			strcat(out, " ");
		strcat(out, t[i].text);
	}
	shlex_free(t, n);
	return out;
}

/* Reads a Bash rule's parenthesis into c; 0 when it says nothing. */
static int
ccrules_bash_rule(struct ccrule *c, const char *body, size_t len)
{
	char *text = xasprintf("%.*s", (int)len, body);

	if (len >= 2 && strcmp(text + len - 2, ":*") == 0) {
		text[len - 2] = '\0';
		c->kind = CCR_PREFIX;
	} else if (len >= 2 && strcmp(text + len - 2, " *") == 0 &&
	    strchr(text, '*') == text + len - 1) {
		text[len - 2] = '\0';
		c->kind = CCR_PREFIX;
	} else
		c->kind = strchr(text, '*') != NULL ? CCR_GLOB : CCR_EXACT;
	c->pattern = ccrules_words(text);
	free(text);
	if (*c->pattern == '\0') {
		free(c->pattern);
		c->pattern = NULL;
		return 0;
	}
	return 1;
}

/* Reads a file rule's parenthesis (a gitignore-style path) into c; 0
 * when huddle cannot read it (~/ without HOME). */
static int
ccrules_path_rule(struct ccrule *c, const char *body, size_t len)
{
	const char *home;
	char *p = xasprintf("%.*s", (int)len, body);
	size_t n;

	if (strncmp(p, "//", 2) == 0) {
		c->kind = CCR_ABS;
		c->pattern = xstrdup(p + 2);
	} else if (strncmp(p, "~/", 2) == 0) {
		if ((home = getenv("HOME")) == NULL || *home != '/') {
			free(p);
			return 0;
		}
		c->kind = CCR_ABS;
		c->pattern = xasprintf("%s/%s", home + 1, p + 2);
	} else if (p[0] == '/') {
		c->kind = CCR_REL;
		c->pattern = xstrdup(p + 1);
	} else if (strncmp(p, "./", 2) == 0) {
		c->kind = CCR_REL;
		c->pattern = xstrdup(p + 2);
	} else {
		n = strlen(p);
		while (n > 0 && p[n - 1] == '/')
			p[--n] = '\0';
		c->kind = strchr(p, '/') != NULL ? CCR_REL : CCR_ANY;
		c->pattern = xstrdup(p);
	}
	free(p);
	/* A trailing slash (a folder) matches as the folder does. */
	n = strlen(c->pattern);
	while (n > 0 && c->pattern[n - 1] == '/')
		c->pattern[--n] = '\0';
	if (n == 0 && c->kind != CCR_ABS) {
		free(c->pattern);
		c->pattern = xstrdup("**");
		c->kind = CCR_REL;
	}
	return 1;
}

int
ccrules_add(struct ccrules *r, enum ccrules_list list, const char *rule,
    const char *origin)
{
	struct ccrule c;
	const char *open, *s = rule;
	size_t i, nlen, len;
	int ok = 1;

	memset(&c, 0, sizeof c);
	while (*s == ' ' || *s == '\t')
		s++;
	len = strlen(s);
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	open = memchr(s, '(', len);
	nlen = open != NULL ? (size_t)(open - s) : len;
	if (open != NULL && s[len - 1] != ')')
		return 0;
	for (i = 0; i < sizeof ccrules_tools / sizeof *ccrules_tools; i++)
		if (strlen(ccrules_tools[i].name) == nlen &&
		    strncmp(ccrules_tools[i].name, s, nlen) == 0)
			c.tools = ccrules_tools[i].tools;
	if (c.tools == 0)
		return 0;
	if (open == NULL || open + 1 == s + len - 1)
		c.kind = CCR_ALL;
	else if (c.tools == CC_BASH)
		ok = ccrules_bash_rule(&c, open + 1, s + len - 1 - open - 1);
	else
		ok = ccrules_path_rule(&c, open + 1, s + len - 1 - open - 1);
	if (!ok)
		return 0;
	c.text = xasprintf("%.*s", (int)len, s);
	c.origin = xstrdup(origin);
	r->v[list] = xrealloc(r->v[list], (r->n[list] + 1) * sizeof c);
	r->v[list][r->n[list]++] = c;
	return 1;
}

/* What a match returns: "RULE of FILE" (malloc'd). */
static char *
ccrules_name(const struct ccrule *c)
{
	return xasprintf("%s of %s", c->text, c->origin);
}

/* Whether the joined words w match bash rule c. */
static int
ccrules_words_match(const struct ccrule *c, const char *w)
{
	size_t n = strlen(c->pattern);

	switch (c->kind) {
	case CCR_PREFIX:
		return strncmp(w, c->pattern, n) == 0 &&
		    (w[n] == '\0' || w[n] == ' ');
	case CCR_EXACT:
		return strcmp(w, c->pattern) == 0;
	case CCR_GLOB:
		return fnmatch(c->pattern, w, 0) == 0;
	default:
		return 0;
	}
}

/* What one command is tried against. */
struct ccrules_try {
	const struct ccrule	*rule;
};

/* policy_commands' callback: whether the rule matches the command from
 * any of its first words to its command word. */
static int
ccrules_command(char *const *argv, size_t argc, size_t cmd, void *arg)
{
	const struct ccrules_try *t = arg;
	const char *base;
	size_t from, i, len;
	char *w;
	int hit = 0;

	for (from = 0; from <= cmd && from < argc && !hit; from++) {
		for (len = 1, i = from; i < argc; i++)
			len += strlen(argv[i]) + 1;
		w = xcalloc(1, len);
		for (i = from; i < argc; i++) {
			if (i > from)
				strcat(w, " ");
			strcat(w, argv[i]);
		}
		hit = ccrules_words_match(t->rule, w);
		/* /usr/bin/curl is curl. */
		base = strrchr(argv[from], '/');
		if (!hit && base != NULL && base[1] != '\0')
			hit = ccrules_words_match(t->rule, w + (base + 1 -
			    argv[from]));
		free(w);
	}
	return hit;
}

char *
ccrules_bash(const struct ccrules *r, enum ccrules_list list,
    const char *command)
{
	struct ccrules_try t;
	size_t i;

	if (r == NULL || command == NULL)
		return NULL;
	for (i = 0; i < r->n[list]; i++) {
		t.rule = &r->v[list][i];
		if (!(t.rule->tools & CC_BASH))
			continue;
		if (t.rule->kind == CCR_ALL ||
		    policy_commands(command, ccrules_command, &t))
			return ccrules_name(t.rule);
	}
	return NULL;
}

/* Whether pattern p matches all of path s, part by part: "**" any number
 * of parts, else fnmatch within one part. Neither starts with '/'. */
static int
ccrules_glob(const char *p, const char *s)
{
	size_t plen, slen;
	char *pp, *ss;
	int ok;

	if (*p == '\0')
		return *s == '\0';
	plen = strcspn(p, "/");
	slen = strcspn(s, "/");
	if (plen == 2 && strncmp(p, "**", 2) == 0) {
		if (ccrules_glob(p + plen + (p[plen] == '/'), s))
			return 1;
		return *s != '\0' && ccrules_glob(p, s + slen +
		    (s[slen] == '/'));
	}
	if (*s == '\0')
		return 0;
	pp = xasprintf("%.*s", (int)plen, p);
	ss = xasprintf("%.*s", (int)slen, s);
	ok = fnmatch(pp, ss, 0) == 0;
	free(pp);
	free(ss);
	return ok && ccrules_glob(p + plen + (p[plen] == '/'), s + slen +
	    (s[slen] == '/'));
}

/* Whether pattern p matches path s or a folder on the way to it. */
static int
ccrules_glob_within(const char *p, const char *s)
{
	size_t i;
	char *head;
	int ok = 0;

	for (i = 0; !ok; i++) {
		if (s[i] != '/' && s[i] != '\0')
			continue;
		head = xasprintf("%.*s", (int)i, s);
		ok = *head != '\0' && ccrules_glob(p, head);
		free(head);
		if (s[i] == '\0')
			break;
	}
	return ok;
}

/* The lexical absolute form of path, from root when relative: "." and
 * ".." resolved, slashes single (malloc'd). */
static char *
ccrules_normalize(const char *root, const char *path)
{
	char *full = *path == '/' ? xstrdup(path) : xasprintf("%s/%s", root,
	    path);
	char *out = xcalloc(1, strlen(full) + 2);
	const char *p = full;
	size_t len = 0, n;

	while (*p != '\0') {
		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.')) {
			p += n;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
		} else {
			out[len++] = '/';
			memcpy(out + len, p, n);
			len += n;
		}
		out[len] = '\0';
		p += n;
	}
	if (len == 0)
		strcpy(out, "/");
	free(full);
	return out;
}

/* path relative to root (into path), or NULL when it is not beneath. */
static const char *
ccrules_relative(const char *root, const char *path)
{
	size_t n = strlen(root);

	while (n > 0 && root[n - 1] == '/')
		n--;
	if (strncmp(path, root, n) != 0 || path[n] != '/')
		return NULL;
	return path + n + 1;
}

char *
ccrules_file(const struct ccrules *r, enum ccrules_list list,
    const char *tool, const char *root, const char *path)
{
	const struct ccrule *c;
	const char *rel;
	char *any, *found = NULL, *clean;
	int want, hit;
	size_t i;

	if (r == NULL || path == NULL || root == NULL || *root != '/')
		return NULL;
	path = clean = ccrules_normalize(root, path);
	want = strcmp(tool, "read_file") == 0 ? CC_READ :
	    strcmp(tool, "write_file") == 0 ? CC_WRITE :
	    strcmp(tool, "edit_file") == 0 ? CC_EDIT : 0;
	rel = ccrules_relative(root, path);
	for (i = 0; i < r->n[list] && found == NULL; i++) {
		c = &r->v[list][i];
		if (!(c->tools & want))
			continue;
		switch (c->kind) {
		case CCR_ALL:
			hit = 1;
			break;
		case CCR_ABS:
			hit = ccrules_glob_within(c->pattern, path + 1);
			break;
		case CCR_REL:
			hit = rel != NULL && ccrules_glob_within(c->pattern,
			    rel);
			break;
		case CCR_ANY:
			any = xasprintf("**/%s", c->pattern);
			hit = rel != NULL && ccrules_glob_within(any, rel);
			free(any);
			break;
		default:
			hit = 0;
		}
		if (hit)
			found = ccrules_name(c);
	}
	free(clean);
	return found;
}
