/*
 * The risk policy (see policy.h).
 *
 * A command is read once into a flat list of simple commands (struct
 * policy_cmd): the words of each, where its real command word is once
 * wrappers and keywords are skipped, whether sudo was among the wrappers,
 * and which pipeline and stage it sits in. Strings that sh would run
 * again (sh -c, eval, find -exec) are read into the same list, as
 * pipelines of their own. The rules then look at that list.
 */
#include "config.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/policy.h"
#include "tools/shlex.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

#define POLICY_DEPTH	3	/* sh -c inside sh -c inside ... */
#define POLICY_SHOW_MAX	200	/* longest text quoted in a reason */

enum policy_kind {
	POLICY_RM_RECURSIVE,
	POLICY_SUDO,
	POLICY_GIT_PUSH,
	POLICY_CURL_SHELL,
	POLICY_OUTSIDE,
	POLICY_REGEX
};

struct policy_rule {
	enum policy_kind	 kind;
	int			 line;		/* in the file, or 0 */
	char			*src;		/* the regex */
	regex_t			 re;
};

struct policy {
	struct policy_rule	*rules;
	size_t			 n;
	size_t			 cap;
	regex_t			 run_download; /* bash <(curl ...) */
};

/* Where a command was written: bytes [start, end) of the line judged. */
struct policy_span {
	size_t		  start;
	size_t		  end;
};

/* One simple command. */
struct policy_cmd {
	char		**argv;		/* into the parse's tokens */
	size_t		  argc;
	size_t		  cmd;		/* command word, or argc */
	int		  sudo;		/* run through sudo or doas */
	int		  pipeline;
	int		  stage;	/* place in the pipeline */
	char		**targets;	/* redirections' files */
	size_t		  ntargets;
	struct policy_span span;	/* in the line; a command read from
					   a string (sh -c) has the span of
					   the command that runs it */
	int		  written;	/* span holds a token */
};

struct policy_parse {
	struct policy_cmd	*cmds;
	size_t			 n;
	size_t			 cap;
	struct shlex_token	**toks;		/* kept for argv */
	size_t			 *ntok;
	size_t			  ntoks;
	size_t			  tokcap;
	size_t			  ntokcap;
	int			  pipelines;
};

/* Commands that run the command after their own options. */
static const struct policy_wrapper {
	const char	*name;
	const char	*argopts;	/* short options taking a value */
	int		 positional;	/* operands before the command */
	int		 sudo;
} policy_wrappers[] = {
	{ "sudo", "ugCDprtUT", 0, 1 },
	{ "doas", "uC", 0, 1 },
	{ "env", "uCS", 0, 0 },
	{ "command", "", 0, 0 },
	{ "builtin", "", 0, 0 },
	{ "exec", "a", 0, 0 },
	{ "nohup", "", 0, 0 },
	{ "time", "fo", 0, 0 },
	{ "nice", "n", 0, 0 },
	{ "ionice", "cnpP", 0, 0 },
	{ "timeout", "sk", 1, 0 },
	{ "stdbuf", "ioe", 0, 0 },
	{ "xargs", "IEdnLPsa", 0, 0 },
};

/* Words that may stand before a command. */
static const char *const policy_keywords[] = {
	"!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done",
	"while", "until", NULL
};
static const char *const policy_shells[] = {
	"sh", "bash", "zsh", "dash", "ksh", "ash", NULL
};
static const char *const policy_downloaders[] = { "curl", "wget", NULL };
static const char *const policy_harmless[] = {
	"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin",
	"/dev/stdout", "/dev/stderr", NULL
};

static void policy_parse_string(struct policy_parse *, const char *, int,
    const struct policy_span *);
static void policy_finish(struct policy_parse *, struct policy_cmd *, int,
    int, int, const struct policy_span *);

static const char *
policy_basename(const char *word)
{
	const char *slash = strrchr(word, '/');

	return slash != NULL ? slash + 1 : word;
}

static int
policy_member(const char *word, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(word, *list) == 0)
			return 1;
	return 0;
}

/* Whether c's command (by base name) is one of list. */
static int
policy_cmd_in(const struct policy_cmd *c, const char *const *list)
{
	return c->cmd < c->argc &&
	    policy_member(policy_basename(c->argv[c->cmd]), list);
}

/* NAME=value (or NAME+=value), as sh reads an assignment. */
static int
policy_assignment(const char *w)
{
	size_t n = strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvw"
	    "xyz0123456789_");

	if (n == 0 || (w[0] >= '0' && w[0] <= '9'))
		return 0;
	return w[n] == '=' || (w[n] == '+' && w[n + 1] == '=');
}

static const struct policy_wrapper *
policy_wrapper(const char *word)
{
	const char *name = policy_basename(word);
	size_t i;

	for (i = 0; i < sizeof policy_wrappers / sizeof policy_wrappers[0];
	    i++)
		if (strcmp(name, policy_wrappers[i].name) == 0)
			return &policy_wrappers[i];
	return NULL;
}

/* The index past wrapper w at i, its options and its operands. */
static size_t
policy_skip_wrapper(const struct policy_cmd *c, size_t i,
    const struct policy_wrapper *w)
{
	const char *a;
	int k;

	for (i++; i < c->argc && c->argv[i][0] == '-' &&
	    c->argv[i][1] != '\0'; i++) {
		a = c->argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[1] != '-' && a[2] == '\0' && strchr(w->argopts, a[1]))
			i++;	/* and its value */
	}
	for (k = 0; k < w->positional && i < c->argc; k++)
		i++;
	return i;
}

/* Finds c's command word past assignments, keywords and wrappers. */
static void
policy_locate(struct policy_cmd *c)
{
	const struct policy_wrapper *w;
	size_t i = 0;

	for (;;) {
		while (i < c->argc && (policy_assignment(c->argv[i]) ||
		    policy_member(c->argv[i], policy_keywords)))
			i++;
		if (i >= c->argc || (w = policy_wrapper(c->argv[i])) == NULL)
			break;
		c->sudo |= w->sudo;
		i = policy_skip_wrapper(c, i, w);
	}
	c->cmd = i;
}

/* sh -c STRING: the STRING, or NULL. */
static const char *
policy_shell_string(const struct policy_cmd *c)
{
	size_t i;
	int has_c = 0;

	for (i = c->cmd + 1; i < c->argc && (c->argv[i][0] == '-' ||
	    c->argv[i][0] == '+') && c->argv[i][1] != '\0'; i++) {
		if (strcmp(c->argv[i], "--") == 0) {
			i++;
			break;
		}
		if (strcmp(c->argv[i], "-o") == 0 ||
		    strcmp(c->argv[i], "+o") == 0)
			i++;
		else if (c->argv[i][1] != '-' && strchr(c->argv[i], 'c'))
			has_c = 1;
	}
	return has_c && i < c->argc ? c->argv[i] : NULL;
}

/* eval ARGS: the words joined with blanks, as eval does (malloc'd). */
static char *
policy_eval_string(const struct policy_cmd *c)
{
	size_t i, len = 1;
	char *s;

	for (i = c->cmd + 1; i < c->argc; i++)
		len += strlen(c->argv[i]) + 1;
	s = xcalloc(1, len);
	for (i = c->cmd + 1; i < c->argc; i++) {
		strcat(s, c->argv[i]);
		strcat(s, " ");
	}
	return s;
}

static void
policy_add_word(char ***v, size_t *n, char *word)
{
	/* Grown one at a time: commands have few words. */
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = word;
}

/* find ... -exec CMD ... ; — each CMD becomes a command of its own. */
static void
policy_find_exec(struct policy_parse *pp, size_t at, int depth)
{
	struct policy_cmd sub;
	struct policy_span span = pp->cmds[at].span;
	size_t i, j;
	const char *a;

	for (i = pp->cmds[at].cmd + 1; i < pp->cmds[at].argc; i++) {
		a = pp->cmds[at].argv[i];
		if (strcmp(a, "-exec") != 0 && strcmp(a, "-execdir") != 0 &&
		    strcmp(a, "-ok") != 0 && strcmp(a, "-okdir") != 0)
			continue;
		memset(&sub, 0, sizeof sub);
		for (j = i + 1; j < pp->cmds[at].argc; j++) {
			a = pp->cmds[at].argv[j];
			if (strcmp(a, ";") == 0 || strcmp(a, "+") == 0)
				break;
			policy_add_word(&sub.argv, &sub.argc, (char *)a);
		}
		policy_finish(pp, &sub, pp->pipelines++, 0, depth + 1,
		    &span);
		i = j;
	}
}

/* Reads the commands nested in command `at`: sh -c, eval, find -exec. */
static void
policy_nested(struct policy_parse *pp, size_t at, int depth)
{
	const struct policy_cmd *c = &pp->cmds[at];
	struct policy_span span = c->span;
	const char *s;
	char *joined;

	if (depth >= POLICY_DEPTH || c->cmd >= c->argc)
		return;
	if (policy_cmd_in(c, policy_shells)) {
		if ((s = policy_shell_string(c)) != NULL)
			policy_parse_string(pp, s, depth + 1, &span);
	} else if (strcmp(c->argv[c->cmd], "eval") == 0) {
		joined = policy_eval_string(c);
		policy_parse_string(pp, joined, depth + 1, &span);
		free(joined);
	} else if (strcmp(policy_basename(c->argv[c->cmd]), "find") == 0)
		policy_find_exec(pp, at, depth);
}

/* Adds the simple command in *cur to the list and resets *cur; a
 * command read from a string takes the span outer (not NULL). */
static void
policy_finish(struct policy_parse *pp, struct policy_cmd *cur, int pipeline,
    int stage, int depth, const struct policy_span *outer)
{
	size_t at;

	if (cur->argc == 0 && cur->ntargets == 0) {
		free(cur->argv);
		free(cur->targets);
		memset(cur, 0, sizeof *cur);
		return;
	}
	cur->pipeline = pipeline;
	cur->stage = stage;
	if (outer != NULL)
		cur->span = *outer;
	policy_locate(cur);
	pp->cmds = xgrow(pp->cmds, &pp->cap, pp->n + 1, sizeof *pp->cmds);
	at = pp->n++;
	pp->cmds[at] = *cur;
	memset(cur, 0, sizeof *cur);
	policy_nested(pp, at, depth);
}

/* Keeps a token array alive for as long as the parse. */
static void
policy_keep_tokens(struct policy_parse *pp, struct shlex_token *t, size_t n)
{
	pp->toks = xgrow(pp->toks, &pp->tokcap, pp->ntoks + 1,
	    sizeof *pp->toks);
	pp->ntok = xgrow(pp->ntok, &pp->ntokcap, pp->ntoks + 1,
	    sizeof *pp->ntok);
	pp->toks[pp->ntoks] = t;
	pp->ntok[pp->ntoks++] = n;
}

/* Widens c's span to token t. */
static void
policy_written(struct policy_cmd *c, const struct shlex_token *t)
{
	if (!c->written || t->start < c->span.start)
		c->span.start = t->start;
	if (!c->written || t->end > c->span.end)
		c->span.end = t->end;
	c->written = 1;
}

/* Reads the commands of s; outer is NULL for the line judged itself,
 * else the span of the command that runs s. */
static void
policy_parse_string(struct policy_parse *pp, const char *s, int depth,
    const struct policy_span *outer)
{
	struct policy_cmd cur;
	struct shlex_token *t;
	size_t n, i;
	int pipeline = pp->pipelines++, stage = 0;
	const char *op;

	t = shlex_split(s, &n);
	policy_keep_tokens(pp, t, n);
	memset(&cur, 0, sizeof cur);
	for (i = 0; i < n; i++) {
		if (t[i].kind == SHLEX_WORD || t[i].kind == SHLEX_REDIR)
			policy_written(&cur, &t[i]);
		if (t[i].kind == SHLEX_WORD) {
			op = i > 0 && t[i - 1].kind == SHLEX_REDIR ?
			    t[i - 1].text : NULL;
			if (op == NULL)
				policy_add_word(&cur.argv, &cur.argc,
				    t[i].text);
			else if (strncmp(op, "<<", 2) != 0)
				policy_add_word(&cur.targets, &cur.ntargets,
				    t[i].text);
		} else if (t[i].kind == SHLEX_PIPE)
			policy_finish(pp, &cur, pipeline, stage++, depth,
			    outer);
		else if (t[i].kind == SHLEX_SEP) {
			policy_finish(pp, &cur, pipeline, stage, depth, outer);
			pipeline = pp->pipelines++;
			stage = 0;
		}
	}
	policy_finish(pp, &cur, pipeline, stage, depth, outer);
}

static void
policy_parse_free(struct policy_parse *pp)
{
	size_t i;

	for (i = 0; i < pp->n; i++) {
		free(pp->cmds[i].argv);
		free(pp->cmds[i].targets);
	}
	for (i = 0; i < pp->ntoks; i++)
		shlex_free(pp->toks[i], pp->ntok[i]);
	free(pp->cmds);
	free(pp->toks);
	free(pp->ntok);
}

/* rm with -r, -R or --recursive anywhere before `--`. */
static int
policy_rm_recursive(const struct policy_cmd *c)
{
	const char *a;
	size_t i;

	if (c->cmd >= c->argc ||
	    strcmp(policy_basename(c->argv[c->cmd]), "rm") != 0)
		return 0;
	for (i = c->cmd + 1; i < c->argc; i++) {
		a = c->argv[i];
		if (strcmp(a, "--") == 0)
			return 0;
		if (strcmp(a, "--recursive") == 0)
			return 1;
		if (a[0] == '-' && a[1] != '-' && strpbrk(a + 1, "rR") != NULL)
			return 1;
	}
	return 0;
}

/* git [global options] push. */
static int
policy_git_push(const struct policy_cmd *c)
{
	static const char *const with_value[] = { "-C", "-c", "--git-dir",
	    "--work-tree", "--namespace", "--super-prefix", "--config-env",
	    NULL };
	size_t i;

	if (c->cmd >= c->argc ||
	    strcmp(policy_basename(c->argv[c->cmd]), "git") != 0)
		return 0;
	for (i = c->cmd + 1; i < c->argc && c->argv[i][0] == '-'; i++)
		if (policy_member(c->argv[i], with_value))
			i++;
	return i < c->argc && strcmp(c->argv[i], "push") == 0;
}

/* curl or wget in a pipeline before a shell; or a shell run on one's
 * output through <(...) or $(...). Where, into *span. */
static int
policy_curl_shell(const struct policy *p, const struct policy_parse *pp,
    const char *command, struct policy_span *span)
{
	const struct policy_cmd *c;
	size_t *fed = xcalloc((size_t)pp->pipelines + 1, sizeof *fed);
	size_t i;
	regmatch_t m;
	int hit = 0;

	for (i = 0; i < pp->n && !hit; i++) {
		c = &pp->cmds[i];
		if (policy_cmd_in(c, policy_downloaders)) {
			if (fed[c->pipeline] == 0)
				fed[c->pipeline] = i + 1;
		} else if (policy_cmd_in(c, policy_shells) && c->stage > 0 &&
		    fed[c->pipeline]) {
			hit = 1;
			span->start = pp->cmds[fed[c->pipeline] - 1].span.start;
			span->end = c->span.end;
		}
	}
	free(fed);
	if (!hit && regexec(&p->run_download, command, 1, &m, 0) == 0) {
		hit = 1;
		span->start = (size_t)m.rm_so;
		span->end = (size_t)m.rm_eo;
	}
	return hit;
}

/* The lexical absolute form of path, taken from base when relative:
 * `.`, `..` and doubled slashes resolved without looking at any file. */
static char *
policy_normalize(const char *base, const char *path)
{
	char *full, *out, *p;
	size_t o = 0, len;

	full = path[0] == '/' ? xstrdup(path) : xasprintf("%s/%s", base, path);
	out = xmalloc(strlen(full) + 2);
	for (p = full; *p != '\0'; p += len) {
		p += strspn(p, "/");
		len = strcspn(p, "/");
		if (len == 0 || (len == 1 && p[0] == '.'))
			continue;
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
			continue;
		}
		out[o++] = '/';
		memcpy(out + o, p, len);
		o += len;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	free(full);
	return out;
}

static int
policy_inside(const char *dir, const char *path)
{
	size_t len = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(path, dir, len) == 0 &&
	    (path[len] == '\0' || path[len] == '/');
}

/* Whether the absolute, normalised path is outside workdir. */
static int
policy_abs_outside(const char *workdir, const char *norm)
{
	char *wd = policy_normalize("/", workdir);
	int out;

	out = !policy_inside(wd, norm) && !policy_member(norm,
	    policy_harmless) && strncmp(norm, "/dev/fd/", 8) != 0;
	free(wd);
	return out;
}

/* ~, ~/x, $HOME/x and ${HOME}/x with HOME put in; NULL for ~user. */
static char *
policy_home(const char *p)
{
	const char *home = getenv("HOME"), *rest;

	if (p[0] == '~' && (p[1] == '\0' || p[1] == '/'))
		rest = p + 1;
	else if (strncmp(p, "$HOME", 5) == 0 && (p[5] == '\0' || p[5] == '/'))
		rest = p + 5;
	else if (strncmp(p, "${HOME}", 7) == 0 &&
	    (p[7] == '\0' || p[7] == '/'))
		rest = p + 7;
	else
		return NULL;
	if (home == NULL || home[0] != '/')
		return NULL;
	return xasprintf("%s/%s", home, rest);
}

/* Whether the path p leads outside workdir (see policy.h). */
static int
policy_path_outside(const char *workdir, const char *p)
{
	char *abs, *norm;
	int out;

	if (p[0] == '~' || strncmp(p, "$HOME", 5) == 0 ||
	    strncmp(p, "${HOME}", 7) == 0) {
		if ((abs = policy_home(p)) == NULL)
			return p[0] == '~';	/* ~user */
	} else if (p[0] == '/')
		abs = xstrdup(p);
	else if (strcmp(p, "..") == 0 || strncmp(p, "../", 3) == 0 ||
	    strstr(p, "/../") != NULL || (strlen(p) >= 3 &&
	    strcmp(p + strlen(p) - 3, "/..") == 0))
		abs = xasprintf("%s/%s", workdir, p);
	else
		return 0;
	norm = policy_normalize("/", abs);
	out = policy_abs_outside(workdir, norm);
	free(norm);
	free(abs);
	return out;
}

/* A colon-separated list of paths (PATH=..., --opt=a:b). */
static int
policy_list_outside(const char *workdir, const char *value)
{
	char *copy = xstrdup(value), *p, *next;
	int out = 0;

	for (p = copy; p != NULL && !out; p = next) {
		if ((next = strchr(p, ':')) != NULL)
			*next++ = '\0';
		out = p[0] != '\0' && policy_path_outside(workdir, p);
	}
	free(copy);
	return out;
}

/* Whether a shell word names a path outside workdir. */
static int
policy_word_outside(const char *workdir, const char *w)
{
	const char *eq;

	if (strpbrk(w, " \t\n") != NULL || strstr(w, "://") != NULL)
		return 0;
	if (w[0] == '-') {
		if ((eq = strchr(w, '=')) != NULL)	/* --out=/x */
			return policy_list_outside(workdir, eq + 1);
		if (w[1] != '\0' && w[1] != '-' && w[2] == '/') /* -o/x */
			return policy_path_outside(workdir, w + 2);
		return 0;
	}
	if ((eq = strchr(w, '=')) != NULL && eq > w &&
	    strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789_") == (size_t)(eq - w))		/* X=/x, of=/x */
		return policy_list_outside(workdir, eq + 1);
	return policy_path_outside(workdir, w);
}

/* The first word of c that leads outside workdir, or NULL. The command
 * word and the wrappers before it are not judged; assignments are. */
static const char *
policy_cmd_outside(const struct policy_cmd *c, const char *workdir)
{
	size_t i;

	for (i = 0; i < c->argc; i++) {
		if (i < c->cmd && !policy_assignment(c->argv[i]))
			continue;
		if (i != c->cmd && policy_word_outside(workdir, c->argv[i]))
			return c->argv[i];
	}
	for (i = 0; i < c->ntargets; i++)
		if (policy_word_outside(workdir, c->targets[i]))
			return c->targets[i];
	return NULL;
}

static int
policy_outside(const struct policy_parse *pp, const char *workdir,
    struct policy_verdict *v)
{
	const char *w = NULL;
	char *show;
	size_t i;

	for (i = 0; i < pp->n && w == NULL; i++)
		w = policy_cmd_outside(&pp->cmds[i], workdir);
	if (w == NULL)
		return 0;
	show = utf8_clean(w, strlen(w), POLICY_SHOW_MAX);
	v->label = xstrdup("outside the working directory");
	v->detail = xasprintf("touches %s outside the working directory",
	    show);
	v->start = pp->cmds[i - 1].span.start;
	v->end = pp->cmds[i - 1].span.end;
	free(show);
	return 1;
}

/* The first command of pp that test holds for, into v (label and
 * detail given); 0 when none. */
static int
policy_first(const struct policy_parse *pp,
    int (*test)(const struct policy_cmd *), const char *label,
    const char *detail, struct policy_verdict *v)
{
	size_t i;

	for (i = 0; i < pp->n; i++) {
		if (!test(&pp->cmds[i]))
			continue;
		v->label = xstrdup(label);
		v->detail = xstrdup(detail);
		v->start = pp->cmds[i].span.start;
		v->end = pp->cmds[i].span.end;
		return 1;
	}
	return 0;
}

static int
policy_sudo(const struct policy_cmd *c)
{
	return c->sudo;
}

/* Whether rule r flags command; if so, why and where, into v. */
static int
policy_rule_check(const struct policy *p, const struct policy_rule *r,
    const struct policy_parse *pp, const char *workdir, const char *command,
    struct policy_verdict *v)
{
	struct policy_span span = { 0, 0 };
	regmatch_t m;
	char *show;

	switch (r->kind) {
	case POLICY_RM_RECURSIVE:
		return policy_first(pp, policy_rm_recursive, "rm -r",
		    "deletes recursively (rm -r)", v);
	case POLICY_SUDO:
		return policy_first(pp, policy_sudo, "sudo", "uses sudo", v);
	case POLICY_GIT_PUSH:
		return policy_first(pp, policy_git_push, "git push",
		    "pushes to a remote (git push)", v);
	case POLICY_CURL_SHELL:
		if (!policy_curl_shell(p, pp, command, &span))
			return 0;
		v->label = xstrdup("curl | sh");
		v->detail = xstrdup("runs a download in a shell (curl | sh)");
		v->start = span.start;
		v->end = span.end;
		return 1;
	case POLICY_OUTSIDE:
		return policy_outside(pp, workdir, v);
	case POLICY_REGEX:
		if (regexec(&r->re, command, 1, &m, 0) != 0)
			return 0;
		show = utf8_clean(r->src, strlen(r->src), POLICY_SHOW_MAX);
		v->label = xasprintf("rule %d", r->line);
		v->detail = xasprintf("matches rule %d: %s", r->line, show);
		v->start = (size_t)m.rm_so;
		v->end = (size_t)m.rm_eo;
		free(show);
		return 1;
	}
	return 0;
}

int
policy_judge(const struct policy *p, const char *workdir,
    const char *command, struct policy_verdict *v)
{
	struct policy_parse pp;
	size_t i;
	int hit = 0;

	memset(v, 0, sizeof *v);
	if (p == NULL || command == NULL)
		return 0;
	memset(&pp, 0, sizeof pp);
	policy_parse_string(&pp, command, 0, NULL);
	for (i = 0; i < p->n && !hit; i++)
		hit = policy_rule_check(p, &p->rules[i], &pp,
		    workdir != NULL ? workdir : "/", command, v);
	policy_parse_free(&pp);
	if (hit && (v->start > v->end || v->end > strlen(command)))
		v->start = v->end = 0;	/* cannot happen; never trusted */
	return hit;
}

int
policy_commands(const char *command, policy_command_fn fn, void *arg)
{
	struct policy_parse pp;
	size_t i;
	int rc = 0;

	if (command == NULL)
		return 0;
	memset(&pp, 0, sizeof pp);
	policy_parse_string(&pp, command, 0, NULL);
	for (i = 0; i < pp.n && rc == 0; i++)
		if (pp.cmds[i].argc > 0)
			rc = fn((char *const *)pp.cmds[i].argv, pp.cmds[i].argc,
			    pp.cmds[i].cmd, arg);
	policy_parse_free(&pp);
	return rc;
}

char *
policy_check(const struct policy *p, const char *workdir, const char *command)
{
	struct policy_verdict v;
	char *why;

	if (!policy_judge(p, workdir, command, &v))
		return NULL;
	why = v.detail;
	v.detail = NULL;
	policy_verdict_clear(&v);
	return why;
}

void
policy_verdict_clear(struct policy_verdict *v)
{
	free(v->label);
	free(v->detail);
	memset(v, 0, sizeof *v);
}

/* An empty policy, ready for rules. */
static struct policy *
policy_new(void)
{
	struct policy *p = xcalloc(1, sizeof *p);
	int rc;

	/* A shell, maybe with options, whose operand is <(curl or $(curl
	 * or `curl (quoted or not): it runs what curl prints. */
	rc = regcomp(&p->run_download, "(^|[^[:alnum:]_./-])(sh|bash|zsh|"
	    "dash|ksh|ash|source|\\.)([[:space:]]+[-+][[:alnum:]]+)*"
	    "[[:space:]]+[\"']?(<\\(|\\$\\(|`)[[:space:]]*(curl|wget)"
	    "([[:space:]]|$)", REG_EXTENDED);
	if (rc != 0)
		abort();	/* a constant pattern; cannot happen */
	return p;
}

static void
policy_add(struct policy *p, enum policy_kind kind, int line)
{
	p->rules = xgrow(p->rules, &p->cap, p->n + 1, sizeof *p->rules);
	memset(&p->rules[p->n], 0, sizeof p->rules[p->n]);
	p->rules[p->n].kind = kind;
	p->rules[p->n].line = line;
	p->n++;
}

static void
policy_add_defaults(struct policy *p, int line)
{
	/* Most specific first: `curl x | sudo sh` is a download run as
	 * root, not just sudo. */
	policy_add(p, POLICY_CURL_SHELL, line);
	policy_add(p, POLICY_RM_RECURSIVE, line);
	policy_add(p, POLICY_SUDO, line);
	policy_add(p, POLICY_GIT_PUSH, line);
	policy_add(p, POLICY_OUTSIDE, line);
}

struct policy *
policy_default(void)
{
	struct policy *p = policy_new();

	policy_add_defaults(p, 0);
	return p;
}

/* Adds the rule on one (trimmed) line; -1 with *err on a bad regex. */
static int
policy_add_line(struct policy *p, const char *path, int line,
    const char *rule, char **err)
{
	struct policy_rule *r;
	char msg[256], *show;
	int rc;

	if (strcmp(rule, "defaults") == 0) {
		policy_add_defaults(p, line);
		return 0;
	}
	if (strcmp(rule, "outside-workdir") == 0) {
		policy_add(p, POLICY_OUTSIDE, line);
		return 0;
	}
	policy_add(p, POLICY_REGEX, line);
	r = &p->rules[p->n - 1];
	if ((rc = regcomp(&r->re, rule, REG_EXTENDED)) != 0) {
		regerror(rc, &r->re, msg, sizeof msg);
		show = utf8_clean(rule, strlen(rule), POLICY_SHOW_MAX);
		*err = xasprintf("%s line %d: bad regular expression '%s': %s",
		    path, line, show, msg);
		free(show);
		p->n--;		/* nothing compiled to free */
		return -1;
	}
	r->src = xstrdup(rule);
	return 0;
}

/* The rule on a line, trimmed in place; NULL for a blank or comment. */
static char *
policy_trim(char *s)
{
	size_t len;

	s += strspn(s, " \t");
	len = strlen(s);
	while (len > 0 && strchr(" \t\r\n", s[len - 1]) != NULL)
		s[--len] = '\0';
	return s[0] == '\0' || s[0] == '#' ? NULL : s;
}

struct policy *
policy_load(const char *path, char **err)
{
	struct policy *p;
	FILE *f;
	char *buf = NULL, *rule;
	size_t cap = 0;
	int line = 0, rc = 0;

	*err = NULL;
	if ((f = fopen(path, "re")) == NULL) {
		*err = xasprintf("cannot read the policy file %s: %s", path,
		    strerror(errno));
		return NULL;
	}
	p = policy_new();
	while (rc == 0 && getline(&buf, &cap, f) != -1) {
		line++;
		if ((rule = policy_trim(buf)) != NULL)
			rc = policy_add_line(p, path, line, rule, err);
	}
	if (rc == 0 && ferror(f)) {
		*err = xasprintf("cannot read the policy file %s: %s", path,
		    strerror(errno));
		rc = -1;
	}
	free(buf);
	fclose(f);
	if (rc == -1) {
		policy_free(p);
		return NULL;
	}
	return p;
}

void
policy_free(struct policy *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->n; i++) {
		if (p->rules[i].kind == POLICY_REGEX) {
			regfree(&p->rules[i].re);
			free(p->rules[i].src);
		}
	}
	regfree(&p->run_download);
	free(p->rules);
	free(p);
}
