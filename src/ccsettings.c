/*
 * Claude Code's settings files in the project (see ccsettings.h): read
 * beneath the working tree, each key taken, refused or named as not
 * read, and a sentence per file for the start's notice.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccsettings.h"
#include "settings.h"
#include "tools/ccrules.h"
#include "util/safefile.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* The most a file may hold, as huddle's own settings. */
#define CCSETTINGS_MAX_BYTES (1u << 20)

/* The most names a notice lists of one kind, and of one name's bytes. */
#define CCSETTINGS_NAMES 12
#define CCSETTINGS_NAME_BYTES 40

/* The files, in Claude Code's order: the later one's model wins. */
static const char *const ccsettings_files[] = {
	".claude/settings.json", ".claude/settings.local.json"
};

/* The same, in the .claude folder: each is opened beneath that folder by
 * a plain name, which works where openat2 is missing (valgrind). */
static const char *const ccsettings_names[] = {
	"settings.json", "settings.local.json"
};

/* A list of names for a notice, growing as they come. */
struct ccsettings_names {
	char	*text;
	size_t	 len, cap;
	size_t	 n;
};

/* Adds name (from the file: cleaned, cut) to l. */
static void
ccsettings_name(struct ccsettings_names *l, const char *name)
{
	char *clean;

	if (l->n++ == CCSETTINGS_NAMES) {
		l->text = xappend(l->text, &l->len, &l->cap, ", …", 5);
		return;
	}
	if (l->n > CCSETTINGS_NAMES)
		return;
	if (l->n > 1)
		l->text = xappend(l->text, &l->len, &l->cap, ", ", 2);
	clean = utf8_clean(name, strlen(name), CCSETTINGS_NAME_BYTES);
	l->text = xappend(l->text, &l->len, &l->cap, clean, strlen(clean));
	free(clean);
}

/* Says what is wrong with file's key, at its line; returns -1. */
static int
ccsettings_fail(const char *workdir, const char *file, const char *text,
    const char *key, const char *what, char **err)
{
	int line = text != NULL ? settings_line(text, key, 0, NULL) : 0;

	*err = xasprintf("%s/%s:%d: %s", workdir, file, line > 0 ? line : 1,
	    what);
	return -1;
}

/* Reads one list ("deny" or "ask") of rules into o's; the rules no huddle
 * tool answers to go to none. Returns how many were taken, or -1. */
static int
ccsettings_rules(struct options *o, enum ccrules_list list, json_t *v,
    const char *file, struct ccsettings_names *none)
{
	json_t *x;
	size_t i;
	int taken = 0;

	if (!json_is_array(v))
		return -1;
	json_array_foreach(v, i, x) {
		if (!json_is_string(x))
			return -1;
		if (ccrules_add(o->claude_rules, list, json_string_value(x),
		    file))
			taken++;
		else
			ccsettings_name(none, json_string_value(x));
	}
	return taken;
}

/* Reads "permissions": deny and ask taken, the rest named in skip. */
static int
ccsettings_permissions(struct options *o, const char *workdir,
    const char *file, const char *text, json_t *v,
    struct ccsettings_names *read, struct ccsettings_names *skip,
    struct ccsettings_names *none, char **err)
{
	static const char *const lists[] = { "deny", "ask" };
	const char *key;
	char *name;
	json_t *x;
	int n, l;

	if (!json_is_object(v))
		return ccsettings_fail(workdir, file, text, "permissions",
		    "\"permissions\" is not an object: its deny rules "
		    "cannot be read", err);
	json_object_foreach(v, key, x) {
		for (l = 0; l < 2 && strcmp(key, lists[l]) != 0; l++)
			continue;
		if (l == 2) {
			name = xasprintf("permissions.%s", key);
			ccsettings_name(skip, name);
			free(name);
			continue;
		}
		if ((n = ccsettings_rules(o, l == 0 ? CCRULES_DENY :
		    CCRULES_ASK, x, file, none)) == -1) {
			name = xasprintf("\"permissions.%s\" takes an array "
			    "of rules (strings)", key);
			ccsettings_fail(workdir, file, text, key, name, err);
			free(name);
			return -1;
		}
		name = xasprintf("%s (%d rule%s)", key, n, n == 1 ? "" : "s");
		ccsettings_name(read, name);
		free(name);
	}
	return 0;
}

/* Reads one file's keys into o, its sentence into *notice. */
static int
ccsettings_file(struct options *o, const char *workdir, const char *file,
    const char *text, int model_chosen, char **notice, char **err)
{
	struct ccsettings_names read = { 0 }, skip = { 0 }, none = { 0 };
	json_error_t jerr;
	const char *key;
	json_t *root, *v;
	char *why = NULL;
	int rc = 0;

	root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL || !json_is_object(root)) {
		if (root == NULL)
			why = utf8_clean(jerr.text, strlen(jerr.text), 200);
		*err = xasprintf("%s/%s:%d: %s (its deny rules cannot be "
		    "read)", workdir, file, root == NULL && jerr.line > 0 ?
		    jerr.line : 1, root == NULL ? why : "settings are a JSON "
		    "object");
		free(why);
		json_decref(root);
		return -1;
	}
	json_object_foreach(root, key, v) {
		if (strcmp(key, "permissions") == 0)
			rc = ccsettings_permissions(o, workdir, file, text, v,
			    &read, &skip, &none, err);
		else if (strcmp(key, "model") == 0 && json_is_string(v) &&
		    *json_string_value(v) != '\0' && !model_chosen) {
			char *path = xasprintf("%s/%s", workdir, file);

			rc = options_set(o, OPT_MODEL, json_string_value(v),
			    NULL, OPT_FROM_PROJECT, path, &why);
			if (rc == -1) {
				ccsettings_fail(workdir, file, text, key, why,
				    err);
				free(why);
			} else
				ccsettings_name(&read, "model");
			free(path);
		} else if (strcmp(key, "model") == 0)
			ccsettings_name(&skip, model_chosen ? "model (another "
			    "is chosen)" : "model");
		else
			ccsettings_name(&skip, key);
		if (rc == -1)
			break;
	}
	json_decref(root);
	if (rc == 0)
		*notice = xasprintf("read %s: %s%s%s%s%s%s", file,
		    read.n > 0 ? read.text : "nothing", skip.n > 0 ?
		    "; not read: " : "", skip.n > 0 ? skip.text : "",
		    none.n > 0 ? "; rules for no huddle tool, not applied: " :
		    "", none.n > 0 ? none.text : "", ".");
	free(read.text);
	free(skip.text);
	free(none.text);
	return rc;
}

int
ccsettings_read(struct options *o, const char *workdir, char **err)
{
	/* Whatever chose a model before these files keeps it. */
	int model_chosen = options_given(o, OPT_MODEL);
	char *text, *why = NULL, *notice = NULL, *all;
	size_t i, size;
	int top, dir, rc = 0;

	if ((top = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return 0;	/* as huddle's own project file: none */
	dir = safefile_opendir(top, ".claude", 1);
	close(top);
	if (dir == -1 && (errno == ENOENT || errno == ENOTDIR))
		return 0;
	if (dir == -1) {
		*err = xasprintf(".claude cannot be opened beneath %s (a link "
		    "out?): its deny rules cannot be read", workdir);
		return -1;
	}
	if (o->claude_rules == NULL)
		o->claude_rules = ccrules_new();
	for (i = 0; i < sizeof ccsettings_files / sizeof *ccsettings_files &&
	    rc == 0; i++) {
		text = safefile_read(dir, ccsettings_names[i], 1,
		    CCSETTINGS_MAX_BYTES, &size, &why);
		if (text == NULL && (errno == ENOENT || errno == ENOTDIR)) {
			free(why);
			continue;
		}
		if (text == NULL) {
			*err = xasprintf(".claude/%s (in %s; its deny rules "
			    "cannot be read)", why, workdir);
			free(why);
			rc = -1;
			break;
		}
		if (size > CCSETTINGS_MAX_BYTES) {
			*err = xasprintf("%s/%s: larger than a megabyte",
			    workdir, ccsettings_files[i]);
			rc = -1;
		} else if ((rc = ccsettings_file(o, workdir,
		    ccsettings_files[i], text, model_chosen, &notice,
		    err)) == 0) {
			all = o->claude_notice == NULL ? notice :
			    xasprintf("%s\n%s", o->claude_notice, notice);
			if (all != notice)
				free(notice);
			free(o->claude_notice);
			o->claude_notice = all;
		}
		free(text);
	}
	close(dir);
	return rc;
}
