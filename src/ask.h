/*
 * The --ask front end: one user message to the configured model, its
 * reply streamed to stdout. It is how a person checks a key, a model or
 * a server by hand, without a team.
 */
#ifndef HUDDLE_ASK_H
#define HUDDLE_ASK_H

struct llm_config;

/*
 * Sends `text` and writes the reply to stdout as it comes (thinking is
 * left out); Ctrl-C cancels the call. Returns the exit status: 0, 1 when
 * the call failed (one line on stderr says why), 2 for text that cannot
 * be sent, 130 when interrupted.
 */
int ask_run(const struct llm_config *cfg, const char *text);

#endif
