/*
 * Merging a person's model catalog over the built-in one (see
 * catalog_user.h). The merge works on the documents; catalog.c then
 * checks the result whole, so a user entry with a wrong field is refused
 * with the entry and the field named, as a built-in one would be.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "llm/catalog_user.h"
#include "util/configdir.h"
#include "util/xmalloc.h"

char *
catalog_user_path(void)
{
	char *dir = configdir_path(), *path;

	if (dir == NULL)
		return NULL;
	path = xasprintf("%s/models.json", dir);
	free(dir);
	return path;
}

/* The objects whose keys merge one by one rather than being replaced. */
static int
catalog_user_deep(const char *key)
{
	return strcmp(key, "prices") == 0 || strcmp(key, "prices_long") == 0;
}

/* The fields a price change makes the built-in source wrong for. */
static int
catalog_user_priced(const char *key)
{
	return strcmp(key, "prices") == 0 || strcmp(key, "prices_long") == 0 ||
	    strcmp(key, "prices_above") == 0;
}

/* Changes entry `to` by the fields of `from`. */
static void
catalog_user_update(json_t *to, json_t *from, const char *path)
{
	const char *key;
	json_t *v, *have;
	int priced = 0, sourced = json_object_get(from,
	    "prices_source") != NULL;

	json_object_foreach(from, key, v) {
		if (strcmp(key, "id") == 0)	/* it may be an alias */
			continue;
		have = json_object_get(to, key);
		if (catalog_user_deep(key) && json_is_object(have) &&
		    json_is_object(v))
			json_object_update(have, v);
		else
			json_object_set(to, key, v);
		priced |= catalog_user_priced(key);
	}
	/* Prices the person set are theirs: say so rather than keep the
	 * page the built-in ones were read from. */
	if (priced && !sourced) {
		json_object_set_new(to, "prices_source", json_pack("{s:s, s:s}",
		    "title", "your model catalog", "url", path));
		json_object_del(to, "prices_checked");
	}
}

/* The index in models of the entry named id (as id or alias), or -1. */
static long
catalog_user_find(json_t *models, const char *id)
{
	json_t *m, *a;
	size_t i, k;

	json_array_foreach(models, i, m) {
		if (json_is_string(json_object_get(m, "id")) && strcmp(
		    json_string_value(json_object_get(m, "id")), id) == 0)
			return (long)i;
		json_array_foreach(json_object_get(m, "aliases"), k, a) {
			if (json_is_string(a) && strcmp(json_string_value(a),
			    id) == 0)
				return (long)i;
		}
	}
	return -1;
}

/* Checks the user document's shape before anything of it is used. */
static int
catalog_user_check(json_t *u, char **err)
{
	const char *key;
	json_t *v, *m;
	size_t i;

	if (!json_is_object(u)) {
		*err = xstrdup("it must be a JSON object");
		return -1;
	}
	json_object_foreach(u, key, v) {
		if (strcmp(key, "models") != 0 && strcmp(key,
		    "default_model") != 0 && strcmp(key, "unknown_model") != 0) {
			*err = xasprintf("unknown field \"%s\" (models, "
			    "default_model, unknown_model)", key);
			return -1;
		}
	}
	v = json_object_get(u, "models");
	if (v != NULL && !json_is_array(v)) {
		*err = xstrdup("\"models\" must be a list");
		return -1;
	}
	json_array_foreach(v, i, m) {
		if (!json_is_object(m) || !json_is_string(json_object_get(m,
		    "id")) || *json_string_value(json_object_get(m, "id")) ==
		    '\0') {
			*err = xasprintf("models[%zu]: no \"id\"", i);
			return -1;
		}
	}
	if ((v = json_object_get(u, "default_model")) != NULL &&
	    !json_is_string(v)) {
		*err = xstrdup("\"default_model\" must be a model id");
		return -1;
	}
	if ((v = json_object_get(u, "unknown_model")) != NULL &&
	    !json_is_object(v)) {
		*err = xstrdup("\"unknown_model\" must be an object");
		return -1;
	}
	return 0;
}

int
catalog_user_merge(json_t *doc, const char *path, json_t *origins,
    char **err)
{
	json_t *u, *m, *models = json_object_get(doc, "models"), *v;
	json_error_t jerr;
	struct stat st;
	const char *id;
	size_t i;
	long at;

	if (stat(path, &st) == -1 && (errno == ENOENT || errno == ENOTDIR))
		return 1;
	if ((u = json_load_file(path, 0, &jerr)) == NULL) {
		*err = jerr.line > 0 ? xasprintf("line %d: %s", jerr.line,
		    jerr.text) : xstrdup(jerr.text);
		return -1;
	}
	if (catalog_user_check(u, err) == -1) {
		json_decref(u);
		return -1;
	}
	json_array_foreach(json_object_get(u, "models"), i, m) {
		id = json_string_value(json_object_get(m, "id"));
		if ((at = catalog_user_find(models, id)) >= 0) {
			v = json_array_get(models, (size_t)at);
			catalog_user_update(v, m, path);
			json_object_set_new(origins, json_string_value(
			    json_object_get(v, "id")), json_string("both"));
		} else {
			json_array_append(models, m);
			json_object_set_new(origins, id, json_string("user"));
		}
	}
	if ((v = json_object_get(u, "default_model")) != NULL)
		json_object_set(doc, "default_model", v);
	if ((v = json_object_get(u, "unknown_model")) != NULL) {
		if (json_is_object(json_object_get(doc, "unknown_model")))
			json_object_update(json_object_get(doc,
			    "unknown_model"), v);
		else
			json_object_set(doc, "unknown_model", v);
	}
	json_decref(u);
	return 0;
}
