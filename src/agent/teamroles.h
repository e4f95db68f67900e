/*
 * A spawn with a role (teamroles.c): what the role's definition and
 * the person's settings add to the lead's request, and the team's roles,
 * read when it opens.
 */
#ifndef HUDDLE_AGENT_TEAMROLES_H
#define HUDDLE_AGENT_TEAMROLES_H

struct spawn_request;
struct team;

/*
 * Copies s into *out with the role it names applied (roles.h): the
 * settings' model for that role, else the role's, else s's; a plan
 * required and autonomy when either asks. Claude Code's model aliases
 * (sonnet, opus, haiku) become the catalog's model of that family.
 */
void team_role_apply(struct team *t, const struct spawn_request *s,
    struct spawn_request *out);

/* Reads the team's roles (roles_load) into t->roles, with a notice for
 * each file left out. Returns 0, or -1 with *err (a person's role file
 * is wrong). */
int team_roles_open(struct team *t, char **err);

#endif
