/*
 * A Landlock ruleset (tools/landlock.h) built once, on a thread of its
 * own, and shared by every profile of one place: its walk to the hidden
 * paths turns each directory on the way into one rule per entry, which
 * costs a tenth of a second beside a folder of 20,000 entries. Whoever
 * starts a command waits for it (ruleset_fd); nobody else does.
 *
 * A built ruleset is a kernel object nothing changes any more, so any
 * number of threads may use it at once. It grants what the directories
 * held when it was built: ruleset_fresh says whether they still do.
 */
#ifndef HUDDLE_TOOLS_RULESET_H
#define HUDDLE_TOOLS_RULESET_H

#include "tools/landlock.h"

struct ruleset;

/*
 * Starts building the ruleset of r (copied: r may go at once) on a thread
 * of its own, or on the calling thread when no thread can be had. Returns
 * it with one hold (ruleset_drop).
 */
struct ruleset *ruleset_start(const struct landlock_rules *r);

/* One more hold on rs; returns rs. Safe from any thread. */
struct ruleset *ruleset_hold(struct ruleset *rs);

/* Lets go of one hold; the last one waits for the build to end and frees
 * the ruleset. NULL is fine. */
void ruleset_drop(struct ruleset *rs);

/*
 * Waits until rs is built. Returns its descriptor (rs keeps it: do not
 * close it, hold rs for as long as it is used), or -1 with *err (a
 * malloc'd sentence) when it could not be built.
 */
int ruleset_fd(struct ruleset *rs, char **err);

/*
 * Adds reading beneath the directory path to rs (landlock_readable): at
 * once when rs is built, else when its build ends, so nobody waits for
 * the walk. The directory is opened now. Returns 0, or -1 with *err when
 * it cannot be opened or rs could not be built; a grant that fails at
 * the end of the build fails the ruleset (ruleset_fd says why).
 */
int ruleset_add_readable(struct ruleset *rs, const char *path, char **err);

/*
 * Whether rs still grants what a ruleset built now from the same rules
 * would: no directory its walk split into entries (one on the way to a
 * hidden path) gained, lost or renamed an entry since, and each writable
 * or readable path is still the directory it was. A few stat calls.
 */
int ruleset_fresh(const struct ruleset *rs);

#endif
