/*
 * The project's instructions: the person's own AGENTS.md in their
 * configuration folder; each folder's AGENTS.md and CLAUDE.md from the
 * repository's top down to the working tree, nearest last, CLAUDE.md's
 * @imports of the tree included; and the extra files the settings
 * name. They are
 * read afresh each time a system prompt is written — when an agent
 * starts and when it compacts — and never in between, so the prompt
 * stays the same for the prompt cache. They are text for the model,
 * never a gate: a teammate can write files in the working tree.
 */
#ifndef HUDDLE_AGENT_INSTRUCTIONS_H
#define HUDDLE_AGENT_INSTRUCTIONS_H

#include <jansson.h>

/* The most bytes of instructions a prompt holds, all files together. */
#define INSTRUCTIONS_MAX	(32 * 1024)
/* The most bytes read of any one file. */
#define INSTRUCTIONS_FILE_MAX	(256 * 1024)

struct instructions {
	char	*text;		/* for the system prompt; "" when none */
	char	*sources;	/* for /context: "AGENTS.md (1.2 KiB), …";
				 * "" when none */
	char	*notice;	/* for the screen: what was cut or left
				 * out, or NULL */
};

/*
 * Reads the instructions for the working tree workdir (absolute),
 * config_dir (the person's folder, or NULL) and extra (an array of paths
 * relative to workdir, or NULL) into *out. Files the working tree holds
 * are read beneath it (never through a link out of it); a FIFO, device
 * or directory is left out with a notice, and so is a file of the tree
 * that guard (the agent's profile, or NULL) hides from the team: when
 * the working tree is the person's home, ~/.ssh lies beneath it too.
 */
struct profile;

void instructions_read(const char *workdir, const char *config_dir,
    const json_t *extra, const struct profile *guard,
    struct instructions *out);

void instructions_clear(struct instructions *in);

#endif
