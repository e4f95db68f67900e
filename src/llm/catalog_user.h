/*
 * A person's own model catalog, read over the one huddle was built with:
 * $XDG_CONFIG_HOME/huddle/models.json, else ~/.config/huddle/models.json.
 * It adds models and changes fields of known ones without a rebuild; the
 * merge rules are in doc/models.md.
 */
#ifndef HUDDLE_LLM_CATALOG_USER_H
#define HUDDLE_LLM_CATALOG_USER_H

#include <jansson.h>

/* The user catalog's path (malloc'd), or NULL when neither
 * XDG_CONFIG_HOME nor HOME is set. */
char *catalog_user_path(void);

/*
 * Merges the file at path into doc, a catalog document: a model entry
 * whose id (or alias) doc lists changes that entry field by field (prices
 * rate by rate), any other is added at the end; "default_model" replaces
 * doc's, "unknown_model" changes it field by field. origins gets each
 * touched id: "user" (added) or "both" (changed). Returns 0, 1 when there
 * is no such file, or -1 with *err (malloc'd) when it cannot be read or
 * used.
 */
int catalog_user_merge(json_t *doc, const char *path, json_t *origins,
    char **err);

#endif
