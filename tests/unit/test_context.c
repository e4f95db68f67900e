/*
 * Unit tests of agent/context.c on a live team: /compact on an idle
 * agent asks its model for a summary and starts its view afresh from it
 * (an event, a stored entry, /context's line); a summary that never
 * comes leaves the conversation as it was; a tool result too big for
 * the window is cut to its head and tail; a refusal that names a smaller
 * window is learnt; images count by their pixels, stay within what one
 * request may carry, and become a line of text at a compaction.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/context.h"
#include "agent/internal.h"
#include "core/message.h"
#include "core/protocol.h"
#include "core/transcript.h"
#include "liveteam.h"
#include "util/xmalloc.h"

START_TEST(compact_when_asked)
{
	struct lt l;
	char *err = NULL, *text, *dump;
	int64_t tokens, window;
	json_t *tr;

	lt_init(&l, "{\"agents\": {\"lead\": [{\"text\": \"hello\"}, "
	    "{\"text\": \"SUMMARY-7: we said hello\"}]}}");
	lt_start(&l);
	ck_assert_int_eq(team_context(l.team, "nobody", &tokens, &window), -1);
	ck_assert_int_eq(team_context(l.team, "lead", &tokens, &window), 0);
	ck_assert_int_gt(window, 0);
	ck_assert_int_eq(team_say(l.team, NULL, "hi", &err), 0);
	lt_need(&l, EV_TEXT, "lead", "hello");
	lt_need_status(&l, "lead", "idle");
	text = team_context_text(l.team, "lead");
	ck_assert_ptr_nonnull(strstr(text, "not compacted yet"));
	free(text);
	ck_assert_int_eq(team_compact(l.team, "lead", &err), 0);
	lt_need(&l, EV_NOTICE, "lead", "compacting, as asked");
	lt_need(&l, EV_COMPACTION, "lead", "\"kind\":\"client\"");
	text = team_context_text(l.team, "lead");
	ck_assert_ptr_nonnull(strstr(text, "compacted 1 time"));
	free(text);
	tr = transcript_load(team_store(l.team), "lead", &err);
	dump = json_dumps(tr, JSON_COMPACT);
	ck_assert_ptr_nonnull(strstr(dump, "SUMMARY-7"));
	ck_assert_ptr_nonnull(strstr(dump, "huddle compacted this "
	    "conversation"));
	free(dump);
	json_decref(tr);
	/* The summary is no message to answer: no third call. */
	ck_assert_ptr_null(lt_wait(&l, EV_ERROR, "lead", "script_exhausted",
	    300));
	lt_close(&l);
}
END_TEST

/* What huddle asks the person itself (a sign-in, with the address of
 * huddle's start page for the person's browser) is no model's to read:
 * not in the state a compacted conversation is given either. */
START_TEST(the_persons_requests_stay_out_of_a_compaction)
{
	struct lt l;
	char *err = NULL, *dump;
	char id[PROTO_ID_SIZE];
	json_t *tr;

	lt_init(&l, "{\"agents\": {\"lead\": [{\"text\": \"hello\"}, "
	    "{\"text\": \"SUMMARY-8\"}]}}");
	lt_start(&l);
	ck_assert_int_eq(team_say(l.team, NULL, "hi", &err), 0);
	lt_need(&l, EV_TEXT, "lead", "hello");
	lt_need_status(&l, "lead", "idle");
	ck_assert_int_eq(protocol_request(l.team->core.proto, REQ_PERMISSION,
	    MSG_SYSTEM, "lead", "sign in: web (x) — open http://127.0.0.1:1/"
	    "start/NONCE-4711", id, &err), 0);
	ck_assert_int_eq(team_compact(l.team, "lead", &err), 0);
	lt_need(&l, EV_COMPACTION, "lead", "\"kind\":\"client\"");
	tr = transcript_load(team_store(l.team), "lead", &err);
	dump = json_dumps(tr, JSON_COMPACT);
	ck_assert_ptr_nonnull(strstr(dump, "SUMMARY-8"));
	ck_assert_ptr_null(strstr(dump, "NONCE-4711"));
	ck_assert_ptr_null(strstr(dump, id));
	free(dump);
	json_decref(tr);
	lt_close(&l);
}
END_TEST

START_TEST(no_summary_keeps_the_conversation)
{
	struct lt l;
	char *err = NULL, *text;

	/* The model answers the summary request with tools, twice. */
	lt_init(&l, "{\"agents\": {\"lead\": [{\"text\": \"hello\"}, "
	    "{\"tools\": [{\"name\": \"list_teammates\", \"input\": {}}]}, "
	    "{\"tools\": [{\"name\": \"list_teammates\", \"input\": {}}]}]}}");
	lt_start(&l);
	ck_assert_int_eq(team_say(l.team, NULL, "hi", &err), 0);
	lt_need(&l, EV_TEXT, "lead", "hello");
	lt_need_status(&l, "lead", "idle");
	ck_assert_int_eq(team_compact(l.team, "lead", &err), 0);
	lt_need(&l, EV_NOTICE, "lead", "could not compact");
	ck_assert_uint_eq(lt_count(&l, EV_COMPACTION, "lead", NULL), 0);
	text = team_context_text(l.team, "lead");
	ck_assert_ptr_nonnull(strstr(text, "not compacted yet"));
	free(text);
	lt_close(&l);
}
END_TEST

START_TEST(a_big_result_is_cut)
{
	struct lt l;
	struct tool_output o = { 0 };
	struct agent *a;
	size_t n = 200000;

	lt_init(&l, "{\"agents\": {\"lead\": []}}");
	l.o.choice.context_window = 20000;
	lt_start(&l);
	a = lt_agent(&l, "lead");
	ck_assert_int_eq(a->win.window, 20000);
	o.text = xmalloc(n + 1);
	memset(o.text, 'x', n);
	memcpy(o.text, "HEAD", 4);
	memcpy(o.text + n - 4, "TAIL", 4);
	o.text[n] = '\0';
	context_cut_result(a, &o);
	ck_assert_uint_lt(strlen(o.text), 20000 / 10 * 4 + 1000);
	ck_assert_int_eq(strncmp(o.text, "HEAD", 4), 0);
	ck_assert_str_eq(o.text + strlen(o.text) - 4, "TAIL");
	ck_assert_ptr_nonnull(strstr(o.text, "huddle left out"));
	tool_output_clear(&o);
	/* A small one stays whole. */
	o.text = xstrdup("small");
	context_cut_result(a, &o);
	ck_assert_str_eq(o.text, "small");
	tool_output_clear(&o);
	lt_close(&l);
}
END_TEST

START_TEST(a_smaller_window_is_learnt)
{
	struct lt l;
	struct llm_result r = { 0 };
	struct agent *a;

	lt_init(&l, "{\"agents\": {\"lead\": []}}");
	l.o.choice.context_window = 200000;
	lt_start(&l);
	a = lt_agent(&l, "lead");
	r.error_message = "prompt is too long: 150000 tokens > 100000 maximum";
	context_learn_window(a, &r);
	ck_assert_int_eq(a->win.window, 100000);
	lt_need(&l, EV_NOTICE, "lead", "smaller than the catalog says");
	/* A larger figure is not taken. */
	r.error_message = "maximum context length is 300000 tokens";
	context_learn_window(a, &r);
	ck_assert_int_eq(a->win.window, 100000);
	lt_close(&l);
}
END_TEST

/* The base64 of a PNG of w x h: its header, then `pad` more bytes of
 * base64 (malloc'd). */
static char *
png_b64(unsigned long w, unsigned long h, size_t pad)
{
	static const char tbl[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char b[24] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
	    0, 0, 0, 13, 'I', 'H', 'D', 'R' };
	char *out = xmalloc(32 + pad + 1), *o = out;
	unsigned v;
	int i;

	for (i = 0; i < 4; i++) {
		b[16 + i] = (unsigned char)(w >> (24 - 8 * i));
		b[20 + i] = (unsigned char)(h >> (24 - 8 * i));
	}
	for (i = 0; i < 24; i += 3) {
		v = (unsigned)b[i] << 16 | (unsigned)b[i + 1] << 8 | b[i + 2];
		*o++ = tbl[v >> 18];
		*o++ = tbl[v >> 12 & 63];
		*o++ = tbl[v >> 6 & 63];
		*o++ = tbl[v & 63];
	}
	memset(o, 'A', pad);
	o[pad] = '\0';
	return out;
}

static json_t *
image_block(unsigned long w, unsigned long h, size_t pad)
{
	char *data = png_b64(w, h, pad);
	json_t *b = json_pack("{s:s, s:{s:s, s:s, s:s}}", "type", "image",
	    "source", "type", "base64", "media_type", "image/png", "data",
	    data);

	free(data);
	return b;
}

/* A tool_result block with n images of w x h. */
static json_t *
result_with(int n, unsigned long w, unsigned long h, size_t pad)
{
	json_t *content = json_pack("[{s:s, s:s}]", "type", "text", "text",
	    "shots");
	int i;

	for (i = 0; i < n; i++)
		json_array_append_new(content, image_block(w, h, pad));
	return json_pack("{s:s, s:s, s:o}", "type", "tool_result",
	    "tool_use_id", "toolu_1", "content", content);
}

/* An output of n images of w x h, as an MCP result makes it. */
static void
output_with(struct tool_output *o, int n, unsigned long w, unsigned long h)
{
	int i;

	tool_output_clear(o);
	o->text = xstrdup("");
	o->images = json_array();
	for (i = 0; i < n; i++) {
		char *line = xasprintf("%s[image image/png %lux%lu, passed to the "
		    "model]", i ? "\n" : "", w, h);
		char *all = xasprintf("%s%s", o->text, line);

		free(o->text);
		free(line);
		o->text = all;
		json_array_append_new(o->images, image_block(w, h, 0));
	}
}

START_TEST(images_stay_within_a_request)
{
	struct lt l;
	struct tool_output o = { 0 };
	struct agent *a;
	json_t *pending = json_array();
	int i;

	lt_init(&l, "{\"agents\": {\"lead\": []}}");
	lt_start(&l);
	a = lt_agent(&l, "lead");
	/* Twenty small images in the turn so far: small ones still pass. */
	for (i = 0; i < 4; i++)
		json_array_append_new(pending, result_with(5, 1280, 720, 0));
	output_with(&o, 2, 1280, 720);
	context_fit_images(a, pending, &o);
	ck_assert_uint_eq(json_array_size(o.images), 2);
	ck_assert_ptr_null(strstr(o.text, "not passed on"));
	/* But none over 2000 pixels a side past twenty. */
	output_with(&o, 2, 3000, 100);
	context_fit_images(a, pending, &o);
	ck_assert_ptr_null(o.images);
	ck_assert_str_eq(o.text, "[image image/png 3000x100 not passed on: "
	    "your conversation carries 20 images already, and a request with "
	    "more may hold none over 2000 pixels a side; images pass again "
	    "once the conversation is compacted]\n[image image/png 3000x100 "
	    "not passed on: your conversation carries 20 images already, and "
	    "a request with more may hold none over 2000 pixels a side; "
	    "images pass again once the conversation is compacted]");
	/* Nor a small one once a large one is there. */
	json_array_clear(pending);
	json_array_append_new(pending, result_with(1, 2001, 10, 0));
	for (i = 0; i < 19; i++)
		json_array_append_new(pending, result_with(1, 10, 10, 0));
	output_with(&o, 1, 10, 10);
	context_fit_images(a, pending, &o);
	ck_assert_ptr_null(o.images);
	/* Under twenty, large ones pass. */
	json_array_remove(pending, 19);
	output_with(&o, 2, 8000, 8000);
	context_fit_images(a, pending, &o);
	ck_assert_uint_eq(json_array_size(o.images), 1);
	ck_assert_ptr_nonnull(strstr(o.text, "8000x8000, passed to the "
	    "model]\n[image image/png 8000x8000 not passed on: your "
	    "conversation carries 20"));
	/* 20 MiB of images in all. */
	json_array_clear(pending);
	json_array_append_new(pending, result_with(4, 100, 100,
	    5 * 1024 * 1024 - 32));
	output_with(&o, 1, 100, 100);
	context_fit_images(a, pending, &o);
	ck_assert_ptr_null(o.images);
	ck_assert_ptr_nonnull(strstr(o.text, "would pass 20 MiB"));
	tool_output_clear(&o);
	json_decref(pending);
	lt_close(&l);
}
END_TEST

START_TEST(images_count_by_pixels_and_go_at_compaction)
{
	struct lt l;
	struct agent *a;
	char *err = NULL, *dump;
	int64_t plain, with;
	json_t *tr, *result;

	lt_init(&l, "{\"agents\": {\"lead\": [{\"text\": \"SUMMARY-9\"}]}}");
	lt_start(&l);
	a = lt_agent(&l, "lead");
	result = result_with(0, 0, 0, 0);
	json_array_append_new(a->turn.transcript,
	    transcript_user_text("Look."));
	json_array_append_new(a->turn.transcript,
	    json_pack("{s:s, s:[{s:s, s:s, "
	    "s:s, s:{}}]}", "role", "assistant", "content", "type", "tool_use",
	    "id", "toolu_1", "name", "mcp__b__shot", "input"));
	json_array_append_new(a->turn.transcript, json_pack("{s:s, s:[o]}",
	    "role",
	    "user", "content", result));
	json_array_append_new(a->turn.transcript, json_pack("{s:s, s:[{s:s, "
	    "s:s}]}", "role", "assistant", "content", "type", "text", "text",
	    "Seen."));
	a->turn.answered = json_array_size(a->turn.transcript);
	a->win.ctx_known = 0;
	plain = context_tokens(a);
	/* A 750 x 1500 image of a MiB of base64: 1500 tokens, not the
	 * quarter million its bytes would make. */
	json_array_append_new(json_object_get(result, "content"),
	    image_block(750, 1500, 1024 * 1024));
	with = context_tokens(a);
	ck_assert_int_ge(with - plain, 1500);
	ck_assert_int_lt(with - plain, 1600);
	/* Compacted, the round is text and the image a line. */
	ck_assert_int_eq(team_compact(l.team, "lead", &err), 0);
	lt_need(&l, EV_COMPACTION, "lead", "\"kind\":\"client\"");
	tr = transcript_load(team_store(l.team), "lead", &err);
	dump = json_dumps(json_array_get(tr, json_array_size(tr) - 1),
	    JSON_COMPACT);
	ck_assert_ptr_nonnull(strstr(dump, "SUMMARY-9"));
	ck_assert_ptr_nonnull(strstr(dump, "[an image (image/png), left out "
	    "at the compaction]"));
	ck_assert_ptr_null(strstr(dump, "AAAAAAAA"));
	free(dump);
	json_decref(tr);
	lt_close(&l);
}
END_TEST

static Suite *
context_suite(void)
{
	Suite *s = suite_create("context");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, compact_when_asked);
	tcase_add_test(tc, the_persons_requests_stay_out_of_a_compaction);
	tcase_add_test(tc, no_summary_keeps_the_conversation);
	tcase_add_test(tc, a_big_result_is_cut);
	tcase_add_test(tc, a_smaller_window_is_learnt);
	tcase_add_test(tc, images_stay_within_a_request);
	tcase_add_test(tc, images_count_by_pixels_and_go_at_compaction);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, context_suite());
}
