/*
 * Claude Code's permission rules, as its settings files write them in
 * "permissions": "deny" and "ask" lists of rules such as "Bash(curl:*)",
 * "Bash(npm run build)", "Read(./.env)", "Edit(*.key)" or a bare tool
 * name, "Bash". Each is matched against huddle's own tools:
 *
 *   - Bash(PREFIX:*) (or "PREFIX *") matches a command whose words start
 *     with PREFIX's words; Bash(WORDS) one whose words are WORDS; a rule
 *     with another '*' is a glob over the words joined by blanks. Every
 *     simple command sh would run is tried (chains, pipelines, $(...),
 *     sh -c, after wrappers such as env, timeout, xargs: tools/policy.h),
 *     from its first word and from its command word; a command written
 *     by its path (/usr/bin/curl) matches as its base name.
 *   - Read(PATH) matches read_file; Edit(PATH) edit_file and write_file;
 *     Write(PATH) write_file. PATH is gitignore-style: "./x" or "/x" or
 *     "a/b" from the project's top, "x" (no slash) at any depth, "**"
 *     any number of folders, "*" and "?" within one name, "//x" an
 *     absolute path, "~/x" beneath HOME; a rule that matches a folder
 *     matches everything beneath it.
 *   - A bare Bash, Read, Edit, Write (or MultiEdit) matches every call
 *     of its tools.
 *
 * Other tools (WebFetch, mcp__…) have no counterpart in huddle's tools:
 * such rules are kept out, and the caller says so.
 */
#ifndef HUDDLE_TOOLS_CCRULES_H
#define HUDDLE_TOOLS_CCRULES_H

#include <stddef.h>

/* The lists of "permissions" that huddle honours. */
enum ccrules_list {
	CCRULES_DENY,	/* refused */
	CCRULES_ASK,	/* the person is asked first */
	CCRULES__COUNT
};

struct ccrules;

/* An empty set of rules; never NULL. */
struct ccrules *ccrules_new(void);
void ccrules_free(struct ccrules *r);

/*
 * Adds rule (as written) to list, from the file named origin (for the
 * messages: ".claude/settings.json"). Returns 1 when it applies to a
 * huddle tool, 0 when it has none (the rule is not kept).
 */
int ccrules_add(struct ccrules *r, enum ccrules_list list, const char *rule,
    const char *origin);

/* How many rules list holds. */
size_t ccrules_count(const struct ccrules *r, enum ccrules_list list);

/*
 * The first rule of list that bash command matches, as a malloc'd phrase
 * ("Bash(curl:*) of .claude/settings.json"), or NULL when none does (or
 * r is NULL).
 */
char *ccrules_bash(const struct ccrules *r, enum ccrules_list list,
    const char *command);

/*
 * The first rule of list that a call of huddle's tool ("read_file",
 * "write_file", "edit_file") on the file `path` matches, as
 * ccrules_bash says it, or NULL. root is the project's top (or the
 * worktree that stands for it), absolute: relative rules are read from
 * it, and a relative path too. The path is read lexically ("." and ".."
 * resolved, links not followed: the caller tries the real path too).
 */
char *ccrules_file(const struct ccrules *r, enum ccrules_list list,
    const char *tool, const char *root, const char *path);

#endif
