/*
 * What a quit withdraws: the permission requests that wait for the person
 * when it begins (nobody will wait for their answers) are withdrawn with
 * TEAM_WITHDRAWN, and named in a file of the team's state, which the
 * next start reads for its notice, once.
 */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/internal.h"
#include "agent/teamwithdraw.h"
#include "core/permbody.h"
#include "util/log.h"
#include "util/safefile.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* The file of the team's state that names what the last quit withdrew. */
#define TEAM_WITHDRAWN_FILE "withdrawn-at-quit"

/* One withdrawn request in a line: "req_x carl's bash: rm -rf junk". */
static char *
team_withdrawn_line(const struct request *r)
{
	struct permbody b;
	char *what, *cmd, *line;
	size_t n;

	/* Words a model wrote: one line, printable, cut on a character. */
	if (permbody_parse(r->body, &b) == 0) {
		n = strcspn(b.command, "\n");
		cmd = utf8_clean(b.command, n, 80);
		what = xasprintf("%s: %s%s", b.tool, cmd, n > strlen(cmd) ||
		    b.command[n] != '\0' ? "…" : "");
		free(cmd);
		permbody_clear(&b);
	} else
		what = utf8_clean(r->body, strcspn(r->body, "\n"), 120);
	line = xasprintf("%s %s's %s\n", r->id, r->from, what);
	free(what);
	return line;
}

/* Writes len bytes of text as the file path, whole or not at all (a
 * file beside it, then renamed). */
static void
team_write_whole(const char *path, const char *text, size_t len)
{
	char *tmp = xasprintf("%s.tmp", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
	    O_NOFOLLOW, 0600);
	int ok = fd != -1 && write(fd, text, len) == (ssize_t)len;

	if (fd != -1 && close(fd) == -1)
		ok = 0;
	if (!ok || rename(tmp, path) == -1) {
		log_printf("quit: cannot write %s", path);
		unlink(tmp);
	}
	free(tmp);
}

void
team_withdraw_pending(struct team *t)
{
	struct request *list;
	size_t n = protocol_list(t->core.proto, 0, &list), i, len = 0, cap = 0;
	char *text = NULL, *line, *path, *err = NULL;

	for (i = 0; i < n; i++) {
		if (list[i].status != REQ_PENDING ||
		    list[i].type != REQ_PERMISSION)
			continue;
		if (protocol_cancel(t->core.proto, list[i].id, TEAM_WITHDRAWN,
		    &err) == -1) {
			log_printf("quit: %s", err);
			free(err);
			err = NULL;
			continue;
		}
		line = team_withdrawn_line(&list[i]);
		text = xappend(text, &len, &cap, line, strlen(line));
		free(line);
	}
	request_free_array(list, n);
	if (text == NULL)
		return;
	path = xasprintf("%s/%s", t->home.state, TEAM_WITHDRAWN_FILE);
	team_write_whole(path, text, len);
	free(path);
	free(text);
}

void
team_quit_told(struct team *t)
{
	char *path = xasprintf("%s/%s", t->home.state, TEAM_WITHDRAWN_FILE);
	char *text, *err = NULL;
	size_t len = 0;

	text = safefile_read(AT_FDCWD, path, 0, 64 * 1024, &len, &err);
	if (text != NULL && (len = strlen(text)) > 0) {
		size_t i, lines = 0;

		for (i = 0; i < len; i++) {
			if (text[i] == '\n' && i + 1 < len) {
				text[i] = ';';
				lines++;
			}
		}
		if (text[len - 1] == '\n')
			text[--len] = '\0';
		event_notice(&t->core.events, NULL, "the last quit withdrew "
		    "%s (%s waited for you; %s agent%s told)", text,
		    lines > 0 ? "they" : "it",
		    lines > 0 ? "their" : "its", lines > 0 ? "s were" :
		    " was");
		unlink(path);
	}
	free(err);
	free(text);
	free(path);
}

