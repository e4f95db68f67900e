/*
 * The network gate (see netgate.h).
 *
 * The proxy asks on a connection's thread; the gate answers from what it
 * knows (the team's hosts, the command's own answers) or opens a
 * permission request and tells the proxy to wait. The decision comes back
 * through the protocol's listener, on the thread that decided, and the
 * gate hands it to every connection waiting on that request. Its lock is
 * never held while calling the protocol engine; it is held while calling
 * proxy_answer, which takes only the proxy's own lock (the proxy never
 * calls the gate with that lock held).
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "agent/netgate.h"
#include "core/message.h"
#include "core/roster.h"
#include "tools/proxy.h"
#include "util/log.h"
#include "util/xmalloc.h"

#define NETGATE_TARGET_MAX	272	/* "[" host "]:" port */
#define NETGATE_ENV_COUNT	10

/* A list of host:port strings. */
struct netgate_set {
	char		**items;
	size_t		 n, cap;
};

struct netgate_pass {
	char			*agent;
	char			*label;		/* what it is for, or NULL */
	char			 token[33];
	char			*env[NETGATE_ENV_COUNT + 1];
	struct netgate_set	 allowed;	/* once: for this command */
	struct netgate_set	 denied;
	struct netgate_pass	*next;
};

/* A request the person has not answered, and who waits on it. */
struct netgate_ask {
	char			 id[PROTO_ID_SIZE];	/* "" until made */
	struct netgate_pass	*pass;
	char			 target[NETGATE_TARGET_MAX];
	uint64_t		 serial;	/* unique in the gate */
	uint64_t		*tickets;
	size_t			 n, cap;
	struct netgate_ask	*next;
};

/* A request the person's answer to another made moot: its host was
 * allowed for the whole team while it waited. */
struct netgate_moot {
	char			 id[PROTO_ID_SIZE];
	char			 by[PROTO_ID_SIZE];	/* the answer */
	char			 target[NETGATE_TARGET_MAX];
};

struct netgate {
	struct protocol		*proto;
	struct proxy		*proxy;
	pthread_mutex_t		 lock;
	struct netgate_pass	*passes;
	struct netgate_ask	*asks;
	struct netgate_set	 team;
	struct netgate_set	 team_by;	/* "target id": which request
						 * allowed it for the team */
	uint64_t		 serials;
	struct netgate_moot	*moot;		/* to withdraw */
	size_t			 nmoot, capmoot;
};

/* --- sets ----------------------------------------------------------------- */

static int
netgate_set_has(const struct netgate_set *s, const char *item)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (strcmp(s->items[i], item) == 0)
			return 1;
	}
	return 0;
}

static void
netgate_set_add(struct netgate_set *s, const char *item)
{
	if (netgate_set_has(s, item))
		return;
	s->items = xgrow(s->items, &s->cap, s->n + 1, sizeof *s->items);
	s->items[s->n++] = xstrdup(item);
}

static void
netgate_set_clear(struct netgate_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->items[i]);
	free(s->items);
	memset(s, 0, sizeof *s);
}

/* Allows target for the whole team, by request `by`. Under the lock. */
static void
netgate_team_add(struct netgate *g, const char *target, const char *by)
{
	char *item;

	if (netgate_set_has(&g->team, target))
		return;
	netgate_set_add(&g->team, target);
	item = xasprintf("%s %s", target, by);
	netgate_set_add(&g->team_by, item);
	free(item);
}

/* The request that allowed target for the whole team (a copy of its id
 * into by), or "" . Under the lock. */
static void
netgate_team_by(struct netgate *g, const char *target,
    char by[PROTO_ID_SIZE])
{
	size_t i, n = strlen(target);

	*by = '\0';
	for (i = 0; i < g->team_by.n; i++) {
		if (strncmp(g->team_by.items[i], target, n) == 0 &&
		    g->team_by.items[i][n] == ' ')
			snprintf(by, PROTO_ID_SIZE, "%s",
			    g->team_by.items[i] + n + 1);
	}
}

/* --- the person's answers ------------------------------------------------- */

int
netgate_target(const char *body, char *out, size_t size)
{
	size_t n, plen = strlen(NETGATE_PREFIX);

	if (body == NULL || strncmp(body, NETGATE_PREFIX, plen) != 0)
		return 0;
	body += plen;
	n = strcspn(body, " \n");
	if (n == 0 || n >= size)
		return 0;
	memcpy(out, body, n);
	out[n] = '\0';
	return 1;
}

/* Whether the person's feedback says "for the whole team". */
static int
netgate_for_team(const char *response)
{
	size_t n;

	if (response == NULL)
		return 0;
	while (*response == ' ')
		response++;
	n = strlen(NETGATE_TEAM);
	return strncasecmp(response, NETGATE_TEAM, n) == 0 &&
	    (response[n] == '\0' || response[n] == ' ' ||
	    response[n] == ':' || response[n] == ',');
}

/* Unlinks the ask of request id, or returns NULL. Under the lock. */
static struct netgate_ask *
netgate_take_ask(struct netgate *g, const char *id)
{
	struct netgate_ask **pp, *k;

	for (pp = &g->asks; (k = *pp) != NULL; pp = &k->next) {
		if (*k->id != '\0' && strcmp(k->id, id) == 0) {
			*pp = k->next;
			return k;
		}
	}
	return NULL;
}

/* Unlinks the ask numbered serial, or returns NULL. Under the lock. */
static struct netgate_ask *
netgate_take_serial(struct netgate *g, uint64_t serial)
{
	struct netgate_ask **pp, *k;

	for (pp = &g->asks; (k = *pp) != NULL; pp = &k->next) {
		if (k->serial == serial) {
			*pp = k->next;
			return k;
		}
	}
	return NULL;
}

/* Answers every connection waiting on ask k and frees it. Under the
 * lock. */
static void
netgate_answer(struct netgate *g, struct netgate_ask *k, int allow,
    const char *reason)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		proxy_answer(g->proxy, k->tickets[i], allow, reason);
	free(k->tickets);
	free(k);
}

/* Why a request allowed for the whole team meanwhile is withdrawn
 * (malloc'd); by is the answer that allowed it, when known. */
static char *
netgate_moot_reason(const char *target, const char *by)
{
	return xasprintf("%s was allowed for the whole team%s%s%s while this "
	    "waited", target, by != NULL ? " (" : "", by != NULL ? by : "",
	    by != NULL ? ")" : "");
}

/* The host target was just allowed for the whole team by request `by`:
 * every other connection waiting to go there, whichever command's, goes
 * on now, and its request is noted to be withdrawn (netgate_withdraw_moot;
 * the protocol's listener, where this runs, may not decide requests).
 * An ask whose request is still being made is settled by netgate_decide.
 * Under the lock. */
static void
netgate_cover(struct netgate *g, const char *target, const char *by)
{
	struct netgate_ask **kp, *k;
	struct netgate_moot *m;

	for (kp = &g->asks; (k = *kp) != NULL;) {
		if (strcmp(k->target, target) != 0) {
			kp = &k->next;
			continue;
		}
		*kp = k->next;
		if (*k->id != '\0') {
			g->moot = xgrow(g->moot, &g->capmoot, g->nmoot + 1,
			    sizeof *g->moot);
			m = &g->moot[g->nmoot++];
			memcpy(m->id, k->id, PROTO_ID_SIZE);
			memcpy(m->by, by, PROTO_ID_SIZE);
			snprintf(m->target, sizeof m->target, "%s", target);
		}
		netgate_answer(g, k, 1, NULL);
	}
}

/* A decided network request: who may go where now, and the connections
 * that waited on it go on or are refused. */
static void
netgate_settle(struct netgate *g, const struct request *r)
{
	struct netgate_ask *k;
	char *reason = NULL;
	int allow;

	if (r->type != REQ_PERMISSION || r->status == REQ_PENDING)
		return;
	pthread_mutex_lock(&g->lock);
	if ((k = netgate_take_ask(g, r->id)) == NULL) {
		pthread_mutex_unlock(&g->lock);
		return;
	}
	allow = r->status == REQ_APPROVED;
	if (allow && netgate_for_team(r->response)) {
		netgate_team_add(g, k->target, r->id);
		/* The others asked for the same host need no answer. */
		netgate_cover(g, k->target, r->id);
	} else if (allow)
		netgate_set_add(&k->pass->allowed, k->target);
	else {
		/* The command's retries are refused without asking again. */
		netgate_set_add(&k->pass->denied, k->target);
		if (r->status == REQ_REJECTED)
			reason = xasprintf("network to %s denied by the "
			    "person%s%s", k->target, r->response &&
			    *r->response ? ": " : "", r->response ?
			    r->response : "");
		else
			reason = xasprintf("network to %s not allowed: the "
			    "request %s%s%s", k->target,
			    req_status_name(r->status), r->response &&
			    *r->response ? ": " : "", r->response ?
			    r->response : "");
	}
	netgate_answer(g, k, allow, reason);
	pthread_mutex_unlock(&g->lock);
	free(reason);
}

static void
netgate_on_request(void *ud, const void *what)
{
	netgate_settle(ud, what);
}

/* --- the proxy's question ---------------------------------------------- */

/* The pass whose credentials these are, or NULL. Under the lock. */
static struct netgate_pass *
netgate_find_pass(struct netgate *g, const char *user, const char *password)
{
	struct netgate_pass *p;
	unsigned char diff;
	size_t i;

	if (user == NULL || password == NULL || strlen(password) != 32)
		return NULL;
	for (p = g->passes; p != NULL; p = p->next) {
		/* The token is compared in constant time. */
		for (diff = 0, i = 0; i < 32; i++)
			diff |= (unsigned char)(p->token[i] ^ password[i]);
		if (diff == 0 && strcmp(p->agent, user) == 0)
			return p;
	}
	return NULL;
}

/* Whether these are the credentials of a command that runs now. */
static int
netgate_check(void *ud, const char *user, const char *password)
{
	struct netgate *g = ud;
	int ok;

	pthread_mutex_lock(&g->lock);
	ok = netgate_find_pass(g, user, password) != NULL;
	pthread_mutex_unlock(&g->lock);
	return ok;
}

/* What the person reads of where a connection goes: the address it
 * will reach when the name is not that address, and "this machine" when
 * it leads there (malloc'd). */
static char *
netgate_where(const struct proxy_target *t)
{
	int same = t->address == NULL || strcmp(t->address, t->host) == 0;

	return xasprintf("%s%s%s%s%s", same ? "" : " → ", same ? "" :
	    t->address, t->place ? " (" : "", t->place ? t->place : "",
	    t->place ? ")" : "");
}

static enum proxy_verdict
netgate_decide(void *ud, const struct proxy_target *t, char **reason)
{
	struct netgate *g = ud;
	struct netgate_pass *p;
	struct netgate_ask *k;
	struct request *r;
	char target[NETGATE_TARGET_MAX], id[PROTO_ID_SIZE], *agent, *body;
	char by[PROTO_ID_SIZE], *where, *label, *why;
	char *err = NULL;
	uint64_t serial;
	int rc, moot;

	snprintf(target, sizeof target, strchr(t->host, ':') ? "[%s]:%d" :
	    "%s:%d", t->host, t->port);
	pthread_mutex_lock(&g->lock);
	if ((p = netgate_find_pass(g, t->user, t->password)) == NULL) {
		pthread_mutex_unlock(&g->lock);
		*reason = xstrdup("only the commands huddle runs, while they "
		    "run, may use its proxy");
		return PROXY_AUTH;
	}
	if (netgate_set_has(&g->team, target) ||
	    netgate_set_has(&p->allowed, target)) {
		pthread_mutex_unlock(&g->lock);
		return PROXY_ALLOW;
	}
	if (netgate_set_has(&p->denied, target)) {
		pthread_mutex_unlock(&g->lock);
		*reason = xasprintf("network to %s was refused for this "
		    "command", target);
		return PROXY_DENY;
	}
	/* One request per command and host: later connections wait on the
	 * one asked already. */
	for (k = g->asks; k != NULL; k = k->next) {
		if (k->pass == p && strcmp(k->target, target) == 0)
			break;
	}
	if (k == NULL) {
		k = xcalloc(1, sizeof *k);
		k->pass = p;
		k->serial = ++g->serials;
		snprintf(k->target, sizeof k->target, "%s", target);
		k->next = g->asks;
		g->asks = k;
	}
	k->tickets = xgrow(k->tickets, &k->cap, k->n + 1, sizeof *k->tickets);
	k->tickets[k->n++] = t->ticket;
	if (k->n > 1) {
		pthread_mutex_unlock(&g->lock);
		return PROXY_ASK;
	}
	serial = k->serial;
	agent = xstrdup(p->agent);
	label = p->label != NULL ? xasprintf(", %s", p->label) : NULL;
	pthread_mutex_unlock(&g->lock);

	/* Unlocked: the command may end meanwhile, and its ask with it
	 * (netgate_pass_end), so k is looked up again by its number. */
	where = netgate_where(t);
	body = xasprintf(NETGATE_PREFIX "%s%s, %s%s — approve to allow it for "
	    "this command, approve with feedback \"" NETGATE_TEAM "\" to "
	    "allow it for the whole team, reject to deny it", target, where,
	    t->method, label != NULL ? label : "");
	free(where);
	free(label);
	rc = protocol_request(g->proto, REQ_PERMISSION, agent, ROSTER_LEAD,
	    body, id, &err);
	free(body);
	free(agent);
	pthread_mutex_lock(&g->lock);
	if (rc == -1) {
		/* Every connection that waits on it is refused. */
		body = xasprintf("could not ask the person: %s", err);
		free(err);
		if ((k = netgate_take_serial(g, serial)) != NULL)
			netgate_answer(g, k, 0, body);
		pthread_mutex_unlock(&g->lock);
		free(body);
		return PROXY_ASK;
	}
	for (k = g->asks; k != NULL && k->serial != serial; k = k->next)
		;
	if (k != NULL)
		memcpy(k->id, id, PROTO_ID_SIZE);
	moot = k == NULL && netgate_set_has(&g->team, target);
	if (moot)
		netgate_team_by(g, target, by);
	pthread_mutex_unlock(&g->lock);
	if (k == NULL) {
		/* The command ended while it was asked, or the host was
		 * allowed for the whole team meanwhile (netgate_cover
		 * answered its connections, before this noted its id). */
		why = moot ? netgate_moot_reason(target, *by != '\0' ? by :
		    NULL) : xstrdup("the command ended before the decision");
		if (protocol_cancel(g->proto, id, why, &err) == -1)
			free(err);
		free(why);
		return PROXY_ASK;
	}
	/* Decided before the id was noted: the listener found no ask. */
	if ((r = protocol_get(g->proto, id)) != NULL) {
		netgate_settle(g, r);
		request_free(r);
	}
	return PROXY_ASK;
}

/* --- opening, passes, closing ------------------------------------------- */

/* Learns the hosts the person allowed for the team before, and
 * withdraws the network requests of huddle's own (its MCP servers') a
 * previous run left waiting: nothing waits on them any more, and no
 * pass exists yet that could have asked in this run. An agent's own are
 * withdrawn when it starts (loop.c). */
static void
netgate_recall(struct netgate *g)
{
	struct request *list;
	char target[NETGATE_TARGET_MAX], *err = NULL;
	size_t n, i;

	n = protocol_list(g->proto, (size_t)1 << 20, &list);
	for (i = 0; i < n; i++) {
		if (list[i].type == REQ_PERMISSION &&
		    list[i].status == REQ_APPROVED &&
		    netgate_for_team(list[i].response) &&
		    netgate_target(list[i].body, target, sizeof target))
			netgate_team_add(g, target, list[i].id);
		if (list[i].type == REQ_PERMISSION &&
		    list[i].status == REQ_PENDING &&
		    strcmp(list[i].from, MSG_SYSTEM) == 0 &&
		    netgate_target(list[i].body, target, sizeof target) &&
		    protocol_cancel(g->proto, list[i].id, "huddle restarted "
		    "while the MCP server waited", &err) == -1) {
			log_printf("netgate: %s", err);
			free(err);
			err = NULL;
		}
	}
	request_free_array(list, n);
}

struct netgate *
netgate_open(struct protocol *proto, const char *const *local,
    size_t nlocal, char **err)
{
	struct netgate *g = xcalloc(1, sizeof *g);
	struct proxy_options po;

	g->proto = proto;
	pthread_mutex_init(&g->lock, NULL);
	netgate_recall(g);
	memset(&po, 0, sizeof po);
	po.decide = netgate_decide;
	po.check = netgate_check;
	po.ud = g;
	po.local = local;
	po.nlocal = nlocal;
	if ((g->proxy = proxy_open(&po, err)) == NULL) {
		netgate_set_clear(&g->team);
		netgate_set_clear(&g->team_by);
		pthread_mutex_destroy(&g->lock);
		free(g);
		return NULL;
	}
	protocol_listen(proto, netgate_on_request, g);
	return g;
}

int
netgate_port(const struct netgate *g)
{
	return g != NULL ? proxy_port(g->proxy) : 0;
}

void
netgate_withdraw_moot(struct netgate *g)
{
	struct netgate_moot *list;
	size_t n, i;
	char *why, *err = NULL;

	if (g == NULL)
		return;
	pthread_mutex_lock(&g->lock);
	list = g->moot;
	n = g->nmoot;
	g->moot = NULL;
	g->nmoot = g->capmoot = 0;
	pthread_mutex_unlock(&g->lock);
	for (i = 0; i < n; i++) {
		why = netgate_moot_reason(list[i].target, list[i].by);
		/* One the person decided meanwhile stays as decided. */
		if (protocol_cancel(g->proto, list[i].id, why, &err) == -1) {
			free(err);
			err = NULL;
		}
		free(why);
	}
	free(list);
}

size_t
netgate_team_allowed(struct netgate *g)
{
	size_t n;

	pthread_mutex_lock(&g->lock);
	n = g->team.n;
	pthread_mutex_unlock(&g->lock);
	return n;
}

struct netgate_pass *
netgate_pass_new(struct netgate *g, const char *agent)
{
	static const char *const names[] = { "HTTP_PROXY", "HTTPS_PROXY",
	    "http_proxy", "https_proxy", "npm_config_proxy",
	    "npm_config_https_proxy", "PIP_PROXY" };
	struct netgate_pass *p;
	unsigned char raw[16];
	size_t i, k = 0;
	char *url;

	if (g == NULL)
		return NULL;
	p = xcalloc(1, sizeof *p);
	p->agent = xstrdup(agent);
	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
		/* Without randomness no pass is worth anything. */
		log_printf("netgate: getrandom failed");
		abort();
	}
	for (i = 0; i < sizeof raw; i++)
		snprintf(p->token + 2 * i, 3, "%02x", raw[i]);
	url = xasprintf("http://%s:%s@127.0.0.1:%d", agent, p->token,
	    proxy_port(g->proxy));
	for (i = 0; i < sizeof names / sizeof *names; i++)
		p->env[k++] = xasprintf("%s=%s", names[i], url);
	/* Everything goes through the proxy, the loopback too. */
	p->env[k++] = xstrdup("NO_PROXY=");
	p->env[k++] = xstrdup("no_proxy=");
	p->env[k] = NULL;
	free(url);
	pthread_mutex_lock(&g->lock);
	p->next = g->passes;
	g->passes = p;
	pthread_mutex_unlock(&g->lock);
	return p;
}

void
netgate_pass_label(struct netgate *g, struct netgate_pass *p,
    const char *label)
{
	if (g == NULL || p == NULL)
		return;
	pthread_mutex_lock(&g->lock);
	free(p->label);
	p->label = xstrdup(label);
	pthread_mutex_unlock(&g->lock);
}

int
netgate_pass_asking(struct netgate *g, const struct netgate_pass *p)
{
	struct netgate_ask *k;
	int asking = 0;

	if (g == NULL || p == NULL)
		return 0;
	pthread_mutex_lock(&g->lock);
	for (k = g->asks; k != NULL && !asking; k = k->next)
		asking = k->pass == p;
	pthread_mutex_unlock(&g->lock);
	return asking;
}

const char *const *
netgate_pass_env(const struct netgate_pass *p)
{
	return p != NULL ? (const char *const *)p->env : NULL;
}

/* Frees pass p, off every list. */
static void
netgate_pass_free(struct netgate_pass *p)
{
	size_t i;

	for (i = 0; p->env[i] != NULL; i++)
		free(p->env[i]);
	netgate_set_clear(&p->allowed);
	netgate_set_clear(&p->denied);
	free(p->agent);
	free(p->label);
	free(p);
}

void
netgate_pass_end(struct netgate *g, struct netgate_pass *p)
{
	struct netgate_pass **pp;
	struct netgate_ask **kp, *k;
	char (*ids)[PROTO_ID_SIZE] = NULL;
	size_t nids = 0, capids = 0, i;
	char *err = NULL;

	if (g == NULL || p == NULL)
		return;
	pthread_mutex_lock(&g->lock);
	for (pp = &g->passes; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	for (kp = &g->asks; (k = *kp) != NULL;) {
		if (k->pass != p) {
			kp = &k->next;
			continue;
		}
		*kp = k->next;
		if (*k->id != '\0') {
			ids = xgrow(ids, &capids, nids + 1, sizeof *ids);
			memcpy(ids[nids++], k->id, PROTO_ID_SIZE);
		}
		netgate_answer(g, k, 0, "the command ended");
	}
	pthread_mutex_unlock(&g->lock);
	/* Nobody waits for these answers any more. */
	for (i = 0; i < nids; i++) {
		if (protocol_cancel(g->proto, ids[i], "the command ended "
		    "before the decision", &err) == -1) {
			free(err);
			err = NULL;
		}
	}
	free(ids);
	netgate_pass_free(p);
}

void
netgate_close(struct netgate *g)
{
	struct netgate_pass *p, *pn;
	struct netgate_ask *k, *kn;

	if (g == NULL)
		return;
	/* First the proxy: no connection asks the gate after this. */
	proxy_close(g->proxy);
	for (k = g->asks; k != NULL; k = kn) {
		kn = k->next;
		free(k->tickets);
		free(k);
	}
	for (p = g->passes; p != NULL; p = pn) {
		pn = p->next;
		netgate_pass_free(p);
	}
	netgate_set_clear(&g->team);
	netgate_set_clear(&g->team_by);
	free(g->moot);
	pthread_mutex_destroy(&g->lock);
	free(g);
}
