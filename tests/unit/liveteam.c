/*
 * A live team for the agent layer's unit tests (see liveteam.h).
 */
#include "config.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agent/teamstate.h"
#include "agent/tools.h"
#include "liveteam.h"
#include "util/clock.h"
#include "util/xmalloc.h"

#define LT_WAIT_MS	8000

void
lt_init(struct lt *l, const char *scenario)
{
	char *err = NULL;

	memset(l, 0, sizeof *l);
	l->root = tu_tmpdir();
	l->work = xasprintf("%s/work", l->root);
	l->state = xasprintf("%s/state", l->root);
	ck_assert_int_eq(mkdir(l->work, 0700), 0);
	ck_assert_int_eq(mkdir(l->state, 0700), 0);
	l->cat = catalog_load(NULL, &err);
	ck_assert_msg(l->cat != NULL, "catalog: %s", err ? err : "?");
	team_options_defaults(&l->o);
	l->o.workdir = l->work;
	l->o.state_base = l->state;
	l->o.catalog = l->cat;
	l->o.network = TEAM_NET_NONE;
	l->o.no_network = 1;
	l->o.bash_timeout_s = 20;
	l->o.quit_timeout_ms = 3000;
	/* A sanitizer build needs room for its shadow memory. */
	l->o.max_memory = 0;
	l->o.llm.provider = LLM_SCRIPT;
	l->o.llm.model = "script";
	l->o.llm.script = script_parse(scenario, &err);
	ck_assert_msg(l->o.llm.script != NULL, "scenario: %s", err ? err :
	    "?");
}

struct team *
lt_open_err(struct lt *l, char **err)
{
	/* What an earlier team of the test said is not looked at again. */
	l->mark = l->opened = l->nseen;
	l->team = team_open(&l->o, err);
	return l->team;
}

void
lt_open(struct lt *l)
{
	char *err = NULL;

	ck_assert_msg(lt_open_err(l, &err) != NULL, "team_open: %s", err ?
	    err : "?");
}

void
lt_start(struct lt *l)
{
	char *err = NULL;

	lt_open(l);
	ck_assert_msg(team_start(l->team, &err) == 0, "team_start: %s", err ?
	    err : "?");
}

void
lt_quit(struct lt *l)
{
	team_free(l->team);
	l->team = NULL;
}

void
lt_resume(struct lt *l)
{
	l->o.resume = 1;
	lt_start(l);
}

void
lt_pump(struct lt *l)
{
	struct event *e, *next;

	team_tick(l->team);
	for (e = evq_take(team_events(l->team)); e != NULL; e = next) {
		next = e->next;
		e->next = NULL;
		l->seen = xgrow(l->seen, &l->capseen, l->nseen + 1,
		    sizeof *l->seen);
		l->seen[l->nseen++] = e;
	}
}

static int
lt_match(struct event *e, enum event_type type, const char *agent,
    const char *needle)
{
	char *text;
	int hit;

	if (e->type != type || (agent != NULL && (e->agent == NULL ||
	    strcmp(e->agent, agent) != 0)))
		return 0;
	if (needle == NULL)
		return 1;
	text = json_dumps(e->data, JSON_COMPACT);
	hit = text != NULL && strstr(text, needle) != NULL;
	free(text);
	return hit;
}

struct event *
lt_wait(struct lt *l, enum event_type type, const char *agent,
    const char *needle, int ms)
{
	int64_t deadline = clock_mono_ms() + ms;
	size_t i = l->mark;

	for (;;) {
		for (; i < l->nseen; i++) {
			if (lt_match(l->seen[i], type, agent, needle))
				return l->seen[i];
		}
		if (clock_mono_ms() > deadline)
			return NULL;
		{
			struct pollfd p = { evq_fd(team_events(l->team)),
			    POLLIN, 0 };

			poll(&p, 1, 50);
		}
		lt_pump(l);
	}
}

struct event *
lt_need(struct lt *l, enum event_type type, const char *agent,
    const char *needle)
{
	struct event *e = lt_wait(l, type, agent, needle, LT_WAIT_MS);

	ck_assert_msg(e != NULL, "no %s event for %s holding %s",
	    event_type_name(type), agent ? agent : "anyone", needle ? needle :
	    "anything");
	return e;
}

void
lt_set_mark(struct lt *l)
{
	lt_pump(l);
	l->mark = l->nseen;
}

void
lt_spawn(struct lt *l, const char *name, int plan_required, int autonomous,
    int worktree)
{
	char *err = NULL;
	struct spawn_request s = { name, "coder", "hi", NULL, plan_required,
	    autonomous, worktree, NULL };

	ck_assert_msg(team_spawn(l->team, &s, &err) == 0, "%s", err);
}

void
lt_spawn_idle(struct lt *l, const char *name, int plan_required)
{
	lt_spawn(l, name, plan_required, 0, 0);
	lt_need_status(l, name, "idle");
}

void
lt_need_status(struct lt *l, const char *agent, const char *status)
{
	char *needle = xasprintf("\"status\":\"%s\"", status);

	lt_need(l, EV_STATUS, agent, needle);
	free(needle);
}

size_t
lt_count(struct lt *l, enum event_type type, const char *agent,
    const char *needle)
{
	size_t i, n = 0;

	lt_pump(l);
	for (i = l->mark; i < l->nseen; i++)
		n += lt_match(l->seen[i], type, agent, needle);
	return n;
}

void
lt_need_gone(struct lt *l, const char *name)
{
	int64_t deadline = clock_mono_ms() + LT_WAIT_MS;

	while (team_find(l->team, name) != NULL) {
		ck_assert_msg(clock_mono_ms() < deadline, "%s still runs",
		    name);
		(void)lt_wait(l, EV_TYPE_COUNT, NULL, NULL, 20);
	}
}

struct agent *
lt_agent(struct lt *l, const char *name)
{
	struct agent *a;

	/* A fresh member tells its first status once it is set up (a
	 * resumed one may not: its test waits for something else). */
	if (!l->o.resume)
		lt_ready(l, name);
	a = team_find(l->team, name);
	ck_assert_msg(a != NULL, "%s does not run", name);
	return a;
}

void
lt_ready(struct lt *l, const char *name)
{
	size_t mark = l->mark;

	/* Its first status comes after its frame and prompt are made. */
	l->mark = l->opened;
	lt_need(l, EV_STATUS, name, NULL);
	l->mark = mark;
}

void
lt_tool(struct lt *l, const char *who, const char *name, const char *input,
    struct tool_output *out)
{
	json_error_t jerr;
	json_t *in = json_loads(input, 0, &jerr);

	ck_assert_msg(in != NULL, "input: %s", jerr.text);
	memset(out, 0, sizeof *out);
	tools_run(lt_agent(l, who), name, in, out);
	ck_assert_ptr_nonnull(out->text);
	json_decref(in);
}

void
lt_write(struct lt *l, const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", l->work, rel), *slash;
	FILE *f;

	for (slash = strchr(path + strlen(l->work) + 1, '/'); slash != NULL;
	    slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0700);
		*slash = '/';
	}
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
	free(path);
}

char *
lt_read(struct lt *l, const char *rel)
{
	char *path = xasprintf("%s/%s", l->work, rel), *text = NULL;
	FILE *f = fopen(path, "r");
	long n;

	free(path);
	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = xcalloc(1, (size_t)n + 1);
	ck_assert_int_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return text;
}

int
lt_sh(struct lt *l, const char *command)
{
	char *line = xasprintf("cd '%s' && { %s; } >/dev/null 2>&1", l->work,
	    command);
	int rc = system(line);

	free(line);
	return rc;
}

void
lt_git_init(struct lt *l)
{
	lt_write(l, "hello.txt", "hello\n");
	ck_assert_int_eq(lt_sh(l, "git init -q -b main . && "
	    "git -c user.name=t -c user.email=t@t add hello.txt && "
	    "git -c user.name=t -c user.email=t@t commit -q -m start"), 0);
}

void
lt_close(struct lt *l)
{
	size_t i;

	team_free(l->team);
	for (i = 0; i < l->nseen; i++)
		event_free_list(l->seen[i]);
	free(l->seen);
	script_free(l->o.llm.script);
	catalog_free(l->cat);
	tu_rmtree(l->root);
	free(l->root);
	free(l->work);
	free(l->state);
}
