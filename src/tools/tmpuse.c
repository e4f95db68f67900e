/*
 * Measuring the team's TMPDIR (see tmpuse.h).
 */
#include "config.h"

#include <ftw.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "tools/tmpuse.h"
#include "util/number.h"
#include "util/xmalloc.h"

/* nftw gives its callback no argument: the walk of this thread. */
static __thread struct tmpuse_walk {
	struct tmpuse		*u;
	const struct tmpuse	*max;
} tmpuse_walk;

static int
tmpuse_one(const char *path, const struct stat *st, int type,
    struct FTW *ftw)
{
	struct tmpuse_walk *w = &tmpuse_walk;

	(void)path;
	(void)ftw;
	if (type != FTW_NS && ftw->level > 0) {
		w->u->bytes += (int64_t)st->st_blocks * 512;
		w->u->files++;
	}
	/* Past the ceiling: how far past does not matter. */
	return w->max != NULL && tmpuse_over(w->u, w->max);
}

void
tmpuse_measure(const char *dir, const struct tmpuse *max, struct tmpuse *u)
{
	u->bytes = u->files = 0;
	tmpuse_walk.u = u;
	tmpuse_walk.max = max;
	nftw(dir, tmpuse_one, 16, FTW_PHYS | FTW_MOUNT);
	tmpuse_walk.u = NULL;
	tmpuse_walk.max = NULL;
}

int
tmpuse_over(const struct tmpuse *u, const struct tmpuse *max)
{
	return (max->bytes > 0 && u->bytes > max->bytes) ||
	    (max->files > 0 && u->files > max->files);
}

int
tmpuse_grew(const struct tmpuse *before, const struct tmpuse *now)
{
	return now->bytes > before->bytes || now->files > before->files;
}

char *
tmpuse_text(const char *dir, const struct tmpuse *u, const struct tmpuse *max)
{
	char *has = number_size(u->bytes), *most = number_size(max->bytes);
	char *msg;

	/* The walk stops past the ceiling: what it counted is at least
	 * what there is. */
	msg = xasprintf("the team's TMPDIR (%s) grew past its ceiling of %s "
	    "or %" PRId64 " files (--tmp-max, --tmp-max-files): it holds at "
	    "least %s in %" PRId64 " files; remove there what is no longer "
	    "needed", dir, most, max->files, has, u->files);
	free(has);
	free(most);
	return msg;
}
