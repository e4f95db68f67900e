/*
 * Unit tests of tools/runlater: what the quit notice names. A file made,
 * changed or removed is named, one left alone is not; a worktree's .git
 * file replaced by a repository of its own, a repository made below the
 * tree, a worktree record's commondir, and the files the next start
 * reads (settings, role files, .mcp.json, AGENTS.md, CLAUDE.md) are
 * named too.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "tools/runlater.h"
#include "util/xmalloc.h"

static void
sh(const char *dir, const char *cmd)
{
	char *line = xasprintf("cd '%s' && { %s; } >/dev/null 2>&1", dir, cmd);

	ck_assert_msg(system(line) == 0, "failed: %s", cmd);
	free(line);
}

START_TEST(what_changed_is_named)
{
	char *dir = tu_tmpdir(), *list;
	struct runlater *r;
	static const char *const named[] = {
		"Makefile", ".huddle/worktrees/bob/.git",
		".git/worktrees/bob/commondir", "sub/.git (new)",
		".huddle/settings.json (new)", ".huddle/agents/x.md (new)",
		".claude/agents/y.md", ".mcp.json (new)", "AGENTS.md",
		"CLAUDE.md (removed)", ".claude/settings.json (new)",
	};
	size_t i;

	sh(dir, "mkdir -p .git/worktrees/bob .huddle/worktrees/bob "
	    ".claude/agents sub && echo '[core]' > .git/config && "
	    "echo ../.. > .git/worktrees/bob/commondir && "
	    "echo 'gitdir: x' > .huddle/worktrees/bob/.git && "
	    "echo all: > Makefile && echo a > AGENTS.md && echo c > CLAUDE.md "
	    "&& echo y > .claude/agents/y.md && echo same > setup.py");
	r = runlater_note(dir);
	ck_assert_ptr_null(runlater_changes(r));
	sh(dir, "echo 'all: x' > Makefile && "
	    "echo /elsewhere > .git/worktrees/bob/commondir && "
	    "cd .huddle/worktrees/bob && mv .git .git-old && git init -q . && "
	    "cd ../../.. && git init -q sub && "
	    "echo '{}' > .huddle/settings.json "
	    "&& mkdir -p .huddle/agents && echo x > .huddle/agents/x.md && "
	    "echo Y > .claude/agents/y.md && echo '{}' > .mcp.json && "
	    "echo b > AGENTS.md && rm CLAUDE.md && "
	    "echo '{}' > .claude/settings.json");
	list = runlater_changes(r);
	ck_assert_ptr_nonnull(list);
	for (i = 0; i < sizeof named / sizeof *named; i++)
		ck_assert_msg(strstr(list, named[i]) != NULL, "%s not in: %s",
		    named[i], list);
	ck_assert_msg(strstr(list, "setup.py") == NULL, "%s", list);
	free(list);
	runlater_free(r);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("runlater");
	TCase *tc = tcase_create("runlater");

	tcase_add_test(tc, what_changed_is_named);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
