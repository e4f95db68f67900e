/*
 * Claude Code's settings files in a project: <workdir>/.claude/
 * settings.json and .claude/settings.local.json. They lie in the working
 * tree, which the team's commands can write, so only what narrows or is
 * neutral is taken from them:
 *   - "permissions": "deny" and "ask" rules (tools/ccrules.h) — a deny
 *     refuses a call, an ask makes the person decide; "allow" and the
 *     rest of "permissions" would relax, and are not read;
 *   - "model", as the project's own settings' "model" would be, unless a
 *     stronger source (the person's settings, the command line, the
 *     environment, huddle's own project settings) chose one.
 * Everything else ("env", "hooks", "apiKeyHelper", "statusLine" …) is
 * not read, and never run; the start's notice names it (doc/settings.md).
 */
#ifndef HUDDLE_CCSETTINGS_H
#define HUDDLE_CCSETTINGS_H

#include "options.h"

/*
 * Reads both files of the project at workdir (absolute) into o: the
 * rules into o->claude_rules (made when absent), the model into o, and
 * a sentence for each file read into o->claude_notice ("read
 * .claude/settings.json: deny (3 rules), model; not read: hooks,
 * permissions.allow"). Each file is read beneath workdir (never through
 * a link out of it, never a FIFO, at most a megabyte). A missing file
 * is no error. Returns 0, or -1 with *err (malloc'd) naming the file: one
 * that cannot be read safely, is not JSON, or whose "permissions" is
 * malformed — its deny rules must never be dropped in silence.
 */
int ccsettings_read(struct options *o, const char *workdir, char **err);

#endif
