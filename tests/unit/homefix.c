/*
 * A person's home for the sandbox's unit tests (see homefix.h).
 */
#include "config.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "homefix.h"
#include "testutil.h"
#include "tools/bash.h"
#include "tools/profile.h"
#include "tools/tool.h"
#include "util/xmalloc.h"

void
hf_make(char **top, char **home, char **wd)
{
	char *ssh;

	*top = tu_tmpdir_canonical();
	*home = xasprintf("%s/home", *top);
	*wd = xasprintf("%s/home/project", *top);
	ck_assert_int_eq(mkdir(*home, 0700), 0);
	ck_assert_int_eq(mkdir(*wd, 0700), 0);
	ssh = xasprintf("%s/.ssh", *home);
	ck_assert_int_eq(mkdir(ssh, 0700), 0);
	tu_write_file(ssh, "id_rsa", "PRIVATE-KEY-SENTINEL\n");
	free(ssh);
	tu_write_file(*wd, "notes.txt", "ordinary\n");
}

void
hf_remove(char *top, char *home, char *wd)
{
	tu_rmtree(top);
	free(top);
	free(home);
	free(wd);
}

char *
hf_run(const struct profile *p, const char *program, const char *command)
{
	struct bash_options bo = { 0 };
	struct tool_output o = { 0 };

	bo.program = program;
	bo.timeout_s = 20;
	profile_bash_options(p, &bo);
	bash_run(command, &bo, &o);
	return o.text;
}
