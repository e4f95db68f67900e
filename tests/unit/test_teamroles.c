/*
 * Unit tests of agent/teamroles.c on a bare team (agentfix.h): the roles
 * read when the team opens (their notices on the screen, a person's
 * wrong file an error), and a spawn with a role — the role's model
 * (Claude Code's aliases become the catalog's), the settings' model
 * over it, and gates that a role adds but never takes away.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agent/roles.h"
#include "agent/teamroles.h"
#include "agentfix.h"
#include "util/xmalloc.h"

/* A bare team with the built-in catalog, a person's folder (conf) and
 * the roles of the files written there and in the working tree. */
struct rolefix {
	struct agentfix	 f;
	struct catalog	*catalog;
	char		*conf;
};

static void
rf_open(struct rolefix *r)
{
	char *err = NULL;

	af_open(&r->f);
	r->catalog = catalog_load(NULL, &err);
	ck_assert_msg(r->catalog != NULL, "%s", err);
	r->f.team.opts.catalog = r->catalog;
	r->conf = tu_tmpdir();
	r->f.team.opts.config_dir = r->conf;
	tu_make_dir(r->conf, "agents");
}

static void
rf_close(struct rolefix *r)
{
	json_decref(r->f.team.opts.roles);
	af_close(&r->f);
	catalog_free(r->catalog);
	tu_rmtree(r->conf);
	free(r->conf);
}

/* The catalog's first current model of a family ("-sonnet-"). */
static const char *
first_current(const struct catalog *c, const char *family)
{
	const struct model_info *m;
	size_t i;

	for (i = 0; i < catalog_count(c); i++) {
		m = catalog_model(c, i);
		if (strstr(m->id, family) != NULL && m->status != NULL &&
		    strcmp(m->status, "current") == 0)
			return m->id;
	}
	return NULL;
}

START_TEST(no_roles_leave_the_spawn_as_it_was)
{
	struct rolefix r;
	struct spawn_request s = { "carl", "coder", "go", "model-l", 0, 1, 0,
	    NULL }, out;
	char *err = NULL;
	json_t *j;

	rf_open(&r);
	ck_assert_int_eq(team_roles_open(&r.f.team, &err), 0);
	ck_assert_ptr_nonnull(r.f.team.roles);
	ck_assert_uint_eq(r.f.team.roles->n, 0);
	ck_assert_ptr_null(af_events(&r.f));
	team_role_apply(&r.f.team, &s, &out);
	ck_assert_ptr_eq(out.name, s.name);
	ck_assert_ptr_eq(out.role, s.role);
	ck_assert_ptr_eq(out.prompt, s.prompt);
	ck_assert_ptr_eq(out.model, s.model);
	ck_assert_int_eq(out.plan_required, 0);
	ck_assert_int_eq(out.autonomous, 1);
	ck_assert_int_eq(out.worktree, 0);
	ck_assert_ptr_null(out.base);
	j = team_roles_json(&r.f.team);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "roles")), 0);
	json_decref(j);
	rf_close(&r);
}
END_TEST

START_TEST(a_role_gives_its_model_and_adds_its_gates)
{
	struct rolefix r;
	struct spawn_request s = { "carl", "careful", "go", NULL, 0, 0, 0,
	    NULL }, out;
	const char *sonnet;
	char *err = NULL;
	json_t *j;

	rf_open(&r);
	sonnet = first_current(r.catalog, "-sonnet-");
	ck_assert_ptr_nonnull(sonnet);
	tu_write_file(r.conf, "agents/careful.md", "---\nmodel: sonnet\n"
	    "plan_required: true\n---\nBe careful.\n");
	tu_write_file(r.conf, "agents/busy.md", "---\nmodel: vendor-x-1\n"
	    "autonomous: true\n---\nKeep busy.\n");
	ck_assert_int_eq(team_roles_open(&r.f.team, &err), 0);
	ck_assert_uint_eq(r.f.team.roles->n, 2);

	team_role_apply(&r.f.team, &s, &out);
	ck_assert_str_eq(out.model, sonnet);	/* the alias, resolved */
	ck_assert_int_eq(out.plan_required, 1);
	ck_assert_int_eq(out.autonomous, 0);
	ck_assert_str_eq(out.name, "carl");
	ck_assert_str_eq(out.prompt, "go");

	/* The lead's gates stay; a model not an alias is taken as it is;
	 * the request may be its own result. */
	s.role = "busy";
	s.plan_required = 1;
	s.model = "model-l";
	team_role_apply(&r.f.team, &s, &s);
	ck_assert_str_eq(s.model, "vendor-x-1");
	ck_assert_int_eq(s.plan_required, 1);
	ck_assert_int_eq(s.autonomous, 1);
	j = team_roles_json(&r.f.team);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "roles")), 2);
	json_decref(j);
	rf_close(&r);
}
END_TEST

START_TEST(the_settings_model_wins)
{
	struct rolefix r;
	struct spawn_request s = { "carl", "careful", "go", "model-l", 0, 0, 0,
	    NULL }, out;
	char *err = NULL;

	rf_open(&r);
	tu_write_file(r.conf, "agents/careful.md", "---\nmodel: opus\n---\n"
	    "Be careful.\n");
	r.f.team.opts.roles = json_pack("{s:{s:s}, s:{s:s}, s:{s:i}}",
	    "careful", "model", "from-settings", "coder", "model", "",
	    "tester", "model", 3);
	ck_assert_int_eq(team_roles_open(&r.f.team, &err), 0);
	team_role_apply(&r.f.team, &s, &out);
	ck_assert_str_eq(out.model, "from-settings");
	/* For a role with no file too; an empty or odd one is ignored. */
	s.role = "coder";
	team_role_apply(&r.f.team, &s, &out);
	ck_assert_str_eq(out.model, "model-l");
	s.role = "tester";
	team_role_apply(&r.f.team, &s, &out);
	ck_assert_str_eq(out.model, "model-l");
	json_decref(r.f.team.opts.roles);
	r.f.team.opts.roles = json_pack("{s:{s:s}}", "coder", "model",
	    "for-coders");
	s.role = "coder";
	team_role_apply(&r.f.team, &s, &out);
	ck_assert_str_eq(out.model, "for-coders");
	rf_close(&r);
}
END_TEST

START_TEST(files_left_out_are_told_and_a_persons_error_stops)
{
	struct rolefix r;
	struct event *ev, *e;
	char *err = NULL;
	size_t told = 0;

	rf_open(&r);
	tu_make_dir(r.f.workdir, ".huddle");
	tu_make_dir(r.f.workdir, ".huddle/agents");
	tu_write_file(r.f.workdir, ".huddle/agents/broken.md",
	    "---\nname: x\n");
	tu_write_file(r.f.workdir, ".huddle/agents/fine.md",
	    "---\n---\nFine.\n");
	ck_assert_int_eq(team_roles_open(&r.f.team, &err), 0);
	ck_assert_uint_eq(r.f.team.roles->n, 1);
	ck_assert_uint_ge(r.f.team.roles->nnotices, 1);
	ev = af_events(&r.f);
	for (e = ev; e != NULL; e = e->next) {
		ck_assert_int_eq(e->type, EV_NOTICE);
		ck_assert_ptr_null(e->agent);
		ck_assert_str_eq(event_str(e->data, "message"),
		    r.f.team.roles->notices[told]);
		told++;
	}
	ck_assert_uint_eq(told, r.f.team.roles->nnotices);
	ck_assert_ptr_nonnull(strstr(r.f.team.roles->notices[0], "broken"));
	event_free_list(ev);
	roles_free(r.f.team.roles);
	r.f.team.roles = NULL;

	tu_write_file(r.conf, "agents/bad.md",
	    "---\nplan_required: maybe\n---\n");
	ck_assert_int_eq(team_roles_open(&r.f.team, &err), -1);
	ck_assert_ptr_nonnull(err);
	ck_assert_ptr_nonnull(strstr(err, "bad.md:2"));
	free(err);
	rf_close(&r);
}
END_TEST

static Suite *
teamroles_suite(void)
{
	Suite *s = suite_create("teamroles");
	TCase *tc = tcase_create("teamroles");

	tcase_add_test(tc, no_roles_leave_the_spawn_as_it_was);
	tcase_add_test(tc, a_role_gives_its_model_and_adds_its_gates);
	tcase_add_test(tc, the_settings_model_wins);
	tcase_add_test(tc, files_left_out_are_told_and_a_persons_error_stops);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(teamroles_suite());
}
