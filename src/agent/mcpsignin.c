/*
 * The person's sign-ins to MCP servers (see mcpsignin.h). The server's
 * thread that met the 401 asks, and waits here for the decision, looking
 * it up in the store every MCPSIGNIN_POLL_MS: one sign-in waits at a
 * time per server (the server's exchanges take turns), so the store is
 * asked little, and nothing outlives the wait.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/internal.h"
#include "agent/mcpsignin.h"
#include "core/message.h"
#include "core/protocol.h"
#include "core/roster.h"
#include "mcp/oauth.h"
#include "tools/env.h"
#include "tools/kept.h"
#include "util/log.h"
#include "util/xmalloc.h"

#define MCPSIGNIN_POLL_MS	200

/* Reaps the browser's launcher whenever it ends. */
static void *
mcpsignin_reap(void *arg)
{
	pid_t pid = (pid_t)(intptr_t)arg;
	int status;

	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	kept_end(pid);
	return NULL;
}

/* The executable `name` on PATH (malloc'd), or NULL. */
static char *
mcpsignin_on_path(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL, *full = NULL;

	if (path == NULL)
		return NULL;
	copy = xstrdup(path);
	for (dir = strtok_r(copy, ":", &save); dir != NULL;
	    dir = strtok_r(NULL, ":", &save)) {
		full = xasprintf("%s/%s", dir, name);
		if (*dir == '/' && access(full, X_OK) == 0)
			break;
		free(full);
		full = NULL;
	}
	free(copy);
	return full;
}

/* Opens url with $BROWSER, else xdg-open found on PATH: 0, or -1 when
 * there is neither (or it could not start). The program does not
 * inherit huddle's terminal, nor the secrets of its environment; it is
 * the person's own, run at their word, unconfined (doc/security.md,
 * "What huddle itself runs"). It starts as a program started from the
 * person's shell would: no signal blocked or ignored (this thread blocks
 * the ones the main thread takes), in a session of its own that the
 * sweep of escaped processes spares (tools/kept.h), so that a browser it
 * starts outlives huddle's quit. */
static int
mcpsignin_open_browser(const char *url)
{
	const char *browser = getenv("BROWSER");
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, deflt;
	char *first = NULL, *argv[6], **env, *prog = NULL;
	pthread_attr_t attr;
	pthread_t th;
	pid_t pid;
	int rc;

	if (browser != NULL && *browser != '\0') {
		/* $BROWSER may list several, separated by ':'; the first
		 * is taken, run by the shell with the URL as its argument
		 * (never spliced into the command's text). */
		first = xstrdup(browser);
		first[strcspn(first, ":")] = '\0';
		prog = xstrdup("/bin/sh");
		argv[0] = (char *)"sh";
		argv[1] = (char *)"-c";
		argv[2] = xasprintf("%s \"$1\"", first);
		argv[3] = (char *)"sh";
		argv[4] = (char *)url;
		argv[5] = NULL;
	} else if ((prog = mcpsignin_on_path("xdg-open")) != NULL) {
		argv[0] = (char *)"xdg-open";
		argv[1] = (char *)url;
		argv[2] = NULL;
	} else
		return -1;
	env = env_for_browser();
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	sigemptyset(&none);
	sigfillset(&deflt);
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID |
	    POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &deflt);
	rc = kept_spawn_session(prog, &pid, &fa, &at, argv, env);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	free(prog);
	if (first != NULL) {
		free(argv[2]);
		free(first);
	}
	if (rc != 0)
		return -1;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &attr, mcpsignin_reap,
	    (void *)(intptr_t)pid) != 0)
		log_printf("mcp: the browser's launcher will not be reaped");
	pthread_attr_destroy(&attr);
	return 0;
}

/* url as the person is shown it (malloc'd): without the user and
 * password of its authority nor its query and fragment, which may hold
 * a key. */
static char *
mcpsignin_bare(const char *url)
{
	const char *host = strstr(url, "://"), *end, *at, *p;

	if (host == NULL)
		return xasprintf("%.*s", (int)strcspn(url, "?#"), url);
	host += 3;
	end = host + strcspn(host, "/?#");
	for (at = host, p = host; p < end; p++)
		if (*p == '@')
			at = p + 1;
	return xasprintf("%.*s%.*s", (int)(host - url), url,
	    (int)strcspn(at, "?#"), at);
}

/* The request's body: its first line for the table (who asks, for
 * what, and where the token will go), then what the detail view shows
 * (malloc'd). The address of huddle's start page is not in it: the body
 * is kept in the store and printed in every event of the request, and
 * whoever read it could be at the page before the person's browser. */
static char *
mcpsignin_body(const char *name, const char *origin, const char *resource,
    const char *scopes, const char *at)
{
	char *sc = mcp_oauth_scope_clean(scopes), *res, *org, *body;

	res = mcpsignin_bare(resource);
	org = mcpsignin_bare(origin);
	body = xasprintf(MCPSIGNIN_PREFIX "%s (%s) for %s — the token goes "
	    "to %s; approve to open the sign-in page in your browser, reject "
	    "to leave the server out\n"
	    "MCP server %s asks you to sign in\n"
	    "sign-in page: %s\n"
	    "(once you approve, huddle opens its page on this machine, which "
	    "sends the browser on to the sign-in page, once; the tokens go to "
	    "your state, never to an agent)", name, sc != NULL ? sc :
	    "no scope named", res, org, name, at);
	free(sc);
	free(res);
	free(org);
	return body;
}

void
mcpsignin_recall(struct team *t)
{
	struct request *list;
	char *err = NULL;
	size_t n, i;

	n = protocol_list(t->core.proto, 0, &list);
	for (i = 0; i < n; i++) {
		if (list[i].type != REQ_PERMISSION ||
		    list[i].status != REQ_PENDING ||
		    strcmp(list[i].from, MSG_SYSTEM) != 0 ||
		    strncmp(list[i].body, MCPSIGNIN_PREFIX,
		    strlen(MCPSIGNIN_PREFIX)) != 0)
			continue;
		if (protocol_cancel(t->core.proto, list[i].id,
		    "huddle restarted "
		    "while the sign-in waited", &err) == -1) {
			log_printf("mcp: %s", err);
			free(err);
			err = NULL;
		}
	}
	request_free_array(list, n);
}

int
mcpsignin_ask(void *ud, const char *name, const char *origin,
    const char *resource, const char *scopes, const char *at,
    struct cancel *cancel, char **why)
{
	struct team *t = ud;
	char id[PROTO_ID_SIZE], *body, *err = NULL;
	struct request *r = NULL;
	enum req_status st;
	int rc;

	body = mcpsignin_body(name, origin, resource, scopes, at);
	rc = protocol_request(t->core.proto, REQ_PERMISSION, MSG_SYSTEM,
	    ROSTER_LEAD, body, id, &err);
	free(body);
	if (rc == -1) {
		*why = xasprintf("the person could not be asked: %s", err);
		free(err);
		return -1;
	}
	log_printf("mcp: %s asks the person to sign in (%s)", name, id);
	for (;;) {
		if ((r = protocol_get(t->core.proto, id)) != NULL &&
		    r->status != REQ_PENDING)
			break;
		request_free(r);
		r = NULL;
		if (cancel != NULL && cancel_sleep(cancel,
		    MCPSIGNIN_POLL_MS) != 0) {
			if (protocol_cancel(t->core.proto, id,
			    "the request that "
			    "needed the sign-in ended first", &err) == -1)
				free(err);
			*why = xstrdup("the request that needed the sign-in "
			    "ended before the person answered");
			return -1;
		}
		if (cancel == NULL)
			usleep(MCPSIGNIN_POLL_MS * 1000);
	}
	st = r->status;
	if (st == REQ_APPROVED)
		rc = 1;
	else if (st == REQ_REJECTED) {
		*why = xasprintf("the person declined to sign in%s%s",
		    r->response != NULL && *r->response ? ": " : "",
		    r->response != NULL ? r->response : "");
		rc = 0;
	} else {
		*why = xasprintf("the sign-in request %s", req_status_name(st));
		rc = -1;
	}
	request_free(r);
	return rc;
}

void
mcpsignin_open(void *ud, const char *name, const char *url)
{
	struct team *t = ud;
	char *text;

	if (mcpsignin_open_browser(url) == 0)
		text = xasprintf("the sign-in page of MCP server %s was opened "
		    "in your browser; huddle waits 5 minutes for it to come "
		    "back", name);
	else
		text = xasprintf("open %s in your browser to sign in to MCP "
		    "server %s (no $BROWSER is set and xdg-open was not "
		    "found); huddle waits 5 minutes", url, name);
	evq_notice(&t->core.events, text);
	free(text);
}
