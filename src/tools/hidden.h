/*
 * What no command and no file tool may read: the person's well-known
 * secret stores (keys, credentials, tokens, keyrings, shell histories,
 * browser profiles), the system's own secrets, and huddle's state
 * directory with every team's database. The list is one table in
 * hidden.c; the sandbox enforces it (tools/landlock.h), the file tools
 * refuse it, and `--readable PATH` lets one path through.
 */
#ifndef HUDDLE_TOOLS_HIDDEN_H
#define HUDDLE_TOOLS_HIDDEN_H

#include <stddef.h>

/*
 * The hidden paths for a person whose home is `home` (NULL: $HOME) and
 * whose teams' state lies in `state` (NULL: none), absolute and
 * canonical, as a NULL-terminated malloc'd array (hidden_free). A store
 * that does not exist yet is listed all the same, so one made later
 * stays hidden; one that is a symbolic link is listed under both names.
 */
char **hidden_paths(const char *home, const char *state);

/* Frees what hidden_paths returned. */
void hidden_free(char **paths);

/* The number of paths in a NULL-terminated array. */
size_t hidden_count(char *const *paths);

/* The hidden path that `path` (absolute, canonical) is or lies beneath,
 * or NULL. */
const char *hidden_covers(char *const *paths, const char *path);

#endif
