/*
 * --ask (see ask.h): one call, no team, no store. What reached stdout
 * cannot be taken back, so a stream that breaks is reported rather than
 * asked for again.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ask.h"
#include "llm/llm.h"

/* For the signal handler: the call to cancel. */
static struct llm_client *ask_client;
static int ask_wrote;	/* the reply has started on stdout */

static void
ask_interrupt(int sig)
{
	(void)sig;
	if (ask_client != NULL)
		llm_cancel(ask_client);
}

static void
ask_event(void *ud, const struct llm_event *ev)
{
	(void)ud;
	switch (ev->type) {
	case LLM_EV_TEXT:
		fwrite(ev->text, 1, ev->len, stdout);
		fflush(stdout);
		ask_wrote = 1;
		break;
	case LLM_EV_THINKING:	/* --ask shows the answer only */
	case LLM_EV_TOOL:
		break;
	case LLM_EV_RETRY:
		fprintf(stderr, "huddle: %s; retrying in %.1f s\n", ev->error,
		    ev->delay_ms / 1000.0);
		break;
	}
}

int
ask_run(const struct llm_config *cfg, const char *text)
{
	struct llm_config one;
	struct llm_request req = { 0 };
	struct llm_result res;
	struct sigaction sa;
	char *line;
	int rc;

	req.messages = json_pack("[{s:s, s:[{s:s, s:s}]}]", "role", "user",
	    "content", "type", "text", "text", text);
	if (req.messages == NULL) {
		fprintf(stderr, "huddle: --ask needs non-empty UTF-8 text\n");
		return 2;
	}
	one = *cfg;
	one.retry_streams = 0;
	ask_client = llm_client_new(&one);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = ask_interrupt;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	rc = llm_call(ask_client, &req, ask_event, NULL, &res);
	if (rc == 0 && llm_refused(&res)) {
		/* What it said is on stdout; that it refused, on stderr and
		 * in the status. */
		fputc('\n', stdout);
		fflush(stdout);
		fprintf(stderr, "huddle: the model refused to answer (stop "
		    "reason \"refusal\")\n");
		rc = 3;
	} else if (rc == 0)
		fputc('\n', stdout);
	else {
		/* End a reply that broke off, so the error gets its own line. */
		if (ask_wrote)
			fputc('\n', stdout);
		fflush(stdout);
		line = llm_result_error_line(&res);
		fprintf(stderr, "huddle: %s\n", line);
		free(line);
		rc = res.status == LLM_ERR_CANCELLED ? 130 : 1;
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	llm_result_clear(&res);
	llm_client_free(ask_client);
	ask_client = NULL;
	json_decref(req.messages);
	return rc;
}
