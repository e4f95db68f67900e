/*
 * Unit tests of the options table and the settings files: precedence
 * (command line > environment > project > person > built-in), the
 * project's file refused for every gate, unknown keys and bad values
 * named with the file and line, and the keys only files can say.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "settings.h"
#include "testutil.h"

/* Writes text to dir/name; returns the path (free it). */
static char *
write_file(const char *dir, const char *name, const char *text)
{
	char *path = NULL;
	FILE *f;

	ck_assert_int_ne(asprintf(&path, "%s/%s", dir, name), -1);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* Loads text as a file of source src into o; returns the result, with
 * the error in *err. */
static int
load(struct options *o, const char *text, enum opt_source src, char **err)
{
	char *dir = tu_tmpdir(), *path = write_file(dir, "settings.json", text);
	int rc;

	*err = NULL;
	rc = settings_load(o, path, src, err);
	free(path);
	tu_rmtree(dir);
	free(dir);
	return rc;
}

START_TEST(every_option_has_a_row)
{
	int i, j;

	for (i = 0; i < OPT__COUNT; i++) {
		ck_assert_msg(options_table[i].name != NULL, "row %d", i);
		ck_assert_int_eq(options_find(options_table[i].name), i);
		if (options_table[i].type != OPTT_JSON)
			ck_assert_msg(options_table[i].help != NULL, "%s",
			    options_table[i].name);
		for (j = 0; j < i; j++)
			ck_assert_str_ne(options_table[i].name,
			    options_table[j].name);
	}
	ck_assert_int_eq(options_find("no-such"), -1);
}
END_TEST

START_TEST(precedence)
{
	struct options o;
	char *err = NULL;
	char *argv[] = { "huddle", "--max-cost", "2", "--model", "cli", NULL };

	options_init(&o);
	ck_assert_int_eq(o.max_teammates, 8);
	ck_assert_int_eq(o.from[OPT_MAX_TEAMMATES], OPT_FROM_BUILTIN);
	ck_assert_int_eq(options_parse(&o, 5, argv), -1);
	/* The person's file: all but what the command line said. */
	ck_assert_int_eq(load(&o, "{\"max-teammates\": 3, \"max-cost\": 9,\n"
	    "\"model\": \"person\", \"teammate-model\": \"p\",\n"
	    "\"network\": \"none\", \"compact-at\": 50}",
	    OPT_FROM_PERSON, &err), 0);
	/* The project's, over the person's. */
	ck_assert_int_eq(load(&o, "{\"teammate-model\": \"project\", "
	    "\"worktrees\": true}", OPT_FROM_PROJECT, &err), 0);
	/* And the person's again, which must not undo the project's. */
	ck_assert_int_eq(load(&o, "{\"teammate-model\": \"p2\"}",
	    OPT_FROM_PERSON, &err), 0);
	ck_assert_int_eq(o.max_teammates, 3);
	ck_assert_int_eq(o.from[OPT_MAX_TEAMMATES], OPT_FROM_PERSON);
	ck_assert(o.max_cost == 2);
	ck_assert_int_eq(o.from[OPT_MAX_COST], OPT_FROM_CMDLINE);
	ck_assert_str_eq(o.model, "cli");
	ck_assert_str_eq(o.teammate_model, "project");
	ck_assert_int_eq(o.compact_at, 50);
	ck_assert_int_eq(o.from[OPT_WORKTREES], OPT_FROM_PROJECT);
	ck_assert_str_eq(options_word(&o, OPT_NETWORK), "none");
	/* The environment: over the files, under the command line. */
	setenv("HUDDLE_MODEL", "env", 1);
	setenv("ANTHROPIC_BASE_URL", "http://env.example", 1);
	ck_assert_int_eq(load(&o, "{\"base-url\": \"http://person\"}",
	    OPT_FROM_PERSON, &err), 0);
	options_env(&o);
	ck_assert_str_eq(o.model, "cli");
	ck_assert_str_eq(o.base_url, "http://env.example");
	ck_assert_int_eq(o.from[OPT_BASE_URL], OPT_FROM_ENV);
	ck_assert_str_eq(o.origin[OPT_BASE_URL], "ANTHROPIC_BASE_URL");
	unsetenv("HUDDLE_MODEL");
	unsetenv("ANTHROPIC_BASE_URL");
	options_free(&o);
}
END_TEST

START_TEST(the_project_opens_no_gate)
{
	static const char *const gates[] = {
		"{\"no-sandbox\": true}", "{\"network\": \"open\"}",
		"{\"no-network\": true}", "{\"writable\": [\"/tmp\"]}",
		"{\"readable\": \"/tmp\"}", "{\"allow-socket\": \"/tmp\"}",
		"{\"allow-local\": [\"127.0.0.1:8080\"]}",
		"{\"max-cost\": 100}", "{\"max-procs\": 0}",
		"{\"max-memory\": \"0\"}", "{\"max-teammates\": 64}",
		"{\"risk-policy\": \"/dev/null\"}", "{\"plan-review\": \"lead\"}",
		"{\"state-dir\": \"/tmp\"}", "{\"base-url\": \"http://x\"}",
		"{\"provider\": \"openai\"}", "{\"pass-env\": \"GH_TOKEN\"}",
		"{\"verify\": \"true\"}", "{\"autonomous\": true}",
		"{\"permissions\": {\"allow\": [\"mcp__a__*\"]}}",
		"{\"mcpServers\": {\"a\": {\"command\": \"x\"}}}",
		/* What a call may cost beyond its model's price. */
		"{\"thinking\": 200000}", "{\"reasoning-effort\": \"max\"}",
		"{\"max-tokens\": 100000000}", "{\"context-window\": 900000}",
		"{\"compact-at\": 100}",
	};
	struct options o;
	char *err = NULL;
	size_t i;

	for (i = 0; i < sizeof gates / sizeof *gates; i++) {
		options_init(&o);
		ck_assert_msg(load(&o, gates[i], OPT_FROM_PROJECT, &err) == -1,
		    "%s", gates[i]);
		ck_assert_ptr_nonnull(strstr(err, "settings.json:1: the "
		    "project's settings may not set"));
		free(err);
		/* Nothing was taken. */
		ck_assert_int_eq(o.no_sandbox, 0);
		ck_assert_str_eq(options_word(&o, OPT_NETWORK), "proxy");
		ck_assert_ptr_null(o.permissions);
		ck_assert_ptr_null(o.mcp_servers);
		options_free(&o);
	}
	/* The person's file may. */
	options_init(&o);
	ck_assert_int_eq(load(&o, "{\"no-sandbox\": true, \"network\": "
	    "\"open\", \"writable\": [\"/tmp\"], \"mcpServers\": {\"gh\": "
	    "{\"command\": \"gh-mcp\", \"args\": []}}, \"permissions\": "
	    "{\"allow\": [\"mcp__gh__*\"]}}", OPT_FROM_PERSON, &err), 0);
	ck_assert_int_eq(o.no_sandbox, 1);
	ck_assert_str_eq(options_word(&o, OPT_NETWORK), "open");
	ck_assert_int_eq(o.writable.n, 1);
	ck_assert_ptr_nonnull(json_object_get(o.mcp_servers, "gh"));
	ck_assert_int_eq(json_array_size(json_object_get(o.permissions,
	    "allow")), 1);
	options_free(&o);
}
END_TEST

START_TEST(neutral_keys_from_the_project)
{
	struct options o;
	char *err = NULL;

	options_init(&o);
	ck_assert_int_eq(load(&o, "{\"roles\": {\"reviewer\": {\"model\": "
	    "\"a\"}, \"tester\": {\"model\": \"b\"}}}", OPT_FROM_PERSON, &err),
	    0);
	ck_assert_int_eq(load(&o, "{\"model\": \"m\", \"no-stream\": true, "
	    "\"instructions\": [\"docs/style.md\"], \"roles\": {\"reviewer\": "
	    "{\"model\": \"c\"}}}", OPT_FROM_PROJECT, &err), 0);
	ck_assert_str_eq(o.model, "m");
	ck_assert_int_eq(json_array_size(o.instructions), 1);
	/* Roles add up, the project's reviewer over the person's. */
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
	    o.roles, "reviewer"), "model")), "c");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
	    o.roles, "tester"), "model")), "b");
	ck_assert_int_eq(o.from[OPT_ROLES], OPT_FROM_PROJECT);
	options_free(&o);
}
END_TEST

START_TEST(errors_name_the_file_and_line)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "{\n\"model\": \"m\",\n\"max-teamates\": 3\n}",
		    ":3: unknown setting \"max-teamates\"" },
		{ "{\n\n  \"max-teammates\" : 99\n}",
		    ":3: \"max-teammates\" takes a number from 1 to 64" },
		{ "{\"model\": \"m\",\n\"network\": \"wide\"}",
		    ":2: \"network\" takes proxy, open or none" },
		{ "{\"model\": \"m\"\n\"x\": 1}", ":2: " },
		{ "{\"no-sandbox\": \"yes\"}", ":1: \"no-sandbox\" takes true "
		    "or false" },
		{ "{\"writable\": \"relative/dir\"}", ":1: \"writable\" takes "
		    "an absolute path" },
		{ "{\"resume\": true}", ":1: \"resume\" is a command-line "
		    "option only" },
		{ "{\"allow-local\": [\"127.0.0.1\"]}", ":1: \"allow-local\" "
		    "takes HOST:PORT" },
		{ "[1, 2]", ":1: settings are a JSON object" },
		{ "{\"a\": 1, \"a\": 2}", ":1: " },
		{ "{\"roles\": {\n\"r\": {\n\"tools\": [\"bash\"]}}}",
		    ":3: unknown key \"tools\" in the role \"r\"" },
		{ "{\"instructions\": [\"../../etc/passwd\"]}",
		    ":1: \"instructions\" takes paths relative" },
		{ "{\"permissions\": {\"allow\": [\"bash\"]}}",
		    ":1: \"allow\" takes MCP tool names" },
		{ "{\"mcpServers\": {\n\"gh\": {\"args\": []}}}",
		    ":2: the MCP server \"gh\" needs a \"command\" or a \"url\"" },
	};
	struct options o;
	char *err = NULL;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		options_init(&o);
		ck_assert_msg(load(&o, cases[i].text, OPT_FROM_PERSON, &err) ==
		    -1, "%s", cases[i].text);
		ck_assert_msg(strstr(err, "settings.json") != NULL &&
		    strstr(err, cases[i].want) != NULL, "%s: got %s", cases[i].text,
		    err);
		free(err);
		options_free(&o);
	}
}
END_TEST

START_TEST(a_bad_value_is_named_though_overridden)
{
	struct options o;
	char *err = NULL;
	char *argv[] = { "huddle", "--max-teammates", "4", NULL };

	options_init(&o);
	ck_assert_int_eq(options_parse(&o, 3, argv), -1);
	ck_assert_int_eq(load(&o, "{\"max-teammates\": 0}", OPT_FROM_PERSON,
	    &err), -1);
	free(err);
	ck_assert_int_eq(o.max_teammates, 4);
	options_free(&o);
}
END_TEST

START_TEST(a_missing_file_is_none)
{
	struct options o;
	char *err = NULL;

	options_init(&o);
	ck_assert_int_eq(settings_load(&o, "/nonexistent/settings.json",
	    OPT_FROM_PERSON, &err), 0);
	ck_assert_int_eq(settings_line("{\n \"a\": {\"b\" :\n1}}", "b", 0,
	    NULL), 2);
	ck_assert_int_eq(settings_line("{\"a\": \"b\"}", "b", 0, NULL), 0);
	options_free(&o);
}
END_TEST

static Suite *
settings_suite(void)
{
	Suite *s = suite_create("settings");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, every_option_has_a_row);
	tcase_add_test(tc, precedence);
	tcase_add_test(tc, the_project_opens_no_gate);
	tcase_add_test(tc, neutral_keys_from_the_project);
	tcase_add_test(tc, errors_name_the_file_and_line);
	tcase_add_test(tc, a_bad_value_is_named_though_overridden);
	tcase_add_test(tc, a_missing_file_is_none);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(settings_suite());
}
