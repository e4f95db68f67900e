/*
 * Unit tests of agent/teamstate.c on a bare team (agentfix.h): what the
 * team's parts read of it — agents by name, the budget and the spend,
 * the lead's waits, a command's options, the notices of its parts.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/teamstate.h"
#include "agentfix.h"
#include "tools/bash.h"
#include "tools/profile.h"
#include "util/cancel.h"

START_TEST(find_sees_the_running_agents_only)
{
	struct agentfix f;
	struct agent *alice, *bob;

	af_open(&f);
	ck_assert_ptr_null(team_find(&f.team, "alice"));
	alice = af_agent(&f, "alice");
	bob = af_agent(&f, "bob");
	ck_assert_ptr_eq(team_find(&f.team, "alice"), alice);
	ck_assert_ptr_eq(team_find(&f.team, "bob"), bob);
	ck_assert_ptr_null(team_find(&f.team, "lead"));
	ck_assert_ptr_null(team_find(&f.team, "ali"));
	/* One whose thread ended is gone. */
	atomic_store(&alice->run.finished, 1);
	ck_assert_ptr_null(team_find(&f.team, "alice"));
	ck_assert_ptr_eq(team_find(&f.team, "bob"), bob);
	af_close(&f);
}
END_TEST

START_TEST(the_budget_wakes_every_member)
{
	struct agentfix f;
	const char *names[] = { "lead", "alice", "bob" };
	uint64_t gen[3];
	char *err = NULL;
	size_t i;

	af_open(&f);
	ck_assert(team_budget(&f.team) == 0);
	for (i = 0; i < 3; i++)
		gen[i] = bus_generation(f.team.core.bus, names[i]);
	team_set_budget(&f.team, 2.5);
	ck_assert(team_budget(&f.team) == 2.5);
	for (i = 0; i < 3; i++)
		ck_assert_msg(bus_generation(f.team.core.bus,
		    names[i]) != gen[i],
		    "%s was not woken", names[i]);
	/* No limit below zero. */
	team_set_budget(&f.team, -1);
	ck_assert(team_budget(&f.team) == 0);

	ck_assert(team_cost(&f.team) == 0);
	ck_assert_int_eq(roster_add_usage(f.team.core.store, "alice", 10, 5, 0,
	    0,
	    0.25, &err), 0);
	ck_assert_int_eq(roster_add_usage(f.team.core.store, "lead", 10, 5, 0,
	    0,
	    1.0, &err), 0);
	ck_assert(team_cost(&f.team) == 1.25);
	af_close(&f);
}
END_TEST

START_TEST(the_lead_waits_are_stored)
{
	struct agentfix f;
	char *w;

	af_open(&f);
	ck_assert_ptr_null(roster_awaited(f.team.core.store));
	team_lead_waits(&f.team, "bob");
	team_lead_waits(&f.team, "alice");
	w = roster_awaited(f.team.core.store);
	ck_assert_ptr_nonnull(w);
	ck_assert_ptr_nonnull(strstr(w, "alice"));
	ck_assert_ptr_nonnull(strstr(w, "bob"));
	ck_assert_ptr_null(strstr(w, "lead"));
	free(w);
	/* Naming no member is no error, and stores nothing. */
	team_lead_waits(&f.team, "nobody");
	w = roster_awaited(f.team.core.store);
	ck_assert_ptr_null(strstr(w, "nobody"));
	free(w);
	af_close(&f);
}
END_TEST

START_TEST(a_commands_options_come_from_team_and_place)
{
	struct agentfix f;
	struct profile_spec s = { 0 };
	struct profile *p;
	struct bash_options bo;
	struct cancel c;
	char *err = NULL;

	af_open(&f);
	cancel_init(&c);
	s.root = f.workdir;
	s.tmpdir = f.tu.dir;
	p = profile_new(&s, &err);
	ck_assert_msg(p != NULL, "%s", err);
	f.team.home.program = "/usr/bin/huddle-test";
	f.team.opts.bash_timeout_s = 33;
	memset(&bo, 0x5a, sizeof bo);
	team_bash_options(&f.team, p, &c, &bo);
	ck_assert_str_eq(bo.program, "/usr/bin/huddle-test");
	ck_assert_int_eq(bo.timeout_s, 33);
	ck_assert_ptr_eq(bo.cancel, &c);
	ck_assert_str_eq(bo.workdir, f.workdir);
	ck_assert_str_eq(bo.tmpdir, f.tu.dir);
	ck_assert_int_eq(bo.sandboxed, 0);
	ck_assert_uint_eq(bo.output_cap, 0);	/* cleared first */
	ck_assert_ptr_null(bo.extra_env);
	f.team.home.program = NULL;
	profile_free(p);
	cancel_destroy(&c);
	af_close(&f);
}
END_TEST

START_TEST(what_the_parts_read)
{
	struct agentfix f;
	struct event *ev, *last = NULL;

	af_open(&f);
	ck_assert_ptr_eq(team_store(&f.team), f.tu.store);
	ck_assert_ptr_eq(team_bus(&f.team), f.tu.bus);
	ck_assert_ptr_eq(team_protocol(&f.team), f.tu.proto);
	ck_assert_ptr_eq(team_events(&f.team), &f.team.core.events);
	ck_assert_str_eq(team_workdir(&f.team), f.workdir);
	ck_assert_str_eq(team_state_dir(&f.team), f.tu.dir);
	ck_assert_int_eq(team_epoch_us(&f.team), f.team.home.epoch_us);
	ck_assert_int_eq(team_proxy_port(&f.team), 0);	/* no netgate */
	f.team.opts.llm.model = "model-x";
	ck_assert_str_eq(team_lead_model(&f.team), "model-x");

	/* A part's notice reaches the screen as huddle's. */
	team_on_notice(&f.team, "server s stopped");
	ev = af_events(&f);
	ck_assert_uint_eq(af_count(ev, EV_NOTICE, NULL, &last), 1);
	ck_assert_ptr_null(last->agent);
	ck_assert_str_eq(event_str(last->data, "message"), "server s stopped");
	event_free_list(ev);
	af_close(&f);
}
END_TEST

static Suite *
teamstate_suite(void)
{
	Suite *s = suite_create("teamstate");
	TCase *tc = tcase_create("teamstate");

	tcase_add_test(tc, find_sees_the_running_agents_only);
	tcase_add_test(tc, the_budget_wakes_every_member);
	tcase_add_test(tc, the_lead_waits_are_stored);
	tcase_add_test(tc, a_commands_options_come_from_team_and_place);
	tcase_add_test(tc, what_the_parts_read);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(teamstate_suite());
}
