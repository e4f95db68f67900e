/*
 * The task board as the agents work it: completing a task after its check
 * passes, and the autonomous teammate's next task (core/task.h keeps the
 * board itself; the person's task commands are teamtasks.c's).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/checking.h"
#include "agent/internal.h"
#include "agent/netgate.h"
#include "agent/permit.h"
#include "agent/places.h"
#include "agent/tasks.h"
#include "agent/teamstate.h"
#include "core/taskboard.h"
#include "core/transcript.h"
#include "tools/bash.h"
#include "tools/profile.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* How much of a failed check's output is kept and told. */
#define TASKS_CHECK_OUTPUT	4096

const char *
tasks_check_command(struct team *t, const struct task *k)
{
	if (k->verify != NULL && *k->verify != '\0')
		return k->verify;
	if (t->opts.verify != NULL && *t->opts.verify != '\0')
		return t->opts.verify;
	return NULL;
}

char *
tasks_check_refused(struct agent *a, const char *command)
{
	if (command == NULL || *command == '\0' || a->is_lead)
		return NULL;
	if (agent_plan_blocks(a))
		return xstrdup("your plan is not approved yet");
	return NULL;
}

/*
 * Whether task k's check may run at root: a check a model wrote (the
 * task's own; the team's --verify is the person's) passes the policy and
 * the permission path every bash command does (permit.c), the request
 * naming the task and who wrote it. 0, or -1 with *why (malloc'd).
 */
static int
tasks_check_permitted(struct team *t, struct agent *a, const struct task *k,
    const char *command, const char *root, struct cancel *cancel,
    char **why)
{
	char *what;
	int rc;

	if (command != k->verify || strcmp(k->created_by, MSG_USER) == 0)
		return 0;
	what = xasprintf("%s's check, written by %s", k->id, k->created_by);
	rc = permit_command(t, a, what, command, root, cancel, why);
	free(what);
	return rc;
}

/* The head of a check's output, on a character boundary. */
static char *
tasks_output_head(const char *text)
{
	size_t len = strlen(text);

	if (len <= TASKS_CHECK_OUTPUT)
		return xstrdup(text);
	len = TASKS_CHECK_OUTPUT;
	while (len > 0 && ((unsigned char)text[len] & 0xc0) == 0x80)
		len--;
	return xasprintf("%.*s\n[… %zu more bytes]", (int)len, text,
	    strlen(text) - len);
}

/* Task k stays as it was when its check may not run: the board records
 * why, as a failed check's output; 1 (not completed), or -1. */
static int
tasks_not_run(struct team *t, const char *who, const struct task *k,
    const char *command, const char *why, char **msg)
{
	struct task_change c = TASK_CHANGE_NONE;
	char *output = xasprintf("not run: %s", why), *err = NULL;
	int rc;

	c.checked = TASK_FAILED;
	c.check_output = output;
	c.if_updated_at = k->updated_at;
	rc = taskboard_update(t->core.tasks, who, k->id, &c, NULL, &err);
	*msg = rc == 0 ? xasprintf("%s is not completed: its check (%s) was "
	    "not run, since %s. It stays %s; the person may approve it when "
	    "it is completed again, or the lead may make the task again "
	    "with a check that needs no permission.", k->id, command, why,
	    k->status == TASK_PENDING ? "pending" : "in progress") : err;
	log_printf("task %s: check by %s not run: %s", k->id, who, why);
	free(output);
	return rc == 0 ? 1 : -1;
}

int
tasks_complete(struct team *t, struct agent *a, const char *id,
    const char *result, struct cancel *cancel, char **msg)
{
	const char *who = a != NULL ? a->name : MSG_USER;
	struct task_change c = TASK_CHANGE_NONE;
	struct bash_options bo;
	struct tool_output out = { 0 };
	struct task k;
	const char *command;
	struct profile *place;
	struct netgate_pass *pass;
	char *err = NULL, *head;
	int status = -1, rc;

	if (taskboard_get(t->core.tasks, id, &k) == -1) {
		*msg = xasprintf("there is no task '%s'", id ? id : "");
		return -1;
	}
	c.result = result;
	c.status = TASK_COMPLETED;
	if ((command = tasks_check_command(t, &k)) == NULL) {
		rc = taskboard_update(t->core.tasks, who, k.id, &c, NULL, &err);
		*msg = rc == 0 ? xasprintf("%s completed", k.id) : err;
		task_clear(&k);
		return rc;
	}
	/* Not run for someone the board would refuse anyway, nor when it
	 * would no longer be let run. */
	if (taskboard_may_move(t->core.tasks, who, k.id, TASK_COMPLETED,
	    &err) == -1) {
		*msg = err;
		task_clear(&k);
		return -1;
	}
	/* Where it is done: its worktree, else where its owner works. */
	if ((place = places_of_task(t, &k, &err)) == NULL) {
		*msg = xasprintf("%s cannot be checked: %s", k.id, err);
		free(err);
		task_clear(&k);
		return -1;
	}
	if (tasks_check_permitted(t, a, &k, command, place->root, cancel,
	    &err) == -1) {
		profile_free(place);
		rc = tasks_not_run(t, who, &k, command, err, msg);
		free(err);
		task_clear(&k);
		return rc;
	}
	team_bash_options(t, place, cancel, &bo);
	bo.status_out = &status;
	/* Its network, like bash's, through the proxy in the name of whoever
	 * completes the task. */
	pass = netgate_pass_new(t->netgate, who);
	bo.extra_env = netgate_pass_env(pass);
	checking_mark(t, place->root);
	bash_run(command, &bo, &out);
	checking_unmark(t, place->root);
	netgate_pass_end(t->netgate, pass);
	profile_free(place);
	head = tasks_output_head(out.text ? out.text : "");
	/* Only what the check saw counts: a task changed meanwhile is
	 * looked at again. */
	c.if_updated_at = k.updated_at;
	if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		c.checked = TASK_PASSED;
		rc = taskboard_update(t->core.tasks, who, k.id, &c, NULL, &err);
		*msg = rc == 0 ? xasprintf("%s completed: its check (%s) "
		    "passed", k.id, command) : err;
	} else {
		c.status = -1;
		c.checked = TASK_FAILED;
		c.check_output = head;
		rc = taskboard_update(t->core.tasks, who, k.id, &c, NULL, &err);
		*msg = rc == 0 ? xasprintf("%s is not completed: its check "
		    "(%s) failed, so it stays %s. Fix what the output shows "
		    "and complete it again.\n%s", k.id, command,
		    k.status == TASK_PENDING ? "pending" : "in progress",
		    head) : err;
		rc = rc == 0 ? 1 : -1;
	}
	log_printf("task %s: check by %s %s", k.id, who, rc == 0 ? "passed" :
	    "did not pass");
	free(head);
	tool_output_clear(&out);
	task_clear(&k);
	return rc;
}

int
tasks_next(struct agent *a)
{
	struct team *t = a->team;
	struct task k;
	json_t *entry;
	char *err = NULL;
	int rc;

	if (taskboard_current(t->core.tasks, a->name, &k) == 0) {
		/* Once: a model that will not finish it waits for the lead
		 * rather than going round for ever. */
		rc = k.num != a->turn.reminded;
		if (rc) {
			a->turn.reminded = k.num;
			rc = agent_record(a, task_handover_entry(&k,
			    "is still yours and in progress",
			    "Go on with it.")) == 0;
		}
		task_clear(&k);
		return rc;
	}
	rc = taskboard_claim(t->core.tasks, a->name, NULL, &k, &entry, &err);
	if (rc == -1) {
		agent_error(a, "could not claim a task: %s", err);
		free(err);
		return 0;
	}
	if (rc == 0)
		return 0;
	/* Stored with the claim; kept in memory here. */
	json_array_append_new(a->turn.transcript, entry);
	a->turn.reminded = k.num;
	task_clear(&k);
	return 1;
}
