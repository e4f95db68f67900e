/*
 * The team's roles (see roles.h): the definition files of the person's
 * and the project's folders read (role.c parses each) and merged with
 * the person's word first; how the lead and /roles see them.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/roles.h"
#include "util/safefile.h"
#include "util/xmalloc.h"

/* The largest definition file read. */
#define ROLE_FILE_MAX	(64 * 1024)
/* The most of a description the lead's tool shows. */
#define ROLE_BRIEF_MAX	300
/* The most roles one folder gives. */
#define ROLES_PER_FOLDER 50

static void
roles_push(char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = xstrdup(s);
}

static void
roles_notice(struct roles *rs, char *text)
{
	rs->notices = xgrow(rs->notices, &rs->capnotices, rs->nnotices + 1,
	    sizeof *rs->notices);
	rs->notices[rs->nnotices++] = text;
}

void
roles_add(struct roles *rs, struct role *r)
{
	size_t i;

	if (r->origin != ROLE_PERSON && r->autonomous) {
		r->autonomous = 0;
		role_note(r, "autonomous left out: only the person's roles "
		    "make a teammate autonomous");
	}
	for (i = 0; i < rs->n; i++) {
		struct role *o = &rs->v[i];

		if (strcmp(o->name, r->name) != 0)
			continue;
		if (o->origin <= r->origin) {
			roles_notice(rs, xasprintf("%s left out: %s role %s "
			    "(%s) wins", r->path, role_origin_name(o->origin),
			    o->name, o->path));
			role_clear(r);
			return;
		}
		roles_notice(rs, xasprintf("%s left out: %s role %s (%s) "
		    "wins", o->path, role_origin_name(r->origin), r->name,
		    r->path));
		role_clear(o);
		*o = *r;
		memset(r, 0, sizeof *r);
		return;
	}
	rs->v = xgrow(rs->v, &rs->cap, rs->n + 1, sizeof *rs->v);
	rs->v[rs->n++] = *r;
	memset(r, 0, sizeof *r);
}

static int
roles_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The value of a front matter's "name:" line, if a file that could not
 * be parsed as a whole has one (malloc'd), else NULL. */
static char *
roles_name_in(const char *text)
{
	const char *p = text, *e;
	char *v;
	size_t n;

	if (text == NULL || strncmp(text, "---", 3) != 0)
		return NULL;
	while ((p = strchr(p, '\n')) != NULL) {
		p++;
		if (strncmp(p, "---", 3) == 0)
			return NULL;
		if (strncmp(p, "name:", 5) != 0)
			continue;
		p += 5;
		p += strspn(p, " \t\"'");
		e = p + strcspn(p, "\"'\r\n");
		n = (size_t)(e - p);
		while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		v = xasprintf("%.*s", (int)n, p);
		return v;
	}
	return NULL;
}

/* Notes a project's file left out, under its names. */
static void
roles_refuse(struct roles *rs, const char *text, const char *stem,
    const char *why)
{
	struct role_refused *f;

	rs->refused = xgrow(rs->refused, &rs->caprefused, rs->nrefused + 1,
	    sizeof *rs->refused);
	f = &rs->refused[rs->nrefused++];
	f->name = roles_name_in(text);
	f->file_name = xstrdup(stem);
	f->why = xstrdup(why);
}

/* Reads the *.md files of one folder (shown: how people see it). */
static int
roles_dir(struct roles *rs, int base, const char *path, const char *shown,
    enum role_origin origin, const json_t *mcp_servers, char **err)
{
	int beneath = origin != ROLE_PERSON, fd, dfd;
	DIR *d;
	struct dirent *e;
	char **names = NULL, *text, *file, *stem, *why = NULL;
	size_t n = 0, i, size, len;
	struct role r;
	int rc = 0;

	if ((fd = safefile_opendir(base, path, beneath)) == -1) {
		if (errno == ENOENT)
			return 0;
		why = xasprintf("%s cannot be read: %s", shown, strerror(
		    errno));
		goto bad;
	}
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		why = xasprintf("%s cannot be read", shown);
		goto bad;
	}
	while ((e = readdir(d)) != NULL) {
		len = strlen(e->d_name);
		if (e->d_name[0] != '.' && len > 3 &&
		    strcmp(e->d_name + len - 3, ".md") == 0)
			roles_push(&names, &n, e->d_name);
	}
	if (n > 0)
		qsort(names, n, sizeof *names, roles_cmp);
	/* Each role adds a line to the lead's tools in every request: a
	 * folder of the tree holding hundreds would cost on every call. */
	if (n > ROLES_PER_FOLDER) {
		roles_notice(rs, xasprintf("%s holds %zu roles; the first %d "
		    "(by name) are read", shown, n, ROLES_PER_FOLDER));
		for (i = ROLES_PER_FOLDER; i < n; i++)
			free(names[i]);
		n = ROLES_PER_FOLDER;
	}
	dfd = dirfd(d);
	for (i = 0; i < n && rc == 0; i++) {
		file = xasprintf("%s/%s", shown, names[i]);
		text = safefile_read(dfd, names[i], beneath, ROLE_FILE_MAX + 1,
		    &size, &why);
		if (text != NULL && size > ROLE_FILE_MAX) {
			why = xasprintf("%s is larger than %d KiB", file,
			    ROLE_FILE_MAX / 1024);
			free(text);
			text = NULL;
		}
		stem = xasprintf("%.*s", (int)(strlen(names[i]) - 3), names[i]);
		if (text != NULL && role_parse(text, file, stem, origin,
		    mcp_servers, &r, &why) == 0)
			roles_add(rs, &r);
		else if (origin == ROLE_PERSON) {
			*err = xasprintf("%s%s", why, text == NULL ? "" :
			    " (the person's roles must all be right)");
			rc = -1;
		} else {
			roles_refuse(rs, text, stem, why);
			roles_notice(rs, xasprintf("role left out: %s", why));
		}
		free(why);
		why = NULL;
		free(text);
		free(stem);
		free(file);
	}
	closedir(d);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
bad:
	if (origin == ROLE_PERSON) {
		*err = why;
		return -1;
	}
	roles_notice(rs, why);
	return 0;
}

int
roles_load(const char *config_dir, const char *workdir,
    const json_t *mcp_servers, struct roles **out, char **err)
{
	struct roles *rs = xcalloc(1, sizeof *rs);
	int wd;

	*out = NULL;
	if (config_dir != NULL) {
		char *path = xasprintf("%s/agents", config_dir);
		int rc = roles_dir(rs, AT_FDCWD, path, path, ROLE_PERSON,
		    mcp_servers, err);

		free(path);
		if (rc == -1) {
			roles_free(rs);
			return -1;
		}
	}
	if ((wd = open(workdir, O_PATH | O_DIRECTORY | O_CLOEXEC)) != -1) {
		roles_dir(rs, wd, ".huddle/agents", ".huddle/agents",
		    ROLE_PROJECT, mcp_servers, err);
		roles_dir(rs, wd, ".claude/agents", ".claude/agents",
		    ROLE_CLAUDE, mcp_servers, err);
		close(wd);
	}
	*out = rs;
	return 0;
}

const struct role *
roles_find(const struct roles *rs, const char *name)
{
	size_t i;

	for (i = 0; rs != NULL && name != NULL && i < rs->n; i++) {
		if (strcmp(rs->v[i].name, name) == 0)
			return &rs->v[i];
	}
	/* Claude Code finds a role by its file's name too. */
	for (i = 0; rs != NULL && name != NULL && i < rs->n; i++) {
		if (rs->v[i].file_name != NULL &&
		    strcmp(rs->v[i].file_name, name) == 0)
			return &rs->v[i];
	}
	return NULL;
}

const char *
roles_refused(const struct roles *rs, const char *name)
{
	size_t i;

	for (i = 0; rs != NULL && name != NULL && i < rs->nrefused; i++) {
		const struct role_refused *f = &rs->refused[i];

		if ((f->name != NULL && strcmp(f->name, name) == 0) ||
		    strcmp(f->file_name, name) == 0)
			return f->why;
	}
	return NULL;
}

/* The names of a list, joined by ", ". */
static char *
role_join(char *const *v, size_t n)
{
	char *s = xstrdup("");
	size_t len = 0, cap = 0, i;

	for (i = 0; i < n; i++) {
		if (i > 0)
			s = xappend(s, &len, &cap, ", ", 2);
		s = xappend(s, &len, &cap, v[i], strlen(v[i]));
	}
	return s;
}

/* A description on one line, cut to ROLE_BRIEF_MAX bytes. */
static char *
role_brief(const char *d)
{
	char *s = xstrdup(d), *p;
	size_t n;

	for (p = s; *p != '\0'; p++) {
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	}
	if ((n = strlen(s)) > ROLE_BRIEF_MAX) {
		n = ROLE_BRIEF_MAX;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
		s[n] = '\0';
		p = xasprintf("%s…", s);
		free(s);
		s = p;
	}
	return s;
}

char *
roles_describe(const struct roles *rs)
{
	char *s = xstrdup(""), *line, *tools, *desc;
	size_t len = 0, cap = 0, i;

	if (rs == NULL || rs->n == 0)
		return s;
	line = xstrdup(" Roles defined for this team: give one's name as "
	    "role and the teammate gets its instructions, model, tools and "
	    "gates (any other role is a free word):");
	s = xappend(s, &len, &cap, line, strlen(line));
	free(line);
	for (i = 0; i < rs->n; i++) {
		const struct role *r = &rs->v[i];

		tools = r->has_tools ? role_join(r->tools, r->ntools) : NULL;
		desc = role_brief(r->description);
		line = xasprintf("\n- %s: %s%s%s%s%s%s%s", r->name,
		    *desc ? desc : "(no description)",
		    r->model ? " [model " : "", r->model ? r->model : "",
		    r->model ? "]" : "", r->has_tools ? " [tools: " : "",
		    r->has_tools ? (*tools ? tools : "none") : "",
		    r->has_tools ? "]" : "");
		free(tools);
		free(desc);
		s = xappend(s, &len, &cap, line, strlen(line));
		free(line);
		if (r->plan_required)
			s = xappend(s, &len, &cap, " [plan required]", 16);
	}
	return s;
}

static json_t *
role_list_json(char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

json_t *
roles_json(const struct roles *rs)
{
	json_t *list = json_array(), *notices = json_array(), *o;
	size_t i;

	for (i = 0; rs != NULL && i < rs->n; i++) {
		const struct role *r = &rs->v[i];

		o = json_pack("{s:s, s:s, s:s?, s:o, s:o, s:b, s:b, s:s, "
		    "s:s}", "name", r->name, "description", r->description,
		    "model", r->model, "tools", r->has_tools ? role_list_json(
		    r->tools, r->ntools) : json_null(), "mcp_servers",
		    r->has_mcp ? role_list_json(r->mcp, r->nmcp) : json_null(),
		    "plan_required", r->plan_required, "autonomous",
		    r->autonomous, "origin", role_origin_name(r->origin),
		    "path", r->path);
		if (r->ndenied > 0)
			json_object_set_new(o, "denied", role_list_json(
			    r->denied, r->ndenied));
		if (r->note != NULL)
			json_object_set_new(o, "note", json_string(r->note));
		json_array_append_new(list, o);
	}
	for (i = 0; rs != NULL && i < rs->nnotices; i++)
		json_array_append_new(notices, json_string(rs->notices[i]));
	return json_pack("{s:o, s:o}", "roles", list, "notices", notices);
}

void
roles_free(struct roles *rs)
{
	size_t i;

	if (rs == NULL)
		return;
	for (i = 0; i < rs->n; i++)
		role_clear(&rs->v[i]);
	free(rs->v);
	for (i = 0; i < rs->nnotices; i++)
		free(rs->notices[i]);
	free(rs->notices);
	for (i = 0; i < rs->nrefused; i++) {
		free(rs->refused[i].name);
		free(rs->refused[i].file_name);
		free(rs->refused[i].why);
	}
	free(rs->refused);
	free(rs);
}
