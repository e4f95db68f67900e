/*
 * huddle: a team of LLM agents in one terminal.
 *
 * main() parses the command line, wires the layers together, and owns
 * start-up and orderly shutdown.
 */
#include "config.h"

#include <curl/curl.h>
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/team.h"
#include "core/statedir.h"
#include "demo.h"
#include "headless.h"
#include "llm/catalog.h"
#include "llm/catalog_user.h"
#include "llm/llm.h"
#include "llm/script.h"
#include "mcp/set.h"
#include "tools/env.h"
#include "tools/mountns.h"
#include "tools/reaper.h"
#include "ui/terminal.h"
#include "ui/ui.h"
#include "util/configdir.h"
#include "util/log.h"
#include "util/number.h"
#include "util/secret.h"
#include "util/xmalloc.h"

#define DEFAULT_ANTHROPIC_URL	"https://api.anthropic.com"
#define DEFAULT_OPENAI_URL	"https://api.openai.com/v1"
#define DEFAULT_OPENAI_MODEL	"gpt-6.2-sol"

struct options {
	const char	*provider;
	const char	*model;
	const char	*base_url;
	const char	*script;
	const char	*ask;
	int		 stream;
	int		 max_retries;	/* -1: the budget decides */
	int64_t		 retry_for_ms;	/* -1: the default */
	int64_t		 retry_max_delay_ms; /* -1: the default */
	const char	*workdir;
	int		 resume;
	int		 headless;
	unsigned	 plan_review;
	int		 max_teammates;
	int		 max_rounds;	/* 0: the team's default */
	int		 compact_at;	/* -1: the team's default */
	int		 quit_timeout_s;
	int		 shutdown_timeout_s;
	const char	*log;
	const char	*risk_policy;
	json_t		*mcp_servers;	/* --mcp-config's "mcpServers" */
	int		 demo;
	int		 stall_timeout_s;
	const char	*catalog;
	int		 list_models;
	struct model_choice choice;
	int		 no_cache;
	double		 max_cost;
	const char	*teammate_model;
	const char	*state_dir;
	int		 list_teams;
	char		*writable[16];	/* --writable, real paths */
	size_t		 nwritable;
	char		*readable[16];	/* --readable, real paths */
	size_t		 nreadable;
	char		*sockets[16];	/* --allow-socket, real paths */
	size_t		 nsockets;
	long long	 max_procs;	/* -1: the default */
	long long	 max_memory;
	long long	 max_file_size;
	enum team_network network;	/* --network, --no-network */
	int		 no_sandbox;
	int		 autonomous;
	const char	*verify;
	int		 worktrees;
};

/* The person's folder (util/configdir.h), for the life of the process. */
static char *person_config;

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
	    "  --demo                a scripted team, no network, no key, in\n"
	    "                        STATE/demo (--resume continues it)\n"
	    "  --workdir DIR         where the team works\n"
	    "                        (default: the current directory)\n"
	    "  --resume              continue the team of the working directory\n"
	    "  --state-dir DIR       keep teams' state under DIR (default:\n"
	    "                        $XDG_STATE_HOME/huddle, ~/.local/state/huddle)\n"
	    "  --teams               list the teams kept there and exit\n"
	    "  --headless            no screen: stdin lines are the input line,\n"
	    "                        stdout is one JSON object per event\n"
	    "  --plan-review WHO     who reviews plans: human, lead or any\n"
	    "                        (default any)\n"
	    "  --max-teammates N     at most N live teammates (default 8)\n"
	    "  --quit-timeout S      seconds teammates get to shut down when\n"
	    "                        you quit (default 10)\n"
	    "  --shutdown-timeout S  a shutdown request expires after S seconds\n"
	    "                        (default 60); then it can be forced\n"
	    "  --risk-policy FILE    rules for commands that need your permission\n"
	    "  --mcp-config FILE     MCP servers: a JSON file with \"mcpServers\",\n"
	    "                        as .mcp.json (doc/mcp.md)\n"
	    "  --log FILE            write a debug log\n"
	    "  --ask TEXT            send TEXT to the model, stream the reply to\n"
	    "                        stdout, and exit (checks a key, model or server)\n"
	    "  --provider NAME       anthropic (default); openai (OpenAI's\n"
	    "                        Responses API); openai-chat (a chat\n"
	    "                        completions server: Ollama, vLLM, llama.cpp,\n"
	    "                        DeepSeek, OpenRouter); or script\n"
	    "  --model NAME          the model (default: $HUDDLE_MODEL, else\n"
	    "                        $ANTHROPIC_MODEL / $OPENAI_MODEL, else the\n"
	    "                        catalog's default / " DEFAULT_OPENAI_MODEL ")\n"
	    "  --teammate-model NAME teammates' model (default: the lead's)\n"
	    "  --models              list the model catalog and exit\n"
	    "  --catalog FILE        read the model catalog from FILE\n"
	    "  --thinking HOW        adaptive, off, or a budget in tokens\n"
	    "                        (default: as the catalog says per model)\n"
	    "  --thinking-display HOW  summarized (default) or omitted: omitted\n"
	    "                        starts replies sooner, but the panes show\n"
	    "                        no thinking\n"
	    "  --reasoning-effort E  OpenAI: none, minimal, low, medium, high,\n"
	    "                        xhigh or max (default: the catalog's)\n"
	    "  --max-tokens N        cap each reply at N tokens (default: the\n"
	    "                        model's largest)\n"
	    "  --context-window N    the model's context in tokens, for a model\n"
	    "                        the catalog does not know\n"
	    "  --compact-at PCT      compact an agent's conversation when its\n"
	    "                        next request would fill PCT%% of the\n"
	    "                        window (default 75; 100: never)\n"
	    "  --max-rounds N        tool rounds an agent may run in one turn\n"
	    "                        (default: no limit)\n"
	    "  --autonomous          every teammate takes the next ready task\n"
	    "                        of the task board itself when idle\n"
	    "  --verify CMD          a task counts as completed only once CMD\n"
	    "                        exits 0 (run like bash, in the workdir)\n"
	    "  --worktrees           every teammate works in a git worktree of\n"
	    "                        its own, on a branch huddle/NAME\n"
	    "  --no-cache            do not ask for prompt caching\n"
	    "  --max-cost USD        start no model call once the team has\n"
	    "                        spent USD (raise it with /budget)\n"
	    "  --pass-env NAME       give tools variable NAME although it looks\n"
	    "                        like a secret (repeatable)\n"
	    "  --writable DIR        let commands write in DIR too (repeatable;\n"
	    "                        by default only the workdir and a TMPDIR)\n"
	    "  --readable PATH       let commands and file tools read PATH\n"
	    "                        although it is a secret store (repeatable)\n"
	    "  --allow-socket PATH   let commands connect to the Unix socket PATH\n"
	    "                        (e.g. docker's; repeatable)\n"
	    "  --max-procs N         processes one command may start (default\n"
	    "                        512; 0: no limit)\n"
	    "  --max-memory SIZE     memory of one command's process, e.g. 4G\n"
	    "                        (default 2G; 0: no limit)\n"
	    "  --max-file-size SIZE  largest file a command may write (default\n"
	    "                        4G; 0: no limit)\n"
	    "  --network HOW         proxy (default): commands reach the network\n"
	    "                        through huddle's proxy, each new host\n"
	    "                        asking you; open: directly, as they ask;\n"
	    "                        none: not at all\n"
	    "  --no-network          the same as --network none\n"
	    "  --no-sandbox          run commands without the Landlock sandbox\n"
	    "  --base-url URL        the API's base URL (default: $ANTHROPIC_BASE_URL\n"
	    "                        or $OPENAI_BASE_URL, else the vendor's)\n"
	    "  --script FILE         the scenario for --provider script\n"
	    "  --no-stream           ask for whole replies instead of streams\n"
	    "  --retry-for TIME      retry an overloaded, rate-limited or dropped\n"
	    "                        call for up to TIME, e.g. 90s, 10m, 1h\n"
	    "                        (default 10m; 0: never retry)\n"
	    "  --retry-max-delay TIME  the longest wait between attempts\n"
	    "                        (default 40s; a server's retry-after wins)\n"
	    "  --max-retries N       retries of a failed call at most (default:\n"
	    "                        as many as --retry-for allows)\n"
	    "  --stall-timeout S     a streamed call that receives nothing for S\n"
	    "                        seconds fails (default 60)\n"
	    "  -h, --help            show this help and exit\n"
	    "  -V, --version         show the version and exit\n"
	    "\n"
	    "environment:\n"
	    "  ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL   for --provider anthropic\n"
	    "  ANTHROPIC_AUTH_TOKEN                    sent as a Bearer (gateways)\n"
	    "  ANTHROPIC_MODEL, OPENAI_MODEL           the provider's model\n"
	    "  OPENAI_API_KEY, OPENAI_BASE_URL         for --provider openai and\n"
	    "                                          openai-chat\n"
	    "  HUDDLE_MODEL                            the default model\n"
	    "  XDG_CONFIG_HOME                         huddle/models.json there:\n"
	    "                                          your own model catalog\n"
	    "  HUDDLE_STATE_MAX                        a team's state at most, e.g. 1G\n"
	    "\n"
	    "A team's state lives in a folder of its own under the state\n"
	    "directory, out of the tools' reach (see huddle(1)).\n");
}

/* The API keys and the gateway token, taken out of the environment at
 * start (util/secret.h). */
static char *anthropic_key, *anthropic_token, *openai_key;

static const char *
env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? v : fallback;
}

/* Fills cfg from the options and the environment. The strings it points
 * to live in opts, the environment, or `owned` (free it afterwards). */
static int
settings(const struct options *o, const struct catalog *cat,
    struct llm_config *cfg, char **owned, char **err)
{
	struct model_info m;

	size_t len;

	llm_config_defaults(cfg);
	cfg->stream = o->stream;
	cfg->cache = !o->no_cache;
	if (o->max_retries >= 0)
		cfg->max_retries = o->max_retries;
	if (o->retry_for_ms >= 0)
		cfg->retry_for_ms = o->retry_for_ms;
	if (o->retry_max_delay_ms > 0)
		cfg->retry_max_delay_ms = o->retry_max_delay_ms;
	if (o->stall_timeout_s > 0)
		cfg->stall_timeout_s = o->stall_timeout_s;
	if (strcmp(o->provider, "anthropic") == 0 && !o->demo) {
		cfg->provider = LLM_ANTHROPIC;
		cfg->api_key = anthropic_key;
		cfg->auth_token = anthropic_token;
		cfg->base_url = o->base_url ? o->base_url :
		    env_or("ANTHROPIC_BASE_URL", DEFAULT_ANTHROPIC_URL);
		/* --model, then huddle's own variable, then the SDKs'. */
		cfg->model = o->model ? o->model : env_or("HUDDLE_MODEL",
		    env_or("ANTHROPIC_MODEL", catalog_default_model(cat)));
		if (cfg->api_key == NULL && cfg->auth_token == NULL) {
			*err = xstrdup("neither ANTHROPIC_API_KEY nor "
			    "ANTHROPIC_AUTH_TOKEN is set (or use --provider "
			    "openai-chat for a local server)");
			return -1;
		}
	} else if (strcmp(o->provider, "openai") == 0 ||
	    strcmp(o->provider, "openai-chat") == 0) {
		/* OpenAI's own endpoint speaks the Responses API; servers
		 * that copy OpenAI's API speak chat completions. */
		cfg->provider = strcmp(o->provider, "openai") == 0 ?
		    LLM_RESPONSES : LLM_OPENAI;
		/* Local servers need no key. */
		cfg->api_key = openai_key ? openai_key : "";
		cfg->base_url = o->base_url ? o->base_url :
		    env_or("OPENAI_BASE_URL", DEFAULT_OPENAI_URL);
		cfg->model = o->model ? o->model : env_or("HUDDLE_MODEL",
		    env_or("OPENAI_MODEL", DEFAULT_OPENAI_MODEL));
	} else if (o->demo) {
		cfg->provider = LLM_SCRIPT;
		cfg->model = "script";
		if ((cfg->script = script_parse(demo_scenario(), err)) == NULL)
			return -1;
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
		    "openai-chat, script)", o->provider);
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
	/* The lead's model and the person's choices must fit together
	 * before anything starts (team_launch applies them per agent). */
	catalog_lookup(cat, cfg->model, &m);
	if (o->choice.context_window > 0)
		m.context_window = o->choice.context_window;
	if (catalog_configure(&m, &o->choice, cfg, err) == -1)
		return -1;
	if (o->teammate_model != NULL) {
		struct llm_config tcfg = *cfg;

		catalog_lookup(cat, o->teammate_model, &m);
		if (catalog_configure(&m, &o->choice, &tcfg, err) == -1)
			return -1;
	}
	return 0;
}

/* Says at start that a model the team will use retires soon (a retired
 * one was refused by catalog_configure). */
static void
warn_retiring(const struct catalog *cat, const char *id)
{
	struct model_info m;
	char *msg = NULL;

	catalog_lookup(cat, id, &m);
	if (catalog_life(&m, time(NULL), &msg) == CATALOG_RETIRING) {
		fprintf(stderr, "huddle: warning: %s\n", msg);
		log_printf("warning: %s", msg);
	}
	free(msg);
}

/* --teams: the teams kept under the state directory. */
static int
list_teams(const char *override)
{
	struct statedir_team *t;
	char *base, *err = NULL, when[32];
	size_t n, i;

	if ((base = statedir_base(override, &err)) == NULL) {
		fprintf(stderr, "huddle: %s\n", err);
		free(err);
		return 2;
	}
	n = statedir_list(base, &t);
	printf("%-7s %-16s %s\n", "STATE", "LAST USED", "WORKDIR (state)");
	for (i = 0; i < n; i++) {
		struct tm tm;

		if (t[i].last_used == 0 || localtime_r(&t[i].last_used,
		    &tm) == NULL || strftime(when, sizeof when,
		    "%Y-%m-%d %H:%M", &tm) == 0)
			strcpy(when, "-");
		if (t[i].live_pid != 0)
			printf("%-7s", "live");
		else
			printf("%-7s", "idle");
		printf(" %-16s %s (%s)", when, *t[i].workdir ? t[i].workdir :
		    "?", t[i].folder);
		if (t[i].live_pid > 0)
			printf(" PID %ld", t[i].live_pid);
		putchar('\n');
	}
	if (n == 0)
		printf("no teams under %s\n", base);
	statedir_free_teams(t, n);
	free(base);
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
	case LLM_EV_THINKING:	/* --ask shows the answer only */
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
	/* What reached stdout cannot be taken back: a stream that breaks
	 * is reported, not asked for again. */
	one = *cfg;
	one.retry_streams = 0;
	ask_client = llm_client_new(&one);
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
/* Blocks the signals the main thread handles, so that every agent thread
 * (and every thread those start) inherits a mask without them. */
static void
block_async_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGWINCH);
	sigaddset(&set, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

/*
 * The places a team needs, before anything else is checked: the working
 * directory is one, and the state directory can be made (a demo without
 * --workdir makes its own of both). Returns 0, or -1 with *err naming
 * the directory and what to do.
 */
static int
check_places(const struct options *o, char **err)
{
	struct stat st;
	char *base, *why = NULL;

	if (o->demo && o->workdir == NULL)
		return 0;
	if (o->workdir != NULL && stat(o->workdir, &st) == -1) {
		*err = xasprintf("--workdir %s: %s", o->workdir,
		    strerror(errno));
		return -1;
	}
	if (o->workdir != NULL && !S_ISDIR(st.st_mode)) {
		*err = xasprintf("--workdir %s: not a directory", o->workdir);
		return -1;
	}
	if ((base = statedir_base(o->state_dir, &why)) == NULL ||
	    statedir_make(base, 1, &why) == -1) {
		*err = xasprintf("the state directory%s%s cannot be used: %s "
		    "(give another with --state-dir DIR%s)", base ? " " : "",
		    base ? base : "", why, o->state_dir ? "" :
		    " or XDG_STATE_HOME");
		free(why);
		free(base);
		return -1;
	}
	free(base);
	return 0;
}

/* A word for a shell: as it is when it is plain, else quoted. */
static char *
shell_word(const char *s)
{
	const char *p;
	size_t n = 0, i = 0;
	char *out;

	if (*s != '\0' && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijkl"
	    "mnopqrstuvwxyz0123456789/._-+,:=@") == strlen(s))
		return xstrdup(s);
	for (p = s; *p != '\0'; p++)
		n += *p == '\'' ? 4 : 1;
	out = xmalloc(n + 3);
	out[i++] = '\'';
	for (p = s; *p != '\0'; p++) {
		if (*p == '\'') {
			memcpy(out + i, "'\\''", 4);
			i += 4;
		} else
			out[i++] = *p;
	}
	out[i++] = '\'';
	out[i] = '\0';
	return out;
}

/* After the screen closes: the team is kept, and the command that
 * continues it. */
static void
say_the_way_back(const struct options *o, const char *workdir)
{
	char *cwd = getcwd(NULL, 0), *w = shell_word(workdir), *sd = NULL;
	char *pv = shell_word(o->provider), *sc = NULL;
	int here = cwd != NULL && strcmp(cwd, workdir) == 0;
	int other = strcmp(o->provider, "anthropic") != 0;

	if (o->state_dir != NULL)
		sd = shell_word(o->state_dir);
	if (o->script != NULL)
		sc = shell_word(o->script);
	printf("huddle: the team is kept; to continue it: huddle --resume%s%s"
	    "%s%s%s%s%s%s\n", here ? "" : " --workdir ", here ? "" : w,
	    sd ? " --state-dir " : "", sd ? sd : "",
	    other ? " --provider " : "", other ? pv : "",
	    sc ? " --script " : "", sc ? sc : "");
	free(cwd);
	free(w);
	free(sd);
	free(pv);
	free(sc);
}

/* Runs the team with the headless front end. */
static int
run_team(const struct options *o, const struct catalog *cat,
    const struct llm_config *cfg)
{
	struct team_options to;
	struct team *t;
	char *planted;
	sigset_t old;
	char *workdir, *demo_state = NULL, *err = NULL;
	struct demo demo = { NULL, NULL, NULL, -1 };
	int rc;

	if (o->demo) {
		if (demo_open(&demo, o->workdir, o->state_dir, o->resume,
		    &err) == -1) {
			fprintf(stderr, "huddle: %s\n", err);
			free(err);
			return 1;
		}
		workdir = xstrdup(demo.workdir);
		/* The demo's team keeps its state in the demo's folder,
		 * not with the person's teams. */
		demo_state = demo.state ? xstrdup(demo.state) : NULL;
	} else if ((workdir = realpath(o->workdir ? o->workdir : ".",
	    NULL)) == NULL) {
		fprintf(stderr, "huddle: %s: %s\n", o->workdir ? o->workdir :
		    ".", strerror(errno));
		return 2;
	}
	team_options_defaults(&to);
	to.workdir = workdir;
	to.llm = *cfg;
	to.resume = o->resume;
	to.plan_review = o->plan_review;
	if (o->max_teammates > 0)
		to.max_teammates = o->max_teammates;
	if (o->max_rounds > 0)
		to.max_rounds = o->max_rounds;
	if (o->compact_at >= 0)
		to.compact_at = o->compact_at;
	if (o->quit_timeout_s >= 0)
		to.quit_timeout_ms = (int64_t)o->quit_timeout_s * 1000;
	to.policy_path = o->risk_policy;
	to.mcp_servers = o->mcp_servers;
	to.state_base = demo_state ? demo_state : o->state_dir;
	to.writable = (const char *const *)o->writable;
	to.nwritable = o->nwritable;
	to.readable = (const char *const *)o->readable;
	to.nreadable = o->nreadable;
	to.sockets = (const char *const *)o->sockets;
	to.nsockets = o->nsockets;
	if (o->max_procs >= 0)
		to.max_procs = o->max_procs;
	if (o->max_memory >= 0)
		to.max_memory = o->max_memory;
	if (o->max_file_size >= 0)
		to.max_file_size = o->max_file_size;
	to.network = o->network;
	to.no_network = o->network == TEAM_NET_NONE;
	to.no_sandbox = o->no_sandbox;
	to.autonomous = o->autonomous;
	to.verify = o->verify;
	/* The demo's teammates work in worktrees, so F7 has a diff. */
	to.worktrees = o->worktrees || o->demo;
	to.catalog = cat;
	to.choice = o->choice;
	to.teammate_model = o->teammate_model;
	to.max_cost = o->max_cost;
	to.shutdown_timeout_ms = (int64_t)o->shutdown_timeout_s * 1000;
	if (person_config == NULL)
		person_config = configdir_path();
	to.config_dir = person_config;
	/* What escapes a command that killed its reaper becomes our child,
	 * not init's, for bash_sweep_orphans to end (tools/bash.h): from
	 * before the team runs anything. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if ((t = team_open(&to, &err)) == NULL) {
		fprintf(stderr, "huddle: %s\n", err);
		free(err);
		free(workdir);
		free(demo_state);
		demo_close(&demo);
		return 1;
	}
	block_async_signals(&old);
	rc = team_start(t, &err);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == -1) {
		fprintf(stderr, "huddle: %s\n", err);
		free(err);
		team_free(t);
		free(workdir);
		free(demo_state);
		demo_close(&demo);
		return 1;
	}
	if (o->demo && !o->resume && team_say(t, NULL, DEMO_PROMPT,
	    &err) == -1) {
		fprintf(stderr, "huddle: %s\n", err);
		free(err);
	}
	rc = o->headless ? headless_run(t) : ui_run(t, o->demo ? DEMO_HINT :
	    NULL, o->resume);
	if (!o->headless && (planted = team_sandbox_planted(t)) != NULL) {
		fprintf(stderr, "huddle: %s\n", planted);
		free(planted);
	}
	team_free(t);
	if (o->demo && !o->headless)
		printf("huddle: the demo is kept in %s; huddle --demo%s%s "
		    "--resume continues it\n", demo.folder ? demo.folder :
		    workdir, demo.folder ? "" : " --workdir ", demo.folder ?
		    "" : workdir);
	else if (!o->headless)
		say_the_way_back(o, workdir);
	free(workdir);
	free(demo_state);
	demo_close(&demo);
	return rc;
}

static int
bad_usage(const char *what)
{
	fprintf(stderr, "huddle: %s\nTry 'huddle --help' for the options.\n",
	    what);
	return 2;
}

/* Reads a whole decimal number from lo to hi into *v; 0, or -1. */
static int
number_arg(const char *arg, long lo, long hi, int *v)
{
	char *end;
	long n = strtol(arg, &end, 10);

	if (*arg == '\0' || *end != '\0' || n < lo || n > hi)
		return -1;
	*v = (int)n;
	return 0;
}

/* Reads --reasoning-effort: one of the levels OpenAI's models know. */
static int
effort_arg(const char *arg, struct model_choice *c)
{
	static const char *const levels[] = { "none", "minimal", "low",
	    "medium", "high", "xhigh", "max" };
	size_t i;

	for (i = 0; i < sizeof levels / sizeof levels[0]; i++) {
		if (strcmp(arg, levels[i]) == 0) {
			c->reasoning_effort = levels[i];
			return 0;
		}
	}
	return -1;
}

/* Reads --thinking: adaptive, off, or a budget in tokens. */
static int
thinking_arg(const char *arg, struct model_choice *c)
{
	if (strcmp(arg, "adaptive") == 0)
		c->thinking = LLM_THINKING_ADAPTIVE;
	else if (strcmp(arg, "off") == 0)
		c->thinking = LLM_THINKING_DISABLED;
	else if (number_arg(arg, 1024, 10000000, &c->thinking_budget) == 0)
		c->thinking = LLM_THINKING_BUDGET;
	else
		return -1;
	return 0;
}

/* Reads an amount of US dollars above 0; 0, or -1. */
static int
dollars_arg(const char *arg, double *v)
{
	char *end;
	double d = strtod(arg, &end);

	if (*arg == '\0' || *end != '\0' || !(d > 0) || d > 1e9)
		return -1;
	*v = d;
	return 0;
}

/* A size: bytes, or a number with K, M, G or T (powers of 1024). */
static int
size_arg(const char *arg, long long *v)
{
	char *end;
	unsigned long long n, mul = 1;

	if (*arg < '0' || *arg > '9')
		return -1;
	errno = 0;
	n = strtoull(arg, &end, 10);
	switch (*end) {
	case 'K': case 'k': mul = 1ULL << 10; end++; break;
	case 'M': case 'm': mul = 1ULL << 20; end++; break;
	case 'G': case 'g': mul = 1ULL << 30; end++; break;
	case 'T': case 't': mul = 1ULL << 40; end++; break;
	default: break;
	}
	if (errno != 0 || *end != '\0' || n > (1ULL << 50) / mul)
		return -1;
	*v = (long long)(n * mul);
	return 0;
}

/* Adds the real path of arg to a list of at most 16 (`what` names the
 * option in the message). Returns 0, or -1 after saying why. */
static int
path_arg(const char *what, const char *arg, char **list, size_t *n)
{
	if (*n == 16) {
		fprintf(stderr, "huddle: too many %s paths (16 at most)\n",
		    what);
		return -1;
	}
	if ((list[*n] = realpath(arg, NULL)) == NULL) {
		fprintf(stderr, "huddle: %s %s: %s\n", what, arg,
		    strerror(errno));
		return -1;
	}
	(*n)++;
	return 0;
}

int
main(int argc, char **argv)
{
	enum { OPT_ASK = 256, OPT_PROVIDER, OPT_MODEL, OPT_BASE_URL,
	    OPT_SCRIPT, OPT_NO_STREAM, OPT_MAX_RETRIES, OPT_RETRY_FOR,
	    OPT_RETRY_MAX_DELAY, OPT_WORKDIR,
	    OPT_RESUME, OPT_HEADLESS, OPT_PLAN_REVIEW, OPT_MAX_TEAMMATES,
	    OPT_QUIT_TIMEOUT, OPT_SHUTDOWN_TIMEOUT, OPT_LOG, OPT_RISK_POLICY,
	    OPT_DEMO, OPT_STALL_TIMEOUT, OPT_CATALOG, OPT_MODELS, OPT_THINKING,
	    OPT_THINKING_DISPLAY,
	    OPT_REASONING_EFFORT,
	    OPT_MAX_TOKENS, OPT_CONTEXT_WINDOW, OPT_NO_CACHE, OPT_MAX_COST,
	    OPT_COMPACT_AT, OPT_MAX_ROUNDS, OPT_AUTONOMOUS, OPT_VERIFY, OPT_WORKTREES,
	    OPT_TEAMMATE_MODEL, OPT_PASS_ENV, OPT_STATE_DIR, OPT_TEAMS,
	    OPT_WRITABLE, OPT_NO_NETWORK, OPT_NO_SANDBOX, OPT_READABLE,
	    OPT_ALLOW_SOCKET, OPT_MAX_PROCS, OPT_MAX_MEMORY, OPT_MAX_FILE_SIZE, OPT_NETWORK,
	    OPT_MCP_CONFIG };
	static const struct option options[] = {
		{ "ask", required_argument, NULL, OPT_ASK },
		{ "provider", required_argument, NULL, OPT_PROVIDER },
		{ "model", required_argument, NULL, OPT_MODEL },
		{ "base-url", required_argument, NULL, OPT_BASE_URL },
		{ "script", required_argument, NULL, OPT_SCRIPT },
		{ "no-stream", no_argument, NULL, OPT_NO_STREAM },
		{ "max-retries", required_argument, NULL, OPT_MAX_RETRIES },
		{ "retry-for", required_argument, NULL, OPT_RETRY_FOR },
		{ "retry-max-delay", required_argument, NULL,
		    OPT_RETRY_MAX_DELAY },
		{ "stall-timeout", required_argument, NULL, OPT_STALL_TIMEOUT },
		{ "demo", no_argument, NULL, OPT_DEMO },
		{ "workdir", required_argument, NULL, OPT_WORKDIR },
		{ "resume", no_argument, NULL, OPT_RESUME },
		{ "headless", no_argument, NULL, OPT_HEADLESS },
		{ "plan-review", required_argument, NULL, OPT_PLAN_REVIEW },
		{ "max-teammates", required_argument, NULL, OPT_MAX_TEAMMATES },
		{ "quit-timeout", required_argument, NULL, OPT_QUIT_TIMEOUT },
		{ "shutdown-timeout", required_argument, NULL,
		    OPT_SHUTDOWN_TIMEOUT },
		{ "log", required_argument, NULL, OPT_LOG },
		{ "risk-policy", required_argument, NULL, OPT_RISK_POLICY },
		{ "catalog", required_argument, NULL, OPT_CATALOG },
		{ "models", no_argument, NULL, OPT_MODELS },
		{ "thinking", required_argument, NULL, OPT_THINKING },
		{ "thinking-display", required_argument, NULL,
		    OPT_THINKING_DISPLAY },
		{ "reasoning-effort", required_argument, NULL,
		    OPT_REASONING_EFFORT },
		{ "max-tokens", required_argument, NULL, OPT_MAX_TOKENS },
		{ "context-window", required_argument, NULL,
		    OPT_CONTEXT_WINDOW },
		{ "no-cache", no_argument, NULL, OPT_NO_CACHE },
		{ "compact-at", required_argument, NULL, OPT_COMPACT_AT },
		{ "max-rounds", required_argument, NULL, OPT_MAX_ROUNDS },
		{ "autonomous", no_argument, NULL, OPT_AUTONOMOUS },
		{ "verify", required_argument, NULL, OPT_VERIFY },
		{ "worktrees", no_argument, NULL, OPT_WORKTREES },
		{ "max-cost", required_argument, NULL, OPT_MAX_COST },
		{ "teammate-model", required_argument, NULL,
		    OPT_TEAMMATE_MODEL },
		{ "pass-env", required_argument, NULL, OPT_PASS_ENV },
		{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
		{ "teams", no_argument, NULL, OPT_TEAMS },
		{ "writable", required_argument, NULL, OPT_WRITABLE },
		{ "no-network", no_argument, NULL, OPT_NO_NETWORK },
		{ "readable", required_argument, NULL, OPT_READABLE },
		{ "allow-socket", required_argument, NULL, OPT_ALLOW_SOCKET },
		{ "max-procs", required_argument, NULL, OPT_MAX_PROCS },
		{ "max-memory", required_argument, NULL, OPT_MAX_MEMORY },
		{ "max-file-size", required_argument, NULL,
		    OPT_MAX_FILE_SIZE },
		{ "network", required_argument, NULL, OPT_NETWORK },
		{ "no-sandbox", no_argument, NULL, OPT_NO_SANDBOX },
		{ "mcp-config", required_argument, NULL, OPT_MCP_CONFIG },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { 0 };
	struct catalog *cat;
	struct llm_config cfg;
	char *owned = NULL, *err = NULL, *user_catalog;
	int c, rc, n;

	/* huddle started again to stand between a command and itself. */
	if (argc > 1 && strcmp(argv[1], REAPER_ARG) == 0)
		return reaper_main(argc, argv);
	if (argc > 1 && strcmp(argv[1], MOUNTNS_HOLDER_ARG) == 0)
		return mountns_holder_main(argc, argv);

	o.provider = "anthropic";
	o.stream = 1;
	o.max_procs = o.max_memory = o.max_file_size = -1;
	o.max_retries = -1;
	o.retry_for_ms = o.retry_max_delay_ms = -1;
	o.plan_review = PROTO_BY_TARGET | PROTO_BY_USER;
	o.quit_timeout_s = -1;
	o.compact_at = -1;

	setlocale(LC_ALL, "");
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hV", options, NULL)) != -1) {
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
			if (number_arg(optarg, 0, 1000, &o.max_retries) == -1)
				return bad_usage("--max-retries takes a number "
				    "from 0 to 1000");
			break;
		case OPT_RETRY_FOR:
			if (number_duration_ms(optarg, &o.retry_for_ms) == -1)
				return bad_usage("--retry-for takes a duration, "
				    "e.g. 90s, 10m or 1h (0: never retry)");
			break;
		case OPT_RETRY_MAX_DELAY:
			if (number_duration_ms(optarg, &o.retry_max_delay_ms) ==
			    -1 || o.retry_max_delay_ms < 1)
				return bad_usage("--retry-max-delay takes a "
				    "duration, e.g. 40s or 250ms");
			break;
		case OPT_STALL_TIMEOUT:
			if (number_arg(optarg, 1, 3600, &o.stall_timeout_s) ==
			    -1)
				return bad_usage("--stall-timeout takes "
				    "seconds from 1 to 3600");
			break;
		case OPT_DEMO:
			o.demo = 1;
			break;
		case OPT_WORKDIR:
			o.workdir = optarg;
			break;
		case OPT_RESUME:
			o.resume = 1;
			break;
		case OPT_HEADLESS:
			o.headless = 1;
			break;
		case OPT_PLAN_REVIEW:
			if (strcmp(optarg, "human") == 0)
				o.plan_review = PROTO_BY_USER;
			else if (strcmp(optarg, "lead") == 0)
				o.plan_review = PROTO_BY_TARGET;
			else if (strcmp(optarg, "any") == 0)
				o.plan_review = PROTO_BY_TARGET | PROTO_BY_USER;
			else
				return bad_usage("--plan-review takes human, "
				    "lead or any");
			break;
		case OPT_MAX_TEAMMATES:
			if (number_arg(optarg, 1, 64, &o.max_teammates) == -1)
				return bad_usage("--max-teammates takes a "
				    "number from 1 to 64");
			break;
		case OPT_QUIT_TIMEOUT:
			if (number_arg(optarg, 0, 3600, &o.quit_timeout_s) == -1)
				return bad_usage("--quit-timeout takes seconds "
				    "from 0 to 3600");
			break;
		case OPT_SHUTDOWN_TIMEOUT:
			if (number_arg(optarg, 1, 86400,
			    &o.shutdown_timeout_s) == -1)
				return bad_usage("--shutdown-timeout takes "
				    "seconds from 1 to 86400");
			break;
		case OPT_LOG:
			o.log = optarg;
			break;
		case OPT_RISK_POLICY:
			o.risk_policy = optarg;
			break;
		case OPT_MCP_CONFIG: {
			char *why = NULL;

			json_decref(o.mcp_servers);
			if ((o.mcp_servers = mcp_set_load(optarg, &why)) ==
			    NULL) {
				fprintf(stderr, "huddle: %s\n", why);
				free(why);
				return 2;
			}
			break;
		}
		case OPT_CATALOG:
			o.catalog = optarg;
			break;
		case OPT_MODELS:
			o.list_models = 1;
			break;
		case OPT_THINKING:
			if (thinking_arg(optarg, &o.choice) == -1)
				return bad_usage("--thinking takes adaptive, off "
				    "or a budget of at least 1024 tokens");
			break;
		case OPT_THINKING_DISPLAY:
			if (strcmp(optarg, "summarized") == 0)
				o.choice.display_omitted = 0;
			else if (strcmp(optarg, "omitted") == 0)
				o.choice.display_omitted = 1;
			else
				return bad_usage("--thinking-display takes "
				    "summarized or omitted");
			break;
		case OPT_REASONING_EFFORT:
			if (effort_arg(optarg, &o.choice) == -1)
				return bad_usage("--reasoning-effort takes none, "
				    "minimal, low, medium, high, xhigh or max");
			break;
		case OPT_MAX_TOKENS:
			if (number_arg(optarg, 1, 100000000, &n) == -1)
				return bad_usage("--max-tokens takes a number of "
				    "tokens");
			o.choice.max_tokens = n;
			break;
		case OPT_CONTEXT_WINDOW:
			if (number_arg(optarg, 1024, 1000000000, &n) == -1)
				return bad_usage("--context-window takes a "
				    "number of tokens, at least 1024");
			o.choice.context_window = n;
			break;
		case OPT_NO_CACHE:
			o.no_cache = 1;
			break;
		case OPT_COMPACT_AT:
			if (number_arg(optarg, 10, 100, &o.compact_at) == -1)
				return bad_usage("--compact-at takes a percent "
				    "from 10 to 100");
			break;
		case OPT_MAX_ROUNDS:
			if (number_arg(optarg, 1, 100000, &o.max_rounds) == -1)
				return bad_usage("--max-rounds takes a number "
				    "from 1 to 100000");
			break;
		case OPT_MAX_COST:
			if (dollars_arg(optarg, &o.max_cost) == -1)
				return bad_usage("--max-cost takes US dollars, "
				    "e.g. 5 or 2.50");
			break;
		case OPT_TEAMMATE_MODEL:
			o.teammate_model = optarg;
			break;
		case OPT_PASS_ENV:
			env_pass(optarg);
			break;
		case OPT_STATE_DIR:
			if (*optarg != '/')
				return bad_usage("--state-dir takes an absolute "
				    "path");
			o.state_dir = optarg;
			break;
		case OPT_TEAMS:
			o.list_teams = 1;
			break;
		case OPT_WRITABLE:
			if (o.nwritable == sizeof o.writable /
			    sizeof *o.writable)
				return bad_usage("too many --writable "
				    "directories");
			if ((o.writable[o.nwritable] = realpath(optarg,
			    NULL)) == NULL) {
				fprintf(stderr, "huddle: --writable %s: %s\n",
				    optarg, strerror(errno));
				return 2;
			}
			o.nwritable++;
			break;
		case OPT_READABLE:
			if (path_arg("--readable", optarg, o.readable,
			    &o.nreadable) == -1)
				return 2;
			break;
		case OPT_ALLOW_SOCKET:
			if (path_arg("--allow-socket", optarg, o.sockets,
			    &o.nsockets) == -1)
				return 2;
			break;
		case OPT_MAX_PROCS:
			if (number_arg(optarg, 0, 1000000, &n) == -1)
				return bad_usage("--max-procs takes a number "
				    "from 0 (no limit) to 1000000");
			o.max_procs = n;
			break;
		case OPT_MAX_MEMORY:
			if (size_arg(optarg, &o.max_memory) == -1)
				return bad_usage("--max-memory takes a size, "
				    "e.g. 512M or 4G (0: no limit)");
			break;
		case OPT_MAX_FILE_SIZE:
			if (size_arg(optarg, &o.max_file_size) == -1)
				return bad_usage("--max-file-size takes a size, "
				    "e.g. 100M or 8G (0: no limit)");
			break;
		case OPT_NO_NETWORK:
			o.network = TEAM_NET_NONE;
			break;
		case OPT_NETWORK:
			if (strcmp(optarg, "proxy") == 0)
				o.network = TEAM_NET_PROXY;
			else if (strcmp(optarg, "open") == 0)
				o.network = TEAM_NET_OPEN;
			else if (strcmp(optarg, "none") == 0)
				o.network = TEAM_NET_NONE;
			else
				return bad_usage("--network is proxy, open or "
				    "none");
			break;
		case OPT_AUTONOMOUS:
			o.autonomous = 1;
			break;
		case OPT_WORKTREES:
			o.worktrees = 1;
			break;
		case OPT_VERIFY:
			if (*optarg == '\0')
				return bad_usage("--verify needs a command");
			o.verify = optarg;
			break;
		case OPT_NO_SANDBOX:
			o.no_sandbox = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("huddle %s\n", PACKAGE_VERSION);
			return 0;
		case ':':
			/* The option as typed: its value was missing. */
			fprintf(stderr, "huddle: %s needs a value\n",
			    argv[optind - 1]);
			fprintf(stderr, "Try 'huddle --help' for the options.\n");
			return 2;
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

	/* Before any thread exists: the keys out of the environment and
	 * the process out of reach of its tools' debuggers and core dumps,
	 * libcurl's global state, and no SIGPIPE from a server that hangs
	 * up while we write. */
	secret_harden();
	env_seal();
	if (o.list_teams)
		return list_teams(o.state_dir);
	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_ALL);
	if (o.log != NULL && log_open(o.log, &err) == -1) {
		fprintf(stderr, "huddle: --log %s\n", err);
		free(err);
		curl_global_cleanup();
		return 2;
	}
	user_catalog = catalog_user_path();
	cat = catalog_open(o.catalog, user_catalog, &err);
	free(user_catalog);
	if (cat == NULL) {
		fprintf(stderr, "huddle: %s\n", err);
		free(err);
		curl_global_cleanup();
		return 2;
	}
	if (o.list_models) {
		catalog_print(stdout, cat, time(NULL));
		catalog_free(cat);
		curl_global_cleanup();
		return 0;
	}
	/* What a person fixes first is checked first: where the team
	 * works, where its state goes, then the model and its key. */
	if (o.ask == NULL && check_places(&o, &err) == -1) {
		fprintf(stderr, "huddle: %s\n", err);
		free(err);
		catalog_free(cat);
		curl_global_cleanup();
		return 2;
	}
	anthropic_key = secret_take("ANTHROPIC_API_KEY");
	anthropic_token = secret_take("ANTHROPIC_AUTH_TOKEN");
	openai_key = secret_take("OPENAI_API_KEY");
	if (settings(&o, cat, &cfg, &owned, &err) == -1) {
		fprintf(stderr, "huddle: %s\n", err);
		free(err);
		free(owned);
		free(anthropic_key);
		free(anthropic_token);
		free(openai_key);
		script_free(cfg.script);
		catalog_free(cat);
		curl_global_cleanup();
		return 2;
	}
	warn_retiring(cat, cfg.model);
	if (o.teammate_model != NULL)
		warn_retiring(cat, o.teammate_model);
	log_printf("huddle %s: provider %s, model %s, base URL %s, a key %s",
	    PACKAGE_VERSION, o.demo ? "script" : o.provider, cfg.model,
	    cfg.base_url ? cfg.base_url : "-", (cfg.api_key && *cfg.api_key) ||
	    cfg.auth_token ? "is set" : "is not set");
	if (o.ask != NULL)
		rc = ask(&cfg, o.ask);
	else if (!o.headless && (!isatty(STDIN_FILENO) ||
	    !isatty(STDOUT_FILENO))) {
		fprintf(stderr, "huddle: the screen needs a terminal; use "
		    "--headless for pipes and scripts\n");
		rc = 2;
	} else if (!o.headless && terminal_check(&err) == -1) {
		fprintf(stderr, "huddle: %s\n", err);
		free(err);
		rc = 2;
	} else
		rc = run_team(&o, cat, &cfg);
	log_close();
	catalog_free(cat);
	script_free(cfg.script);
	free(owned);
	free(anthropic_key);
	free(anthropic_token);
	free(openai_key);
	while (o.nwritable > 0)
		free(o.writable[--o.nwritable]);
	while (o.nreadable > 0)
		free(o.readable[--o.nreadable]);
	while (o.nsockets > 0)
		free(o.sockets[--o.nsockets]);
	curl_global_cleanup();
	return rc;
}
