/*
 * A server's form for the person, and the person's answer made its
 * content (see elicit.h).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/elicit.h"
#include "util/xmalloc.h"

/* What a form may hold: a form is a few short questions, and all of it
 * is stored, shown and sent back. The message's bytes, the fields, a
 * name's, a title's or description's bytes, the choices of a field and
 * each choice's bytes, and the whole form's. */
#define ELICIT_MAX_MESSAGE	4096
#define ELICIT_MAX_FIELDS	64
#define ELICIT_MAX_NAME		64
#define ELICIT_MAX_ABOUT	512
#define ELICIT_MAX_OPTIONS	64
#define ELICIT_MAX_OPTION	128
#define ELICIT_MAX_FORM		(32 * 1024)

enum elicit_kind {
	ELICIT_TEXT,
	ELICIT_NUMBER,
	ELICIT_INTEGER,
	ELICIT_BOOLEAN,
	ELICIT_CHOICE,		/* one of a list */
	ELICIT_CHOICES,		/* several of a list */
	ELICIT_BAD
};

/* The list a choice is made from: "enum" strings, or the "const" of each
 * "oneOf"/"anyOf" entry (a new array). */
static json_t *
elicit_options(json_t *schema)
{
	json_t *out = json_array(), *list, *v;
	size_t i;

	if ((list = json_object_get(schema, "enum")) != NULL) {
		json_array_foreach(list, i, v)
			json_array_append(out, v);
	} else if ((list = json_object_get(schema, "oneOf")) != NULL ||
	    (list = json_object_get(schema, "anyOf")) != NULL) {
		json_array_foreach(list, i, v)
			json_array_append(out, json_object_get(v, "const"));
	}
	return out;
}

/* Whether every option is a string, and there is one at least. */
static int
elicit_options_ok(json_t *schema)
{
	json_t *o = elicit_options(schema), *v;
	size_t i;
	int ok = json_array_size(o) > 0;

	json_array_foreach(o, i, v)
		ok &= json_is_string(v);
	json_decref(o);
	return ok;
}

static enum elicit_kind
elicit_kind_of(json_t *schema)
{
	const char *type = json_string_value(json_object_get(schema, "type"));

	if (type == NULL)
		return ELICIT_BAD;
	if (strcmp(type, "string") == 0) {
		if (json_object_get(schema, "enum") == NULL &&
		    json_object_get(schema, "oneOf") == NULL)
			return ELICIT_TEXT;
		return elicit_options_ok(schema) ? ELICIT_CHOICE : ELICIT_BAD;
	}
	if (strcmp(type, "number") == 0)
		return ELICIT_NUMBER;
	if (strcmp(type, "integer") == 0)
		return ELICIT_INTEGER;
	if (strcmp(type, "boolean") == 0)
		return ELICIT_BOOLEAN;
	if (strcmp(type, "array") == 0 && elicit_options_ok(json_object_get(
	    schema, "items")))
		return ELICIT_CHOICES;
	return ELICIT_BAD;
}

static json_t *
elicit_fields(json_t *params)
{
	return json_object_get(json_object_get(params, "requestedSchema"),
	    "properties");
}

static int
elicit_required(json_t *params, const char *name)
{
	json_t *req = json_object_get(json_object_get(params,
	    "requestedSchema"), "required"), *v;
	size_t i;

	json_array_foreach(req, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), name) == 0)
			return 1;
	return 0;
}

/* Whether field `name` (schema f) is within the bounds of a form: -1
 * with *err when not. */
static int
elicit_too_big(const char *name, json_t *f, char **err)
{
	static const char *const words[] = { "title", "description", NULL };
	json_t *o = elicit_options(json_object_get(f, "type") != NULL &&
	    json_object_get(f, "items") != NULL ? json_object_get(f,
	    "items") : f), *v;
	size_t i;
	int ok = strlen(name) <= ELICIT_MAX_NAME &&
	    json_array_size(o) <= ELICIT_MAX_OPTIONS;

	for (i = 0; words[i] != NULL; i++) {
		v = json_object_get(f, words[i]);
		ok &= !json_is_string(v) || strlen(json_string_value(v)) <=
		    ELICIT_MAX_ABOUT;
	}
	json_array_foreach(o, i, v)
		ok &= !json_is_string(v) || strlen(json_string_value(v)) <=
		    ELICIT_MAX_OPTION;
	json_decref(o);
	if (!ok)
		*err = xasprintf("its field \"%.40s\" is too large (a name "
		    "of %d bytes, titles of %d, %d choices of %d at most)",
		    name, ELICIT_MAX_NAME, ELICIT_MAX_ABOUT,
		    ELICIT_MAX_OPTIONS, ELICIT_MAX_OPTION);
	return ok ? 0 : -1;
}

int
mcp_elicit_check(json_t *params, char **err)
{
	const char *mode = json_string_value(json_object_get(params, "mode"));
	json_t *schema = json_object_get(params, "requestedSchema"), *f;
	const char *name;
	char *text;
	int big;

	if (mode != NULL && strcmp(mode, "form") != 0) {
		*err = xasprintf("it asks in \"%.20s\" mode; huddle shows "
		    "forms only", mode);
		return -1;
	}
	if (!json_is_string(json_object_get(params, "message")) ||
	    !json_is_object(schema) || !json_is_object(json_object_get(schema,
	    "properties"))) {
		*err = xstrdup("its question has no message or no form");
		return -1;
	}
	if (json_object_size(elicit_fields(params)) > ELICIT_MAX_FIELDS) {
		*err = xasprintf("its form has more than %d fields",
		    ELICIT_MAX_FIELDS);
		return -1;
	}
	if (strlen(json_string_value(json_object_get(params, "message"))) >
	    ELICIT_MAX_MESSAGE) {
		*err = xasprintf("its message is longer than %d bytes",
		    ELICIT_MAX_MESSAGE);
		return -1;
	}
	json_object_foreach(elicit_fields(params), name, f) {
		if (elicit_kind_of(f) == ELICIT_BAD) {
			*err = xasprintf("its field \"%.40s\" is not of a kind "
			    "a form may have", name);
			return -1;
		}
		if (elicit_too_big(name, f, err) == -1)
			return -1;
	}
	text = json_dumps(schema, JSON_COMPACT);
	big = text == NULL || strlen(text) > ELICIT_MAX_FORM;
	free(text);
	if (big) {
		*err = xasprintf("its form is larger than %d bytes",
		    ELICIT_MAX_FORM);
		return -1;
	}
	return 0;
}

/* The options of schema joined with ", " (malloc'd). */
static char *
elicit_options_text(json_t *schema)
{
	json_t *o = elicit_options(schema), *v;
	char *out = NULL;
	size_t len = 0, cap = 0, i;

	json_array_foreach(o, i, v) {
		if (i > 0)
			out = xappend(out, &len, &cap, ", ", 2);
		out = xappend(out, &len, &cap, json_string_value(v),
		    strlen(json_string_value(v)));
	}
	json_decref(o);
	return out != NULL ? out : xstrdup("");
}

/* What a field is, in words (malloc'd). */
static char *
elicit_kind_text(json_t *f)
{
	char *opts = NULL, *out;

	switch (elicit_kind_of(f)) {
	case ELICIT_NUMBER:
		return xstrdup("a number");
	case ELICIT_INTEGER:
		return xstrdup("a whole number");
	case ELICIT_BOOLEAN:
		return xstrdup("true or false");
	case ELICIT_CHOICE:
		opts = elicit_options_text(f);
		out = xasprintf("one of %s", opts);
		break;
	case ELICIT_CHOICES:
		opts = elicit_options_text(json_object_get(f, "items"));
		out = xasprintf("any of %s, separated by ','", opts);
		break;
	default:
		return xstrdup("text");
	}
	free(opts);
	return out;
}

char *
mcp_elicit_form(json_t *params)
{
	const char *msg = json_string_value(json_object_get(params,
	    "message")), *name, *about;
	char *out = NULL, *line, *kind, *dflt;
	size_t len = 0, cap = 0;
	json_t *f, *d;

	line = xasprintf("%s\n", msg != NULL ? msg : "");
	out = xappend(out, &len, &cap, line, strlen(line));
	free(line);
	json_object_foreach(elicit_fields(params), name, f) {
		about = json_string_value(json_object_get(f, "title"));
		if (about == NULL)
			about = json_string_value(json_object_get(f,
			    "description"));
		kind = elicit_kind_text(f);
		d = json_object_get(f, "default");
		dflt = d != NULL ? json_dumps(d, JSON_ENCODE_ANY |
		    JSON_COMPACT) : NULL;
		line = xasprintf("%s (%s, %s%s%s)%s%s\n", name, kind,
		    elicit_required(params, name) ? "required" : "optional",
		    dflt != NULL ? "; default " : "", dflt != NULL ? dflt : "",
		    about != NULL ? ": " : "", about != NULL ? about : "");
		out = xappend(out, &len, &cap, line, strlen(line));
		free(line);
		free(kind);
		free(dflt);
	}
	return out;
}

/* s without blanks at either end (malloc'd). */
static char *
elicit_trim(const char *s, size_t len)
{
	while (len > 0 && strchr(" \t\r\n", *s) != NULL) {
		s++;
		len--;
	}
	while (len > 0 && strchr(" \t\r\n", s[len - 1]) != NULL)
		len--;
	return xasprintf("%.*s", (int)len, s);
}

/* Whether v is one of schema's options. */
static int
elicit_is_option(json_t *schema, json_t *v)
{
	json_t *o = elicit_options(schema), *e;
	size_t i;
	int found = 0;

	json_array_foreach(o, i, e)
		found |= json_equal(e, v);
	json_decref(o);
	return found;
}

/* The value typed text gives field f of kind k (a new reference), or
 * NULL. */
static json_t *
elicit_parse_value(json_t *f, enum elicit_kind k, const char *text)
{
	json_t *out;
	char *end, *part;
	const char *p;
	double d;
	long long n;

	switch (k) {
	case ELICIT_NUMBER:
		errno = 0;
		d = strtod(text, &end);
		return *text != '\0' && *end == '\0' && errno == 0 &&
		    isfinite(d) ? json_real(d) : NULL;
	case ELICIT_INTEGER:
		errno = 0;
		n = strtoll(text, &end, 10);
		return *text != '\0' && *end == '\0' && errno == 0 ?
		    json_integer(n) : NULL;
	case ELICIT_BOOLEAN:
		if (strcmp(text, "true") == 0 || strcmp(text, "yes") == 0)
			return json_true();
		if (strcmp(text, "false") == 0 || strcmp(text, "no") == 0)
			return json_false();
		return NULL;
	case ELICIT_CHOICES:
		out = json_array();
		for (p = text; *p != '\0'; p += *p == ',') {
			size_t l = strcspn(p, ",");

			part = elicit_trim(p, l);
			if (*part != '\0')
				json_array_append_new(out, json_string(part));
			free(part);
			p += l;
		}
		return out;
	default:
		return json_string(text);
	}
}

/* Reads "name=value" pairs into a new object of typed values, or NULL
 * with *err. */
static json_t *
elicit_read_pairs(json_t *params, const char *answer, char **err)
{
	json_t *out = json_object(), *f, *v;
	const char *p = answer;
	char *pair, *name, *value, *eq;
	size_t l;

	while (*p != '\0') {
		l = strcspn(p, ";\n");
		pair = elicit_trim(p, l);
		p += l + (p[l] != '\0');
		if (*pair == '\0') {
			free(pair);
			continue;
		}
		if ((eq = strchr(pair, '=')) == NULL) {
			*err = xasprintf("\"%.60s\" is not name=value", pair);
			free(pair);
			json_decref(out);
			return NULL;
		}
		name = elicit_trim(pair, (size_t)(eq - pair));
		value = elicit_trim(eq + 1, strlen(eq + 1));
		f = json_object_get(elicit_fields(params), name);
		v = f != NULL ? elicit_parse_value(f, elicit_kind_of(f),
		    value) : NULL;
		if (f == NULL)
			*err = xasprintf("the form has no field \"%.40s\"",
			    name);
		else if (v == NULL) {
			char *kind = elicit_kind_text(f);

			*err = xasprintf("%.40s: \"%.60s\" is not %s", name,
			    value, kind);
			free(kind);
		}
		if (v != NULL)
			json_object_set_new(out, name, v);
		free(name);
		free(value);
		free(pair);
		if (v == NULL) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

/* The number of characters of UTF-8 text s. */
static size_t
elicit_chars(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* Whether v fits field f: its type, its options, its bounds. Returns 0,
 * or -1 with *err. */
static int
elicit_fits(const char *name, json_t *f, json_t *v, char **err)
{
	enum elicit_kind k = elicit_kind_of(f);
	json_t *lo, *hi, *e;
	double x;
	size_t i, n;
	int ok;

	switch (k) {
	case ELICIT_TEXT:
		ok = json_is_string(v);
		n = ok ? elicit_chars(json_string_value(v)) : 0;
		lo = json_object_get(f, "minLength");
		hi = json_object_get(f, "maxLength");
		if (ok && ((json_is_integer(lo) && (json_int_t)n <
		    json_integer_value(lo)) || (json_is_integer(hi) &&
		    (json_int_t)n > json_integer_value(hi)))) {
			*err = xasprintf("%.40s: %zu characters is too %s",
			    name, n, json_is_integer(lo) && (json_int_t)n <
			    json_integer_value(lo) ? "few" : "many");
			return -1;
		}
		break;
	case ELICIT_NUMBER:
	case ELICIT_INTEGER:
		ok = k == ELICIT_NUMBER ? json_is_number(v) :
		    json_is_integer(v) || (json_is_real(v) &&
		    json_real_value(v) == floor(json_real_value(v)));
		x = json_number_value(v);
		lo = json_object_get(f, "minimum");
		hi = json_object_get(f, "maximum");
		if (ok && ((json_is_number(lo) && x < json_number_value(lo)) ||
		    (json_is_number(hi) && x > json_number_value(hi)))) {
			*err = xasprintf("%.40s: %g is out of its range", name,
			    x);
			return -1;
		}
		break;
	case ELICIT_BOOLEAN:
		ok = json_is_boolean(v);
		break;
	case ELICIT_CHOICE:
		ok = elicit_is_option(f, v);
		break;
	case ELICIT_CHOICES:
		ok = json_is_array(v);
		json_array_foreach(v, i, e)
			ok &= elicit_is_option(json_object_get(f, "items"), e);
		lo = json_object_get(f, "minItems");
		hi = json_object_get(f, "maxItems");
		n = json_array_size(v);
		if (ok && ((json_is_integer(lo) && (json_int_t)n <
		    json_integer_value(lo)) || (json_is_integer(hi) &&
		    (json_int_t)n > json_integer_value(hi)))) {
			*err = xasprintf("%.40s: %zu choices is too %s", name,
			    n, json_is_integer(lo) && (json_int_t)n <
			    json_integer_value(lo) ? "few" : "many");
			return -1;
		}
		break;
	default:
		ok = 0;
	}
	if (!ok) {
		char *kind = elicit_kind_text(f);

		*err = xasprintf("%.40s must be %s", name, kind);
		free(kind);
		return -1;
	}
	return 0;
}

json_t *
mcp_elicit_answer(json_t *params, const char *answer, char **err)
{
	json_t *content, *f, *v;
	const char *name;
	char *text = elicit_trim(answer != NULL ? answer : "",
	    answer != NULL ? strlen(answer) : 0);

	if (mcp_elicit_check(params, err) == -1) {
		free(text);
		return NULL;
	}
	if (text[0] == '{') {
		json_error_t je;

		content = json_loads(text, 0, &je);
		if (!json_is_object(content)) {
			*err = xasprintf("the answer is not a JSON object: "
			    "%s", je.text);
			json_decref(content);
			free(text);
			return NULL;
		}
	} else if ((content = elicit_read_pairs(params, text, err)) == NULL) {
		free(text);
		return NULL;
	}
	free(text);
	json_object_foreach(content, name, v) {
		if (json_object_get(elicit_fields(params), name) == NULL) {
			*err = xasprintf("the form has no field \"%.40s\"",
			    name);
			json_decref(content);
			return NULL;
		}
	}
	/* What the person left out takes its default. */
	json_object_foreach(elicit_fields(params), name, f) {
		if (json_object_get(content, name) == NULL &&
		    json_object_get(f, "default") != NULL)
			json_object_set(content, name, json_object_get(f,
			    "default"));
		v = json_object_get(content, name);
		if (v == NULL && elicit_required(params, name)) {
			*err = xasprintf("%.40s is required", name);
			json_decref(content);
			return NULL;
		}
		if (v != NULL && elicit_fits(name, f, v, err) == -1) {
			json_decref(content);
			return NULL;
		}
	}
	return content;
}
