/*
 * Teammate roles: agent definition files, Markdown with a front matter
 * (util/frontmatter.h) of name, description, model, tools, mcpServers,
 * plan_required and autonomous, whose body is the role's prompt. They
 * are read once, when the team opens, from the Markdown files of the
 * person's <config>/agents/, the project's .huddle/agents/ and Claude
 * Code's .claude/agents/. A project role (either folder of the
 * working tree) never grants more than the person allows: see
 * doc/roles.md for the rules roles_add applies.
 */
#ifndef HUDDLE_AGENT_ROLES_H
#define HUDDLE_AGENT_ROLES_H

#include <jansson.h>
#include <stddef.h>

/* Where a role was defined, in order of precedence. */
enum role_origin {
	ROLE_PERSON,		/* <config>/agents/ */
	ROLE_PROJECT,		/* .huddle/agents/ in the working tree */
	ROLE_CLAUDE		/* .claude/agents/ in the working tree */
};

struct role {
	char			*name;
	char			*description;	/* "" when none */
	char			*model;		/* NULL: the team's */
	char			*prompt;	/* the body; "" when none */
	char			*path;		/* as shown to people */
	enum role_origin	 origin;
	int			 has_tools;	/* only the tools below */
	char			**tools;	/* huddle's names, and MCP
						 * patterns mcp__S__T,
						 * mcp__S__*, mcp__S */
	size_t			 ntools;
	char			**denied;	/* Claude's disallowedTools */
	size_t			 ndenied;
	int			 has_mcp;	/* only the servers below */
	char			**mcp;		/* MCP server names */
	size_t			 nmcp;
	int			 plan_required;
	int			 autonomous;
	char			*note;		/* what was left out of the
						 * file, for /roles; or NULL */
	char			*file_name;	/* the file's name without .md */
};

/* A project's role file that could not be used: spawning its role must
 * not fall back to a free word with every tool. */
struct role_refused {
	char			*name;		/* its name: key, or NULL */
	char			*file_name;	/* without .md */
	char			*why;
};

struct roles {
	struct role		*v;
	size_t			 n, cap;
	char			**notices;	/* files left out, and why */
	size_t			 nnotices, capnotices;
	struct role_refused	*refused;
	size_t			 nrefused, caprefused;
};

/*
 * Parses one definition file's text, named path in messages, into *out;
 * file_name (its name without ".md") names the role when the front
 * matter does not. mcp_servers is the person's servers (an object keyed
 * by name, or NULL): a role may name no other. Returns 0, or -1 with
 * *err as "path:line: sentence".
 */
int role_parse(const char *text, const char *path, const char *file_name,
    enum role_origin origin, const json_t *mcp_servers, struct role *out,
    char **err);

/* Adds what to the note of r. */
void role_note(struct role *r, const char *what);

/*
 * Adds r (taken over) to rs under the rules: the person's role of a name
 * wins over the project's, and .huddle/agents' over .claude/agents'; a
 * project role cannot make a teammate autonomous. The role left out is
 * freed and a notice says why.
 */
void roles_add(struct roles *rs, struct role *r);

/*
 * Reads every role: config_dir (or NULL) and workdir's folders. A file
 * of the person's that is wrong stops the load (-1 with *err); one of
 * the project's is left out with a notice. Returns the roles (never
 * NULL on 0).
 */
int roles_load(const char *config_dir, const char *workdir,
    const json_t *mcp_servers, struct roles **out, char **err);

/* The role called name (by its name, else by its file's), or NULL. */
const struct role *roles_find(const struct roles *rs, const char *name);

/* Why the role called name (by the name its file gives, or the file's)
 * could not be used, when a file of that name was left out; else NULL. */
const char *roles_refused(const struct roles *rs, const char *name);

/* Whether a teammate of role r (NULL: no role) is given tool `name`:
 * huddle's working tools (bash, read_file, write_file, edit_file) and MCP
 * tools only when the role lists them; the team's own tools (messages,
 * plans, shutdown, the task board) always. */
int role_allows_tool(const struct role *r, const char *name);

/* The MCP servers role r may use: *n of them, or NULL when it names
 * none (then every server the person's settings allow). */
char *const *role_mcp_servers(const struct role *r, size_t *n);

/* The roles as the lead's spawn_teammate tool lists them: "" when there
 * are none. Fixed for the team's life. */
char *roles_describe(const struct roles *rs);

/* /roles: {roles: [{name, description, model, tools, mcp_servers,
 * plan_required, autonomous, origin, path, note?}], notices: [...]}. */
json_t *roles_json(const struct roles *rs);

/* "the person's", "the project's", "Claude Code's". */
const char *role_origin_name(enum role_origin o);

void role_clear(struct role *r);
void roles_free(struct roles *rs);

#endif
