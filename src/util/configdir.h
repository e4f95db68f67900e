/*
 * Where the person's own files for huddle live: $XDG_CONFIG_HOME/huddle,
 * else ~/.config/huddle (models.json, settings.json, AGENTS.md, agents/).
 * Nothing there is written by teammates: commands cannot reach it.
 */
#ifndef HUDDLE_UTIL_CONFIGDIR_H
#define HUDDLE_UTIL_CONFIGDIR_H

/* The folder's path (malloc'd), or NULL when neither XDG_CONFIG_HOME (an
 * absolute path) nor HOME is set. It need not exist. */
char *configdir_path(void);

#endif
