/*
 * The options table and what reads it (see options.h): the values'
 * parsers, the command line (getopt_long over a long-option table built
 * from this one), --help and --settings.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "llm/llm.h"
#include "options.h"
#include "tools/ccrules.h"
#include "tools/netlocal.h"
#include "util/number.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

#define F(field)	offsetof(struct options, field)

const struct opt_def options_table[OPT__COUNT] = {
	[OPT_DEMO] = { "demo", 0, NULL, OPTT_FLAG, OPT_CLI_ONLY, F(demo),
	    .help = "a scripted team, no network, no key, in STATE/demo "
	    "(--resume continues it)" },
	[OPT_WORKDIR] = { "workdir", 0, "DIR", OPTT_PATH, OPT_CLI_ONLY,
	    F(workdir), .what = "a directory",
	    .deflt = "the current directory",
	    .help = "where the team works" },
	[OPT_RESUME] = { "resume", 0, NULL, OPTT_FLAG, OPT_CLI_ONLY,
	    F(resume),
	    .help = "continue the team of the working directory" },
	[OPT_NEW] = { "new", 0, NULL, OPTT_FLAG, OPT_CLI_ONLY, F(fresh),
	    .help = "start a fresh team where one is kept; the kept one is "
	    "set aside under a name (--teams lists it)" },
	[OPT_TEAM] = { "team", 0, "NAME", OPTT_TEXT, OPT_CLI_ONLY,
	    F(team_name), .what = "a name",
	    .help = "the working directory's team called NAME: a new one, "
	    "or with --resume a kept one" },
	[OPT_STATE_DIR] = { "state-dir", 0, "DIR", OPTT_PATH, OPT_GATE,
	    F(state_dir), 1, .what = "an absolute path",
	    .deflt = "$XDG_STATE_HOME/huddle",
	    .deflt_note = "without it ~/.local/state/huddle",
	    .help = "keep teams' state under DIR" },
	[OPT_TEAMS] = { "teams", 0, NULL, OPTT_FLAG, OPT_CLI_ONLY, F(teams),
	    .help = "list the teams kept there and exit" },
	[OPT_HEADLESS] = { "headless", 0, NULL, OPTT_FLAG, OPT_CLI_ONLY,
	    F(headless),
	    .help = "no screen: stdin lines are the input line, stdout is "
	    "one JSON object per event" },
	[OPT_SETTINGS] = { "settings", 0, NULL, OPTT_FLAG, OPT_CLI_ONLY,
	    F(settings),
	    .help = "show every setting, its value and where it came from "
	    "(the settings files: doc/settings.md), and exit" },
	[OPT_PLAN_REVIEW] = { "plan-review", 0, "WHO", OPTT_WORD, OPT_GATE,
	    F(plan_review), .what = "human lead any", .deflt = "any",
	    .help = "who reviews plans: human, lead or any" },
	[OPT_MAX_TEAMMATES] = { "max-teammates", 0, "N", OPTT_INT, OPT_GATE,
	    F(max_teammates), 1, 64, "a number", .deflt = "8",
	    .help = "at most N live teammates" },
	[OPT_QUIT_TIMEOUT] = { "quit-timeout", 0, "S", OPTT_INT,
	    OPT_NEUTRAL, F(quit_timeout), 0, 3600, "seconds",
	    .deflt = "10",
	    .help = "seconds teammates get to shut down when you quit" },
	[OPT_SHUTDOWN_TIMEOUT] = { "shutdown-timeout", 0, "S", OPTT_INT,
	    OPT_NEUTRAL, F(shutdown_timeout), 1, 86400, "seconds",
	    .deflt = "60",
	    .help = "a shutdown request expires after S seconds, then "
	    "it can be forced" },
	[OPT_RISK_POLICY] = { "risk-policy", 0, "FILE", OPTT_PATH, OPT_GATE,
	    F(risk_policy), .what = "a file",
	    .help = "rules for commands that need your permission" },
	[OPT_MCP_CONFIG] = { "mcp-config", 0, "FILE", OPTT_PATH, OPT_CLI_ONLY,
	    F(mcp_config), .what = "a file",
	    .help = "MCP servers: a JSON file with \"mcpServers\", as "
	    ".mcp.json (doc/mcp.md); they replace the settings' mcpServers" },
	[OPT_LOG] = { "log", 0, "FILE", OPTT_PATH, OPT_GATE, F(log),
	    .what = "a file", .help = "write a debug log" },
	[OPT_ASK] = { "ask", 0, "TEXT", OPTT_TEXT, OPT_CLI_ONLY, F(ask),
	    .what = "text",
	    .help = "send TEXT to the model, stream the reply to stdout, "
	    "and exit (checks a key, model or server)" },
	[OPT_PROVIDER] = { "provider", 0, "NAME", OPTT_WORD, OPT_GATE,
	    F(provider), .what = "anthropic openai openai-chat script",
	    .deflt = "anthropic",
	    .help = "anthropic; openai (OpenAI's Responses API); "
	    "openai-chat (a chat completions server: Ollama, vLLM, llama.cpp, "
	    "DeepSeek, OpenRouter); or script" },
	[OPT_MODEL] = { "model", 0, "NAME", OPTT_TEXT, OPT_NEUTRAL,
	    F(model), .what = "a model's name",
	    .env = "HUDDLE_MODEL ANTHROPIC_MODEL",
	    .env_openai = "HUDDLE_MODEL OPENAI_MODEL",
	    .deflt = "the catalog's default / " OPT_OPENAI_MODEL,
	    .help = "the model" },
	[OPT_TEAMMATE_MODEL] = { "teammate-model", 0, "NAME", OPTT_TEXT,
	    OPT_NEUTRAL, F(teammate_model), .what = "a model's name",
	    .deflt = "the lead's",
	    .help = "teammates' model" },
	[OPT_MODELS] = { "models", 0, NULL, OPTT_FLAG, OPT_CLI_ONLY,
	    F(models), .help = "list the model catalog and exit" },
	[OPT_CATALOG] = { "catalog", 0, "FILE", OPTT_PATH, OPT_GATE,
	    F(catalog), .what = "a file", .deflt = "built in",
	    .help = "read the model catalog from FILE" },
	[OPT_THINKING] = { "thinking", 0, "HOW", OPTT_THINKING, OPT_GATE,
	    F(thinking),
	    .what = "adaptive, off or a budget of at least 1024 tokens",
	    .deflt = "the catalog's",
	    .deflt_note = "per model",
	    .help = "adaptive, off, or a budget in tokens" },
	[OPT_THINKING_DISPLAY] = { "thinking-display", 0, "HOW", OPTT_WORD,
	    OPT_NEUTRAL, F(thinking_display), .what = "summarized omitted",
	    .deflt = "summarized",
	    .help = "summarized or omitted: omitted starts replies "
	    "sooner, but the panes show no thinking" },
	[OPT_REASONING_EFFORT] = { "reasoning-effort", 0, "E", OPTT_WORD,
	    OPT_GATE, F(reasoning_effort),
	    .what = "none minimal low medium high xhigh max",
	    .deflt = "the catalog's",
	    .help = "OpenAI: none, minimal, low, medium, high, xhigh "
	    "or max" },
	[OPT_MAX_TOKENS] = { "max-tokens", 0, "N", OPTT_INT, OPT_GATE,
	    F(max_tokens), 1, 100000000, "a number of tokens",
	    .deflt = "the model's largest",
	    .help = "cap each reply at N tokens" },
	[OPT_CONTEXT_WINDOW] = { "context-window", 0, "N", OPTT_INT,
	    OPT_GATE, F(context_window), 1024, 1000000000,
	    "a number of tokens", .deflt = "the catalog's",
	    .help = "the model's context in tokens, for a model the catalog "
	    "does not know" },
	[OPT_COMPACT_AT] = { "compact-at", 0, "PCT", OPTT_INT, OPT_GATE,
	    F(compact_at), 10, 100, "a percent", .deflt = "75",
	    .deflt_note = "100: never",
	    .help = "compact an agent's conversation when its next "
	    "request would fill PCT% of the window" },
	[OPT_MAX_ROUNDS] = { "max-rounds", 0, "N", OPTT_INT, OPT_GATE,
	    F(max_rounds), 1, 100000, "a number", .deflt = "no limit",
	    .help = "tool rounds an agent may run in one turn" },
	[OPT_AUTONOMOUS] = { "autonomous", 0, NULL, OPTT_FLAG, OPT_GATE,
	    F(autonomous),
	    .help = "every teammate takes the next ready task of the task "
	    "board itself when idle" },
	[OPT_VERIFY] = { "verify", 0, "CMD", OPTT_TEXT, OPT_GATE, F(verify),
	    .what = "a command",
	    .help = "a task counts as completed only once CMD exits 0 (run "
	    "like bash, in the workdir)" },
	[OPT_WORKTREES] = { "worktrees", 0, NULL, OPTT_FLAG, OPT_NEUTRAL,
	    F(worktrees),
	    .help = "every teammate works in a git worktree of its own, on "
	    "a branch huddle/NAME" },
	[OPT_NO_CACHE] = { "no-cache", 0, NULL, OPTT_FLAG, OPT_GATE,
	    F(no_cache), .help = "do not ask for prompt caching" },
	[OPT_MAX_COST] = { "max-cost", 0, "USD", OPTT_DOLLARS, OPT_GATE,
	    F(max_cost), .what = "US dollars, e.g. 5 or 2.50",
	    .deflt = "no limit",
	    .help = "start no model call once the team has spent USD; "
	    "/budget raises it" },
	[OPT_PRICE] = { "price", 0, "IN/OUT", OPTT_PRICE, OPT_GATE,
	    F(price_in), .what = "IN/OUT, US dollars per million input and "
	    "output tokens, e.g. 3/15", .deflt = "none",
	    .help = "the price of a model the catalog has none for, in US "
	    "dollars per million input/output tokens, e.g. 3/15, so that "
	    "--max-cost counts it" },
	[OPT_PASS_ENV] = { "pass-env", 0, "NAME", OPTT_NAMES, OPT_GATE,
	    F(pass_env), .what = "a variable's name",
	    .help = "give tools variable NAME although it looks like a "
	    "secret (repeatable)" },
	[OPT_WRITABLE] = { "writable", 0, "DIR", OPTT_PATHS, OPT_GATE,
	    F(writable), .what = "a directory",
	    .help = "let commands write in DIR too (repeatable; by default "
	    "only the workdir and a TMPDIR)" },
	[OPT_READABLE] = { "readable", 0, "PATH", OPTT_PATHS, OPT_GATE,
	    F(readable), .what = "a path",
	    .help = "let commands and file tools read PATH although it is a "
	    "secret store (repeatable)" },
	[OPT_ALLOW_SOCKET] = { "allow-socket", 0, "PATH", OPTT_PATHS,
	    OPT_GATE, F(allow_socket), .what = "a path",
	    .help = "let commands connect to the Unix socket PATH (e.g. "
	    "docker's; repeatable)" },
	[OPT_ALLOW_LOCAL] = { "allow-local", 0, "HOST:PORT", OPTT_NAMES,
	    OPT_GATE, F(allow_local), .what = "HOST:PORT (a name or an "
	    "address, IPv6 in brackets, and a port from 1 to 65535)",
	    .help = "let commands reach HOST:PORT through the proxy though "
	    "it is this machine or its link, once you approve (repeatable)" },
	[OPT_MAX_PROCS] = { "max-procs", 0, "N", OPTT_INT, OPT_GATE,
	    F(max_procs), 0, 1000000, "a number", .deflt = "512",
	    .deflt_note = "0: no limit",
	    .help = "processes one command may start" },
	[OPT_MAX_MEMORY] = { "max-memory", 0, "SIZE", OPTT_SIZE, OPT_GATE,
	    F(max_memory), .what = "a size, e.g. 512M or 4G (0: no limit)",
	    .deflt = "2G",
	    .deflt_note = "0: no limit",
	    .help = "memory of one command's process, e.g. 4G" },
	[OPT_MAX_FILE_SIZE] = { "max-file-size", 0, "SIZE", OPTT_SIZE,
	    OPT_GATE, F(max_file_size),
	    .what = "a size, e.g. 100M or 8G (0: no limit)", .deflt = "4G",
	    .deflt_note = "0: no limit",
	    .help = "largest file a command may write" },
	[OPT_TMP_MAX] = { "tmp-max", 0, "SIZE", OPTT_SIZE, OPT_GATE,
	    F(tmp_max), .what = "a size, e.g. 512M or 8G (0: no limit)",
	    .deflt = "4G",
	    .deflt_note = "0: no limit",
	    .help = "what the team's TMPDIR may hold; a command that "
	    "makes it grow past that is stopped" },
	[OPT_TMP_MAX_FILES] = { "tmp-max-files", 0, "N", OPTT_INT, OPT_GATE,
	    F(tmp_max_files), 0, 100000000, "a number", .deflt = "100000",
	    .deflt_note = "0: no limit",
	    .help = "files the team's TMPDIR may hold, as --tmp-max" },
	[OPT_NETWORK] = { "network", 0, "HOW", OPTT_WORD, OPT_GATE,
	    F(network), .what = "proxy open none", .deflt = "proxy",
	    .help = "proxy: commands reach the network through "
	    "huddle's proxy, each new host asking you; open: directly, as they "
	    "ask; none: not at all" },
	[OPT_NO_NETWORK] = { "no-network", 0, NULL, OPTT_ALIAS, OPT_GATE,
	    F(no_network), .what = "none", .alias = OPT_NETWORK,
	    .help = "the same as --network none" },
	[OPT_NO_SANDBOX] = { "no-sandbox", 0, NULL, OPTT_FLAG, OPT_GATE,
	    F(no_sandbox),
	    .help = "run commands without the Landlock sandbox" },
	[OPT_BASE_URL] = { "base-url", 0, "URL", OPTT_TEXT, OPT_GATE,
	    F(base_url), .what = "a URL",
	    .env = "ANTHROPIC_BASE_URL", .env_openai = "OPENAI_BASE_URL",
	    .deflt = "the vendor's",
	    .help = "the API's base URL" },
	[OPT_SCRIPT] = { "script", 0, "FILE", OPTT_PATH, OPT_GATE,
	    F(script), .what = "a file",
	    .help = "the scenario for --provider script" },
	[OPT_NO_STREAM] = { "no-stream", 0, NULL, OPTT_FLAG, OPT_NEUTRAL,
	    F(no_stream),
	    .help = "ask for whole replies instead of streams" },
	[OPT_RETRY_FOR] = { "retry-for", 0, "TIME", OPTT_DURATION,
	    OPT_NEUTRAL, F(retry_for), 0, 0,
	    "a duration, e.g. 90s, 10m or 1h (0: never retry)",
	    .deflt = "10m",
	    .deflt_note = "0: never retry",
	    .help = "retry an overloaded, rate-limited or dropped call "
	    "for up to TIME, e.g. 90s, 10m, 1h" },
	[OPT_RETRY_MAX_DELAY] = { "retry-max-delay", 0, "TIME",
	    OPTT_DURATION, OPT_NEUTRAL, F(retry_max_delay), 1, 0,
	    "a duration, e.g. 40s or 250ms", .deflt = "40s",
	    .deflt_note = "a server's retry-after wins",
	    .help = "the longest wait between attempts" },
	[OPT_MAX_RETRIES] = { "max-retries", 0, "N", OPTT_INT, OPT_NEUTRAL,
	    F(max_retries), 0, 1000, "a number",
	    .deflt = "as --retry-for allows",
	    .help = "retries of a failed call at most" },
	[OPT_STALL_TIMEOUT] = { "stall-timeout", 0, "S", OPTT_INT,
	    OPT_NEUTRAL, F(stall_timeout), 1, 3600, "seconds",
	    .deflt = "60",
	    .help = "a streamed call that receives nothing for S "
	    "seconds fails" },
	[OPT_HELP] = { "help", 'h', NULL, OPTT_FLAG, OPT_CLI_ONLY, F(help),
	    .help = "show this help and exit" },
	[OPT_VERSION] = { "version", 'V', NULL, OPTT_FLAG, OPT_CLI_ONLY,
	    F(version), .help = "show the version and exit" },
	[OPT_MCP_SERVERS] = { "mcpServers", 0, NULL, OPTT_JSON, OPT_GATE,
	    F(mcp_servers),
	    .what = "an object of servers, as .mcp.json's mcpServers" },
	[OPT_PERMISSIONS] = { "permissions", 0, NULL, OPTT_JSON, OPT_GATE,
	    F(permissions),
	    .what = "{\"allow\": [\"mcp__SERVER__TOOL\", …]}" },
	[OPT_ROLES] = { "roles", 0, NULL, OPTT_JSON, OPT_NEUTRAL, F(roles),
	    .what = "an object of roles, each {\"model\": NAME}" },
	[OPT_INSTRUCTIONS] = { "instructions", 0, NULL, OPTT_JSON,
	    OPT_NEUTRAL, F(instructions),
	    .what = "an array of files in the working tree" },
};

#define FIELD(o, def, type)	((type *)(void *)((char *)(o) + (def)->field))

int
options_find(const char *name)
{
	int i;

	for (i = 0; i < OPT__COUNT; i++)
		if (strcmp(options_table[i].name, name) == 0)
			return i;
	return -1;
}

void
options_init(struct options *o)
{
	const struct opt_def *d;
	char *err = NULL;
	int i;

	memset(o, 0, sizeof *o);
	/* A default that is a value is read like one; the others ("the
	 * catalog's") are words for --settings and leave the field 0. */
	for (i = 0; i < OPT__COUNT; i++) {
		d = &options_table[i];
		if (d->deflt != NULL && d->type != OPTT_PATH &&
		    d->type != OPTT_TEXT && options_set(o, i, d->deflt, NULL,
		    OPT_FROM_BUILTIN, NULL, &err) == -1) {
			free(err);
			err = NULL;
			free(o->text[i]);
			o->text[i] = NULL;
		}
	}
}

void
options_free(struct options *o)
{
	struct opt_list *l;
	int i;

	for (i = 0; i < OPT__COUNT; i++) {
		const struct opt_def *d = &options_table[i];

		if (d->type == OPTT_PATHS || d->type == OPTT_NAMES) {
			l = FIELD(o, d, struct opt_list);
			while (l->n > 0)
				free(l->v[--l->n]);
			free(l->v);
		} else if (d->type == OPTT_JSON)
			json_decref(*FIELD(o, d, json_t *));
		free(o->origin[i]);
		free(o->text[i]);
	}
	ccrules_free(o->claude_rules);
	free(o->claude_notice);
	memset(o, 0, sizeof *o);
}

int
options_given(const struct options *o, enum opt_id id)
{
	return o->from[id] > OPT_FROM_BUILTIN;
}

/* Reads a whole decimal number from lo to hi; 0, or -1. */
static int
options_number(const char *arg, long lo, long hi, long *v)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (*arg == '\0' || *end != '\0' || errno != 0 || n < lo || n > hi)
		return -1;
	*v = n;
	return 0;
}

/* A size: bytes, or a number with K, M, G or T (powers of 1024). */
static int
options_size(const char *arg, long long *v)
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

/* One amount of US dollars of a price: 0 or more, up to a million. */
static int
options_amount(const char *s, const char *end, double *v)
{
	char *stop;

	if (s == end || !((*s >= '0' && *s <= '9') || *s == '.'))
		return -1;
	*v = strtod(s, &stop);
	return stop == end && *v >= 0 && *v <= 1e6 ? 0 : -1;
}

/* A price "IN/OUT": dollars per million input and output tokens; both
 * are set, or neither. */
static int
options_price(const char *arg, double *in, double *out)
{
	const char *slash = strchr(arg, '/');
	double i, o;

	if (slash == NULL || options_amount(arg, slash, &i) == -1 ||
	    options_amount(slash + 1, slash + 1 + strlen(slash + 1),
	    &o) == -1)
		return -1;
	*in = i;
	*out = o;
	return 0;
}

/* The index of `arg` among the space-separated `words`, or -1. */
static int
options_word_index(const char *words, const char *arg)
{
	size_t len = strlen(arg);
	const char *p = words;
	int i = 0;

	while (*p != '\0') {
		size_t n = strcspn(p, " ");

		if (n == len && len > 0 && strncmp(p, arg, n) == 0)
			return i;
		p += n;
		p += *p == ' ';
		i++;
	}
	return -1;
}

/* The words as a sentence ends them: "human, lead or any". */
static char *
options_words_text(const char *words)
{
	size_t n = strlen(words), i, last = n;
	char *out = xmalloc(2 * n + 4), *q = out;

	for (i = 0; i < n; i++)
		if (words[i] == ' ')
			last = i;
	for (i = 0; i < n; i++) {
		if (words[i] != ' ')
			*q++ = words[i];
		else if (i == last) {
			memcpy(q, " or ", 4);
			q += 4;
		} else {
			memcpy(q, ", ", 2);
			q += 2;
		}
	}
	*q = '\0';
	return out;
}

/* What option d takes, for a complaint about `value` (or NULL). */
static char *
options_takes(const struct opt_def *d, const char *value)
{
	char *words, *s;

	switch (d->type) {
	case OPTT_FLAG:
	case OPTT_ALIAS:
		return xstrdup("takes true or false");
	case OPTT_INT:
		return xasprintf("takes %s from %ld to %ld", d->what, d->lo,
		    d->hi);
	case OPTT_WORD:
		words = options_words_text(d->what);
		if (value != NULL && *value != '\0') {
			/* The value may come from a file a teammate wrote. */
			char *v = utf8_clean(value, strlen(value), 40);

			s = xasprintf("takes %s (unknown %s '%s')", words,
			    d->name, v);
			free(v);
		} else
			s = xasprintf("takes %s", words);
		free(words);
		return s;
	case OPTT_PATHS:
	case OPTT_NAMES:
		return xasprintf("takes %s, or a list of them", d->what);
	default:
		return xasprintf("takes %s", d->what);
	}
}

/* Adds s (taken) to list l. */
static void
options_list_add(struct opt_list *l, char *s)
{
	l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof *l->v);
	l->v[l->n++] = s;
}

/* Reads `value` for d into o; 0, or -1 with *err. */
static int
options_read(struct options *o, const struct opt_def *d, const char *value,
    char **err)
{
	struct opt_list *l;
	long n;
	int i;
	const char *why;

	switch (d->type) {
	case OPTT_FLAG:
		if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0)
			goto bad;
		*FIELD(o, d, int) = strcmp(value, "true") == 0;
		return 0;
	case OPTT_TEXT:
	case OPTT_PATH:
		if (*value == '\0' || (d->type == OPTT_PATH && d->lo == 1 &&
		    *value != '/'))
			goto bad;
		/* o->text holds the string the field points to. */
		return 0;
	case OPTT_INT:
		if (options_number(value, d->lo, d->hi, &n) == -1)
			goto bad;
		*FIELD(o, d, int) = (int)n;
		return 0;
	case OPTT_DURATION:
		if (number_duration_ms(value, FIELD(o, d, int64_t)) == -1 ||
		    *FIELD(o, d, int64_t) < d->lo)
			goto bad;
		return 0;
	case OPTT_SIZE:
		if (options_size(value, FIELD(o, d, long long)) == -1)
			goto bad;
		return 0;
	case OPTT_DOLLARS: {
		char *end;
		double v = strtod(value, &end);

		if (*value == '\0' || *end != '\0' || !(v > 0) || v > 1e9)
			goto bad;
		*FIELD(o, d, double) = v;
		return 0;
	}
	case OPTT_PRICE:
		if (options_price(value, &o->price_in, &o->price_out) == -1)
			goto bad;
		return 0;
	case OPTT_WORD:
		if ((i = options_word_index(d->what, value)) == -1)
			goto bad;
		*FIELD(o, d, int) = i;
		return 0;
	case OPTT_THINKING:
		if (strcmp(value, "adaptive") == 0)
			o->thinking = LLM_THINKING_ADAPTIVE;
		else if (strcmp(value, "off") == 0)
			o->thinking = LLM_THINKING_DISABLED;
		else if (options_number(value, 1024, 10000000, &n) == 0) {
			o->thinking = LLM_THINKING_BUDGET;
			o->thinking_budget = (int)n;
		} else
			goto bad;
		return 0;
	case OPTT_PATHS: {
		char *real = realpath(value, NULL);

		if (real == NULL) {
			*err = xasprintf("%s: %s", value, strerror(errno));
			return -1;
		}
		l = FIELD(o, d, struct opt_list);
		options_list_add(l, real);
		return 0;
	}
	case OPTT_NAMES:
		if (*value == '\0' || (d == &options_table[OPT_ALLOW_LOCAL] &&
		    !netlocal_entry_ok(value, &why)))
			goto bad;
		l = FIELD(o, d, struct opt_list);
		options_list_add(l, xstrdup(value));
		return 0;
	case OPTT_ALIAS:
	case OPTT_JSON:
		break;
	}
bad:
	*err = options_takes(d, value);
	return -1;
}

/* Empties list l. */
static void
options_list_clear(struct opt_list *l)
{
	while (l->n > 0)
		free(l->v[--l->n]);
}

int
options_set(struct options *o, enum opt_id id, const char *value,
    json_t *json, enum opt_source src, const char *origin, char **err)
{
	const struct opt_def *d = &options_table[id];
	int repeat = d->type == OPTT_PATHS || d->type == OPTT_NAMES;
	char *old;

	if (src < o->from[id] && d->type != OPTT_ALIAS &&
	    d->type != OPTT_JSON) {
		/* Checked all the same, so that a bad value is named
		 * wherever it is written. */
		struct options scratch;
		int rc;

		memset(&scratch, 0, sizeof scratch);
		rc = options_read(&scratch, d, value, err);
		if (repeat) {
			options_list_clear(FIELD(&scratch, d,
			    struct opt_list));
			free(FIELD(&scratch, d, struct opt_list)->v);
		}
		return rc;
	}
	if (src < o->from[id] && d->type == OPTT_JSON)
		return 0;
	if (d->type == OPTT_ALIAS) {
		if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0) {
			*err = options_takes(d, NULL);
			return -1;
		}
		if (strcmp(value, "false") == 0)
			return 0;
		return options_set(o, d->alias, d->what, NULL, src, origin,
		    err);
	}
	if (d->type == OPTT_JSON) {
		json_t **field = FIELD(o, d, json_t *);

		/* Roles add up, a stronger source's role replacing a
		 * weaker's of the same name; the others are replaced. */
		if (id == OPT_ROLES && *field != NULL)
			json_object_update(*field, json);
		else {
			json_decref(*field);
			*field = json_incref(json);
		}
	} else {
		if (repeat && src > o->from[id] &&
		    o->from[id] != OPT_FROM_BUILTIN)
			options_list_clear(FIELD(o, d, struct opt_list));
		if (options_read(o, d, value, err) == -1)
			return -1;
		if (repeat && o->text[id] != NULL && src == o->from[id]) {
			old = o->text[id];
			o->text[id] = xasprintf("%s %s", old, value);
			free(old);
		} else {
			free(o->text[id]);
			o->text[id] = xstrdup(value);
		}
		if (d->type == OPTT_TEXT || d->type == OPTT_PATH)
			*FIELD(o, d, const char *) = o->text[id];
	}
	o->from[id] = src;
	free(o->origin[id]);
	o->origin[id] = xstrdup_or_null(origin);
	return 0;
}

const char *
options_word(const struct options *o, enum opt_id id)
{
	/* A word was checked against the table as it was given. */
	return o->text[id];
}

void
options_env(struct options *o)
{
	int openai = strncmp(options_word(o, OPT_PROVIDER), "openai",
	    6) == 0;
	const struct opt_def *d;
	const char *names, *v;
	char name[64], *err = NULL;
	size_t n;
	int i;

	for (i = 0; i < OPT__COUNT; i++) {
		d = &options_table[i];
		names = openai && d->env_openai ? d->env_openai : d->env;
		while (names != NULL && *names != '\0') {
			n = strcspn(names, " ");
			if (n >= sizeof name)
				break;
			memcpy(name, names, n);
			name[n] = '\0';
			names += n + (names[n] == ' ');
			if ((v = getenv(name)) == NULL || *v == '\0')
				continue;
			if (options_set(o, i, v, NULL, OPT_FROM_ENV, name,
			    &err) == -1)
				free(err);
			break;
		}
	}
}

/* Writes `text` from column `col`, wrapped at 78 columns, each further
 * line indented to `indent`. */
static void
options_wrap(FILE *out, const char *text, size_t col, size_t indent)
{
	const char *p = text;
	size_t n;

	while (*p != '\0') {
		n = strcspn(p, " ");
		if (col > indent && col + 1 + n > 78) {
			fprintf(out, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, n, out);
		col += n;
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

/* The variables that stand for row d, for --help: "$HUDDLE_MODEL, else
 * $ANTHROPIC_MODEL / $OPENAI_MODEL" (its env and env_openai lists side
 * by side), or "" (malloc'd). */
static char *
options_help_env(const struct opt_def *d)
{
	const char *a = d->env ? d->env : "", *b = d->env_openai ?
	    d->env_openai : a;
	char *text = xstrdup(""), *next;
	size_t na, nb;

	while (*a != '\0' || *b != '\0') {
		na = strcspn(a, " ");
		nb = strcspn(b, " ");
		if (na == nb && strncmp(a, b, na) == 0)
			next = xasprintf("%s%s$%.*s", text, *text ? ", else " :
			    "", (int)na, a);
		else
			next = xasprintf("%s%s%s%.*s%s%.*s", text, *text ?
			    ", else " : "", na ? "$" : "", (int)na, a,
			    na && nb ? " / $" : nb ? "$" : "", (int)nb, b);
		free(text);
		text = next;
		a += na + (a[na] == ' ');
		b += nb + (b[nb] == ' ');
	}
	return text;
}

char *
options_help_line(const struct opt_def *d)
{
	char *env, *line;

	if (d->deflt == NULL)
		return xstrdup(d->help);
	env = options_help_env(d);
	line = xasprintf("%s (default: %s%s%s%s%s)", d->help, env,
	    *env ? ", else " : "", d->deflt, d->deflt_note ? "; " : "",
	    d->deflt_note ? d->deflt_note : "");
	free(env);
	return line;
}

/* Writes --help. */
static void
options_help(FILE *out)
{
	const struct opt_def *d;
	char left[64], *help;
	int i, n;

	fputs("usage: huddle [options]\n"
	    "       huddle --ask TEXT [options]\n"
	    "\n"
	    "Runs a team of LLM agents in one terminal: a lead you talk to and\n"
	    "teammates it spawns, coordinating through durable inboxes.\n"
	    "\n"
	    "options:\n", out);
	for (i = 0; i < OPT__COUNT; i++) {
		d = &options_table[i];
		if (d->type == OPTT_JSON)
			continue;
		if (d->letter != 0)
			n = snprintf(left, sizeof left, "  -%c, --%s",
			    d->letter, d->name);
		else
			n = snprintf(left, sizeof left, "  --%s%s%s", d->name,
			    d->arg ? " " : "", d->arg ? d->arg : "");
		fputs(left, out);
		if (n < 24) {
			fprintf(out, "%*s", 24 - n, "");
			n = 24;
		} else {
			fputs("  ", out);
			n += 2;
		}
		/* The first word goes on the option's line however long. */
		help = options_help_line(d);
		options_wrap(out, help, (size_t)n, 24);
		free(help);
	}
	fputs("\n"
	    "Most options can be kept in settings files too: your own\n"
	    "$XDG_CONFIG_HOME/huddle/settings.json and the project's\n"
	    ".huddle/settings.json (huddle --settings shows them all).\n"
	    "\n"
	    "environment:\n"
	    "  ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL   for --provider anthropic\n"
	    "  ANTHROPIC_AUTH_TOKEN                    sent as a Bearer (gateways)\n"
	    "  ANTHROPIC_MODEL, OPENAI_MODEL           the provider's model\n"
	    "  OPENAI_API_KEY, OPENAI_BASE_URL         for --provider openai and\n"
	    "                                          openai-chat\n"
	    "  HUDDLE_MODEL                            the default model\n"
	    "  XDG_CONFIG_HOME                         huddle/ there: your\n"
	    "                                          settings.json, models.json\n"
	    "  HUDDLE_STATE_MAX                        a team's state at most, e.g. 1G\n"
	    "\n"
	    "A team's state lives in a folder of its own under the state\n"
	    "directory, out of the tools' reach (see huddle(1)).\n", out);
}

/* Where a value came from, in words. */
static char *
options_source_text(const struct options *o, int i)
{
	switch (o->from[i]) {
	case OPT_FROM_PERSON:
		return xasprintf("your settings %s", o->origin[i]);
	case OPT_FROM_PROJECT:
		return xasprintf("project settings %s", o->origin[i]);
	case OPT_FROM_ENV:
		return xasprintf("environment %s", o->origin[i]);
	case OPT_FROM_CMDLINE:
		return o->origin[i] ? xasprintf("command line %s",
		    o->origin[i]) : xstrdup("command line");
	case OPT_FROM_BUILTIN:
		break;
	}
	return xstrdup("built-in");
}

void
options_print(FILE *out, const struct options *o)
{
	const struct opt_def *d;
	const char *v;
	char *src, *clean, *dump = NULL;
	int i;

	fprintf(out, "%-18s %-24s %s\n", "SETTING", "VALUE", "FROM");
	for (i = 0; i < OPT__COUNT; i++) {
		d = &options_table[i];
		if (d->place == OPT_CLI_ONLY || d->type == OPTT_ALIAS)
			continue;
		if (d->type == OPTT_JSON) {
			json_t *j = *FIELD(o, d, json_t *);

			dump = j ? json_dumps(j, JSON_COMPACT |
			    JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
			v = dump ? dump : "none";
		} else if (o->text[i] != NULL)
			v = o->text[i];
		else if (d->type == OPTT_FLAG)
			v = "false";
		else
			v = d->deflt ? d->deflt : "none";
		src = options_source_text(o, i);
		/* A file a teammate can write may hold escapes. */
		clean = utf8_clean(v, strlen(v), 4096);
		fprintf(out, "%-18s %-24s %s\n", d->name, clean, src);
		free(clean);
		free(src);
		free(dump);
		dump = NULL;
	}
}

/* A long-option table for getopt_long, built from ours (each option's
 * val is 256 + its id), and getopt's string of short letters. */
static void
options_getopt(struct option *lo, char *letters)
{
	const struct opt_def *d;
	int i, n = 0;

	*letters++ = ':';
	for (i = 0; i < OPT__COUNT; i++) {
		d = &options_table[i];
		if (d->type == OPTT_JSON)
			continue;
		lo[n].name = d->name;
		lo[n].has_arg = d->arg ? required_argument : no_argument;
		lo[n].flag = NULL;
		lo[n].val = 256 + i;
		n++;
		if (d->letter != 0)
			*letters++ = d->letter;
	}
	memset(&lo[n], 0, sizeof lo[n]);
	*letters = '\0';
}

/* Says what was wrong with the command line; returns the status 2. */
static int
options_bad(const char *what, const char *why)
{
	fprintf(stderr, "huddle: %s%s%s\nTry 'huddle --help' for the "
	    "options.\n", what, why ? " " : "", why ? why : "");
	return 2;
}

int
options_parse(struct options *o, int argc, char **argv)
{
	struct option lo[OPT__COUNT + 1];
	char letters[16], *err = NULL, what[64];
	const struct opt_def *d;
	int c, i;

	options_getopt(lo, letters);
	opterr = 0;
	optind = 0;	/* from the start, whoever read a command line before */
	while ((c = getopt_long(argc, argv, letters, lo, NULL)) != -1) {
		if (c == ':') {
			/* The option as typed: its value was missing. */
			fprintf(stderr, "huddle: %s needs a value\n",
			    argv[optind - 1]);
			fprintf(stderr, "Try 'huddle --help' for the "
			    "options.\n");
			return 2;
		}
		if (c >= 256)
			i = c - 256;
		else
			for (i = 0; i < OPT__COUNT; i++)
				if (c != '?' && options_table[i].letter == c)
					break;
		if (i >= OPT__COUNT) {
			if (optopt != 0 && optopt < 256)
				fprintf(stderr, "huddle: bad option '-%c'\n",
				    optopt);
			else
				fprintf(stderr, "huddle: bad option '%s'\n",
				    argv[optind - 1]);
			fprintf(stderr, "Try 'huddle --help' for the "
			    "options.\n");
			return 2;
		}
		d = &options_table[i];
		if (options_set(o, i, d->arg ? optarg : "true", NULL,
		    OPT_FROM_CMDLINE, NULL, &err) == -1) {
			snprintf(what, sizeof what, "--%s", d->name);
			c = options_bad(what, err);
			free(err);
			return c;
		}
		if (o->help) {
			options_help(stdout);
			return 0;
		}
		if (o->version) {
			printf("huddle %s\n", PACKAGE_VERSION);
			return 0;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "huddle: unexpected argument '%s'\n",
		    argv[optind]);
		return options_bad("options start with '-'", NULL);
	}
	return -1;
}
