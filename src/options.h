/*
 * huddle's options: one table (options.c) says, for each, its name (the
 * long option and the settings key), its value's type and range, its
 * default, its help, and where it may be set — on the command line only,
 * in any settings file (neutral), or in the person's own settings file
 * but never the project's (a gate: the team's commands can write the
 * project's file). The command-line parser, --help, --settings and the
 * settings files (settings.h) are all driven by that table.
 *
 * Each value remembers where it came from; a value from a weaker source
 * never replaces one from a stronger: the command line, then the
 * environment, the project's settings file, the person's, and the
 * built-in default.
 */
#ifndef HUDDLE_OPTIONS_H
#define HUDDLE_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

struct ccrules;

/* The options, in the order --help lists them. */
enum opt_id {
	OPT_DEMO, OPT_WORKDIR, OPT_RESUME, OPT_NEW, OPT_TEAM, OPT_STATE_DIR,
	OPT_TEAMS,
	OPT_HEADLESS, OPT_SETTINGS, OPT_PLAN_REVIEW, OPT_MAX_TEAMMATES,
	OPT_QUIT_TIMEOUT, OPT_SHUTDOWN_TIMEOUT, OPT_RISK_POLICY, OPT_MCP_CONFIG,
	OPT_LOG,
	OPT_ASK, OPT_PROVIDER, OPT_MODEL, OPT_TEAMMATE_MODEL, OPT_MODELS,
	OPT_CATALOG, OPT_THINKING, OPT_THINKING_DISPLAY, OPT_REASONING_EFFORT,
	OPT_MAX_TOKENS, OPT_CONTEXT_WINDOW, OPT_COMPACT_AT, OPT_MAX_ROUNDS,
	OPT_AUTONOMOUS, OPT_VERIFY, OPT_WORKTREES, OPT_NO_CACHE, OPT_MAX_COST,
	OPT_PRICE, OPT_PASS_ENV, OPT_WRITABLE, OPT_READABLE, OPT_ALLOW_SOCKET,
	OPT_ALLOW_LOCAL,
	OPT_MAX_PROCS, OPT_MAX_MEMORY, OPT_MAX_FILE_SIZE, OPT_TMP_MAX,
	OPT_TMP_MAX_FILES, OPT_NETWORK,
	OPT_NO_NETWORK, OPT_NO_SANDBOX, OPT_BASE_URL, OPT_SCRIPT,
	OPT_NO_STREAM, OPT_RETRY_FOR, OPT_RETRY_MAX_DELAY, OPT_MAX_RETRIES,
	OPT_STALL_TIMEOUT, OPT_HELP, OPT_VERSION,
	/* Settings files only: what options cannot say. */
	OPT_MCP_SERVERS, OPT_PERMISSIONS, OPT_ROLES, OPT_INSTRUCTIONS,
	OPT__COUNT
};

/* What a value is. */
enum opt_type {
	OPTT_FLAG,	/* on or off (true or false in a file) */
	OPTT_TEXT,	/* any non-empty text */
	OPTT_PATH,	/* a path; absolute in a settings file */
	OPTT_INT,	/* a whole number from lo to hi */
	OPTT_DURATION,	/* a duration ("90s", "10m"), at least lo ms */
	OPTT_SIZE,	/* bytes, or with K, M, G, T */
	OPTT_DOLLARS,	/* US dollars above 0 */
	OPTT_PRICE,	/* IN/OUT: two amounts of US dollars, 0 or more */
	OPTT_WORD,	/* one of the words of `what` */
	OPTT_THINKING,	/* adaptive, off, or a budget of tokens */
	OPTT_PATHS,	/* repeatable: existing paths, kept resolved */
	OPTT_NAMES,	/* repeatable: names */
	OPTT_ALIAS,	/* a flag that sets option `alias` to `what` */
	OPTT_JSON	/* settings files only: JSON as settings.c checks */
};

/* Where an option may be set besides the command line. */
enum opt_place {
	OPT_CLI_ONLY,	/* the command line only */
	OPT_NEUTRAL,	/* any settings file too */
	OPT_GATE	/* the person's settings file, not the project's */
};

/* Where a value came from, weakest first. */
enum opt_source {
	OPT_FROM_BUILTIN,
	OPT_FROM_PERSON,	/* $XDG_CONFIG_HOME/huddle/settings.json */
	OPT_FROM_PROJECT,	/* <workdir>/.huddle/settings.json */
	OPT_FROM_ENV,
	OPT_FROM_CMDLINE
};

/* One row of the table. */
struct opt_def {
	const char	*name;	/* --NAME, and the settings key */
	char		 letter; /* -L, or 0 */
	const char	*arg;	/* the value's name in --help; NULL: none */
	enum opt_type	 type;
	enum opt_place	 place;
	size_t		 field;	/* offsetof(struct options, …) */
	long		 lo, hi; /* OPTT_INT's range; OPTT_DURATION's lo;
				 * OPTT_PATH: lo 1, absolute everywhere */
	const char	*what;	/* after "takes" in a complaint; OPTT_WORD:
				 * the words, space-separated; OPTT_ALIAS:
				 * the value given to `alias` */
	enum opt_id	 alias;
	const char	*env;	/* variables that stand for it, the first
				 * set wins; NULL: none */
	const char	*env_openai; /* the same for the OpenAI providers */
	const char	*deflt;	/* the built-in value, as --settings says;
				 * --help adds "(default …)" from it */
	const char	*deflt_note; /* after it there: "0: no limit" */
	const char	*help;	/* for --help, the default unsaid */
};

/* The OpenAI providers' model when none is named. */
#define OPT_OPENAI_MODEL	"gpt-6.2-sol"

/* The table, OPT__COUNT rows indexed by enum opt_id. */
extern const struct opt_def options_table[];

/* Row d's line in --help: its help, then "(default: …)" from its
 * default, the variables that stand for it and its note (malloc'd). */
char *options_help_line(const struct opt_def *d);

/* A repeatable option's values (malloc'd strings). */
struct opt_list {
	char	**v;
	size_t	  n, cap;
};

/* The values. Each means something only once from[] says it was given
 * (flags are 0 until then); OPTT_WORD fields hold the word's index. */
struct options {
	const char	*model, *teammate_model, *base_url;
	const char	*script, *ask, *workdir, *state_dir, *log;
	const char	*risk_policy, *mcp_config, *catalog, *verify;
	const char	*team_name;
	int		 demo, resume, fresh, teams, headless, settings, models;
	int		 autonomous, worktrees, no_cache, no_sandbox;
	int		 no_network, no_stream, help, version;
	int		 provider, plan_review, network, thinking_display;
	int		 reasoning_effort;
	int		 max_teammates, quit_timeout, shutdown_timeout;
	int		 max_tokens, context_window, compact_at, max_rounds;
	int		 max_procs, max_retries, stall_timeout;
	int		 tmp_max_files;
	int		 thinking;	/* enum llm_thinking */
	int		 thinking_budget;
	int64_t		 retry_for, retry_max_delay;	/* ms */
	long long	 max_memory, max_file_size, tmp_max;
	double		 max_cost;
	double		 price_in, price_out;	/* per million tokens */
	struct opt_list	 pass_env, writable, readable, allow_socket;
	struct opt_list	 allow_local;
	json_t		*mcp_servers, *permissions, *roles, *instructions;
	/* What Claude Code's settings files in the project say
	 * (ccsettings.h): their deny and ask rules, and a line per file
	 * read for the start's notice; NULL when none. */
	struct ccrules	*claude_rules;
	char		*claude_notice;

	enum opt_source	 from[OPT__COUNT];
	char		*origin[OPT__COUNT]; /* the file or variable */
	char		*text[OPT__COUNT];   /* the value as given */
};

/* Sets every option to its built-in default (nothing given). */
void options_init(struct options *o);

/* Frees what o holds. */
void options_free(struct options *o);

/* The option named `name` (without the dashes), or -1. */
int options_find(const char *name);

/*
 * Gives option `id` the value `value` ("true" or "false" for a flag;
 * NULL for OPTT_JSON, whose value is `json`) from source `src` (origin:
 * its file or variable, or NULL). A value from a weaker source than the
 * one already given is ignored; a repeatable option's values from the
 * same source add up. Returns 0, or -1 with *err (malloc'd) saying what
 * the option takes, as the end of a sentence that starts with its name
 * ("takes a number from 1 to 64").
 */
int options_set(struct options *o, enum opt_id id, const char *value,
    json_t *json, enum opt_source src, const char *origin, char **err);

/* Whether option `id` was given (by anything but the built-in). */
int options_given(const struct options *o, enum opt_id id);

/*
 * Reads the command line into o. Returns -1 to go on, or the exit status
 * when the program is done: 0 after --help or --version, 2 after saying
 * on stderr what was wrong.
 */
int options_parse(struct options *o, int argc, char **argv);

/* Takes the environment's word for the options that have a variable
 * (HUDDLE_MODEL, ANTHROPIC_BASE_URL …), unless the command line spoke. */
void options_env(struct options *o);

/* Writes --settings: every option a file may set, its value and where
 * it came from. */
void options_print(FILE *out, const struct options *o);

/* The word an OPTT_WORD option holds: as given, else its default (NULL
 * when the default is no word); it lives as long as o's value. */
const char *options_word(const struct options *o, enum opt_id id);

#endif
