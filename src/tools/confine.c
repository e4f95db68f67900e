/*
 * A command's confinement besides Landlock (see confine.h): its JSON
 * form, which the reaper gets on its command line, and the one function
 * that applies it in the shell's process. Each step lives in a file of
 * its own (limits.c, cgroup.c, mountns.c, caps.c, sysfilter.c), which
 * reads struct confine but calls nothing here; this file only keeps
 * their order, which matters: the mounts need the capabilities that are
 * dropped next, and the seccomp filter comes last so that nothing before
 * it is refused.
 */
#include "config.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/caps.h"
#include "tools/cgroup.h"
#include "tools/confine.h"
#include "tools/landlock.h"
#include "tools/limits.h"
#include "tools/mountns.h"
#include "tools/reaper.h"
#include "tools/sysfilter.h"
#include "util/xmalloc.h"

static const char *const confine_nets[] = { "open", "proxy", "none" };

/* A list as a JSON array, or null for NULL. */
static json_t *
confine_list_json(char *const *list)
{
	json_t *a;

	if (list == NULL)
		return json_null();
	a = json_array();
	for (; *list != NULL; list++)
		json_array_append_new(a, json_string(*list));
	return a;
}

char *
confine_to_json(const struct confine *c)
{
	json_t *o;
	char *text;

	o = json_pack("{s:b, s:b, s:b, s:s, s:i, s:o, s:o, s:o, s:I, s:I, "
	    "s:I}", "landlock", c->landlock != 0, "pinned", c->pinned != 0,
	    "prebuilt", c->prebuilt != 0,
	    "net", confine_nets[c->net],
	    "proxy_port", c->proxy_port,
	    "unix_roots", confine_list_json(c->unix_roots),
	    "unix_sockets", confine_list_json(c->unix_sockets),
	    "readonly", confine_list_json(c->readonly),
	    "max_procs", (json_int_t)c->max_procs,
	    "max_memory", (json_int_t)c->max_memory,
	    "max_file_size", (json_int_t)c->max_file_size);
	if (o == NULL)
		abort();	/* only out of memory */
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (text == NULL)
		abort();
	return text;
}

/* Reads a list (an array of absolute paths, or null) into *list. */
static int
confine_list_read(json_t *v, const char *name, char ***list, char **err)
{
	size_t i, n;

	*list = NULL;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_array(v)) {
		*err = xasprintf("confine: %s is not a list", name);
		return -1;
	}
	n = json_array_size(v);
	*list = xcalloc(n + 1, sizeof **list);
	for (i = 0; i < n; i++) {
		const char *s = json_string_value(json_array_get(v, i));

		if (s == NULL || s[0] != '/') {
			*err = xasprintf("confine: %s holds something other "
			    "than an absolute path", name);
			return -1;
		}
		(*list)[i] = xstrdup(s);
	}
	return 0;
}

/* Reads a non-negative number, 0 when absent. */
static int
confine_number(json_t *o, const char *name, long long *v, char **err)
{
	json_t *n = json_object_get(o, name);

	*v = 0;
	if (n == NULL)
		return 0;
	if (!json_is_integer(n) || json_integer_value(n) < 0) {
		*err = xasprintf("confine: %s is not a number of 0 or more",
		    name);
		return -1;
	}
	*v = (long long)json_integer_value(n);
	return 0;
}

int
confine_from_json(const char *text, struct confine *c, char **err)
{
	json_error_t je;
	json_t *o;
	const char *net;
	long long port;
	size_t i;
	int rc = -1;

	memset(c, 0, sizeof *c);
	if ((o = json_loads(text, 0, &je)) == NULL || !json_is_object(o)) {
		*err = xasprintf("confine: not a JSON object: %s",
		    o == NULL ? je.text : "another value");
		json_decref(o);
		return -1;
	}
	c->landlock = json_is_true(json_object_get(o, "landlock"));
	c->pinned = json_is_true(json_object_get(o, "pinned"));
	c->prebuilt = json_is_true(json_object_get(o, "prebuilt"));
	net = json_string_value(json_object_get(o, "net"));
	for (i = 0; net != NULL && i < 3; i++)
		if (strcmp(net, confine_nets[i]) == 0)
			break;
	if (net == NULL || i == 3) {
		*err = xstrdup("confine: net is not open, proxy or none");
		goto out;
	}
	c->net = (enum confine_net)i;
	if (confine_number(o, "proxy_port", &port, err) == -1 ||
	    confine_number(o, "max_procs", &c->max_procs, err) == -1 ||
	    confine_number(o, "max_memory", &c->max_memory, err) == -1 ||
	    confine_number(o, "max_file_size", &c->max_file_size, err) == -1)
		goto out;
	if (port > 65535 || (c->net == CONFINE_NET_PROXY && port == 0)) {
		*err = xstrdup("confine: proxy_port is not a TCP port");
		goto out;
	}
	c->proxy_port = (int)port;
	if (confine_list_read(json_object_get(o, "unix_roots"), "unix_roots",
	    &c->unix_roots, err) == -1 ||
	    confine_list_read(json_object_get(o, "unix_sockets"),
	    "unix_sockets", &c->unix_sockets, err) == -1 ||
	    confine_list_read(json_object_get(o, "readonly"), "readonly",
	    &c->readonly, err) == -1)
		goto out;
	rc = 0;
out:
	json_decref(o);
	if (rc == -1)
		confine_free(c);
	return rc;
}

static void
confine_list_free(char **list)
{
	char **p;

	if (list == NULL)
		return;
	for (p = list; *p != NULL; p++)
		free(*p);
	free(list);
}

void
confine_free(struct confine *c)
{
	confine_list_free(c->unix_roots);
	confine_list_free(c->unix_sockets);
	confine_list_free(c->readonly);
	memset(c, 0, sizeof *c);
}

int
confine_apply(const struct confine *c, const struct cgroup *cg,
    int notify_sock, char **err)
{
	int own_user = 0, joined = -1;

	if (limits_apply(c, err) == -1 ||
	    (cg != NULL && cgroup_join(cg, err) == -1))
		return -1;
	/* Where the namespaces cannot be joined — a sanitizer's runtime
	 * keeps a thread of its own even here, and setns wants one; or the
	 * holder is gone — they are made here, as without a holder. */
	if (c->pinned && (joined = mountns_join(REAPER_PIN_FD, err)) == -1) {
		free(*err);
		*err = NULL;
	}
	if (joined == 0)
		own_user = geteuid() != 0;
	else if (c->readonly != NULL && c->readonly[0] != NULL) {
		if (mountns_readonly(c->readonly, err) == -1)
			return -1;
		own_user = geteuid() != 0;
	} else if (geteuid() != 0 && c->max_procs > 0)
		own_user = mountns_own_user() == 0;
	/* Without a user namespace the looser count of limits_apply
	 * stands. */
	if (own_user && limits_procs_exact(c, err) == -1)
		return -1;
	if (caps_drop_all(err) == -1)
		return -1;
	if (c->landlock && landlock_enter(REAPER_SANDBOX_FD) == -1) {
		*err = xasprintf("cannot enter the sandbox: %s",
		    strerror(errno));
		return -1;
	}
	if (sysfilter_load(c, notify_sock, err) == -1)
		return -1;
	return limits_memory(c, err);
}

int
confine_limits_hold(char **why)
{
	if (geteuid() != 0)
		return 1;
	return cgroup_usable(why);
}
