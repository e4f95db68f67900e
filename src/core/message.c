/*
 * Message types and the readable form of a message (see message.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/message.h"
#include "util/names.h"
#include "util/xmalloc.h"

static const char *const msg_type_names[MSG_TYPE_COUNT] = {
	[MSG_MESSAGE] = "message",
	[MSG_BROADCAST] = "broadcast",
	[MSG_SHUTDOWN_REQUEST] = "shutdown_request",
	[MSG_SHUTDOWN_RESPONSE] = "shutdown_response",
	[MSG_PLAN_APPROVAL_REQUEST] = "plan_approval_request",
	[MSG_PLAN_APPROVAL_RESPONSE] = "plan_approval_response",
	[MSG_PERMISSION_REQUEST] = "permission_request",
	[MSG_PERMISSION_RESPONSE] = "permission_response",
	[MSG_IDLE_NOTIFICATION] = "idle_notification",
	[MSG_TEAMMATE_TERMINATED] = "teammate_terminated",
	[MSG_TASK_COMPLETED] = "task_completed",
	[MSG_TASK_ASSIGNED] = "task_assigned",
	[MSG_TASK_CHANGED] = "task_changed",
};

char *
message_cap(const char *text, size_t *cut)
{
	size_t len = strlen(text), keep = MSG_MAX_CONTENT;

	if (cut != NULL)
		*cut = 0;
	if (len <= MSG_MAX_CONTENT)
		return xstrdup(text);
	/* Back to the start of the character the cut falls in. */
	while (keep > 0 && ((unsigned char)text[keep] & 0xc0) == 0x80)
		keep--;
	if (cut != NULL)
		*cut = len - keep;
	return xasprintf("%.*s\n[… %zu bytes cut: a message holds at most "
	    "%d KiB]", (int)keep, text, len - keep, MSG_MAX_CONTENT / 1024);
}

const char *
msg_type_name(enum msg_type type)
{
	return names_get(msg_type_names, MSG_TYPE_COUNT, (int)type);
}

int
msg_type_parse(const char *name)
{
	return names_find(msg_type_names, MSG_TYPE_COUNT, name);
}

static const char *
message_meta_str(const struct message *m, const char *key)
{
	return json_string_value(json_object_get(m->metadata, key));
}

/*
 * The sender's text with every line after the first indented by two
 * spaces, so that no line of it can pass for a header. Line breaks are
 * taken as a reader would: CR, LF, CR LF, NEL, LS and PS.
 */
char *
message_indent(const char *text)
{
	size_t len = 0, cap = 0, brk;
	const char *p = text;
	char *out = NULL;

	out = xappend(out, &len, &cap, "", 0);
	while (*p != '\0') {
		if (*p == '\r' || *p == '\n')
			brk = p[0] == '\r' && p[1] == '\n' ? 2 : 1;
		else if (strncmp(p, "\xc2\x85", 2) == 0)
			brk = 2;
		else if (strncmp(p, "\xe2\x80\xa8", 3) == 0 ||
		    strncmp(p, "\xe2\x80\xa9", 3) == 0)
			brk = 3;
		else {
			out = xappend(out, &len, &cap, p, 1);
			p++;
			continue;
		}
		out = xappend(out, &len, &cap, "\n  ", 3);
		p += brk;
	}
	return out;
}

char *
message_render(const struct message *m)
{
	const char *rid = message_meta_str(m, "request_id");
	const char *status = message_meta_str(m, "status");
	json_t *approve = json_object_get(m->metadata, "approve");
	const char *verdict;
	char *text = message_indent(m->content), *line;

	if (status != NULL)
		verdict = status;
	else if (approve != NULL)
		verdict = json_is_true(approve) ? "approved" : "rejected";
	else
		verdict = NULL;
	if (rid == NULL)
		line = xasprintf("[%s from %s] %s", msg_type_name(m->type),
		    m->from, text);
	else if (verdict != NULL)
		line = xasprintf("[%s from %s, request_id %s: %s] %s",
		    msg_type_name(m->type), m->from, rid, verdict, text);
	else
		line = xasprintf("[%s from %s, request_id %s] %s",
		    msg_type_name(m->type), m->from, rid, text);
	free(text);
	return line;
}

void
message_clear(struct message *m)
{
	free(m->from);
	free(m->to);
	free(m->content);
	json_decref(m->metadata);
	memset(m, 0, sizeof *m);
}

void
message_free_array(struct message *array, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		message_clear(&array[i]);
	free(array);
}
