/*
 * huddle: a team of LLM agents in one terminal.
 *
 * main() parses the command line, wires the layers together, and owns
 * start-up and orderly shutdown.
 */
#include "config.h"

#include <curl/curl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm/llm.h"
#include "llm/script.h"
#include "util/xmalloc.h"

#define DEFAULT_ANTHROPIC_URL	"https://api.anthropic.com"
#define DEFAULT_OPENAI_URL	"https://api.openai.com/v1"
#define DEFAULT_ANTHROPIC_MODEL	"claude-sonnet-4-5"
#define DEFAULT_OPENAI_MODEL	"gpt-4o-mini"

struct options {
	const char	*provider;
	const char	*model;
	const char	*base_url;
	const char	*script;
	const char	*ask;
	int		 stream;
	int		 max_retries;
};

static void
usage(FILE *out)
{
	fprintf(out,
	    "usage: huddle [options]\n"
	    "       huddle --ask TEXT [options]\n"
	    "\n"
	    "Runs a team of LLM agents in one terminal: a lead you talk to and\n"
	    "teammates it spawns, coordinating through durable inboxes.\n"
	    "\n"
	    "options:\n"
	    "  --ask TEXT            send TEXT to the model, stream the reply to\n"
	    "                        stdout, and exit (checks a key, model or server)\n"
	    "  --provider NAME       anthropic (default), openai, or script\n"
	    "  --model NAME          the model (default: $HUDDLE_MODEL, else\n"
	    "                        " DEFAULT_ANTHROPIC_MODEL " / "
	    DEFAULT_OPENAI_MODEL ")\n"
	    "  --base-url URL        the API's base URL (default: $ANTHROPIC_BASE_URL\n"
	    "                        or $OPENAI_BASE_URL, else the vendor's)\n"
	    "  --script FILE         the scenario for --provider script\n"
	    "  --no-stream           ask for whole replies instead of streams\n"
	    "  --max-retries N       retries of a failed call (default 2)\n"
	    "  -h, --help            show this help and exit\n"
	    "  -V, --version         show the version and exit\n"
	    "\n"
	    "environment:\n"
	    "  ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL   for --provider anthropic\n"
	    "  OPENAI_API_KEY, OPENAI_BASE_URL         for --provider openai\n"
	    "  HUDDLE_MODEL                            the default model\n"
	    "\n"
	    "State lives in <workdir>/.huddle/ (see huddle(1)).\n");
}

static const char *
env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? v : fallback;
}

/* Fills cfg from the options and the environment. The strings it points
 * to live in opts, the environment, or `owned` (free it afterwards). */
static int
settings(const struct options *o, struct llm_config *cfg, char **owned,
    char **err)
{
	size_t len;

	llm_config_defaults(cfg);
	cfg->stream = o->stream;
	if (o->max_retries >= 0)
		cfg->max_retries = o->max_retries;
	if (strcmp(o->provider, "anthropic") == 0) {
		cfg->provider = LLM_ANTHROPIC;
		cfg->api_key = env_or("ANTHROPIC_API_KEY", NULL);
		cfg->base_url = o->base_url ? o->base_url :
		    env_or("ANTHROPIC_BASE_URL", DEFAULT_ANTHROPIC_URL);
		cfg->model = o->model ? o->model :
		    env_or("HUDDLE_MODEL", DEFAULT_ANTHROPIC_MODEL);
		if (cfg->api_key == NULL) {
			*err = xstrdup("ANTHROPIC_API_KEY is not set (or use "
			    "--provider openai for a local server)");
			return -1;
		}
	} else if (strcmp(o->provider, "openai") == 0) {
		cfg->provider = LLM_OPENAI;
		/* Local servers need no key. */
		cfg->api_key = env_or("OPENAI_API_KEY", "");
		cfg->base_url = o->base_url ? o->base_url :
		    env_or("OPENAI_BASE_URL", DEFAULT_OPENAI_URL);
		cfg->model = o->model ? o->model :
		    env_or("HUDDLE_MODEL", DEFAULT_OPENAI_MODEL);
	} else if (strcmp(o->provider, "script") == 0) {
		cfg->provider = LLM_SCRIPT;
		cfg->model = "script";
		if (o->script == NULL) {
			*err = xstrdup("--provider script needs --script FILE");
			return -1;
		}
		if ((cfg->script = script_load(o->script, err)) == NULL)
			return -1;
	} else {
		*err = xasprintf("unknown provider '%s' (anthropic, openai, "
		    "script)", o->provider);
		return -1;
	}
	if (cfg->base_url != NULL) {
		/* The provider appends its path: drop a trailing slash. */
		*owned = xstrdup(cfg->base_url);
		len = strlen(*owned);
		while (len > 0 && (*owned)[len - 1] == '/')
			(*owned)[--len] = '\0';
		cfg->base_url = *owned;
	}
	return 0;
}

static struct llm_client *ask_client;
static int ask_wrote;	/* the reply has started on stdout */

static void
ask_interrupt(int sig)
{
	if (ask_client != NULL)
		llm_cancel(ask_client);
}

static void
ask_event(void *ud, const struct llm_event *ev)
{
	switch (ev->type) {
	case LLM_EV_TEXT:
		fwrite(ev->text, 1, ev->len, stdout);
		fflush(stdout);
		ask_wrote = 1;
		break;
	case LLM_EV_TOOL:
		break;
	case LLM_EV_RETRY:
		fprintf(stderr, "huddle: %s; retrying in %.1f s\n", ev->error,
		    ev->delay_ms / 1000.0);
		break;
	}
}

/* --ask: one user message, the reply streamed to stdout. */
static int
ask(const struct llm_config *cfg, const char *text)
{
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
	ask_client = llm_client_new(cfg);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = ask_interrupt;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	rc = llm_call(ask_client, &req, ask_event, NULL, &res);
	if (rc == 0) {
		fputc('\n', stdout);
		rc = 0;
	} else {
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

/* Says what was wrong with the command line; returns the status 2. */
static int
bad_usage(const char *what)
{
	fprintf(stderr, "huddle: %s\nTry 'huddle --help' for the options.\n",
	    what);
	return 2;
}

int
main(int argc, char **argv)
{
	enum { OPT_ASK = 256, OPT_PROVIDER, OPT_MODEL, OPT_BASE_URL,
	    OPT_SCRIPT, OPT_NO_STREAM, OPT_MAX_RETRIES };
	static const struct option options[] = {
		{ "ask", required_argument, NULL, OPT_ASK },
		{ "provider", required_argument, NULL, OPT_PROVIDER },
		{ "model", required_argument, NULL, OPT_MODEL },
		{ "base-url", required_argument, NULL, OPT_BASE_URL },
		{ "script", required_argument, NULL, OPT_SCRIPT },
		{ "no-stream", no_argument, NULL, OPT_NO_STREAM },
		{ "max-retries", required_argument, NULL, OPT_MAX_RETRIES },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { "anthropic", NULL, NULL, NULL, NULL, 1, -1 };
	struct llm_config cfg;
	char *owned = NULL, *err = NULL, *end;
	int c, rc;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "hV", options, NULL)) != -1) {
		switch (c) {
		case OPT_ASK:
			o.ask = optarg;
			break;
		case OPT_PROVIDER:
			o.provider = optarg;
			break;
		case OPT_MODEL:
			o.model = optarg;
			break;
		case OPT_BASE_URL:
			o.base_url = optarg;
			break;
		case OPT_SCRIPT:
			o.script = optarg;
			break;
		case OPT_NO_STREAM:
			o.stream = 0;
			break;
		case OPT_MAX_RETRIES:
			o.max_retries = (int)strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' ||
			    o.max_retries < 0 || o.max_retries > 10)
				return bad_usage("--max-retries takes a number "
				    "from 0 to 10");
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("huddle %s\n", PACKAGE_VERSION);
			return 0;
		default:
			if (optopt != 0 && optopt < 256)
				fprintf(stderr, "huddle: bad option '-%c'\n",
				    optopt);
			else
				fprintf(stderr, "huddle: bad option '%s'\n",
				    argv[optind - 1]);
			fprintf(stderr, "Try 'huddle --help' for the options.\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "huddle: unexpected argument '%s'\n",
		    argv[optind]);
		return bad_usage("options start with '-'");
	}

	/* Before any thread exists: libcurl's global state, and no SIGPIPE
	 * from a server that hangs up while we write. */
	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_ALL);
	if (settings(&o, &cfg, &owned, &err) == -1) {
		fprintf(stderr, "huddle: %s\n", err);
		free(err);
		curl_global_cleanup();
		return 2;
	}
	if (o.ask != NULL)
		rc = ask(&cfg, o.ask);
	else {
		fprintf(stderr, "huddle: the team is not built yet; this "
		    "version provides --ask, --version and --help\n");
		rc = 1;
	}
	script_free(cfg.script);
	free(owned);
	curl_global_cleanup();
	return rc;
}
