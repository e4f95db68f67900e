/*
 * The diff view (see diffview.h).
 */
#include "config.h"

#include <curses.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/diffview.h"
#include "ui/draw.h"
#include "ui/text.h"
#include "util/xmalloc.h"

void
diffview_free(struct diffview *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->lines[i]);
	free(d->lines);
	free(d->roles);
	free(d->title);
	memset(d, 0, sizeof *d);
}

/* Adds one line (len bytes of s), tabs as spaces, cleaned. */
static void
diffview_add(struct diffview *d, enum color_role role, const char *s,
    size_t len)
{
	char *plain = NULL;
	size_t plen = 0, pcap = 0, i, col = 0;

	plain = xappend(plain, &plen, &pcap, "", 0);
	for (i = 0; i < len; i++) {
		if (s[i] == '\t') {
			do
				plain = xappend(plain, &plen, &pcap, " ", 1);
			while (++col % 8 != 0);
			continue;
		}
		plain = xappend(plain, &plen, &pcap, s + i, 1);
		col++;
	}
	d->lines = xgrow(d->lines, &d->cap, d->n + 1, sizeof *d->lines);
	d->roles = xgrow(d->roles, &d->rcap, d->n + 1, sizeof *d->roles);
	d->lines[d->n] = text_sanitize(plain, plen);
	d->roles[d->n++] = role;
	free(plain);
}

/* The colour of a line of the patch. */
static enum color_role
diffview_role(const char *line)
{
	if (strncmp(line, "diff ", 5) == 0 || strncmp(line, "+++", 3) == 0 ||
	    strncmp(line, "---", 3) == 0 || strncmp(line, "index ", 6) == 0 ||
	    strncmp(line, "new file", 8) == 0 ||
	    strncmp(line, "deleted file", 12) == 0)
		return ROLE_TABLE_HEADER;
	if (strncmp(line, "@@", 2) == 0)
		return ROLE_PROTOCOL;
	if (*line == '+')
		return ROLE_APPROVED;
	if (*line == '-')
		return ROLE_REJECTED;
	return ROLE_NORMAL;
}

void
diffview_open(struct diffview *d, json_t *report)
{
	const char *name = json_string_value(json_object_get(report, "name"));
	const char *branch = json_string_value(json_object_get(report,
	    "branch"));
	const char *base = json_string_value(json_object_get(report, "base"));
	const char *patch = json_string_value(json_object_get(report,
	    "patch"));
	json_t *files = json_object_get(report, "files"), *f;
	const char *p, *nl;
	char *line;
	size_t i;

	diffview_free(d);
	line = xasprintf("%s · %s since %.8s · %zu file%s · +%lld −%lld",
	    name ? name : "?", branch ? branch : "?", base ? base : "",
	    json_array_size(files), json_array_size(files) == 1 ? "" : "s",
	    (long long)json_integer_value(json_object_get(report, "added")),
	    (long long)json_integer_value(json_object_get(report,
	    "removed")));
	d->title = text_sanitize(line, strlen(line));
	free(line);
	if (json_array_size(files) == 0)
		diffview_add(d, ROLE_DIM, "no changes against its base", 27);
	json_array_foreach(files, i, f) {
		json_int_t a = json_integer_value(json_object_get(f, "added"));
		json_int_t r = json_integer_value(json_object_get(f,
		    "removed"));

		if (json_is_true(json_object_get(f, "not_shown")))
			line = xasprintf("  %s  (new; its changes are not shown "
			    "here: see it in the worktree)", json_string_value(
			    json_object_get(f, "path")));
		else
			line = a < 0 ? xasprintf("  %s  (binary)",
			    json_string_value(json_object_get(f, "path"))) :
			    xasprintf("  %s  +%lld −%lld", json_string_value(
			    json_object_get(f, "path")), (long long)a,
			    (long long)r);
		diffview_add(d, ROLE_NORMAL, line, strlen(line));
		free(line);
	}
	diffview_add(d, ROLE_NORMAL, "", 0);
	for (p = patch ? patch : ""; *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		line = xasprintf("%.*s", (int)(nl ? (size_t)(nl - p) :
		    strlen(p)), p);
		diffview_add(d, diffview_role(line), line, strlen(line));
		free(line);
		if (nl == NULL)
			break;
	}
}

void
diffview_scroll(struct diffview *d, int delta)
{
	if (delta == INT_MAX)
		d->first = (int)d->n;
	else
		d->first += delta;
	if (d->first > (int)d->n - 1)
		d->first = (int)d->n - 1;
	if (d->first < 0)
		d->first = 0;
}

void
diffview_draw(struct diffview *d, int top, int left, int height, int width)
{
	int row;

	if (d->first > (int)d->n - height)
		d->first = (int)d->n - height > 0 ? (int)d->n - height : 0;
	for (row = 0; row < height && d->first + row < (int)d->n; row++) {
		char *s = text_cut(d->lines[d->first + row],
		    strlen(d->lines[d->first + row]), width);

		attrset(color_attr(d->roles[d->first + row]));
		mvhline(top + row, left, ' ', width);
		draw_text_at(top + row, left, s, strlen(s));
		free(s);
	}
	attrset(A_NORMAL);
}
