/*
 * The team's record of its git worktrees, by name: the commit each was
 * made from, and whose it is — a teammate's own (made at its spawn, named
 * after it) or the board's (made for the tasks that name it, worked by
 * whoever holds one of them). tools/worktree.h does the git; this keeps
 * what --resume needs to find them again.
 */
#ifndef HUDDLE_CORE_WTRECORD_H
#define HUDDLE_CORE_WTRECORD_H

#include <stddef.h>
#include <stdint.h>

#include "core/store.h"

struct wt_record {
	char	*name;
	char	*base;		/* the commit it was made from */
	char	*member;	/* the teammate whose own it is, or NULL:
				 * the board's */
	int64_t	 created_at;	/* wall-clock ms */
};

/* Inside a transaction: records worktree name. Returns 0 or -1 with
 * *err (one of that name is recorded already). */
int wtrecord_add_tx(struct store *s, const char *name, const char *base,
    const char *member, char **err);

/* The same in a transaction of its own. */
int wtrecord_add(struct store *s, const char *name, const char *base,
    const char *member, char **err);

/* Reads worktree name's record. Returns 0, or -1 when there is none
 * (*out then zeroed: wtrecord_clear is harmless on it). */
int wtrecord_get(struct store *s, const char *name, struct wt_record *out);

/* Every record, by name. Returns the count; free with
 * wtrecord_free_array. */
size_t wtrecord_list(struct store *s, struct wt_record **out);

/* Forgets worktree name. Returns 0 or -1 with *err. */
int wtrecord_remove(struct store *s, const char *name, char **err);

void wtrecord_clear(struct wt_record *r);
void wtrecord_free_array(struct wt_record *array, size_t n);

#endif
