/*
 * A member that runs tool calls on the calling thread, with no model and
 * no thread of its own (see team.h): what the fuzzers and tests reach the
 * tools through, the same dispatch and gates as an agent's turn, without
 * knowing what an agent is made of.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/internal.h"
#include "agent/teamsandbox.h"
#include "agent/tools.h"
#include "util/xmalloc.h"

struct agent *
team_tool_member(struct team *t, const char *name, char **err)
{
	struct agent *a = xcalloc(1, sizeof *a);

	a->team = t;
	a->name = xstrdup(name);
	a->role = xstrdup(name);
	a->is_lead = strcmp(name, ROSTER_LEAD) == 0;
	a->status = MEMBER_IDLE;
	a->turn.transcript = json_array();
	cancel_init(&a->run.cancel);
	if ((a->at.home = team_sandbox_profile(t, t->home.workdir, 0,
	    err)) == NULL) {
		agent_free(a);
		return NULL;
	}
	return a;
}

void
team_tool_call(struct agent *a, const char *tool, json_t *input,
    struct tool_output *out)
{
	tools_run(a, tool, input, out);
	/* The next call starts afresh, as from a new turn. */
	json_array_clear(a->turn.transcript);
	a->turn.leaving = 0;
	a->turn.pausing = 0;
	free(a->turn.leave_reason);
	a->turn.leave_reason = NULL;
}

void
team_tool_member_free(struct agent *a)
{
	agent_free(a);
}
