/*
 * A command's confinement besides Landlock (see confine.h): its JSON
 * form, which the reaper gets on its command line, and whether its
 * limits can hold. The files that apply each part (limits.c, cgroup.c,
 * mountns.c, caps.c, sysfilter.c) read struct confine; the reaper calls
 * them in the shell's process, in their order (reaper_apply).
 */
#include "config.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/cgroup.h"
#include "tools/confine.h"
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
confine_limits_hold(char **why)
{
	if (geteuid() != 0)
		return 1;
	return cgroup_usable(why);
}
