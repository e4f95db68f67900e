/*
 * A task as a value (see task.h): the names of its status and check,
 * its id, freeing it, and what the board says of it in words — its line,
 * its full form, its handover to a model and the news of it the board
 * posts. The board itself, in the store, is taskboard.c.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/message.h"
#include "core/task.h"
#include "core/transcript.h"
#include "util/names.h"
#include "util/xmalloc.h"

static const char *const task_status_names[TASK_STATUS_COUNT] = {
	[TASK_PENDING] = "pending",
	[TASK_IN_PROGRESS] = "in_progress",
	[TASK_COMPLETED] = "completed",
	[TASK_CANCELLED] = "cancelled",
};

static const char *const task_check_names[] = {
	[TASK_UNCHECKED] = "none",
	[TASK_PASSED] = "passed",
	[TASK_FAILED] = "failed",
};

const char *
task_status_name(enum task_status status)
{
	return names_get(task_status_names, TASK_STATUS_COUNT, (int)status);
}

int
task_status_parse(const char *name)
{
	return names_find(task_status_names, TASK_STATUS_COUNT, name);
}

const char *
task_check_name(enum task_check check)
{
	return names_get(task_check_names, TASK_FAILED + 1, (int)check);
}

int
task_check_parse(const char *name)
{
	return names_find(task_check_names, TASK_FAILED + 1, name);
}

int
task_id_parse(const char *id, int64_t *num)
{
	int64_t n = 0;

	if (id == NULL)
		return -1;
	if (*id == 't' || *id == 'T')
		id++;
	if (*id < '1' || *id > '9' || strlen(id) > 12)
		return -1;
	for (; *id != '\0'; id++) {
		if (*id < '0' || *id > '9')
			return -1;
		n = n * 10 + (*id - '0');
	}
	*num = n;
	return 0;
}

void
task_clear(struct task *t)
{
	free(t->subject);
	free(t->description);
	free(t->owner);
	free(t->blocked_by);
	free(t->created_by);
	free(t->result);
	free(t->verify);
	free(t->check_output);
	free(t->worktree);
	memset(t, 0, sizeof *t);
}

void
task_free_array(struct task *array, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		task_clear(&array[i]);
	free(array);
}


/* --- in words ------------------------------------------------------------------ */

static char *
task_ids_text(const int64_t *nums, size_t n)
{
	char *text = xstrdup(""), *next;
	size_t i;

	for (i = 0; i < n; i++) {
		next = xasprintf("%s%st%" PRId64, text, i ? ", " : "",
		    nums[i]);
		free(text);
		text = next;
	}
	return text;
}

char *
task_line(const struct task *t)
{
	char *after = task_ids_text(t->blocked_by, t->nblocked_by), *line;

	/* The board's marks come before the colon; the subject, which
	 * anyone may write, only after it. */
	line = xasprintf("%s %s%s%s%s%s%s%s%s%s%s%s: %s", t->id,
	    task_status_name(t->status), t->owner ? " " : "",
	    t->owner ? t->owner : "", t->owner_gone ? " (gone)" : "",
	    t->checked == TASK_PASSED ? " [verified]" : t->checked ==
	    TASK_FAILED ? " [check failed]" : "", t->nblocked_by ?
	    " (after " : "", after, t->nblocked_by ? (t->blocked &&
	    t->status == TASK_PENDING ? "; blocked)" : ")") : "",
	    t->worktree ? " [worktree " : "", t->worktree ? t->worktree : "",
	    t->worktree ? (t->worktree_busy ? ", in use]" : "]") : "",
	    t->subject);
	free(after);
	return line;
}

/* Text someone else wrote, four spaces in: deeper than the board's own
 * lines of a task, so none of it can pass for one of them. */
static char *
task_indent(const char *text)
{
	char *once = message_indent(text), *out = NULL;
	size_t len = 0, cap = 0;
	const char *p;

	out = xappend(out, &len, &cap, "    ", 4);
	for (p = once; *p != '\0'; p++) {
		out = xappend(out, &len, &cap, p, 1);
		if (*p == '\n')
			out = xappend(out, &len, &cap, "  ", 2);
	}
	free(once);
	return out;
}

char *
task_render(const struct task *t)
{
	char *line = task_line(t), *desc = task_indent(t->description);
	char *result = task_indent(t->result);
	char *check = task_indent(t->check_output), *text;
	char *verify = task_indent(t->verify ? t->verify : "");
	int failed = t->checked == TASK_FAILED && *t->check_output;

	text = xasprintf("%s\n  made by %s%s%s%s%s%s%s%s%s", line,
	    t->created_by, t->verify ? "\n  checked by:\n" : "",
	    t->verify ? verify : "", *t->description ?
	    "\n  description:\n" : "", *t->description ? desc : "",
	    *t->result ? "\n  result:\n" : "", *t->result ? result : "",
	    failed ? "\n  the failed check said:\n" : "", failed ? check :
	    "");
	free(line);
	free(desc);
	free(result);
	free(check);
	free(verify);
	return text;
}

static char *
task_result_brief(const char *result)
{
	size_t len = strcspn(result, "\r\n"), cut = len > 200 ? 200 : len;

	while (cut > 0 && cut < len && ((unsigned char)result[cut] & 0xc0) ==
	    0x80)
		cut--;
	return xasprintf("%.*s%s", (int)cut, result, cut < strlen(result) ?
	    " …" : "");
}

char *
task_handover(const struct task *t, const char *header, const char *opening)
{
	char *body = task_render(t), *text;

	char *place = t->worktree == NULL ? xstrdup("") : xasprintf(" It is "
	    "done in the git worktree %s, on the branch huddle/%s: while it "
	    "is yours, your commands and file tools work there (relative "
	    "paths start there), and the rest of the working tree is out of "
	    "their reach. Leave git to huddle; the person reviews and merges "
	    "the worktree.", t->worktree, t->worktree);

	text = xasprintf("[task %s %s]\n%s\n\n%s%s When it is done, call "
	    "task_update with id %s, status completed and a short result; if "
	    "you cannot do it, call task_update with status pending to give "
	    "it back.", t->id, header, body, opening, place, t->id);
	free(place);
	free(body);
	return text;
}

json_t *
task_handover_entry(const struct task *t, const char *header,
    const char *opening)
{
	char *text = task_handover(t, header, opening);
	json_t *entry = transcript_user_text(text);

	free(text);
	return entry;
}

char *
task_closed_text(const struct task *closed, size_t n)
{
	char *text = xstrdup("Every task you were waiting on is closed:");
	char *line, *brief, *next;
	size_t i;

	for (i = 0; i < n; i++) {
		brief = task_result_brief(closed[i].result);
		line = task_line(&closed[i]);
		next = xasprintf("%s\n%s%s%s", text, line, *brief ?
		    " — result: " : "", brief);
		free(text);
		free(line);
		free(brief);
		text = next;
	}
	return text;
}

char *
task_completed_text(const struct task *t, const char *who)
{
	char *brief = task_result_brief(t->result), *text;
	int other = t->owner != NULL && strcmp(t->owner, who) != 0;

	text = xasprintf("%s completed by %s%s%s%s: %s%s%s", t->id, who,
	    other ? " (its owner: " : "", other ? t->owner : "",
	    other ? ")" : "", t->subject, *brief ? " — result: " : "", brief);
	free(brief);
	return text;
}

char *
task_unblocked_text(const struct task *t)
{
	return xasprintf("%s, which is yours, waits for nothing now: start "
	    "it with task_claim (id %s).", t->id, t->id);
}

char *
task_left_text(const char *list, int n)
{
	return xasprintf("It leaves %s in progress: give %s to another "
	    "teammate with task_assign, or put %s back on the board with "
	    "task_update status pending.", list, n == 1 ? "it" : "them",
	    n == 1 ? "it" : "them");
}
