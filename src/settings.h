/*
 * The settings files: the person's own ($XDG_CONFIG_HOME/huddle/
 * settings.json, see util/configdir.h) and the project's
 * (<workdir>/.huddle/settings.json). Each is a JSON object whose keys are
 * the long options' names ("model", "max-cost", "network" …) plus what
 * options cannot say: "mcpServers", "permissions", "roles" and
 * "instructions" (doc/settings.md). The team's commands can write the
 * project's file, so it may set neutral things only: a gate there is
 * refused, never taken.
 */
#ifndef HUDDLE_SETTINGS_H
#define HUDDLE_SETTINGS_H

#include "options.h"

/*
 * Reads the settings file at `path` into o as source `src`
 * (OPT_FROM_PERSON or OPT_FROM_PROJECT); values o holds from a stronger
 * source stay. A missing file is no error. Returns 0, or -1 with *err
 * (malloc'd) naming the file and the line: a file that is not JSON, an
 * unknown key, a bad value, a gate in the project's file.
 */
int settings_load(struct options *o, const char *path, enum opt_source src,
    char **err);

/*
 * Reads the person's settings file, then the project's (in --workdir, or
 * the current directory; none for a demo without one), then the
 * environment's variables, into o, which already holds the command line.
 * Returns 0, or -1 with *err.
 */
int settings_read(struct options *o, char **err);

/* The line (from 1) of the first `"key":` in text at or after byte
 * `from`, or 0 when there is none; *end gets the byte after it. */
int settings_line(const char *text, const char *key, size_t from,
    size_t *end);

#endif
