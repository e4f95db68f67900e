/*
 * The offline demo (huddle --demo): a scripted team — no network, no key —
 * in a small git repository of its own, kept in one folder under the
 * state directory so that `huddle --demo --resume` continues it. Its
 * scenario is data/demo.json, built in.
 */
#ifndef HUDDLE_DEMO_H
#define HUDDLE_DEMO_H

/* The scenario for the script provider (data/demo.json, generated). */
extern const char demo_builtin[];

/* The scenario for the script provider (static JSON). */
const char *demo_scenario(void);

/* Where a demo runs. */
struct demo {
	char	*folder;	/* <state base>/demo; NULL with --workdir */
	char	*workdir;	/* the repository the team works in */
	char	*state;		/* the state base for its team; NULL: the
				 * person's (with --workdir) */
	int	 lock;		/* held on folder while the demo runs; -1 */
};

/*
 * Prepares a demo: in `workdir` when given, else in the folder "demo"
 * under the state base (`state_dir`, or the default), which a fresh demo
 * empties first and a `resume` requires. A workdir without a repository
 * gets one, with hello.py committed. Returns 0, or -1 with *err (d is
 * then cleared).
 */
int demo_open(struct demo *d, const char *workdir, const char *state_dir,
    int resume, char **err);

/* Where the demo keeps its team's state under the state base
 * (malloc'd): --teams lists it there. */
char *demo_state_base(const char *base);

/* Lets go of what demo_open took (the folder stays). */
void demo_close(struct demo *d);

/* What the person is told first; at --resume, when what happened may
 * differ, nothing it cannot know. */
#define DEMO_HINT "demo: bob's plan will wait for you — F5 approves, F6 " \
	"rejects · F9 shuts a teammate down · F10 quits · F1 help"
#define DEMO_HINT_RESUMED "demo resumed where you left it: the table " \
	"shows what waits for you · F10 quits · F1 help"

/* What the demo's lead is asked at start. */
#define DEMO_PROMPT "Show me how a team works."

#endif
