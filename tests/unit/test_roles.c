/*
 * Unit tests of util/safefile, agent/instructions and agent/roles:
 * parsing a role (its front matter is test_frontmatter.c's), its tools
 * and MCP servers, and the rules that merge the person's roles with the
 * project's.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/instructions.h"
#include "agent/roles.h"
#include "testutil.h"
#include "util/safefile.h"
#include "util/xmalloc.h"

/* role_parse with the servers github and db. */
static int
parse(const char *text, enum role_origin origin, struct role *r, char **err)
{
	json_t *servers = json_pack("{s:{}, s:{}}", "github", "db");
	int rc = role_parse(text, "agents/r.md", "r", origin, servers, r, err);

	json_decref(servers);
	return rc;
}

static void
role_bad(const char *text, const char *want)
{
	struct role r;
	char *err = NULL;

	ck_assert_int_eq(parse(text, ROLE_PROJECT, &r, &err), -1);
	ck_assert_msg(strstr(err, want) != NULL, "error '%s' lacks '%s'", err,
	    want);
	free(err);
}

START_TEST(role_parse_reads_a_definition)
{
	struct role r;
	char *err = NULL;
	size_t n;

	ck_assert_int_eq(parse("---\nname: reviewer\ndescription: Reviews "
	    "code\nmodel: test-cheap\ntools: read_file, mcp__github__*\n"
	    "mcpServers: [github]\nplan_required: true\n---\n\nYou review."
	    "\n\n", ROLE_PERSON, &r, &err), 0);
	ck_assert_str_eq(r.name, "reviewer");
	ck_assert_str_eq(r.description, "Reviews code");
	ck_assert_str_eq(r.model, "test-cheap");
	ck_assert_str_eq(r.prompt, "You review.");
	ck_assert(r.has_tools && r.ntools == 2);
	ck_assert(r.plan_required && !r.autonomous);
	ck_assert(role_allows_tool(&r, "read_file"));
	ck_assert(!role_allows_tool(&r, "bash"));
	ck_assert(!role_allows_tool(&r, "write_file"));
	/* The team's own tools are always given. */
	ck_assert(role_allows_tool(&r, "send_message"));
	ck_assert(role_allows_tool(&r, "shutdown_response"));
	ck_assert(role_allows_tool(&r, "mcp__github__search"));
	ck_assert(!role_allows_tool(&r, "mcp__db__query"));
	ck_assert_ptr_nonnull(role_mcp_servers(&r, &n));
	ck_assert_int_eq(n, 1);
	ck_assert(role_allows_tool(NULL, "bash"));
	role_clear(&r);

	/* The file's name names a role without one; no tools key: all. */
	ck_assert_int_eq(parse("You help.\n", ROLE_PROJECT, &r, &err), 0);
	ck_assert_str_eq(r.name, "r");
	ck_assert(!r.has_tools);
	ck_assert(role_allows_tool(&r, "bash"));
	ck_assert_ptr_null(role_mcp_servers(&r, &n));
	role_clear(&r);
}
END_TEST

START_TEST(role_parse_reads_claude_code_files_as_they_are)
{
	struct role r;
	char *err = NULL;

	ck_assert_int_eq(parse("---\nname: code-reviewer\ndescription: Use "
	    "after changes\ntools: Read, Grep, Glob, Bash\nmodel: inherit\n"
	    "color: blue\npermissionMode: plan\n---\nYou are a reviewer.\n",
	    ROLE_CLAUDE, &r, &err), 0);
	ck_assert_str_eq(r.name, "code-reviewer");
	ck_assert_ptr_null(r.model);
	/* Grep and Glob read, never more: read_file, once. */
	ck_assert_int_eq(r.ntools, 2);
	ck_assert_str_eq(r.tools[0], "read_file");
	ck_assert_str_eq(r.tools[1], "bash");
	ck_assert(r.plan_required);
	ck_assert_ptr_nonnull(strstr(r.note, "Grep read as read_file"));
	ck_assert_ptr_nonnull(strstr(r.note, "color ignored"));
	role_clear(&r);
	/* Claude Code's own tools: the task board and messages map, what
	 * huddle lacks (or nobody knows) is left out with a note, and so is
	 * a server the person lacks; unknown keys are notes. The role is
	 * only ever narrower. */
	ck_assert_int_eq(parse("---\nname: lister\ntools: [TaskList, TaskGet, "
	    "TaskUpdate, SendMessage, TeamCreate, Agent, teleport, "
	    "mcp__mail__send, Write]\nmcpServers: [github, mail]\n"
	    "model: opus\nskills: [x]\neffort: high\nmaxTurns: 5\n"
	    "permissionMode: bypassPermissions\n---\nList.\n", ROLE_CLAUDE,
	    &r, &err), 0);
	ck_assert(r.has_tools && !r.plan_required);
	ck_assert(role_allows_tool(&r, "write_file"));
	ck_assert(!role_allows_tool(&r, "bash"));
	ck_assert(!role_allows_tool(&r, "read_file"));
	ck_assert(role_allows_tool(&r, "task_list"));
	ck_assert(!role_allows_tool(&r, "mcp__mail__send"));
	ck_assert_int_eq(r.nmcp, 1);
	ck_assert_str_eq(r.mcp[0], "github");
	ck_assert_ptr_nonnull(strstr(r.note, "TeamCreate left out"));
	ck_assert_ptr_nonnull(strstr(r.note, "teleport left out (no such "
	    "tool)"));
	ck_assert_ptr_nonnull(strstr(r.note, "mcp__mail__send left out"));
	ck_assert_ptr_nonnull(strstr(r.note, "MCP server 'mail' left out"));
	ck_assert_ptr_nonnull(strstr(r.note, "maxTurns ignored"));
	ck_assert_ptr_nonnull(strstr(r.note, "permissionMode ignored"));
	role_clear(&r);

	/* YAML as Claude Code's files write it: a quoted description that
	 * holds ": ", block text, a list of - lines. */
	ck_assert_int_eq(parse("---\nname: planner\ndescription: \"Use it "
	    "when asked: plan\\nExamples: <example>user: 'plan'</example>\"\n"
	    "notes: >-\n  folded\n  text\ntools:\n  - Read\n  - Bash\n"
	    "model: sonnet # the family\n---\nYou plan.\n", ROLE_CLAUDE, &r,
	    &err), 0);
	ck_assert_str_eq(r.description, "Use it when asked: plan\nExamples: "
	    "<example>user: 'plan'</example>");
	ck_assert(role_allows_tool(&r, "read_file"));
	ck_assert(role_allows_tool(&r, "bash"));
	ck_assert(!role_allows_tool(&r, "write_file"));
	ck_assert_str_eq(r.prompt, "You plan.");
	role_clear(&r);
}
END_TEST

START_TEST(role_parse_refuses_what_it_cannot_honour)
{
	role_bad("---\nplan_required: maybe\n---\n",
	    "agents/r.md:2: plan_required is true or false");
	role_bad("---\nname: Bad Name\n---\n", "agents/r.md:2: a role's name");
	role_bad("---\nmodel: x; rm -rf /\n---\n", "agents/r.md:2: a model id");
	role_bad("---\nname: [a, b]\n---\n", "name is one value");
	/* Broken YAML: the file and line say where. */
	role_bad("---\nname: x\n  description: plan\n---\n",
	    "agents/r.md:3: invalid YAML: mapping values are not allowed in "
	    "this context");
	role_bad("---\nname: &n x\n---\n", "agents/r.md:2: anchors and "
	    "aliases are not accepted");
}
END_TEST

static struct role
role_of(const char *text, enum role_origin origin)
{
	struct role r;
	char *err = NULL;

	ck_assert_msg(parse(text, origin, &r, &err) == 0, "%s", err);
	return r;
}

START_TEST(roles_merge_with_the_person_first)
{
	struct roles *rs = xcalloc(1, sizeof *rs);
	struct role r;
	const struct role *got;

	r = role_of("---\nname: reviewer\nmodel: mine\n---\nMine.\n",
	    ROLE_PERSON);
	roles_add(rs, &r);
	/* The project's role of the same name cannot replace it: not to
	 * drop its plan gate, not to widen its tools. */
	r = role_of("---\nname: reviewer\nmodel: theirs\nplan_required: "
	    "false\n---\nTheirs.\n", ROLE_PROJECT);
	roles_add(rs, &r);
	r = role_of("---\nname: reviewer\n---\nClaude's.\n", ROLE_CLAUDE);
	roles_add(rs, &r);
	got = roles_find(rs, "reviewer");
	ck_assert_int_eq(rs->n, 1);
	ck_assert_str_eq(got->model, "mine");
	ck_assert_str_eq(got->prompt, "Mine.");
	ck_assert_int_eq(rs->nnotices, 2);
	ck_assert_ptr_nonnull(strstr(rs->notices[0], "the person's role "
	    "reviewer"));

	/* .huddle/agents wins over .claude/agents. */
	r = role_of("---\nname: tester\n---\nClaude's.\n", ROLE_CLAUDE);
	roles_add(rs, &r);
	r = role_of("---\nname: tester\n---\nOurs.\n", ROLE_PROJECT);
	roles_add(rs, &r);
	ck_assert_str_eq(roles_find(rs, "tester")->prompt, "Ours.");

	/* Only the person's roles make a teammate autonomous. */
	r = role_of("---\nname: worker\nautonomous: true\n---\n",
	    ROLE_PROJECT);
	roles_add(rs, &r);
	got = roles_find(rs, "worker");
	ck_assert(!got->autonomous);
	ck_assert_ptr_nonnull(strstr(got->note, "autonomous left out"));
	r = role_of("---\nname: runner\nautonomous: true\n---\n",
	    ROLE_PERSON);
	roles_add(rs, &r);
	ck_assert(roles_find(rs, "runner")->autonomous);
	ck_assert_ptr_null(roles_find(rs, "nobody"));
	/* A role is found by its file's name too. */
	ck_assert_ptr_eq(roles_find(rs, "r"), roles_find(rs, "reviewer"));
	roles_free(rs);
}
END_TEST

START_TEST(roles_load_reads_the_folders)
{
	char *conf = tu_tmpdir(), *work = tu_tmpdir(), *err = NULL, *desc, *leak;
	struct roles *rs;
	json_t *j;

	tu_make_dir(conf, "agents");
	tu_write_file(conf, "agents/reviewer.md", "---\ndescription: Reviews\n"
	    "tools: [read_file]\n---\nReview.\n");
	tu_make_dir(work, ".huddle");
	tu_make_dir(work, ".huddle/agents");
	tu_write_file(work, ".huddle/agents/reviewer.md",
	    "---\ntools: [bash]\n---\nShadowed.\n");
	tu_write_file(work, ".huddle/agents/broken.md", "---\nname: x\n");
	tu_write_file(work, ".huddle/agents/notes.txt", "not a role");
	tu_make_dir(work, ".claude");
	tu_make_dir(work, ".claude/agents");
	tu_write_file(work, ".claude/agents/writer.md", "---\nname: writer\n"
	    "description: Writes docs\ntools: Read, Write\nmodel: sonnet\n---\n"
	    "Write.\n");
	/* A link out of the working tree is not followed. */
	leak = xasprintf("%s/.claude/agents/leak.md", work);
	ck_assert_int_eq(symlinkat("/etc/passwd", AT_FDCWD, leak), 0);
	free(leak);
	ck_assert_int_eq(roles_load(conf, work, NULL, &rs, &err), 0);
	ck_assert_int_eq(rs->n, 2);
	ck_assert_str_eq(roles_find(rs, "reviewer")->prompt, "Review.");
	ck_assert_int_eq(roles_find(rs, "reviewer")->origin, ROLE_PERSON);
	ck_assert_str_eq(roles_find(rs, "writer")->model, "sonnet");
	/* The file left out is remembered under both its names: its role
	 * spawns nothing wider than it asked. */
	ck_assert_ptr_nonnull(roles_refused(rs, "broken"));
	ck_assert_ptr_nonnull(roles_refused(rs, "x"));
	ck_assert_ptr_null(roles_refused(rs, "writer"));
	ck_assert_int_eq(rs->nnotices, 3);
	desc = roles_describe(rs);
	ck_assert_ptr_nonnull(strstr(desc, "- reviewer: Reviews [tools: "
	    "read_file]"));
	ck_assert_ptr_nonnull(strstr(desc, "- writer: Writes docs [model "
	    "sonnet]"));
	free(desc);
	j = roles_json(rs);
	ck_assert_int_eq(json_array_size(json_object_get(j, "roles")), 2);
	ck_assert_int_eq(json_array_size(json_object_get(j, "notices")), 3);
	json_decref(j);
	roles_free(rs);

	/* A person's file that is wrong stops the load, named. */
	tu_write_file(conf, "agents/bad.md", "---\nautonomous: maybe\n---\n");
	ck_assert_int_eq(roles_load(conf, work, NULL, &rs, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "agents/bad.md:2: autonomous is "
	    "true or false"));
	free(err);
	tu_rmtree(conf);
	tu_rmtree(work);
	free(conf);
	free(work);
}
END_TEST

START_TEST(a_folder_gives_at_most_fifty_roles)
{
	char *conf = tu_tmpdir(), *work = tu_tmpdir(), *err = NULL, *name;
	struct roles *rs;
	int i;

	tu_make_dir(work, ".huddle");
	tu_make_dir(work, ".huddle/agents");
	for (i = 0; i < 60; i++) {
		name = xasprintf(".huddle/agents/r%02d.md", i);
		tu_write_file(work, name,
		    "---\ndescription: One of many\n---\nWork.\n");
		free(name);
	}
	ck_assert_int_eq(roles_load(conf, work, NULL, &rs, &err), 0);
	ck_assert_int_eq(rs->n, 50);
	ck_assert_ptr_nonnull(roles_find(rs, "r49"));
	ck_assert_ptr_null(roles_find(rs, "r50"));
	ck_assert_int_eq(rs->nnotices, 1);
	ck_assert_ptr_nonnull(strstr(rs->notices[0], "holds 60 roles"));
	roles_free(rs);
	tu_rmtree(conf);
	tu_rmtree(work);
	free(conf);
	free(work);
}
END_TEST

START_TEST(safefile_refuses_fifos_links_out_and_reads_a_limit)
{
	char *dir = tu_tmpdir(), *err = NULL, *text, *path;
	int fd = open(dir, O_PATH | O_DIRECTORY);
	size_t size;

	tu_write_file(dir, "a.md", "0123456789");
	text = safefile_read(fd, "a.md", 1, 4, &size, &err);
	ck_assert_str_eq(text, "0123");
	ck_assert_int_eq(size, 10);
	free(text);
	path = xasprintf("%s/fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	free(path);
	ck_assert_ptr_null(safefile_read(fd, "fifo", 1, 4, &size, &err));
	ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
	free(err);
	path = xasprintf("%s/out", dir);
	ck_assert_int_eq(symlink("/etc/hostname", path), 0);
	free(path);
	ck_assert_ptr_null(safefile_read(fd, "out", 1, 4, &size, &err));
	ck_assert_ptr_nonnull(strstr(err, "leads out"));
	free(err);
	ck_assert_ptr_null(safefile_read(fd, "../x", 1, 4, &size, &err));
	free(err);
	ck_assert_ptr_null(safefile_read(fd, "none", 1, 4, &size, &err));
	ck_assert_int_eq(errno, ENOENT);
	free(err);
	close(fd);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(instructions_read_agents_and_claude_md_and_cap_the_size)
{
	char *work = tu_tmpdir(), *conf = tu_tmpdir(), *big;
	struct instructions in;
	json_t *extra = json_pack("[s, s]", "docs/style.md", "missing.md");

	tu_write_file(work, "CLAUDE.md", "CLAUDE-TEXT\n");
	instructions_read(work, conf, NULL, NULL, &in);
	ck_assert_ptr_nonnull(strstr(in.text, "CLAUDE-TEXT"));
	ck_assert_str_eq(in.sources, "CLAUDE.md (12 B)");
	ck_assert_ptr_null(in.notice);
	instructions_clear(&in);

	tu_write_file(work, "AGENTS.md", "AGENTS-TEXT\n");
	tu_write_file(conf, "AGENTS.md", "PERSON-TEXT\n");
	tu_make_dir(work, "docs");
	tu_write_file(work, "docs/style.md", "STYLE-TEXT\n");
	instructions_read(work, conf, extra, NULL, &in);
	ck_assert_ptr_nonnull(strstr(in.text, "AGENTS-TEXT"));
	/* CLAUDE.md beside AGENTS.md, after it. */
	ck_assert(strstr(in.text, "AGENTS-TEXT") < strstr(in.text,
	    "CLAUDE-TEXT"));
	ck_assert_ptr_nonnull(strstr(in.text, "STYLE-TEXT"));
	/* The person's first. */
	ck_assert(strstr(in.text, "PERSON-TEXT") < strstr(in.text,
	    "AGENTS-TEXT"));
	ck_assert_ptr_nonnull(strstr(in.text, "not authority"));
	ck_assert_ptr_nonnull(strstr(in.notice, "missing.md left out"));
	instructions_clear(&in);

	big = xmalloc(100 * 1024 + 1);
	memset(big, 'x', 100 * 1024);
	big[100 * 1024] = '\0';
	tu_write_file(work, "AGENTS.md", big);
	free(big);
	instructions_read(work, conf, extra, NULL, &in);
	ck_assert_int_lt(strlen(in.text), INSTRUCTIONS_MAX + 2048);
	ck_assert_ptr_nonnull(strstr(in.text, "huddle cut AGENTS.md here"));
	ck_assert_ptr_nonnull(strstr(in.sources, "AGENTS.md (100.0 KiB, "
	    "cut)"));
	ck_assert_ptr_nonnull(strstr(in.sources, "docs/style.md (11 B, left "
	    "out"));
	ck_assert_ptr_nonnull(strstr(in.notice, "AGENTS.md was cut"));
	instructions_clear(&in);
	json_decref(extra);
	tu_rmtree(work);
	tu_rmtree(conf);
	free(work);
	free(conf);
}
END_TEST

static Suite *
roles_suite(void)
{
	Suite *s = suite_create("roles");
	TCase *tc = tcase_create("roles");

	tcase_add_test(tc, role_parse_reads_a_definition);
	tcase_add_test(tc, role_parse_reads_claude_code_files_as_they_are);
	tcase_add_test(tc, role_parse_refuses_what_it_cannot_honour);
	tcase_add_test(tc, roles_merge_with_the_person_first);
	tcase_add_test(tc, roles_load_reads_the_folders);
	tcase_add_test(tc, a_folder_gives_at_most_fifty_roles);
	tcase_add_test(tc, safefile_refuses_fifos_links_out_and_reads_a_limit);
	tcase_add_test(tc, instructions_read_agents_and_claude_md_and_cap_the_size);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(roles_suite());
}
