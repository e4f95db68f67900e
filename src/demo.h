/*
 * The offline demo (huddle --demo): a scripted team in a fresh temporary
 * directory — no network, no key.
 */
#ifndef HUDDLE_DEMO_H
#define HUDDLE_DEMO_H

/* The scenario for the script provider (static JSON). */
const char *demo_scenario(void);

/* What the person is told first. */
#define DEMO_HINT "demo: bob's plan will wait for you — F5 approves, F6 " \
	"rejects · F9 shuts a teammate down · F10 quits · F1 help"

/* What the demo's lead is asked at start. */
#define DEMO_PROMPT "Show me how a team works."

#endif
