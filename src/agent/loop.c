/*
 * One agent's loop, run in its own thread for the lead and for every
 * teammate:
 *
 *	drain the inbox (messages go into the transcript)
 *	if there is something to answer: a turn of model calls and tools
 *	else: idle, and wait on the inbox — no CPU until a message comes
 *
 * An autonomous teammate with nothing to answer takes the next ready task
 * of the board first (tasks.c), and idles only when there is none.
 *
 * A turn calls the model, runs the tools it asks for, stores the results,
 * takes in messages that arrived meanwhile (after the tool results, so the
 * model sees them before its next call), and goes on until the model stops
 * asking for tools. Everything is stored as it happens, so a crash loses
 * at most the call in flight; after a restart the loop simply continues.
 *
 * This is the top of the agent layer but for the team's lifecycle
 * (team.c), which starts it: what the loop calls (agent.c's record and
 * inbox, the context, the tools) never calls it back.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/context.h"
#include "agent/frame.h"
#include "agent/history.h"
#include "agent/internal.h"
#include "agent/loop.h"
#include "agent/mcptools.h"
#include "agent/prompt.h"
#include "agent/tasks.h"
#include "agent/teamoutputs.h"
#include "agent/tools.h"
#include "tools/tool.h"
#include "core/transcript.h"
#include "util/log.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* How much of a teammate's last words its idle notice carries. */
#define LOOP_SUMMARY	300

static const char *
loop_last_role(struct agent *a)
{
	size_t n = json_array_size(a->turn.transcript);

	if (n == 0)
		return NULL;
	return json_string_value(json_object_get(json_array_get(
	    a->turn.transcript, n - 1), "role"));
}

/* Whether something in the transcript waits for the model's answer. */
static int
loop_has_work(struct agent *a)
{
	const char *role = loop_last_role(a);

	return !a->turn.errored && role != NULL && strcmp(role, "user") == 0 &&
	    json_array_size(a->turn.transcript) != a->turn.answered;
}

static void
loop_on_llm(void *ud, const struct llm_event *ev)
{
	struct agent *a = ud;

	switch (ev->type) {
	case LLM_EV_TEXT:
		event_text(&a->team->core.events, a->name, ev->text, ev->len);
		break;
	case LLM_EV_THINKING:
		if (ev->redacted)
			event_thinking_redacted(&a->team->core.events, a->name);
		else
			event_thinking(&a->team->core.events, a->name, ev->text,
			    ev->len);
		break;
	case LLM_EV_TOOL:
		break;
	case LLM_EV_RETRY:
		event_retry(&a->team->core.events, a->name, ev->error,
		    ev->attempt, ev->delay_ms, ev->discard);
		break;
	}
}

/* A tool_result's content: the text alone, or (an MCP result with
 * images) a text block followed by the image blocks. */
static json_t *
loop_result_content(const struct tool_output *out)
{
	json_t *content;

	if (json_array_size(out->images) == 0)
		return json_string(out->text);
	content = json_pack("[{s:s, s:s}]", "type", "text", "text", out->text);
	json_array_extend(content, out->images);
	return content;
}

/* Runs the tool calls of an assistant message; returns the user entry
 * with their results. */
static json_t *
loop_run_tools(struct agent *a, json_t *calls)
{
	json_t *results = json_array(), *call;
	size_t i;

	json_array_foreach(calls, i, call) {
		const char *id = json_string_value(json_object_get(call, "id"));
		const char *name = json_string_value(json_object_get(call,
		    "name"));
		json_t *input = json_object_get(call, "input");
		struct tool_output out = { 0 };

		/* Events cross threads: they get copies, never shared JSON
		 * (jansson's reference counts are not for sharing). */
		event_tool_call(&a->team->core.events, a->name, name, id,
		    input);
		if (atomic_load(&a->run.stop))
			tool_error(&out, "not run: the agent is stopping");
		else if (atomic_load(&a->run.interrupt))
			tool_error(&out, "not run: the person interrupted the "
			    "turn");
		else if (a->turn.leaving)
			tool_error(&out, "not run: you approved your shutdown");
		else
			tools_run(a, name ? name : "", input, &out);
		context_cut_result(a, &out);
		context_fit_images(a, results, &out);
		if (out.text == NULL || *out.text == '\0') {
			free(out.text);
			out.text = xstrdup("(no output)");
		}
		if (out.whole != NULL) {
			char *kept = team_output_keep(a->team, a->name, id ?
			    id : "", out.whole);

			free(out.whole);
			out.whole = kept;
		}
		event_tool_result(&a->team->core.events, a->name, name, id,
		    out.is_error, out.text, out.whole);
		json_array_append_new(results, json_pack("{s:s, s:s, s:o, "
		    "s:b}", "type", "tool_result", "tool_use_id", id ? id : "",
		    "content", loop_result_content(&out), "is_error",
		    out.is_error));
		tool_output_clear(&out);
	}
	return json_pack("{s:s, s:o}", "role", "user", "content", results);
}

/* The tool_use blocks of an assistant message (a new array). */
static json_t *
loop_tool_calls(json_t *message)
{
	json_t *calls = json_array(), *b;
	size_t i;

	json_array_foreach(json_object_get(message, "content"), i, b) {
		const char *type = json_string_value(json_object_get(b,
		    "type"));

		if (type != NULL && strcmp(type, "tool_use") == 0)
			json_array_append(calls, b);
	}
	return calls;
}

/* The first LOOP_SUMMARY bytes of text on one line, cut on a character
 * boundary, with "…" when there was more. */
static char *
loop_summary(const char *text)
{
	char *cut = utf8_clean(text, strlen(text), LOOP_SUMMARY), *out;

	if (strlen(text) <= LOOP_SUMMARY)
		return cut;
	out = xasprintf("%s…", cut);
	free(cut);
	return out;
}

/* The first text of a refused reply, summarised; "" when it said
 * nothing. */
static char *
loop_refusal_text(json_t *message)
{
	json_t *b;
	size_t i;

	json_array_foreach(json_object_get(message, "content"), i, b) {
		const char *text = json_string_value(json_object_get(b,
		    "text"));

		if (text != NULL && *text != '\0')
			return loop_summary(text);
	}
	return xstrdup("");
}

/* The text of an assistant message, for the idle notice. */
static char *
loop_last_text(struct agent *a)
{
	size_t n = json_array_size(a->turn.transcript), i;
	json_t *b;

	while (n > 0) {
		json_t *e = json_array_get(a->turn.transcript, --n);
		const char *role = json_string_value(json_object_get(e,
		    "role"));

		if (role == NULL || strcmp(role, "assistant") != 0)
			continue;
		json_array_foreach(json_object_get(e, "content"), i, b) {
			const char *text = json_string_value(json_object_get(b,
			    "text"));

			if (text != NULL && *text != '\0')
				return loop_summary(text);
		}
	}
	return NULL;
}

/*
 * Waits while the team has spent its budget: no new model call starts
 * until the person raises it. Returns 0 to go on, -1 when stopped or
 * interrupted.
 */
static int
loop_within_budget(struct agent *a)
{
	struct team *t = a->team;
	int told = 0;

	for (;;) {
		uint64_t gen = bus_generation(t->core.bus, a->name);
		double max = team_budget(t), spent = team_cost(t);

		if (max <= 0 || spent < max)
			break;
		if (!told) {
			agent_set_status(a, MEMBER_WAITING, "budget");
			event_budget(&t->core.events, a->name, spent, max);
			told = 1;
		}
		if (atomic_load(&a->run.stop) || atomic_load(&a->run.interrupt))
			return -1;
		bus_wait_since(t->core.bus, a->name, gen, -1, &a->run.stop);
	}
	if (told)
		agent_set_status(a, MEMBER_WORKING, NULL);
	return 0;
}

/* One call to the model; returns its result (caller clears it). */
static int
loop_call(struct agent *a, int round, struct llm_result *res)
{
	struct team *t = a->team;
	struct llm_request req = { 0 };
	int rc;

	if (loop_within_budget(a) == -1) {
		memset(res, 0, sizeof *res);
		res->status = LLM_ERR_CANCELLED;
		return -1;
	}
	/* Compaction first, when the request would not fit. */
	(void)context_compact(a, 0, NULL);
	req.system = a->turn.system;
	req.messages = history_build(a->turn.transcript);
	req.tools = mcptools_for(a);
	event_llm_call(&t->core.events, a->name, round);
	rc = llm_call(a->run.llm, &req, loop_on_llm, a, res);
	agent_count_usage(a, &res->usage);
	if (rc == 0) {
		context_counted(a, &res->usage);
		context_server_compacted(a, &res->usage);
	}
	json_decref(req.messages);
	json_decref(req.tools);
	return rc;
}

/*
 * Re-arms the agent's cancellation for a new turn. An interrupt asked for
 * while idle is forgotten; a stop is a flag read after this, so a stop
 * asked for at any time still ends the turn.
 */
static void
loop_arm(struct agent *a)
{
	atomic_store(&a->run.interrupt, 0);
	cancel_reset(&a->run.cancel);
	llm_reset_cancel(a->run.llm);
}

/* The person interrupted the turn: the history stays valid (every tool
 * call has its result), the model is told, and the agent waits for the
 * person's next message. */
static void
loop_interrupted(struct agent *a)
{
	agent_record(a, transcript_user_text("(The person interrupted your "
	    "turn here. Wait for their next message.)"));
	a->turn.answered = json_array_size(a->turn.transcript);
	event_notice(&a->team->core.events, a->name, "interrupted");
}

/* The turn reached --max-rounds: the work is not done, and the lead
 * must not take the stop for an end (loop_notify_idle). */
static void
loop_unfinished(struct agent *a, int rounds)
{
	char *why = xasprintf("it stopped after %d tool rounds in one turn "
	    "(the --max-rounds limit) before its work was done; a message "
	    "makes it go on", rounds);

	a->turn.answered = json_array_size(a->turn.transcript);
	agent_error(a, "%s", why);
	free(a->turn.failure);
	a->turn.failure = why;
	a->turn.unfinished = 1;
}

/* A turn: model calls and tool rounds until the model is done. */
static void
loop_turn(struct agent *a)
{
	struct team *t = a->team;
	struct llm_result res;
	int round, recovered = 0;
	char *line;

	loop_arm(a);
	a->turn.unfinished = 0;
	agent_set_status(a, MEMBER_WORKING, NULL);
	a->turn.worked = 1;
	for (round = 1; !atomic_load(&a->run.stop); round++) {
		json_t *calls, *results;

		if (t->opts.max_rounds > 0 && round > t->opts.max_rounds) {
			loop_unfinished(a, t->opts.max_rounds);
			return;
		}
		if (loop_call(a, round, &res) == -1) {
			/* A prompt too long for the window: compact, and
			 * try once more. */
			if (llm_context_exceeded(&res) && !recovered) {
				recovered = 1;
				context_learn_window(a, &res);
				llm_result_clear(&res);
				if (context_compact(a, 1, "the prompt was too "
				    "long for the context window: compacting")
				    == 0) {
					round--;
					continue;
				}
				agent_fail(a, xstrdup("the conversation no "
				    "longer fits the model's context window "
				    "and could not be compacted"));
				agent_set_status(a, MEMBER_ERROR, NULL);
				return;
			}
			if (res.status == LLM_ERR_CANCELLED &&
			    atomic_load(&a->run.interrupt) &&
			    !atomic_load(&a->run.stop))
				loop_interrupted(a);
			else if (res.status != LLM_ERR_CANCELLED ||
			    !atomic_load(&a->run.stop)) {
				line = llm_result_error_line(&res);
				agent_fail(a, res.attempts > 1 ? xasprintf(
				    "the model call failed: %s (%d attempts, "
				    "the retries ran out)", line, res.attempts) :
				    xasprintf("the model call failed: %s",
				    line));
				free(line);
				agent_set_status(a, MEMBER_ERROR, NULL);
			}
			llm_result_clear(&res);
			return;
		}
		recovered = 0;
		/* A refusal is not kept: the next request must not carry the
		 * refused turn. The agent stops on it, saying what the model
		 * said, and a message makes it try again. */
		if (llm_refused(&res)) {
			line = loop_refusal_text(res.message);
			agent_fail(a, xasprintf("the model refused to go on "
			    "(stop reason \"refusal\")%s%s", *line ? ": " :
			    "", line));
			free(line);
			agent_set_status(a, MEMBER_ERROR, NULL);
			llm_result_clear(&res);
			return;
		}
		/* A reply cut short by a full window: compact before the
		 * next call. */
		if (llm_context_exceeded(&res))
			atomic_store(&a->win.compact_asked, 1);
		calls = loop_tool_calls(res.message);
		if (json_array_size(json_object_get(res.message,
		    "content")) == 0) {
			/* Nothing said and nothing asked: the turn is over
			 * without an entry (an empty one would be refused). */
			a->turn.answered = json_array_size(a->turn.transcript);
		} else if ((a->model.words_in_thinking &&
		    json_object_set_new(res.message, "words_in_thinking",
		    json_true()) == -1) ||
		    agent_record(a, json_incref(res.message)) == -1) {
			json_decref(calls);
			llm_result_clear(&res);
			return;
		}
		/* The server compacted: what came before is not read again. */
		if (llm_compaction_read(&res.usage) > 0)
			context_trim(a);
		llm_result_clear(&res);
		if (json_array_size(calls) == 0) {
			json_decref(calls);
			a->turn.answered = json_array_size(a->turn.transcript);
			return;
		}
		results = loop_run_tools(a, calls);
		json_decref(calls);
		if (agent_record(a, results) == -1)
			return;
		if (a->turn.leaving)
			return;
		if (atomic_load(&a->run.interrupt)) {
			loop_interrupted(a);
			return;
		}
		/* Messages that came in meanwhile join the tool results. */
		agent_drain(a, 0, NULL);
	}
}

/* After a crash in the middle of a tool call the transcript ends with
 * calls that have no results: say so, rather than run them twice. */
static void
loop_repair(struct agent *a)
{
	json_t *calls = history_unanswered(a->turn.transcript), *call, *results;
	size_t i;

	if (json_array_size(calls) == 0) {
		json_decref(calls);
		return;
	}
	results = json_array();
	json_array_foreach(calls, i, call)
		json_array_append_new(results, json_pack("{s:s, s:O, s:s, "
		    "s:b}", "type", "tool_result", "tool_use_id",
		    json_object_get(call, "id"), "content", "interrupted: "
		    "huddle stopped while this tool call ran; it may or may not "
		    "have taken effect — check before repeating it",
		    "is_error", 1));
	json_decref(calls);
	agent_record(a, json_pack("{s:s, s:o}", "role", "user", "content",
	    results));
}

/* Tells the lead that this teammate has finished its turn, or could not
 * (then the lead learns why, and that a message makes it try again). */
static void
loop_notify_idle(struct agent *a)
{
	char *last = loop_last_text(a), *text, *err = NULL;

	if (a->turn.errored)
		text = xasprintf("%s stopped on an error and waits for a "
		    "message to try again: %s", a->name, a->turn.failure ?
		    a->turn.failure : "unknown error");
	else if (a->turn.unfinished)
		text = xasprintf("%s is NOT done: %s", a->name,
		    a->turn.failure);
	else if (last != NULL)
		text = xasprintf("%s is idle: %s", a->name, last);
	else
		text = xasprintf("%s is idle", a->name);
	if (bus_send(a->team->core.bus, a->name, ROSTER_LEAD,
	    MSG_IDLE_NOTIFICATION, text, NULL, &err) < 0) {
		log_printf("%s: idle notification: %s", a->name, err);
		free(err);
	}
	free(text);
	free(last);
}

/* Approves the quit's shutdown request an idle teammate found
 * (agent_idle_feed) for it: what else arrived is answered when the team
 * is resumed. Returns 1 when the agent stops now. */
static int
loop_pause_idle(struct agent *a)
{
	char *msg = NULL;
	enum proto_verdict v;

	v = protocol_respond(a->team->core.proto, a->turn.quit_seen,
	    MSG_SHUTDOWN_RESPONSE, a->name, 1, "idle: stopped between turns",
	    &msg);
	if (v == PROTO_DECIDED) {
		a->turn.leaving = 1;
		a->turn.pausing = 1;
		free(a->turn.leave_reason);
		a->turn.leave_reason = xasprintf("approved shutdown %s: idle",
		    a->turn.quit_seen);
	} else
		log_printf("%s: the quit's request %s: %s", a->name,
		    a->turn.quit_seen, msg);
	free(msg);
	*a->turn.quit_seen = '\0';
	return a->turn.leaving;
}

static void
loop_finish(struct agent *a)
{
	struct team *t = a->team;
	char *err = NULL;

	/* An approved shutdown was recorded with the approval itself. */
	if (atomic_load(&a->run.forced) && !a->turn.leaving && !a->is_lead &&
	    protocol_terminate(t->core.proto, a->name, "stopped by force",
	    &err) == -1) {
		agent_error(a, "could not record the end: %s", err);
		free(err);
	}
	if (a->turn.pausing)
		agent_set_status(a, MEMBER_IDLE, NULL);
	else if (a->turn.leaving || (atomic_load(&a->run.forced) &&
	    !a->is_lead)) {
		a->status = MEMBER_TERMINATED;
		event_status(&t->core.events, a->name, MEMBER_TERMINATED, NULL);
	} else
		agent_set_status(a, MEMBER_IDLE, NULL);
}

void *
loop_main(void *arg)
{
	struct agent *a = arg;
	struct team *t = a->team;
	char *err = NULL;
	const char *role;

	a->turn.transcript = transcript_load(t->core.store, a->name, &err);
	if (a->turn.transcript == NULL) {
		agent_fail(a, err);
		a->turn.transcript = json_array();
	}
	/* Written once: the system prompt never changes in an agent's
	 * life (but at a compaction), so every request extends the one
	 * before. */
	frame_open(a);
	a->turn.system = prompt_system(t, a);
	role = loop_last_role(a);
	if (role != NULL && strcmp(role, "assistant") == 0)
		a->turn.answered = json_array_size(a->turn.transcript);
	context_trim(a);
	loop_repair(a);
	/* A permission request is only worth anything to the call blocked
	 * on it; after a restart nobody waits for an old one. */
	if (protocol_cancel_from(t->core.proto, a->name, REQ_PERMISSION,
	    "huddle "
	    "restarted while the command waited; it was not run", &err) ==
	    -1) {
		agent_error(a, "%s", err);
		free(err);
		err = NULL;
	}

	while (!atomic_load(&a->run.stop) && !a->turn.leaving) {
		uint64_t gen = bus_generation(t->core.bus, a->name);
		int idle = json_array_size(a->turn.transcript) ==
		    a->turn.answered;
		int wakes = 0;

		/* Only answers to permissions it asked for: left over from
		 * a turn the person interrupted, they start no turn. */
		if (agent_drain(a, 1, &wakes) > 0 && idle && wakes == 0)
			a->turn.answered = json_array_size(a->turn.transcript);
		if (*a->turn.quit_seen != '\0' && loop_pause_idle(a))
			break;
		if (loop_has_work(a)) {
			loop_turn(a);
			continue;
		}
		/* /compact while idle. */
		if (atomic_load(&a->win.compact_asked)) {
			(void)context_compact(a, 1, NULL);
			continue;
		}
		/* Nothing to answer: an autonomous teammate takes its next
		 * task (a task made ready wakes it here). */
		if (a->turn.autonomous && !a->turn.errored && tasks_next(a))
			continue;
		if (a->turn.worked && !a->is_lead)
			loop_notify_idle(a);
		a->turn.worked = 0;
		if (!a->turn.errored)
			agent_set_status(a, MEMBER_IDLE, NULL);
		/* Anything sent after gen was read wakes us. */
		bus_wait_since(t->core.bus, a->name, gen, -1, &a->run.stop);
	}
	loop_finish(a);
	atomic_store(&a->run.finished, 1);
	/* Wake the main thread so it reaps this thread. */
	event_notice_quiet(&t->core.events, a->name, "stopped");
	return NULL;
}
