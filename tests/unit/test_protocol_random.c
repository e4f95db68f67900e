/*
 * A randomized, multi-threaded test of core/protocol:
 * several threads interleave requests of every type between members and
 * the person, responses of the right and the wrong type from allowed and
 * disallowed senders (so duplicates, contrary and late answers happen all
 * the time), ticks of a fake clock that runs ahead and ticks right at
 * (or just before) a request's deadline, and terminations of members,
 * against one store.
 *
 * Every operation checks its own outcome against the rules of
 * doc/protocol.md: the verdict a response must get, whether a request
 * may be opened, that a terminated member is left with nothing pending.
 * A listener records every announced state change, so a request that is
 * decided twice is caught the moment it happens. Every few operations a
 * thread takes the test's lock exclusively (operations hold it shared)
 * and compares the whole store with what was announced: statuses valid,
 * a decided request unchanged since its first decision, nothing pending
 * that involves a terminated member or that a finished tick should have
 * expired, approved plans reflected in the roster.
 *
 * The seed is printed; HUDDLE_TEST_SEED=N repeats each thread's choices
 * (the interleaving is the scheduler's).
 */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/protocol.h"
#include "core/roster.h"
#include "testutil.h"
#include "util/clock.h"
#include "util/xmalloc.h"

#define RT_THREADS	6
#define RT_OPS		1000		/* per thread */
#define RT_CHECK_EVERY	40		/* operations between full checks */
#define RT_MAX_RECS	(RT_THREADS * RT_OPS + 16)
#define RT_HASH		16384		/* > 2 * RT_MAX_RECS, power of 2 */
#define RT_MAX_TICKS	(RT_THREADS * RT_OPS)
#define RT_NAME_MAX	16

static unsigned rt_seed;

/* The members: tu_team_open's three, then the extra ones. Any but the
 * lead and bob may be terminated. */
static const char *const rt_members[] = { "lead", "alice", "bob", "carol",
    "dave", "erin", "frank", "gina", "hank", "ivan", "judy" };
#define RT_NMEMBERS	(sizeof rt_members / sizeof *rt_members)
#define RT_FIRST_EXTRA	3

/* Senders and targets that are not members. */
static const char *const rt_strangers[] = { MSG_USER, MSG_SYSTEM, "nobody" };
#define RT_NSTRANGERS	(sizeof rt_strangers / sizeof *rt_strangers)

/* What the test knows of a member's life: a member may be ended by
 * protocol_terminate or, where approval of a shutdown ends its target,
 * by such an approval. */
enum rt_life {
	RT_LIVE,
	RT_DYING,	/* an operation that may end it is running */
	RT_DEAD
};

/* What the test knows of one request, from the announcements. */
struct rt_rec {
	char		id[PROTO_ID_SIZE];
	enum req_type	type;
	char		from[RT_NAME_MAX];
	char		to[RT_NAME_MAX];
	enum req_status	status;		/* as last announced */
	char		decided_by[RT_NAME_MAX]; /* "" when none */
	int		announced_pending;
	uint64_t	created_seq;	/* 0 until protocol_request returned */
};

struct rt_tick {
	uint64_t	seq;		/* taken before protocol_tick began */
	int64_t		now;
};

struct rt {
	struct tu_team		 team;
	pthread_rwlock_t	 gate;	/* shared: an operation; exclusive:
					 * a full check */
	pthread_mutex_t		 fail_lock; /* failure */
	char			 failure[512];	/* the first failure */
	pthread_mutex_t		 lock;	/* everything below */
	struct rt_rec		 recs[RT_MAX_RECS];
	size_t			 nrecs;
	int			 hash[RT_HASH];	/* index + 1, or 0 */
	struct rt_tick		 ticks[RT_MAX_TICKS];
	size_t			 nticks;
	int			 dead[RT_NMEMBERS];	/* known ended */
	int			 dying[RT_NMEMBERS];	/* operations that
							 * may end it */
	unsigned		 verdicts[PROTO_FAILED + 1];
	unsigned		 statuses[REQ_STATUS_COUNT];
	unsigned		 checks;

	atomic_int		 failed;
	atomic_uint_fast64_t	 seq;
	atomic_uint		 ops;	/* operations begun, all threads */
	_Atomic int64_t		 fake_now;
	_Atomic int64_t		 max_now;	/* the latest tick begun */
};

static struct rt *rt;

/* --- failures and the record of requests ------------------------------- */

static void rt_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Records the first failure; threads stop at their next operation. The
 * main thread asserts on it, since Check's assertions are not for
 * other threads. */
static void
rt_fail(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&rt->fail_lock);
	if (!atomic_load(&rt->failed)) {
		va_start(ap, fmt);
		vsnprintf(rt->failure, sizeof rt->failure, fmt, ap);
		va_end(ap);
		atomic_store(&rt->failed, 1);
	}
	pthread_mutex_unlock(&rt->fail_lock);
}

static unsigned
rt_hash_of(const char *id)
{
	return (unsigned)strtoul(id + 4, NULL, 16) & (RT_HASH - 1);
}

/* Under rt->lock: the record of id, or NULL. */
static struct rt_rec *
rt_find(const char *id)
{
	unsigned h = rt_hash_of(id);

	for (; rt->hash[h] != 0; h = (h + 1) & (RT_HASH - 1)) {
		if (strcmp(rt->recs[rt->hash[h] - 1].id, id) == 0)
			return &rt->recs[rt->hash[h] - 1];
	}
	return NULL;
}

/* Under rt->lock: a new record for r. */
static struct rt_rec *
rt_add(const struct request *r)
{
	struct rt_rec *rec;
	unsigned h = rt_hash_of(r->id);

	if (rt->nrecs == RT_MAX_RECS)
		abort();
	rec = &rt->recs[rt->nrecs++];
	memset(rec, 0, sizeof *rec);
	memcpy(rec->id, r->id, PROTO_ID_SIZE);
	rec->type = r->type;
	snprintf(rec->from, sizeof rec->from, "%s", r->from);
	snprintf(rec->to, sizeof rec->to, "%s", r->to);
	rec->status = REQ_PENDING;
	while (rt->hash[h] != 0)
		h = (h + 1) & (RT_HASH - 1);
	rt->hash[h] = (int)rt->nrecs;
	return rec;
}

static int
rt_member_index(const char *name)
{
	size_t i;

	for (i = 0; i < RT_NMEMBERS; i++) {
		if (strcmp(name, rt_members[i]) == 0)
			return (int)i;
	}
	return -1;
}

/* Whether a request from `from` comes from outside the team: the
 * person, or huddle's quit. */
static int
rt_outside(const char *from)
{
	return strcmp(from, MSG_USER) == 0 || strcmp(from, MSG_SYSTEM) == 0;
}

/* Whether `from` may answer request rec (the engine's default table). */
static int
rt_may_answer(enum req_type type, const char *to, const char *from)
{
	switch (type) {
	case REQ_SHUTDOWN:
		return strcmp(from, to) == 0;
	case REQ_PLAN_APPROVAL:
		return strcmp(from, to) == 0 || strcmp(from, MSG_USER) == 0;
	default:
		return strcmp(from, MSG_USER) == 0;
	}
}

/*
 * The listener: every committed change, on the thread that made it. A
 * request is announced pending once, and decided at most once; a second
 * decision is the very thing R5 forbids. A decision may be heard before
 * the creation (a tick or a termination on another thread can close a
 * request whose creator has not announced it yet).
 */
static void
rt_hear(void *ud, const void *what)
{
	const struct request *r = what;
	struct rt_rec *rec;

	pthread_mutex_lock(&rt->lock);
	if ((rec = rt_find(r->id)) == NULL)
		rec = rt_add(r);
	if (r->status == REQ_PENDING) {
		if (rec->announced_pending)
			rt_fail("%s announced pending twice", r->id);
		rec->announced_pending = 1;
	} else {
		if (rec->status != REQ_PENDING)
			rt_fail("%s decided twice: %s, then %s", r->id,
			    req_status_name(rec->status),
			    req_status_name(r->status));
		if ((unsigned)r->status >= REQ_STATUS_COUNT)
			rt_fail("%s announced with status %d", r->id,
			    (int)r->status);
		else {
			rec->status = r->status;
			rt->statuses[r->status]++;
		}
		snprintf(rec->decided_by, sizeof rec->decided_by, "%s",
		    r->decided_by ? r->decided_by : "");
	}
	pthread_mutex_unlock(&rt->lock);
}

/* --- the whole store, checked while no operation runs ------------------ */

/* Whether a finished tick with a deadline at or after expires_at began
 * after the request was created. */
static int
rt_should_have_expired(const struct rt_rec *rec, int64_t expires_at)
{
	size_t i;

	if (expires_at <= 0 || rec->created_seq == 0)
		return 0;
	for (i = 0; i < rt->nticks; i++) {
		if (rt->ticks[i].seq > rec->created_seq &&
		    rt->ticks[i].now >= expires_at)
			return 1;
	}
	return 0;
}

static int64_t
rt_max_tick(void)
{
	int64_t max = 0;
	size_t i;

	for (i = 0; i < rt->nticks; i++) {
		if (rt->ticks[i].now > max)
			max = rt->ticks[i].now;
	}
	return max;
}

/* Whether the store says member i has terminated. */
static int
rt_ended(const int *ended, const char *name)
{
	int i = rt_member_index(name);

	return i >= 0 && ended[i];
}

/* ended and gated: per member of rt_members, whether the store says it
 * is terminated, and whether its plan gate is open; read before the
 * test's lock is taken (the store's listeners take that lock under the
 * store's, so the store is never called with it held). */
static void
rt_check_request(const struct request *r, struct rt_rec *rec,
    const int *ended, const int *gated)
{
	int gone = rt_ended(ended, r->from) || rt_ended(ended, r->to);
	int who;

	if (rec == NULL) {
		rt_fail("%s is in the store but was never announced", r->id);
		return;
	}
	if (rec->type != r->type || strcmp(rec->from, r->from) != 0 ||
	    strcmp(rec->to, r->to) != 0)
		rt_fail("%s changed its type, sender or target", r->id);
	if (!rec->announced_pending)
		rt_fail("%s was never announced pending", r->id);
	/* The store agrees with the one announced change; a decided
	 * request therefore never changed since its first decision. */
	if (rec->status != r->status)
		rt_fail("%s is %s in the store but was announced %s", r->id,
		    req_status_name(r->status), req_status_name(rec->status));
	if (strcmp(rec->decided_by, r->decided_by ? r->decided_by : "") != 0)
		rt_fail("%s: decided_by changed", r->id);

	switch (r->status) {
	case REQ_PENDING:
		if (gone)
			rt_fail("%s is pending but %s or %s is terminated",
			    r->id, r->from, r->to);
		if (rt_should_have_expired(rec, r->expires_at))
			rt_fail("%s is pending past a tick at its deadline",
			    r->id);
		if (r->decided_by != NULL || r->decided_at != 0)
			rt_fail("%s is pending with a decision", r->id);
		break;
	case REQ_APPROVED:
	case REQ_REJECTED:
		if (r->decided_by == NULL ||
		    !rt_may_answer(r->type, r->to, r->decided_by))
			rt_fail("%s decided by %s, who may not answer it",
			    r->id, r->decided_by ? r->decided_by : "nobody");
		if (r->status == REQ_APPROVED &&
		    r->type == REQ_PLAN_APPROVAL) {
			who = rt_member_index(r->from);
			if (who < 0 || !gated[who])
				rt_fail("plan %s approved but %s's plan gate "
				    "is closed", r->id, r->from);
		}
		break;
	case REQ_EXPIRED:
		if (r->decided_by != NULL || r->expires_at <= 0 ||
		    r->expires_at > rt_max_tick())
			rt_fail("%s expired before its deadline", r->id);
		break;
	case REQ_CANCELLED:
		/* This test cancels only by ending members. */
		if (!gone)
			rt_fail("%s cancelled, yet %s and %s are live", r->id,
			    r->from, r->to);
		break;
	default:
		rt_fail("%s has status %d", r->id, (int)r->status);
		break;
	}
}

/* Counts the rows of requests, and those with a status the engine does
 * not know (protocol_list would skip them). */
static void
rt_count_rows(int64_t *rows, int64_t *bad)
{
	sqlite3_stmt *st;

	store_lock(rt->team.store);
	if (sqlite3_prepare_v2(store_db(rt->team.store), "SELECT count(*),"
	    " sum(status NOT IN ('pending', 'approved', 'rejected',"
	    " 'expired', 'cancelled')) FROM requests", -1, &st, NULL) !=
	    SQLITE_OK)
		abort();
	if (sqlite3_step(st) != SQLITE_ROW)
		abort();
	*rows = sqlite3_column_int64(st, 0);
	*bad = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	store_unlock(rt->team.store);
}

/* Compares the whole store with the record. Call with the gate held
 * exclusively: no operation runs. */
static void
rt_check_all(void)
{
	struct request *list;
	struct member *members;
	int64_t rows, bad;
	int ended[RT_NMEMBERS] = { 0 }, gated[RT_NMEMBERS] = { 0 }, m;
	size_t n, i, known, nm;

	nm = roster_list(rt->team.store, &members);
	for (i = 0; i < nm; i++) {
		if ((m = rt_member_index(members[i].name)) >= 0)
			ended[m] = members[i].status == MEMBER_TERMINATED;
	}
	member_free_array(members, nm);
	n = protocol_list(rt->team.proto, (size_t)1 << 30, &list);
	/* Plan gates after the requests: a gate opens with its approval
	 * and never closes, so one approved in the list is open here. */
	nm = roster_list(rt->team.store, &members);
	for (i = 0; i < nm; i++) {
		if ((m = rt_member_index(members[i].name)) >= 0)
			gated[m] = members[i].plan_approved;
	}
	member_free_array(members, nm);
	rt_count_rows(&rows, &bad);
	pthread_mutex_lock(&rt->lock);
	rt->checks++;
	for (i = 0; i < RT_NMEMBERS; i++) {
		if (ended[i] != rt->dead[i])
			rt_fail("the store says %s %s terminated, the test "
			    "says otherwise", rt_members[i], ended[i] ? "is" :
			    "is not");
	}
	if (bad != 0 || (int64_t)n != rows)
		rt_fail("%" PRId64 " request rows, %zu readable, %" PRId64
		    " with an unknown status", rows, n, bad);
	for (i = 0; i < n; i++)
		rt_check_request(&list[i], rt_find(list[i].id), ended,
		    gated);
	/* Every announced request is in the store. */
	for (i = known = 0; i < rt->nrecs; i++)
		known += rt->recs[i].announced_pending;
	if (known != n)
		rt_fail("%zu requests announced, %zu in the store", known, n);
	pthread_mutex_unlock(&rt->lock);
	request_free_array(list, n);
}

/* --- the operations ------------------------------------------------------- */

struct rt_thread {
	pthread_t	 thread;
	unsigned	 rand;
	int		 index;
};

static unsigned
rt_rand(struct rt_thread *th, unsigned n)
{
	return (unsigned)rand_r(&th->rand) % n;
}

static const char *
rt_any_name(struct rt_thread *th)
{
	unsigned i = rt_rand(th, RT_NMEMBERS + RT_NSTRANGERS);

	return i < RT_NMEMBERS ? rt_members[i] : rt_strangers[i -
	    RT_NMEMBERS];
}

static const char *
rt_teammate(struct rt_thread *th)
{
	return rt_members[1 + rt_rand(th, RT_NMEMBERS - 1)];
}

static enum rt_life
rt_life_of(const char *name)
{
	int i = rt_member_index(name);
	enum rt_life l;

	if (i < 0)
		return RT_DEAD;
	pthread_mutex_lock(&rt->lock);
	l = rt->dead[i] ? RT_DEAD : rt->dying[i] > 0 ? RT_DYING : RT_LIVE;
	pthread_mutex_unlock(&rt->lock);
	return l;
}

/* The life of a request's sender: a member's own; from outside (the
 * person or huddle), live for what it may ask: a shutdown or a
 * permission. */
static enum rt_life
rt_outside_life(const char *from, enum req_type type)
{
	if (!rt_outside(from))
		return rt_life_of(from);
	if (type == REQ_SHUTDOWN || type == REQ_PERMISSION)
		return RT_LIVE;
	return RT_DEAD;
}

/*
 * Whether an operation may end live member m now: never the lead or bob
 * (plans need them), and the others spread over the run, so that most of
 * it has several live teammates. If so, m is marked dying until
 * rt_ending_done. Under rt->lock.
 */
static int
rt_may_end(int m)
{
	int i, n = 0;

	if (m < 0 || m == 0 || m == 2 || rt->dead[m])
		return 0;
	for (i = 0; i < (int)RT_NMEMBERS; i++)
		n += rt->dead[i] || rt->dying[i] > 0;
	if (rt->dying[m] == 0 && (unsigned)n >= (RT_NMEMBERS - 2) *
	    atomic_load(&rt->ops) / (RT_THREADS * RT_OPS))
		return 0;
	rt->dying[m]++;
	return 1;
}

/* After an operation that may have ended member m: it is dead if the
 * store says so, and then nothing it sent or had to answer is pending,
 * nor can it be again (it can neither ask nor be asked). */
static void
rt_ending_done(int m)
{
	struct member *mem = roster_get(rt->team.store, rt_members[m]);
	struct request *list;
	size_t n, i;
	int ended = mem != NULL && mem->status == MEMBER_TERMINATED;

	member_free(mem);
	pthread_mutex_lock(&rt->lock);
	if (ended)
		rt->dead[m] = 1;
	rt->dying[m]--;
	pthread_mutex_unlock(&rt->lock);
	if (!ended)
		return;
	n = protocol_list(rt->team.proto, 0, &list);
	for (i = 0; i < n; i++) {
		if (strcmp(list[i].from, rt_members[m]) == 0 ||
		    strcmp(list[i].to, rt_members[m]) == 0)
			rt_fail("%s still pending after %s terminated",
			    list[i].id, rt_members[m]);
	}
	request_free_array(list, n);
}

/* Opens a request: mostly the documented directions, sometimes any. */
static void
rt_op_request(struct rt_thread *th)
{
	enum req_type type = rt_rand(th, REQ_TYPE_COUNT);
	const char *from, *to;
	enum rt_life lf, lt;
	char id[PROTO_ID_SIZE], *err = NULL;
	struct rt_rec *rec;
	int rc;

	if (rt_rand(th, 10) < 7) {
		if (type == REQ_SHUTDOWN) {
			/* The lead's, the person's, or the quit's. */
			from = rt_rand(th, 3) == 0 ? ROSTER_LEAD :
			    rt_rand(th, 2) ? MSG_USER : MSG_SYSTEM;
			to = rt_teammate(th);
		} else {
			from = rt_teammate(th);
			to = ROSTER_LEAD;
		}
	} else {
		from = rt_any_name(th);
		to = rt_any_name(th);
	}
	/* Lives only go live -> dying -> dead: dead before the call means
	 * it must fail, live after it means it must succeed. The person
	 * counts as live for a shutdown and a permission (a model's command
	 * the person's /task done runs), huddle for a shutdown, and both as
	 * no member for the rest. */
	lf = rt_outside_life(from, type);
	lt = rt_life_of(to);
	rc = protocol_request(rt->team.proto, type, from, to, "body", id,
	    &err);
	if (rc == 0) {
		if (lf == RT_DEAD || lt == RT_DEAD)
			rt_fail("a %s request %s -> %s was opened",
			    req_type_name(type), from, to);
		pthread_mutex_lock(&rt->lock);
		if ((rec = rt_find(id)) == NULL || !rec->announced_pending)
			rt_fail("%s opened but not announced", id);
		else
			rec->created_seq = atomic_fetch_add(&rt->seq, 1) + 1;
		pthread_mutex_unlock(&rt->lock);
	} else {
		lf = rt_outside_life(from, type);
		lt = rt_life_of(to);
		if (lf == RT_LIVE && lt == RT_LIVE)
			rt_fail("a %s request %s -> %s failed: %s",
			    req_type_name(type), from, to, err ? err : "?");
		if (err == NULL)
			rt_fail("protocol_request failed without a reason");
		free(err);
	}
}

static const enum msg_type rt_answers[] = { MSG_SHUTDOWN_RESPONSE,
    MSG_PLAN_APPROVAL_RESPONSE, MSG_PERMISSION_RESPONSE, MSG_SHUTDOWN_REQUEST,
    MSG_PLAN_APPROVAL_REQUEST, MSG_MESSAGE };

/* Answers a request: recent ones more often, so answers race. */
static void
rt_op_respond(struct rt_thread *th)
{
	struct rt_rec rec, *r;
	enum msg_type type;
	enum proto_verdict v, want;
	struct request *now;
	const char *from;
	char *msg = NULL;
	int approve = rt_rand(th, 2), unknown, ending;
	size_t n, i;

	pthread_mutex_lock(&rt->lock);
	n = rt->nrecs;
	unknown = n == 0 || rt_rand(th, 20) == 0;
	if (!unknown) {
		i = rt_rand(th, 2) && n > 8 ? n - 1 - rt_rand(th, 8) :
		    rt_rand(th, (unsigned)n);
		rec = rt->recs[i];
	}
	pthread_mutex_unlock(&rt->lock);
	if (unknown) {
		memset(&rec, 0, sizeof rec);
		snprintf(rec.id, sizeof rec.id, "req_%08x", rand_r(&th->rand));
		pthread_mutex_lock(&rt->lock);
		unknown = rt_find(rec.id) == NULL;
		pthread_mutex_unlock(&rt->lock);
		if (!unknown)
			return;
	}

	type = rt_rand(th, 10) < 7 ? req_type_response_msg(rec.type) :
	    rt_answers[rt_rand(th, sizeof rt_answers / sizeof *rt_answers)];
	if (rt_rand(th, 10) < 6)
		from = rec.type == REQ_PERMISSION || (rec.type ==
		    REQ_PLAN_APPROVAL && rt_rand(th, 2)) ? MSG_USER : rec.to;
	else
		from = rt_any_name(th);

	if (unknown)
		want = PROTO_UNKNOWN;
	else if (type != req_type_response_msg(rec.type))
		want = PROTO_WRONG_TYPE;
	else if (!rt_may_answer(rec.type, rec.to, from))
		want = PROTO_WRONG_SENDER;
	else
		want = PROTO_DECIDED;	/* or already decided */

	/* Approving a shutdown may end its target: only as rt_may_end
	 * allows, else the answer is a refusal. */
	ending = -1;
	if (want == PROTO_DECIDED && rec.type == REQ_SHUTDOWN && approve) {
		pthread_mutex_lock(&rt->lock);
		if (rt_may_end(rt_member_index(rec.to)))
			ending = rt_member_index(rec.to);
		else
			approve = 0;
		pthread_mutex_unlock(&rt->lock);
	}
	v = protocol_respond(rt->team.proto, rec.id, type, from, approve,
	    "text", &msg);
	if (ending >= 0)
		rt_ending_done(ending);
	if (msg == NULL)
		rt_fail("a response to %s got no sentence", rec.id);
	free(msg);
	pthread_mutex_lock(&rt->lock);
	if ((unsigned)v <= PROTO_FAILED)
		rt->verdicts[v]++;
	pthread_mutex_unlock(&rt->lock);

	if (want != PROTO_DECIDED) {
		if (v != want)
			rt_fail("response to %s %s -> %s (%s) from %s: verdict "
			    "%d, want %d", rec.id, rec.from, rec.to,
			    req_type_name(rec.type), from, (int)v, (int)want);
		return;
	}
	if (v != PROTO_DECIDED && v != PROTO_ALREADY_DECIDED) {
		rt_fail("response to %s from %s: verdict %d", rec.id, from,
		    (int)v);
		return;
	}
	now = protocol_get(rt->team.proto, rec.id);
	if (now == NULL) {
		rt_fail("%s vanished", rec.id);
		return;
	}
	if (v == PROTO_ALREADY_DECIDED && now->status == REQ_PENDING)
		rt_fail("%s: 'already decided' but pending", rec.id);
	if (v == PROTO_DECIDED) {
		/* The decision is ours, it is in the store, and it was
		 * announced (before protocol_respond returned). */
		if (now->status != (approve ? REQ_APPROVED : REQ_REJECTED) ||
		    now->decided_by == NULL ||
		    strcmp(now->decided_by, from) != 0)
			rt_fail("%s decided by %s but the store says %s by %s",
			    rec.id, from, req_status_name(now->status),
			    now->decided_by ? now->decided_by : "nobody");
		pthread_mutex_lock(&rt->lock);
		if ((r = rt_find(rec.id)) == NULL || r->status != now->status)
			rt_fail("%s decided but not announced", rec.id);
		pthread_mutex_unlock(&rt->lock);
	}
	request_free(now);
}

/* Raises rt->max_now to at least now. */
static void
rt_note_tick(int64_t now)
{
	int64_t seen = atomic_load(&rt->max_now);

	while (seen < now &&
	    !atomic_compare_exchange_weak(&rt->max_now, &seen, now))
		;
}

/*
 * A tick. Half of them follow a fake clock that runs ahead of the wall
 * clock; the other half fall on the deadline of a recent pending request,
 * or one millisecond before it: at its deadline it must expire (if
 * nothing else decided it first), and before it, it must not, unless
 * another tick reached the deadline.
 */
static void
rt_op_tick(struct rt_thread *th)
{
	int64_t step = rt_rand(th, 1000), now, deadline = 0;
	struct request *r = NULL;
	char id[PROTO_ID_SIZE];
	uint64_t seq;
	size_t n;
	int early = rt_rand(th, 2), got;

	pthread_mutex_lock(&rt->lock);
	n = rt->nrecs;
	got = n > 0 && rt_rand(th, 2);
	if (got)
		memcpy(id, rt->recs[n - 1 - rt_rand(th, n < 8 ? (unsigned)n :
		    8)].id, PROTO_ID_SIZE);
	pthread_mutex_unlock(&rt->lock);
	if (got && (r = protocol_get(rt->team.proto, id)) != NULL &&
	    r->status == REQ_PENDING && r->expires_at > 0)
		deadline = r->expires_at;
	request_free(r);

	if (deadline > 0)
		now = early ? deadline - 1 : deadline;
	else
		now = atomic_fetch_add(&rt->fake_now, step) + step;
	rt_note_tick(now);
	seq = atomic_fetch_add(&rt->seq, 1) + 1;
	if (protocol_tick(rt->team.proto, now) < 0)
		rt_fail("protocol_tick failed");
	pthread_mutex_lock(&rt->lock);
	rt->ticks[rt->nticks].seq = seq;
	rt->ticks[rt->nticks].now = now;
	rt->nticks++;
	pthread_mutex_unlock(&rt->lock);

	if (deadline == 0)
		return;
	if ((r = protocol_get(rt->team.proto, id)) == NULL) {
		rt_fail("%s vanished", id);
		return;
	}
	if (!early && r->status == REQ_PENDING)
		rt_fail("%s still pending after a tick at its deadline", id);
	if (early && r->status == REQ_EXPIRED &&
	    atomic_load(&rt->max_now) < deadline)
		rt_fail("%s expired a millisecond before its deadline", id);
	request_free(r);
}

/* Terminates a member (as rt_may_end allows), or one already
 * terminated, or one that does not exist. */
static void
rt_op_terminate(struct rt_thread *th)
{
	const char *name;
	char *err = NULL;
	int m, again, go, rc;

	if (rt_rand(th, 8) == 0) {
		if (protocol_terminate(rt->team.proto, "nobody", NULL,
		    &err) != -1)
			rt_fail("terminating a stranger succeeded");
		free(err);
		return;
	}
	m = 1 + (int)rt_rand(th, RT_NMEMBERS - 1);
	name = rt_members[m];
	pthread_mutex_lock(&rt->lock);
	again = rt->dead[m];
	go = again || rt_may_end(m);
	pthread_mutex_unlock(&rt->lock);
	if (!go)
		return;

	/* Terminating a member again is harmless: it stays terminated. */
	rc = protocol_terminate(rt->team.proto, name, "random", &err);
	if (rc != 0)
		rt_fail("terminating %s%s: %s", name, again ? " again" : "",
		    err ? err : "?");
	free(err);
	if (!again)
		rt_ending_done(m);
	pthread_mutex_lock(&rt->lock);
	if (!rt->dead[m])
		rt_fail("%s is not terminated after protocol_terminate",
		    name);
	pthread_mutex_unlock(&rt->lock);
}

static void *
rt_run(void *arg)
{
	struct rt_thread *th = arg;
	unsigned op;
	int i;

	for (i = 0; i < RT_OPS && !atomic_load(&rt->failed); i++) {
		op = rt_rand(th, 100);
		atomic_fetch_add(&rt->ops, 1);
		pthread_rwlock_rdlock(&rt->gate);
		if (op < 35)
			rt_op_request(th);
		else if (op < 85)
			rt_op_respond(th);
		else if (op < 97)
			rt_op_tick(th);
		else
			rt_op_terminate(th);
		pthread_rwlock_unlock(&rt->gate);

		if ((i + th->index) % RT_CHECK_EVERY == 0) {
			pthread_rwlock_wrlock(&rt->gate);
			rt_check_all();
			pthread_rwlock_unlock(&rt->gate);
		}
	}
	return NULL;
}

START_TEST(random_interleavings_keep_every_rule)
{
	struct rt_thread th[RT_THREADS];
	pthread_rwlockattr_t attr;
	char *err = NULL;
	size_t i;
	int s;

	rt = xcalloc(1, sizeof *rt);
	tu_team_open(&rt->team);
	for (i = RT_FIRST_EXTRA; i < RT_NMEMBERS; i++)
		ck_assert_int_eq(roster_add(rt->team.store, rt_members[i],
		    "extra", "", i % 2, &err), 0);
	pthread_mutex_init(&rt->lock, NULL);
	pthread_mutex_init(&rt->fail_lock, NULL);
	pthread_rwlockattr_init(&attr);
	/* A checker waiting for the gate must not starve. */
	pthread_rwlockattr_setkind_np(&attr,
	    PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&rt->gate, &attr);
	pthread_rwlockattr_destroy(&attr);
	atomic_init(&rt->failed, 0);
	atomic_init(&rt->seq, 0);
	atomic_init(&rt->ops, 0);
	atomic_init(&rt->fake_now, clock_wall_ms());
	atomic_init(&rt->max_now, 0);
	/* Short timeouts, so that ticks expire requests of every type but
	 * permissions, which never expire. */
	protocol_set_timeout(rt->team.proto, REQ_SHUTDOWN, 30000);
	protocol_set_timeout(rt->team.proto, REQ_PLAN_APPROVAL, 90000);
	protocol_set_timeout(rt->team.proto, REQ_PERMISSION, 0);
	protocol_listen(rt->team.proto, rt_hear, NULL);

	for (i = 0; i < RT_THREADS; i++) {
		th[i].rand = rt_seed ^ (unsigned)(i * 0x9e3779b9u);
		th[i].index = (int)i;
		ck_assert_int_eq(pthread_create(&th[i].thread, NULL, rt_run,
		    &th[i]), 0);
	}
	for (i = 0; i < RT_THREADS; i++)
		pthread_join(th[i].thread, NULL);
	if (!atomic_load(&rt->failed))
		rt_check_all();
	ck_assert_msg(!atomic_load(&rt->failed), "seed %u: %s", rt_seed,
	    rt->failure);

	printf("test_protocol_random: %u operations, %zu requests, %u full "
	    "checks; verdicts: %u decided, %u unknown, %u wrong type, %u wrong "
	    "sender, %u already decided, %u failed; ends: %u approved, %u "
	    "rejected, %u expired, %u cancelled\n", atomic_load(&rt->ops),
	    rt->nrecs, rt->checks,
	    rt->verdicts[PROTO_DECIDED], rt->verdicts[PROTO_UNKNOWN],
	    rt->verdicts[PROTO_WRONG_TYPE], rt->verdicts[PROTO_WRONG_SENDER],
	    rt->verdicts[PROTO_ALREADY_DECIDED], rt->verdicts[PROTO_FAILED],
	    rt->statuses[REQ_APPROVED],
	    rt->statuses[REQ_REJECTED], rt->statuses[REQ_EXPIRED],
	    rt->statuses[REQ_CANCELLED]);
	fflush(stdout);

	/* The run exercised what it claims to: every verdict and every
	 * end of a request happened. */
	for (s = PROTO_DECIDED; s <= PROTO_ALREADY_DECIDED; s++)
		ck_assert_msg(rt->verdicts[s] > 0, "seed %u: no verdict %d",
		    rt_seed, s);
	for (s = REQ_APPROVED; s < REQ_STATUS_COUNT; s++)
		ck_assert_msg(rt->statuses[s] > 0, "seed %u: nothing %s",
		    rt_seed, req_status_name(s));
	ck_assert_uint_gt(rt->checks, RT_THREADS * RT_OPS / RT_CHECK_EVERY /
	    2);

	pthread_rwlock_destroy(&rt->gate);
	pthread_mutex_destroy(&rt->lock);
	pthread_mutex_destroy(&rt->fail_lock);
	tu_team_close(&rt->team);
	free(rt);
	rt = NULL;
}
END_TEST

static Suite *
protocol_random_suite(void)
{
	Suite *s = suite_create("protocol_random");
	TCase *tc = tcase_create("protocol_random");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, random_interleavings_keep_every_rule);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	const char *env = getenv("HUDDLE_TEST_SEED");

	rt_seed = env != NULL && *env != '\0' ? (unsigned)strtoul(env, NULL,
	    10) : (unsigned)time(NULL) ^ (unsigned)getpid();
	printf("test_protocol_random: seed %u (HUDDLE_TEST_SEED=%u repeats "
	    "it)\n", rt_seed, rt_seed);
	fflush(stdout);
	return tu_run(protocol_random_suite());
}
