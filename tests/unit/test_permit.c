/*
 * Unit tests of agent/permit.c on a bare team (agentfix.h): what the
 * risk policy flags, and the gate a flagged command waits at — the
 * person's answer given by another thread, which decides the request
 * through the protocol engine as a front end would; the record the
 * request keeps; a wait that is stopped; the requests a restart leaves.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "agent/permit.h"
#include "agentfix.h"
#include "core/permbody.h"
#include "util/cancel.h"
#include "util/xmalloc.h"

START_TEST(risk_is_the_policys_word)
{
	struct agentfix f;
	char *why;

	af_open(&f);
	ck_assert_ptr_null(permit_risk(&f.team, f.workdir, "ls -l"));
	ck_assert_ptr_null(permit_risk(&f.team, f.workdir, "make check"));
	why = permit_risk(&f.team, f.workdir, "rm -rf build");
	ck_assert_ptr_nonnull(why);
	ck_assert_ptr_nonnull(strstr(why, "rm -r"));
	free(why);
	/* Without a sandbox every command is flagged. */
	f.team.sb.mode = SANDBOX_MISSING;
	why = permit_risk(&f.team, f.workdir, "ls -l");
	ck_assert_ptr_nonnull(why);
	ck_assert_str_eq(why, "no sandbox on this system: every command asks");
	free(why);
	af_close(&f);
}
END_TEST

START_TEST(a_safe_command_asks_nothing)
{
	struct agentfix f;
	struct agent *a;
	struct request *list;
	char *why = NULL;

	af_open(&f);
	a = af_agent(&f, "alice");
	ck_assert_int_eq(permit_command(&f.team, a, "bash", "ls -l",
	    f.workdir, NULL, &why), 0);
	ck_assert_ptr_null(why);
	ck_assert_uint_eq(protocol_list(f.team.core.proto, 10, &list), 0);
	ck_assert_ptr_null(af_events(&f));	/* nor waited */
	af_close(&f);
}
END_TEST

/* The person at another front end: waits for the permission request to
 * the lead, reads its record, and answers it. */
struct person {
	struct agentfix	*f;
	int		 approve;
	const char	*answer;
	char		 id[PROTO_ID_SIZE];
	struct permbody	 body;
	int		 parsed;
	enum proto_verdict verdict;
};

static void *
person_main(void *arg)
{
	struct person *p = arg;
	struct request *r;
	char *msg = NULL;

	af_wait_request(p->f, REQ_PERMISSION, ROSTER_LEAD, p->id);
	r = protocol_get(p->f->team.core.proto, p->id);
	p->parsed = permbody_parse(r->body, &p->body);
	request_free(r);
	p->verdict = protocol_respond(p->f->team.core.proto, p->id,
	    MSG_PERMISSION_RESPONSE, MSG_USER, p->approve, p->answer, &msg);
	free(msg);
	return NULL;
}

START_TEST(a_flagged_command_runs_once_approved)
{
	struct agentfix f;
	struct agent *a;
	struct person p = { 0 };
	struct request *r;
	pthread_t th;
	char *why = NULL;

	af_open(&f);
	a = af_agent(&f, "alice");
	p.f = &f;
	p.approve = 1;
	p.answer = "";
	pthread_create(&th, NULL, person_main, &p);
	ck_assert_int_eq(permit_command(&f.team, a, "bash", "rm -rf build",
	    f.workdir, NULL, &why), 0);
	pthread_join(th, NULL);
	ck_assert_ptr_null(why);
	ck_assert_int_eq(p.verdict, PROTO_DECIDED);
	/* The record: what asks, the command, why, where, who. */
	ck_assert_int_eq(p.parsed, 0);
	ck_assert_str_eq(p.body.tool, "bash");
	ck_assert_str_eq(p.body.command, "rm -rf build");
	ck_assert_str_eq(p.body.directory, f.workdir);
	ck_assert_str_eq(p.body.who, "alice");
	ck_assert_str_eq(p.body.reason, "rm -r");
	ck_assert_int_gt(strlen(p.body.detail), 0);
	ck_assert_uint_lt(p.body.flag_start, p.body.flag_end);
	permbody_clear(&p.body);
	r = protocol_get(f.team.core.proto, p.id);
	ck_assert_str_eq(r->from, "alice");
	ck_assert_int_eq(r->status, REQ_APPROVED);
	request_free(r);
	/* Alice waited for it, then worked on. */
	ck_assert_int_eq(a->status, MEMBER_WORKING);
	af_close(&f);
}
END_TEST

START_TEST(a_refused_command_says_why)
{
	struct agentfix f;
	struct agent *a;
	struct person p = { 0 };
	pthread_t th;
	char *why = NULL, *want;

	af_open(&f);
	a = af_agent(&f, "bob");
	p.f = &f;
	p.answer = "not in my tree";
	pthread_create(&th, NULL, person_main, &p);
	ck_assert_int_eq(permit_command(&f.team, a, "t3's check, written by "
	    "lead", "rm -rf /tmp/x", f.workdir, NULL, &why), -1);
	pthread_join(th, NULL);
	ck_assert_str_eq(p.body.tool, "t3's check, written by lead");
	ck_assert_str_eq(p.body.who, "bob");
	permbody_clear(&p.body);
	want = xasprintf("permission %s was rejected by user: not in my tree",
	    p.id);
	ck_assert_str_eq(why, want);
	free(want);
	free(why);
	af_close(&f);
}
END_TEST

START_TEST(the_persons_own_check_waits_without_an_agent)
{
	struct agentfix f;
	struct person p = { 0 };
	struct cancel c;
	struct request *r;
	pthread_t th;
	char *why = NULL;

	af_open(&f);
	cancel_init(&c);
	/* No sandbox: even a harmless command asks. */
	f.team.sb.mode = SANDBOX_MISSING;
	p.f = &f;
	p.approve = 1;
	p.answer = "ok";
	pthread_create(&th, NULL, person_main, &p);
	ck_assert_int_eq(permit_command(&f.team, NULL, "t1's check", "true",
	    f.workdir, &c, &why), 0);
	pthread_join(th, NULL);
	ck_assert_str_eq(p.body.who, MSG_USER);
	ck_assert_str_eq(p.body.reason, "no sandbox");
	permbody_clear(&p.body);
	r = protocol_get(f.team.core.proto, p.id);
	ck_assert_str_eq(r->from, MSG_USER);
	ck_assert_int_eq(r->status, REQ_APPROVED);
	request_free(r);
	cancel_destroy(&c);
	af_close(&f);
}
END_TEST

/* Checks that the only request made was withdrawn and that why, the
 * refusal, names it. */
static void
expect_withdrawn(struct agentfix *f, const char *why)
{
	struct request *list;
	size_t n = protocol_list(f->team.core.proto, 10, &list);

	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(list[0].status, REQ_CANCELLED);
	ck_assert_ptr_nonnull(strstr(list[0].response, "was not run"));
	ck_assert_ptr_nonnull(strstr(why, "stopped while waiting for "
	    "permission"));
	ck_assert_ptr_nonnull(strstr(why, list[0].id));
	request_free_array(list, n);
}

START_TEST(a_stopped_wait_withdraws_the_request)
{
	struct agentfix f;
	struct agent *a;
	struct cancel c;
	char *why = NULL;

	af_open(&f);
	cancel_init(&c);
	cancel_fire(&c);
	ck_assert_int_eq(permit_command(&f.team, NULL, "t1's check",
	    "rm -rf out", f.workdir, &c, &why), -1);
	expect_withdrawn(&f, why);
	free(why);
	cancel_destroy(&c);
	af_close(&f);

	af_open(&f);
	a = af_agent(&f, "alice");
	atomic_store(&a->run.stop, 1);
	ck_assert_int_eq(permit_command(&f.team, a, "bash", "rm -rf out",
	    f.workdir, NULL, &why), -1);
	expect_withdrawn(&f, why);
	free(why);
	af_close(&f);
}
END_TEST

START_TEST(forget_cancels_the_persons_requests_only)
{
	struct agentfix f;
	struct request *r;
	char mine[PROTO_ID_SIZE], hers[PROTO_ID_SIZE], *err = NULL;

	af_open(&f);
	ck_assert_int_eq(protocol_request(f.team.core.proto, REQ_PERMISSION,
	    MSG_USER, ROSTER_LEAD, "check", mine, &err), 0);
	ck_assert_int_eq(protocol_request(f.team.core.proto, REQ_PERMISSION,
	    "alice", ROSTER_LEAD, "bash", hers, &err), 0);
	permit_forget(&f.team);
	r = protocol_get(f.team.core.proto, mine);
	ck_assert_int_eq(r->status, REQ_CANCELLED);
	ck_assert_ptr_nonnull(strstr(r->response, "huddle restarted"));
	request_free(r);
	r = protocol_get(f.team.core.proto, hers);
	ck_assert_int_eq(r->status, REQ_PENDING);
	request_free(r);
	af_close(&f);
}
END_TEST

static Suite *
permit_suite(void)
{
	Suite *s = suite_create("permit");
	TCase *tc = tcase_create("permit");

	tcase_add_test(tc, risk_is_the_policys_word);
	tcase_add_test(tc, a_safe_command_asks_nothing);
	tcase_add_test(tc, a_flagged_command_runs_once_approved);
	tcase_add_test(tc, a_refused_command_says_why);
	tcase_add_test(tc, the_persons_own_check_waits_without_an_agent);
	tcase_add_test(tc, a_stopped_wait_withdraws_the_request);
	tcase_add_test(tc, forget_cancels_the_persons_requests_only);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(permit_suite());
}
