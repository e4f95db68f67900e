/*
 * The roster is the team as the store knows it: every member (the lead and
 * each teammate) with its role, spawn prompt, model, status, plan gate,
 * token counts and cost. It is what --resume rebuilds the team from.
 */
#ifndef HUDDLE_CORE_ROSTER_H
#define HUDDLE_CORE_ROSTER_H

#include <stddef.h>
#include <stdint.h>

#include "core/store.h"

/* The lead's name: there is one lead per team. */
#define ROSTER_LEAD "lead"

enum member_status {
	MEMBER_STARTING,
	MEMBER_WORKING,
	MEMBER_IDLE,
	MEMBER_WAITING,		/* blocked on a protocol request */
	MEMBER_ERROR,		/* last LLM call failed; waits for a message */
	MEMBER_TERMINATED,
	MEMBER_STATUS_COUNT
};

struct member {
	char			*name;
	char			*role;
	char			*prompt;	/* the spawn prompt */
	int			 is_lead;
	int			 plan_required;
	int			 plan_approved;
	enum member_status	 status;
	int64_t			 tokens_in;	/* input, uncached */
	int64_t			 tokens_out;
	int64_t			 cache_write;	/* input written to the
						 * prompt cache */
	int64_t			 cache_read;	/* input read from it */
	double			 cost;		/* US dollars so far */
	char			*model;		/* "" for the team's */
	int			 autonomous;	/* claims tasks when idle */
	int64_t			 created_at;	/* wall-clock ms */
	int64_t			 updated_at;
};

/* "working", "idle", … */
const char *member_status_name(enum member_status status);
/* Returns the status, or -1 for an unknown name. */
int member_status_parse(const char *name);

/* Whether name has the form of a member's name: 1–32 characters of
 * [a-z0-9_-] starting with a letter (the reserved ones included). */
int roster_name_valid(const char *name);

/*
 * Checks a new teammate's name: 1–32 characters of [a-z0-9_-] starting
 * with a letter, and not a reserved name (person, user, human, operator,
 * system, huddle, lead, all, team). Returns 0, or -1 with a sentence in
 * *err that says what to choose instead.
 */
int roster_check_name(const char *name, char **err);

/*
 * Adds a member with status "starting". Fails (-1, *err) on a bad, reserved
 * or taken name. Adding ROSTER_LEAD to a team with no member yet makes the
 * lead; "lead" is refused afterwards. Members read back (roster_get,
 * roster_list) are checked the same way: a teammate with a reserved name,
 * or a lead not called "lead", is ignored.
 */
int roster_add(struct store *s, const char *name, const char *role,
    const char *prompt, int plan_required, char **err);

/* Inside a transaction: roster_add. */
int roster_add_tx(struct store *s, const char *name, const char *role,
    const char *prompt, int plan_required, char **err);

/* Sets a member's status. Returns 0, or -1 with *err (unknown member). */
int roster_set_status(struct store *s, const char *name,
    enum member_status status, char **err);

/* Adds a model call's tokens (in: uncached input) and cost to a member's
 * sums. Returns 0 or -1 with *err. */
int roster_add_usage(struct store *s, const char *name, int64_t in,
    int64_t out, int64_t cache_write, int64_t cache_read, double cost,
    char **err);

/* What the whole team has cost so far, in US dollars. */
double roster_team_cost(struct store *s);

/* Inside a transaction: records the model a member was given. */
int roster_set_model_tx(struct store *s, const char *name,
    const char *model, char **err);

/*
 * Returns the member (free with member_free), or NULL when there is no
 * such member.
 */
struct member *roster_get(struct store *s, const char *name);

/*
 * Lists every member, the lead first, then teammates in the order they were
 * added. Returns the count; *out is a malloc'd array (free with
 * member_free_array).
 */
size_t roster_list(struct store *s, struct member **out);

void member_free(struct member *m);
void member_free_array(struct member *array, size_t n);

/*
 * Inside a transaction: the status of `name`, or -1 when no such member.
 */
int roster_status_tx(struct store *s, const char *name);

/* Inside a transaction: sets the status (0, or -1 with *err). */
int roster_set_status_tx(struct store *s, const char *name,
    enum member_status status, char **err);

/*
 * Notes whether the lead waits for `name`: its next idle notice is then
 * fed to the lead's model. Stored, so it survives a restart. Naming no
 * member is not an error (there is nothing to wait for).
 */
int roster_set_awaited(struct store *s, const char *name, int awaited,
    char **err);
int roster_set_awaited_tx(struct store *s, const char *name, int awaited,
    char **err);

/* Inside a transaction: whether the lead waits for `name` and message
 * `message_id` (an idle notice of name's) was sent after the wait began,
 * forgetting the wait then (one notice answers one wait; one sent before
 * it, of work the wait is not about, answers nothing). */
int roster_take_awaited_tx(struct store *s, const char *name,
    int64_t message_id);

/* The members the lead waits for, as "bob, carl" (malloc'd), or NULL. */
char *roster_awaited(struct store *s);

/* Inside a transaction: makes a teammate autonomous: idle, it claims
 * the next ready task of the board itself. */
int roster_set_autonomous_tx(struct store *s, const char *name, char **err);

/* Inside a transaction: marks a member's plan approved. */
int roster_approve_plan_tx(struct store *s, const char *name, char **err);

#endif
