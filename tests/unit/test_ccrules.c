/*
 * Unit tests of tools/ccrules: Claude Code's deny and ask rules matched
 * against bash commands (prefix and exact forms, anywhere in a chain,
 * pipeline, substitution or sh -c, past wrappers) and against file paths
 * (./ anchored, bare names at any depth, ** and folders), and the rules
 * huddle has no counterpart for left out.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tools/ccrules.h"
#include "testutil.h"

#define ROOT	"/w/proj"
#define FILE_	".claude/settings.json"

static struct ccrules *r;

static void
setup(void)
{
	setenv("HOME", "/home/u", 1);
	r = ccrules_new();
}

static void
teardown(void)
{
	ccrules_free(r);
}

/* Asserts that command is refused by the rule want. */
static void
denied(const char *command, const char *want)
{
	char *why = ccrules_bash(r, CCRULES_DENY, command);

	ck_assert_msg(why != NULL, "not denied: %s", command);
	ck_assert_msg(strcmp(why, want) == 0, "%s: '%s', not '%s'", command,
	    why, want);
	free(why);
}

static void
allowed(const char *command)
{
	char *why = ccrules_bash(r, CCRULES_DENY, command);

	ck_assert_msg(why == NULL, "denied: %s (%s)", command, why);
}

/* Whether tool on path (absolute) is denied. */
static int
file_denied(const char *tool, const char *path)
{
	char *why = ccrules_file(r, CCRULES_DENY, tool, ROOT, path);

	free(why);
	return why != NULL;
}

START_TEST(bash_prefix_and_exact)
{
	ck_assert_int_eq(ccrules_add(r, CCRULES_DENY, "Bash(curl:*)", FILE_),
	    1);
	ck_assert_int_eq(ccrules_add(r, CCRULES_DENY, "Bash(git push)",
	    FILE_), 1);
	ck_assert_int_eq(ccrules_add(r, CCRULES_DENY, "Bash(npm run *)",
	    FILE_), 1);
	ck_assert_uint_eq(ccrules_count(r, CCRULES_DENY), 3);
	denied("curl https://example.com", "Bash(curl:*) of " FILE_);
	denied("curl", "Bash(curl:*) of " FILE_);
	denied("/usr/bin/curl -s x", "Bash(curl:*) of " FILE_);
	denied("git push", "Bash(git push) of " FILE_);
	denied("git   'push'", "Bash(git push) of " FILE_);
	denied("npm run build", "Bash(npm run *) of " FILE_);
	/* The exact form is exact; the prefix form ends at a word. */
	allowed("git push origin main");
	allowed("curlie x");
	allowed("echo curl");
	allowed("git pull");
	allowed("npm test");
}
END_TEST

START_TEST(bash_anywhere_in_a_chain)
{
	const char *want = "Bash(curl:*) of " FILE_;

	ccrules_add(r, CCRULES_DENY, "Bash(curl:*)", FILE_);
	denied("echo x && curl http://x", want);
	denied("true; curl x", want);
	denied("false || curl x", want);
	denied("cat f | curl -d @- x", want);
	denied("echo $(curl x)", want);
	denied("echo `curl x`", want);
	denied("sh -c 'curl x'", want);
	denied("bash -lc \"echo a; curl x\"", want);
	denied("FOO=1 curl x", want);
	denied("env A=b timeout 5 curl x", want);
	denied("xargs curl < urls", want);
	denied("if true; then curl x; fi", want);
	denied("find . -exec curl {} \\;", want);
	allowed("echo 'a && curl x'");
	allowed("ls -la && make");
}
END_TEST

START_TEST(bare_tool_names)
{
	ck_assert_int_eq(ccrules_add(r, CCRULES_DENY, "WebFetch", FILE_), 0);
	ck_assert_int_eq(ccrules_add(r, CCRULES_DENY, "mcp__s__t", FILE_), 0);
	ck_assert_int_eq(ccrules_add(r, CCRULES_DENY,
	    "WebFetch(domain:x.com)", FILE_), 0);
	ck_assert_int_eq(ccrules_add(r, CCRULES_DENY, "Bash(curl", FILE_), 0);
	ck_assert_uint_eq(ccrules_count(r, CCRULES_DENY), 0);
	allowed("anything");
	ck_assert_int_eq(ccrules_add(r, CCRULES_DENY, "Edit", FILE_), 1);
	ck_assert(file_denied("edit_file", ROOT "/a.c"));
	ck_assert(file_denied("write_file", "/tmp/x"));
	ck_assert(!file_denied("read_file", ROOT "/a.c"));
	allowed("ls");
	ck_assert_int_eq(ccrules_add(r, CCRULES_DENY, "Bash", FILE_), 1);
	denied("ls", "Bash of " FILE_);
}
END_TEST

START_TEST(paths_gitignore_style)
{
	char *why;

	ccrules_add(r, CCRULES_DENY, "Read(./.env)", FILE_);
	ccrules_add(r, CCRULES_DENY, "Read(secrets/**)", FILE_);
	ccrules_add(r, CCRULES_DENY, "Read(**/*.pem)", FILE_);
	ccrules_add(r, CCRULES_DENY, "Edit(id_rsa)", FILE_);
	ccrules_add(r, CCRULES_DENY, "Write(/build/)", FILE_);
	ccrules_add(r, CCRULES_DENY, "Read(//etc/shadow)", FILE_);
	ccrules_add(r, CCRULES_DENY, "Read(~/.ssh/**)", FILE_);
	/* ./ is the project's top only. */
	ck_assert(file_denied("read_file", ROOT "/.env"));
	ck_assert(!file_denied("read_file", ROOT "/sub/.env"));
	ck_assert(!file_denied("read_file", ROOT "/.env.example"));
	ck_assert(!file_denied("write_file", ROOT "/.env"));
	/* secrets/ and what is beneath, from the top: a folder covers what
	 * it holds. */
	ck_assert(file_denied("read_file", ROOT "/secrets/a"));
	ck_assert(file_denied("read_file", ROOT "/secrets/x/y/z"));
	ck_assert(!file_denied("read_file", ROOT "/src/secrets/a"));
	/* **: any depth, the top too. */
	ck_assert(file_denied("read_file", ROOT "/k.pem"));
	ck_assert(file_denied("read_file", ROOT "/a/b/k.pem"));
	ck_assert(!file_denied("read_file", ROOT "/a/b/k.pem.txt"));
	/* A bare name at any depth; Edit covers write_file too. */
	ck_assert(file_denied("edit_file", ROOT "/id_rsa"));
	ck_assert(file_denied("write_file", ROOT "/deep/er/id_rsa"));
	ck_assert(!file_denied("read_file", ROOT "/id_rsa"));
	/* /build/: from the top, and everything in it. */
	ck_assert(file_denied("write_file", ROOT "/build/out.o"));
	ck_assert(!file_denied("write_file", ROOT "/src/build/out.o"));
	ck_assert(!file_denied("edit_file", ROOT "/build/out.o"));
	/* Absolute and home rules. */
	ck_assert(file_denied("read_file", "/etc/shadow"));
	ck_assert(!file_denied("read_file", "/etc/passwd"));
	ck_assert(file_denied("read_file", "/home/u/.ssh/id_ed25519"));
	/* Relative rules never match outside the project. */
	ck_assert(!file_denied("read_file", "/elsewhere/.env"));
	ck_assert(!file_denied("read_file", "/w/project/.env"));
	/* Paths as a tool is given them: relative, with . and .. */
	why = ccrules_file(r, CCRULES_DENY, "read_file", ROOT, "./.env");
	ck_assert_ptr_nonnull(why);
	free(why);
	why = ccrules_file(r, CCRULES_DENY, "read_file", ROOT,
	    "src/../secrets/./k");
	ck_assert_ptr_nonnull(why);
	free(why);
	ck_assert_ptr_null(ccrules_file(r, CCRULES_DENY, "read_file", ROOT,
	    "../proj2/.env"));
	why = ccrules_file(r, CCRULES_DENY, "read_file", ROOT, ROOT "/.env");
	ck_assert_str_eq(why, "Read(./.env) of " FILE_);
	free(why);
}
END_TEST

START_TEST(ask_is_its_own_list)
{
	char *why;

	ccrules_add(r, CCRULES_ASK, "Bash(git push:*)", ".claude/x.json");
	allowed("git push origin");
	why = ccrules_bash(r, CCRULES_ASK, "make && git push origin main");
	ck_assert_str_eq(why, "Bash(git push:*) of .claude/x.json");
	free(why);
	ck_assert_ptr_null(ccrules_bash(r, CCRULES_ASK, "git status"));
	ck_assert_ptr_null(ccrules_bash(NULL, CCRULES_ASK, "git push"));
}
END_TEST

static Suite *
ccrules_suite(void)
{
	Suite *s = suite_create("ccrules");
	TCase *tc = tcase_create("ccrules");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, bash_prefix_and_exact);
	tcase_add_test(tc, bash_anywhere_in_a_chain);
	tcase_add_test(tc, bare_tool_names);
	tcase_add_test(tc, paths_gitignore_style);
	tcase_add_test(tc, ask_is_its_own_list);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(ccrules_suite());
}
