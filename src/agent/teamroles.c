/*
 * A spawn with a role (see teamroles.h): what the
 * role's definition and the person's settings add to the lead's request.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "agent/internal.h"
#include "agent/roles.h"
#include "agent/teamroles.h"

void
team_role_apply(struct team *t, const struct spawn_request *s,
    struct spawn_request *out)
{
	struct spawn_request in = *s;	/* out may be s */
	const struct role *r = roles_find(t->roles, in.role);
	const char *set = json_string_value(json_object_get(json_object_get(
	    t->opts.roles, in.role), "model"));

	*out = in;
	if (r != NULL) {
		if (r->model != NULL)
			out->model = r->model;
		/* A role adds gates; it never takes one the lead asked for
		 * away. */
		out->plan_required = in.plan_required || r->plan_required;
		out->autonomous = in.autonomous || r->autonomous;
	}
	if (set != NULL && *set != '\0')
		out->model = set;
	/* "opus" means the same from the lead, a role or the settings. */
	out->model = catalog_alias(t->opts.catalog, out->model);
}

json_t *
team_roles_json(struct team *t)
{
	return roles_json(t->roles);
}

int
team_roles_open(struct team *t, char **err)
{
	size_t i;

	if (roles_load(t->opts.config_dir, t->home.workdir, t->opts.mcp_servers,
	    &t->roles, err) == -1)
		return -1;
	for (i = 0; i < t->roles->nnotices; i++)
		event_notice(&t->core.events, NULL, "%s", t->roles->notices[i]);
	return 0;
}
