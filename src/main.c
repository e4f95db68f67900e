/*
 * huddle: a team of LLM agents in one terminal.
 *
 * main() reads the options (options.h: the command line, then the
 * settings files and the environment, settings.h), wires the layers
 * together, and owns start-up and orderly shutdown.
 */
#include "config.h"

#include <curl/curl.h>
#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/team.h"
#include "ask.h"
#include "ccsettings.h"
#include "core/statedir.h"
#include "demo.h"
#include "headless.h"
#include "llm/catalog.h"
#include "llm/catalog_user.h"
#include "llm/llm.h"
#include "llm/script.h"
#include "options.h"
#include "settings.h"
#include "tools/env.h"
#include "tools/mountns.h"
#include "tools/reaper.h"
#include "ui/terminal.h"
#include "ui/ui.h"
#include "util/configdir.h"
#include "util/log.h"
#include "util/secret.h"
#include "util/xmalloc.h"

#define DEFAULT_ANTHROPIC_URL	"https://api.anthropic.com"
#define DEFAULT_OPENAI_URL	"https://api.openai.com/v1"

/* What a step returns when the program goes on. */
#define GO_ON	(-1)

/* The API keys and the gateway token, taken out of the environment at
 * start (util/secret.h). */
static char *anthropic_key, *anthropic_token, *openai_key;

/* The person's choices for every model, from the options. */
static struct model_choice
model_choice(const struct options *o)
{
	struct model_choice c = { 0 };

	c.thinking = o->thinking;
	c.thinking_budget = o->thinking_budget;
	c.max_tokens = o->max_tokens;
	c.context_window = o->context_window;
	c.display_omitted = strcmp(options_word(o, OPT_THINKING_DISPLAY),
	    "omitted") == 0;
	if (options_given(o, OPT_REASONING_EFFORT))
		c.reasoning_effort = options_word(o, OPT_REASONING_EFFORT);
	c.budget = options_given(o, OPT_MAX_COST);
	c.priced = options_given(o, OPT_PRICE);
	c.price_in = o->price_in;
	c.price_out = o->price_out;
	return c;
}

/* Fills cfg from the options (the environment's word is in them). The
 * strings it points to live in o or `owned` (free it afterwards). */
static int
llm_setup(const struct options *o, const struct catalog *cat,
    struct llm_config *cfg, char **owned, char **err)
{
	struct model_choice choice = model_choice(o);
	const char *provider = options_word(o, OPT_PROVIDER);
	struct model_info m;
	size_t len;

	llm_config_defaults(cfg);
	cfg->stream = !o->no_stream;
	cfg->cache = !o->no_cache;
	if (options_given(o, OPT_MAX_RETRIES))
		cfg->max_retries = o->max_retries;
	cfg->retry_for_ms = o->retry_for;
	cfg->retry_max_delay_ms = o->retry_max_delay;
	cfg->stall_timeout_s = o->stall_timeout;
	if (o->demo) {
		/* The demo is scripted whatever the settings say. */
		cfg->provider = LLM_SCRIPT;
		cfg->model = "script";
		if ((cfg->script = script_parse(demo_scenario(), err)) == NULL)
			return -1;
	} else if (strcmp(provider, "anthropic") == 0) {
		cfg->provider = LLM_ANTHROPIC;
		cfg->api_key = anthropic_key;
		cfg->auth_token = anthropic_token;
		cfg->base_url = o->base_url ? o->base_url :
		    DEFAULT_ANTHROPIC_URL;
		cfg->model = o->model ? catalog_alias(cat, o->model) :
		    catalog_default_model(cat);
		if (cfg->api_key == NULL && cfg->auth_token == NULL) {
			*err = xstrdup("neither ANTHROPIC_API_KEY nor "
			    "ANTHROPIC_AUTH_TOKEN is set (or use --provider "
			    "openai-chat for a local server)");
			return -1;
		}
	} else if (strncmp(provider, "openai", 6) == 0) {
		/* OpenAI's own endpoint speaks the Responses API; servers
		 * that copy OpenAI's API speak chat completions. */
		cfg->provider = strcmp(provider, "openai") == 0 ?
		    LLM_RESPONSES : LLM_OPENAI;
		/* Local servers need no key. */
		cfg->api_key = openai_key ? openai_key : "";
		cfg->base_url = o->base_url ? o->base_url : DEFAULT_OPENAI_URL;
		cfg->model = o->model ? o->model : OPT_OPENAI_MODEL;
	} else {
		cfg->provider = LLM_SCRIPT;
		cfg->model = "script";
		if (o->script == NULL) {
			*err = xstrdup("--provider script needs --script FILE");
			return -1;
		}
		if ((cfg->script = script_load(o->script, err)) == NULL)
			return -1;
	}
	/* What set the address, for the sentence of a failure to reach
	 * it. */
	switch (o->from[OPT_BASE_URL]) {
	case OPT_FROM_CMDLINE:
		cfg->base_url_from = "--base-url";
		break;
	case OPT_FROM_ENV:
		cfg->base_url_from = cfg->provider == LLM_ANTHROPIC ?
		    "ANTHROPIC_BASE_URL" : "OPENAI_BASE_URL";
		break;
	case OPT_FROM_PERSON:
		cfg->base_url_from = "base-url in your settings";
		break;
	case OPT_FROM_PROJECT:
		cfg->base_url_from = "base-url in the project's settings";
		break;
	default:
		cfg->base_url_from = "huddle's default";
		break;
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
	 * before anything starts (team_launch applies them per agent); a
	 * spending limit only a team keeps needs every model priced. */
	if (o->ask != NULL || cfg->provider == LLM_SCRIPT)
		choice.budget = 0;
	catalog_lookup(cat, cfg->model, &m);
	if (choice.context_window > 0)
		m.context_window = choice.context_window;
	if (catalog_price(&m, &choice, err) == -1 ||
	    catalog_configure(&m, &choice, cfg, err) == -1)
		return -1;
	if (o->teammate_model != NULL) {
		struct llm_config tcfg = *cfg;

		catalog_lookup(cat, catalog_alias(cat, o->teammate_model), &m);
		if (catalog_price(&m, &choice, err) == -1 ||
		    catalog_configure(&m, &choice, &tcfg, err) == -1)
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

/* Says at start, once, that model `id` is not in the catalog and what
 * huddle assumes of it. */
static void
notice_unknown(const struct catalog *cat, const char *id,
    const struct options *o)
{
	struct model_choice choice = model_choice(o);
	struct model_info m;
	char *msg, *err = NULL;

	if (catalog_lookup(cat, id, &m))
		return;
	choice.budget = 0;
	if (catalog_price(&m, &choice, &err) == -1)
		free(err);
	msg = catalog_assumed(&m);
	fprintf(stderr, "huddle: notice: %s\n", msg);
	log_printf("notice: %s", msg);
	free(msg);
}

/* Prints the teams kept under base, each marked with `mark`; returns
 * how many. */
static size_t
list_teams_in(const char *base, const char *mark)
{
	struct statedir_team *t;
	char when[32];
	size_t n, i;

	n = statedir_list(base, &t);
	for (i = 0; i < n; i++) {
		struct tm tm;

		if (t[i].last_used == 0 || localtime_r(&t[i].last_used,
		    &tm) == NULL || strftime(when, sizeof when,
		    "%Y-%m-%d %H:%M", &tm) == 0)
			strcpy(when, "-");
		printf("%-7s %-16s %s%s%s%s (%s)", t[i].live_pid != 0 ?
		    "live" : "idle", when, *t[i].workdir ? t[i].workdir :
		    "(working tree not recorded)", *t[i].name ? " --team " :
		    "", t[i].name, mark, t[i].folder);
		if (t[i].live_pid > 0)
			printf(" PID %ld", t[i].live_pid);
		putchar('\n');
	}
	statedir_free_teams(t, n);
	return n;
}

/* --teams: the teams kept under the state directory, and the demo's. */
static int
list_teams(const char *override)
{
	char *base, *demo, *err = NULL;
	size_t n;

	if ((base = statedir_base(override, &err)) == NULL) {
		fprintf(stderr, "huddle: %s\n", err);
		free(err);
		return 2;
	}
	printf("%-7s %-16s %s\n", "STATE", "LAST USED", "WORKDIR (state)");
	n = list_teams_in(base, "");
	demo = demo_state_base(base);
	n += list_teams_in(demo, " — the demo (huddle --demo --resume)");
	free(demo);
	if (n == 0)
		printf("no teams under %s\n", base);
	free(base);
	return 0;
}
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

	if (o->fresh && (o->resume || o->demo || o->team_name != NULL)) {
		*err = xstrdup(o->resume ? "--new starts a fresh team and "
		    "--resume continues a kept one: give one of them" :
		    o->demo ? "--new is for your own teams; the demo starts "
		    "afresh unless --resume is given" : "--new sets the "
		    "unnamed team aside, --team NAME starts a team of its own "
		    "name: give one of them");
		return -1;
	}
	if (o->team_name != NULL && (o->demo ||
	    !statedir_name_ok(o->team_name))) {
		*err = o->demo ? xstrdup("--team names your own teams, not "
		    "the demo's") : xasprintf("--team %s: a name is 1 to 32 "
		    "letters, digits, '-' or '_'", o->team_name);
		return -1;
	}
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

/* How to run this huddle again (malloc'd): "huddle" when that is what
 * the PATH finds, else the path of this very program, quoted (a build
 * tree's huddle is on no PATH). */
static char *
program_word(void)
{
	char *self = realpath("/proc/self/exe", NULL), *path, *dir, *save;
	char *cand, *real, *word = NULL;

	if (self == NULL)
		return xstrdup("huddle");
	path = xstrdup(getenv("PATH") ? getenv("PATH") : "");
	for (dir = strtok_r(path, ":", &save); dir != NULL && word == NULL;
	    dir = strtok_r(NULL, ":", &save)) {
		cand = xasprintf("%s/huddle", *dir ? dir : ".");
		if (access(cand, X_OK) == 0) {
			real = realpath(cand, NULL);
			/* The first on the PATH is what "huddle" runs. */
			word = xstrdup(real != NULL && strcmp(real, self) ==
			    0 ? "huddle" : "");
			free(real);
		}
		free(cand);
	}
	free(path);
	if (word == NULL || *word == '\0') {
		free(word);
		word = shell_word(self);
	}
	free(self);
	return word;
}

/* After the screen closes: the team is kept, and the command that
 * continues it. */
static void
say_the_way_back(const struct options *o, const char *workdir)
{
	char *prog = program_word();
	char *cwd = getcwd(NULL, 0), *w = shell_word(workdir), *sd = NULL;
	char *pv = shell_word(options_word(o, OPT_PROVIDER)), *sc = NULL;
	int here = cwd != NULL && strcmp(cwd, workdir) == 0;
	/* A provider the settings chose, they choose again. */
	int other = o->from[OPT_PROVIDER] == OPT_FROM_CMDLINE &&
	    strcmp(options_word(o, OPT_PROVIDER), "anthropic") != 0;

	if (o->state_dir != NULL)
		sd = shell_word(o->state_dir);
	if (o->script != NULL)
		sc = shell_word(o->script);
	/* A team's name is a plain word (statedir_name_ok). */
	printf("huddle: the team is kept; to continue it: %s --resume%s%s"
	    "%s%s%s%s%s%s%s%s\n", prog, o->team_name ? " --team " : "",
	    o->team_name ? o->team_name : "", here ? "" : " --workdir ",
	    here ? "" : w, sd ? " --state-dir " : "", sd ? sd : "",
	    other ? " --provider " : "", other ? pv : "",
	    sc ? " --script " : "", sc ? sc : "");
	free(prog);
	free(cwd);
	free(w);
	free(sd);
	free(pv);
	free(sc);
}

/*
 * The team's options from ours: what was given replaces the team's
 * defaults (team_options_defaults), and what the settings files say
 * beyond the options goes along as they said it. The strings and JSON
 * stay o's.
 */
static void
team_options_fill(struct team_options *to, const struct options *o,
    const struct catalog *cat, const struct llm_config *cfg)
{
	static const unsigned reviewers[] = { PROTO_BY_USER, PROTO_BY_TARGET,
	    PROTO_BY_TARGET | PROTO_BY_USER };	/* human, lead, any */
	static const enum team_network networks[] = { TEAM_NET_PROXY,
	    TEAM_NET_OPEN, TEAM_NET_NONE };	/* proxy, open, none */

	team_options_defaults(to);
	to->llm = *cfg;
	to->catalog = cat;
	to->choice = model_choice(o);
	to->teammate_model = catalog_alias(cat, o->teammate_model);
	to->resume = o->resume;
	to->fresh = o->fresh;
	to->team_name = o->team_name;
	to->plan_review = reviewers[o->plan_review];
	/* The options table's defaults are the team's (tests/unit/
	 * test_options.c holds team_options_defaults to them). */
	to->max_teammates = o->max_teammates;
	if (options_given(o, OPT_MAX_ROUNDS))
		to->max_rounds = o->max_rounds;
	to->compact_at = o->compact_at;
	to->quit_timeout_ms = (int64_t)o->quit_timeout * 1000;
	if (options_given(o, OPT_SHUTDOWN_TIMEOUT))
		to->shutdown_timeout_ms = (int64_t)o->shutdown_timeout * 1000;
	if (options_given(o, OPT_MAX_COST))
		to->max_cost = o->max_cost;
	to->policy_path = o->risk_policy;
	to->state_base = o->state_dir;
	to->writable = (const char *const *)o->writable.v;
	to->nwritable = o->writable.n;
	to->readable = (const char *const *)o->readable.v;
	to->nreadable = o->readable.n;
	to->sockets = (const char *const *)o->allow_socket.v;
	to->nsockets = o->allow_socket.n;
	to->local = (const char *const *)o->allow_local.v;
	to->nlocal = o->allow_local.n;
	to->max_procs = o->max_procs;
	to->max_memory = o->max_memory;
	to->max_file_size = o->max_file_size;
	to->tmp_max.bytes = o->tmp_max;
	to->tmp_max.files = o->tmp_max_files;
	to->network = networks[o->network];
	to->no_network = to->network == TEAM_NET_NONE;
	to->no_sandbox = o->no_sandbox;
	to->autonomous = o->autonomous;
	to->verify = o->verify;
	to->worktrees = o->worktrees;
	to->mcp_servers = o->mcp_servers;
	to->mcp_origin = o->from[OPT_MCP_SERVERS] == OPT_FROM_CMDLINE ?
	    "--mcp-config" : "the person's settings";
	to->mcp_allow = o->permissions ? json_object_get(o->permissions,
	    "allow") : NULL;
	to->roles = o->roles;
	to->instructions = o->instructions;
	to->claude_rules = o->claude_rules;
	to->claude_notice = o->claude_notice;
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
	char *workdir, *demo_state = NULL, *config_dir = NULL, *err = NULL;
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
	team_options_fill(&to, o, cat, cfg);
	to.workdir = workdir;
	if (demo_state != NULL)
		to.state_base = demo_state;
	/* The demo's teammates work in worktrees, so F7 has a diff. */
	to.worktrees = o->worktrees || o->demo;
	to.config_dir = config_dir = configdir_path();
	/* What escapes a command that killed its reaper becomes our child,
	 * not init's, for bash_sweep_orphans to end (tools/bash.h): from
	 * before the team runs anything. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if ((t = team_open(&to, &err)) == NULL) {
		fprintf(stderr, "huddle: %s\n", err);
		free(err);
		rc = 1;
		goto out;
	}
	block_async_signals(&old);
	rc = team_start(t, &err);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == -1) {
		fprintf(stderr, "huddle: %s\n", err);
		free(err);
		team_free(t);
		rc = 1;
		goto out;
	}
	if (o->demo && !o->resume && team_say(t, NULL, DEMO_PROMPT,
	    &err) == -1) {
		fprintf(stderr, "huddle: %s\n", err);
		free(err);
	}
	rc = o->headless ? headless_run(t) : ui_run(t, o->demo ? o->resume ?
	    DEMO_HINT_RESUMED : DEMO_HINT : NULL, o->resume);
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
out:
	free(config_dir);
	free(workdir);
	free(demo_state);
	demo_close(&demo);
	return rc;
}

/*
 * Checks what the team needs before anything starts and then runs it,
 * or --models, or --ask: the log, the model catalog, the places, the
 * keys and the model. Returns the exit status.
 */
static int
start(const struct options *o)
{
	struct catalog *cat = NULL;
	struct llm_config cfg;
	char *owned = NULL, *err = NULL, *user_catalog;
	int rc = 2;

	memset(&cfg, 0, sizeof cfg);
	/* libcurl's global state before any thread, and no SIGPIPE from
	 * a server that hangs up while we write. */
	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_ALL);
	if (o->log != NULL && log_open(o->log, &err) == -1) {
		fprintf(stderr, "huddle: --log %s\n", err);
		free(err);
		goto out;
	}
	user_catalog = catalog_user_path();
	cat = catalog_open(o->catalog, user_catalog, &err);
	free(user_catalog);
	if (cat == NULL)
		goto fail;
	if (o->models) {
		catalog_print(stdout, cat, time(NULL));
		rc = 0;
		goto out;
	}
	/* What a person fixes first is checked first: where the team
	 * works, where its state goes, then the model and its key. */
	if (o->ask == NULL && check_places(o, &err) == -1)
		goto fail;
	anthropic_key = secret_take("ANTHROPIC_API_KEY");
	anthropic_token = secret_take("ANTHROPIC_AUTH_TOKEN");
	openai_key = secret_take("OPENAI_API_KEY");
	if (llm_setup(o, cat, &cfg, &owned, &err) == -1)
		goto fail;
	warn_retiring(cat, cfg.model);
	if (o->teammate_model != NULL)
		warn_retiring(cat, o->teammate_model);
	if (cfg.provider != LLM_SCRIPT) {
		notice_unknown(cat, cfg.model, o);
		if (o->teammate_model != NULL && strcmp(o->teammate_model,
		    cfg.model) != 0)
			notice_unknown(cat, o->teammate_model, o);
	}
	log_printf("huddle %s: provider %s, model %s, base URL %s, a key %s",
	    PACKAGE_VERSION, o->demo ? "script" : options_word(o,
	    OPT_PROVIDER), cfg.model, cfg.base_url ? cfg.base_url : "-",
	    (cfg.api_key && *cfg.api_key) || cfg.auth_token ? "is set" :
	    "is not set");
	if (o->ask != NULL)
		rc = ask_run(&cfg, o->ask);
	else if (!o->headless && (!isatty(STDIN_FILENO) ||
	    !isatty(STDOUT_FILENO))) {
		fprintf(stderr, "huddle: the screen needs a terminal; use "
		    "--headless for pipes and scripts\n");
		rc = 2;
	} else if (!o->headless && terminal_check(&err) == -1)
		goto fail;
	else
		rc = run_team(o, cat, &cfg);
	goto out;
fail:
	fprintf(stderr, "huddle: %s\n", err);
	free(err);
	rc = 2;
out:
	log_close();
	catalog_free(cat);
	script_free(cfg.script);
	free(owned);
	free(anthropic_key);
	free(anthropic_token);
	free(openai_key);
	curl_global_cleanup();
	return rc;
}

/* The settings files and the environment, over the command line, then
 * Claude Code's files in the project. */
static int
read_settings(struct options *o)
{
	char *err = NULL, *work;
	int rc;

	if (settings_read(o, &err) == -1)
		goto fail;
	/* Claude Code's files beside the project's (ccsettings.h): the
	 * environment has spoken by now, and keeps its model. */
	if (o->demo && o->workdir == NULL)
		return GO_ON;
	if ((work = realpath(o->workdir ? o->workdir : ".", NULL)) == NULL)
		return GO_ON;	/* said when the team opens */
	rc = ccsettings_read(o, work, &err);
	free(work);
	if (rc == 0)
		return GO_ON;
fail:
	fprintf(stderr, "huddle: %s\n", err);
	free(err);
	return 2;
}

/* Before any thread exists: the variables the person passes, the keys
 * out of the environment, and the process out of reach of its tools'
 * debuggers and core dumps. */
static int
harden(const struct options *o)
{
	size_t i;

	for (i = 0; i < o->pass_env.n; i++)
		env_pass(o->pass_env.v[i]);
	secret_harden();
	env_seal();
	return GO_ON;
}

int
main(int argc, char **argv)
{
	struct options o;
	int rc;

	/* huddle started again to stand between a command and itself. */
	if (argc > 1 && strcmp(argv[1], REAPER_ARG) == 0)
		return reaper_main(argc, argv);
	if (argc > 1 && strcmp(argv[1], MOUNTNS_HOLDER_ARG) == 0)
		return mountns_holder_main(argc, argv);

	setlocale(LC_ALL, "");
	options_init(&o);
	rc = options_parse(&o, argc, argv);
	if (rc == GO_ON)
		rc = read_settings(&o);
	if (rc == GO_ON)
		rc = harden(&o);
	if (rc == GO_ON && o.settings) {
		options_print(stdout, &o);
		rc = 0;
	}
	if (rc == GO_ON && o.teams)
		rc = list_teams(o.state_dir);
	if (rc == GO_ON)
		rc = start(&o);
	options_free(&o);
	return rc;
}
