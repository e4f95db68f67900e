/*
 * A search in a pane (see panefind.h).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ui/panefind.h"
#include "ui/view.h"
#include "util/xmalloc.h"

static struct pane *
panefind_pane(struct view *v)
{
	if (v->find_pane < 0 || (size_t)v->find_pane >= v->npanes)
		return NULL;
	return v->panes[v->find_pane];
}

void
panefind_open(struct view *v)
{
	v->find_on = 1;
	v->find_typing = 1;
	v->find_query[0] = '\0';
	v->find_hit = 0;
	v->find_pane = v->focus == FOCUS_TABLE ? 0 : v->focus;
}

/*
 * The match in l nearest to `from` the way dir goes: the last one that
 * starts before it (dir -1), or the first after it (dir +1; at it too
 * when `at_too`). Returns its byte, or -1.
 */
static long
panefind_in_line(const struct pane_line *l, const char *q, size_t from,
    int dir, int at_too)
{
	size_t n = strlen(q), at;
	long found = -1;

	if (n == 0 || l->len < n)
		return -1;
	for (at = 0; at + n <= l->len; at++) {
		if (strncasecmp(l->text + at, q, n) != 0)
			continue;
		if (dir < 0 && at < from)
			found = (long)at;
		else if (dir > 0 && (at > from || (at_too && at == from)))
			return (long)at;
	}
	return found;
}

/* Whether the search looks into line l: thinking only when it is
 * shown. */
static int
panefind_looks(struct view *v, const struct pane_line *l)
{
	return l->role != ROLE_THINKING || v->show_thinking;
}

/* Whether line seq was on show when last drawn. */
static int
panefind_in_sight(const struct pane *p, uint64_t seq)
{
	size_t i;

	for (i = 0; i < p->ndrawn; i++)
		if (p->drawn[i] == seq)
			return 1;
	return 0;
}

/* Searches from line seq, byte from, the way dir goes; a match becomes
 * the current one, is brought in sight and its output expanded. */
static int
panefind_from(struct view *v, uint64_t seq, size_t from, int dir)
{
	struct pane *p = panefind_pane(v);
	struct pane_line *l, *head;
	int at_too = 0;
	long at;

	if (p == NULL || p->count == 0 || v->find_query[0] == '\0')
		return -1;
	while ((l = pane_line_by_seq(p, seq)) != NULL) {
		if (panefind_looks(v, l) && (at = panefind_in_line(l,
		    v->find_query, from, dir, at_too)) >= 0) {
			v->find_hit = 1;
			v->find_seq = seq;
			v->find_off = (size_t)at;
			if (l->hidden && (head = pane_fold_head(p, seq)) !=
			    NULL)
				head->expanded = 1;
			if (!panefind_in_sight(p, seq))
				pane_show_line(p, seq, (size_t)at);
			return 0;
		}
		if (dir < 0 && seq == 0)
			break;
		seq = dir < 0 ? seq - 1 : seq + 1;
		from = dir < 0 ? SIZE_MAX : 0;
		at_too = 1;
	}
	return -1;
}

/* The search as typed, from the newest line. */
static void
panefind_again(struct view *v)
{
	struct pane *p = panefind_pane(v);

	v->find_hit = 0;
	if (p != NULL && p->count > 0)
		panefind_from(v, p->seq_first + p->count - 1, SIZE_MAX, -1);
}

void
panefind_type(struct view *v, const char *utf8, size_t len)
{
	size_t have = strlen(v->find_query);

	if (have + len >= sizeof v->find_query)
		return;
	memcpy(v->find_query + have, utf8, len);
	v->find_query[have + len] = '\0';
	panefind_again(v);
}

void
panefind_backspace(struct view *v)
{
	size_t len = strlen(v->find_query);

	/* One UTF-8 character off its end. */
	while (len > 0 && ((unsigned char)v->find_query[--len] & 0xc0) ==
	    0x80)
		;
	v->find_query[len] = '\0';
	panefind_again(v);
}

int
panefind_step(struct view *v, int dir)
{
	struct pane *p = panefind_pane(v);

	if (p == NULL || v->find_query[0] == '\0')
		return -1;
	if (!v->find_hit) {
		panefind_again(v);
		return v->find_hit ? 0 : -1;
	}
	if (panefind_from(v, v->find_seq, v->find_off, dir) == 0)
		return 0;
	view_hint(v, ROLE_HINT, "no %s match of '%s' in %s's pane",
	    dir < 0 ? "older" : "newer", v->find_query, p->name);
	return -1;
}

void
panefind_end(struct view *v)
{
	struct pane *p = panefind_pane(v);

	if (p != NULL && v->find_hit) {
		p->sel_on = 1;
		p->sel_seq = v->find_seq;
	}
	v->find_on = 0;
	v->find_typing = 0;
	v->find_hit = 0;
}

/* How many matches the pane holds (*total), and which of them, newest
 * first, is the current one (*current, 0 when none is). */
static void
panefind_count(struct view *v, struct pane *p, size_t *current,
    size_t *total)
{
	struct pane_line *l;
	size_t n = strlen(v->find_query), at;
	uint64_t seq;

	*current = *total = 0;
	for (seq = p->seq_first + p->count; n > 0 && seq-- > p->seq_first;) {
		l = pane_line_by_seq(p, seq);
		if (l == NULL || !panefind_looks(v, l) || l->len < n)
			continue;
		/* Newest first: a line's last match before its first. */
		for (at = l->len - n + 1; at > 0; at--) {
			if (strncasecmp(l->text + at - 1, v->find_query, n) !=
			    0)
				continue;
			(*total)++;
			if (v->find_hit && seq == v->find_seq && at - 1 ==
			    v->find_off)
				*current = *total;
		}
	}
}

char *
panefind_prompt(struct view *v)
{
	struct pane *p = panefind_pane(v);
	size_t current, total;

	if (p == NULL)
		return xstrdup("find in ?: ");
	if (v->find_query[0] == '\0')
		return xasprintf("find in %s: ", p->name);
	panefind_count(v, p, &current, &total);
	if (total == 0)
		return xasprintf("find in %s (no match): ", p->name);
	return xasprintf("find in %s (%zu/%zu): ", p->name, current,
	    total);
}
