/*
 * Lists of listeners (see listeners.h).
 */
#include "config.h"

#include <stdlib.h>

#include "util/listeners.h"

void
listeners_add(struct listeners *l, listener_fn fn, void *ud)
{
	if (l->n == LISTENERS_MAX)
		abort();
	l->at[l->n].fn = fn;
	l->at[l->n].ud = ud;
	l->n++;
}

void
listeners_tell(const struct listeners *l, const void *what)
{
	int i;

	for (i = 0; i < l->n; i++)
		l->at[i].fn(l->at[i].ud, what);
}
