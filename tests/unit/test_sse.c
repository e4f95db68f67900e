/*
 * Unit tests of llm/sse: the line and field rules, the byte order mark,
 * NUL bytes, the size cap, stopping from the callback, and above all that
 * the same stream gives the same events however it is cut into chunks.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "llm/sse.h"
#include "testutil.h"
#include "util/clock.h"
#include "util/xmalloc.h"

/* --- recording what the parser dispatches ------------------------------ */

struct ev {
	char	*name;
	char	*data;
	size_t	 len;
};

struct rec {
	struct ev	*ev;
	size_t		 n;
	size_t		 cap;
	size_t		 stop_at;	/* return stop_rc on this event (1-based) */
	int		 stop_rc;
};

static int
rec_event(void *ud, const char *event, const char *data, size_t len)
{
	struct rec *r = ud;
	struct ev *e;

	ck_assert_ptr_nonnull(event);
	ck_assert_ptr_nonnull(data);
	/* The data is NUL-terminated as promised. */
	ck_assert_int_eq(data[len], '\0');
	r->ev = xgrow(r->ev, &r->cap, r->n + 1, sizeof *r->ev);
	e = &r->ev[r->n++];
	e->name = xstrdup(event);
	e->data = xmalloc(len + 1);
	memcpy(e->data, data, len + 1);
	e->len = len;
	if (r->stop_at != 0 && r->n == r->stop_at)
		return r->stop_rc;
	return 0;
}

static void
rec_clear(struct rec *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->ev[i].name);
		free(r->ev[i].data);
	}
	free(r->ev);
	memset(r, 0, sizeof *r);
}

static void
rec_assert_equal(const struct rec *a, const struct rec *b, const char *how)
{
	size_t i;

	ck_assert_msg(a->n == b->n, "%s: %zu events, expected %zu", how, b->n,
	    a->n);
	for (i = 0; i < a->n; i++) {
		ck_assert_msg(strcmp(a->ev[i].name, b->ev[i].name) == 0,
		    "%s: event %zu is '%s', expected '%s'", how, i,
		    b->ev[i].name, a->ev[i].name);
		ck_assert_msg(a->ev[i].len == b->ev[i].len &&
		    memcmp(a->ev[i].data, b->ev[i].data, a->ev[i].len) == 0,
		    "%s: event %zu data differs", how, i);
	}
}

/* Checks event i of r against a name and a NUL-terminated data string. */
static void
rec_assert_event(const struct rec *r, size_t i, const char *name,
    const char *data)
{
	ck_assert_uint_gt(r->n, i);
	ck_assert_str_eq(r->ev[i].name, name);
	ck_assert_uint_eq(r->ev[i].len, strlen(data));
	ck_assert_mem_eq(r->ev[i].data, data, r->ev[i].len);
}

/* Feeds s whole to a new parser; returns sse_feed's result. */
static int
feed_whole(const char *s, size_t len, struct rec *r)
{
	struct sse_parser *p = sse_new(rec_event, r);
	int rc = sse_feed(p, s, len);

	sse_free(p);
	return rc;
}

static int
feed_str(const char *s, struct rec *r)
{
	return feed_whole(s, strlen(s), r);
}

/* Feeds s cut at the given increasing offsets, each chunk a separate
 * heap copy so that reading past a chunk shows up under ASan. */
static void
feed_cuts(const char *s, size_t len, const size_t *cuts, size_t ncuts,
    struct rec *r)
{
	struct sse_parser *p = sse_new(rec_event, r);
	size_t i, from = 0, to;
	char *chunk;

	for (i = 0; i <= ncuts; i++) {
		to = i < ncuts ? cuts[i] : len;
		chunk = xmalloc(to - from + 1);
		memcpy(chunk, s + from, to - from);
		ck_assert_int_eq(sse_feed(p, chunk, to - from), 0);
		free(chunk);
		from = to;
	}
	sse_free(p);
}

/* A small fixed-seed generator, the same on every libc. */
static uint32_t
next_rand(uint32_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

/*
 * Feeds s whole, one byte at a time, split at every single point, and in
 * 200 random chunkings, and checks every way gives the events in want.
 */
static void
check_all_splits(const char *s, size_t len, const struct rec *want)
{
	struct rec got = { 0 };
	size_t *cuts = xmalloc((len + 1) * sizeof *cuts), i, n, k;
	uint32_t seed = 0x5eed1234;
	int iter;

	ck_assert_int_eq(feed_whole(s, len, &got), 0);
	rec_assert_equal(want, &got, "whole");
	rec_clear(&got);

	for (i = 0; i < len; i++)
		cuts[i] = i + 1;
	feed_cuts(s, len, cuts, len, &got);
	rec_assert_equal(want, &got, "byte by byte");
	rec_clear(&got);

	for (k = 0; k <= len; k++) {
		feed_cuts(s, len, &k, 1, &got);
		rec_assert_equal(want, &got, "one split");
		rec_clear(&got);
	}

	for (iter = 0; iter < 200; iter++) {
		n = 0;
		i = 0;
		for (;;) {
			/* Mostly short chunks, sometimes long ones. */
			i += 1 + next_rand(&seed) % (next_rand(&seed) % 4 ?
			    8 : 200);
			if (i >= len)
				break;
			cuts[n++] = i;
		}
		feed_cuts(s, len, cuts, n, &got);
		rec_assert_equal(want, &got, "random chunks");
		rec_clear(&got);
	}
	free(cuts);
}

/* Returns a copy of s with every LF replaced by eol; free it. */
static char *
with_line_ends(const char *s, const char *eol, size_t *outlen)
{
	size_t len = strlen(s), elen = strlen(eol), i, o = 0;
	char *out = xmalloc(len * elen + 1);

	for (i = 0; i < len; i++) {
		if (s[i] == '\n') {
			memcpy(out + o, eol, elen);
			o += elen;
		} else
			out[o++] = s[i];
	}
	out[o] = '\0';
	*outlen = o;
	return out;
}

/* --- the literal examples of the two APIs' streaming pages ------------------------ */

static const char anthropic_stream[] =
"event: message_start\n"
"data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_014p7gG3wDgGV9EUtLvnow3U\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":472,\"output_tokens\":2}}}\n"
"\n"
"event: content_block_start\n"
"data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n"
"\n"
"event: ping\n"
"data: {\"type\": \"ping\"}\n"
"\n"
"event: content_block_delta\n"
"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Okay, let's check\"}}\n"
"\n"
"event: content_block_stop\n"
"data: {\"type\":\"content_block_stop\",\"index\":0}\n"
"\n"
"event: content_block_start\n"
"data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01T1x1fJ34qAmk2tNTrN7Up6\",\"name\":\"get_weather\",\"input\":{}}}\n"
"\n"
"event: content_block_delta\n"
"data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n"
"\n"
"event: content_block_delta\n"
"data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"location\\\": \\\"San Fra\"}}\n"
"\n"
"event: content_block_delta\n"
"data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"ncisco, CA\\\"}\"}}\n"
"\n"
"event: content_block_stop\n"
"data: {\"type\":\"content_block_stop\",\"index\":1}\n"
"\n"
"event: message_delta\n"
"data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":89}}\n"
"\n"
"event: message_stop\n"
"data: {\"type\":\"message_stop\"}\n"
"\n";

static const char *const anthropic_names[] = {
	"message_start", "content_block_start", "ping", "content_block_delta",
	"content_block_stop", "content_block_start", "content_block_delta",
	"content_block_delta", "content_block_delta", "content_block_stop",
	"message_delta", "message_stop"
};

static const char openai_stream[] =
"data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n"
"\n"
"data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n"
"\n"
"data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"location\\\":\\\"Paris\\\"}\"}}]},\"finish_reason\":null}]}\n"
"\n"
"data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n"
"\n"
"data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5,\"total_tokens\":15}}\n"
"\n"
"data: [DONE]\n"
"\n";

/* The events the Anthropic example must give, checked by hand. */
static void
anthropic_expected(struct rec *want)
{
	size_t i;

	ck_assert_int_eq(feed_str(anthropic_stream, want), 0);
	ck_assert_uint_eq(want->n, sizeof anthropic_names /
	    sizeof *anthropic_names);
	for (i = 0; i < want->n; i++) {
		ck_assert_str_eq(want->ev[i].name, anthropic_names[i]);
		/* Each data is one JSON object whose type is the name. */
		ck_assert_int_eq(want->ev[i].data[0], '{');
		ck_assert_int_eq(want->ev[i].data[want->ev[i].len - 1], '}');
		ck_assert_uint_eq(want->ev[i].len, strlen(want->ev[i].data));
	}
	rec_assert_event(want, 2, "ping", "{\"type\": \"ping\"}");
	rec_assert_event(want, 7, "content_block_delta",
	    "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":"
	    "\"input_json_delta\",\"partial_json\":\"{\\\"location\\\": "
	    "\\\"San Fra\"}}");
	rec_assert_event(want, 11, "message_stop",
	    "{\"type\":\"message_stop\"}");
}

static void
openai_expected(struct rec *want)
{
	size_t i;

	ck_assert_int_eq(feed_str(openai_stream, want), 0);
	ck_assert_uint_eq(want->n, 6);
	for (i = 0; i < want->n; i++)
		ck_assert_str_eq(want->ev[i].name, "message");
	rec_assert_event(want, 3, "message", "{\"id\":\"chatcmpl-1\",\"object\":"
	    "\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
	    "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":"
	    "\"tool_calls\"}]}");
	rec_assert_event(want, 5, "message", "[DONE]");
}

/* --- edge cases ------------------------------------------------------------ */

START_TEST(empty_input_gives_nothing)
{
	struct rec r = { 0 };
	struct sse_parser *p = sse_new(rec_event, &r);

	ck_assert_int_eq(sse_feed(p, NULL, 0), 0);
	ck_assert_int_eq(sse_feed(p, "", 0), 0);
	/* Blank lines alone dispatch nothing, in any line-end style. */
	ck_assert_int_eq(sse_feed(p, "\n\n\r\n\r\r\n\n", 9), 0);
	ck_assert_uint_eq(r.n, 0);
	sse_free(p);
	sse_free(NULL);
}
END_TEST

START_TEST(comments_only_give_nothing)
{
	struct rec r = { 0 };

	ck_assert_int_eq(feed_str(": hello\n:\n\n: data: x\n\n:data\n\n", &r),
	    0);
	ck_assert_uint_eq(r.n, 0);

	/* Comments inside an event change nothing in it. */
	ck_assert_int_eq(feed_str("event: e\n: note\ndata: a\n:\ndata: b\n\n",
	    &r), 0);
	ck_assert_uint_eq(r.n, 1);
	rec_assert_event(&r, 0, "e", "a\nb");
	rec_clear(&r);
}
END_TEST

START_TEST(anthropic_example_any_chunking)
{
	struct rec want = { 0 };

	anthropic_expected(&want);
	check_all_splits(anthropic_stream, strlen(anthropic_stream), &want);
	rec_clear(&want);
}
END_TEST

START_TEST(openai_example_any_chunking)
{
	struct rec want = { 0 };

	openai_expected(&want);
	check_all_splits(openai_stream, strlen(openai_stream), &want);
	rec_clear(&want);
}
END_TEST

START_TEST(crlf_and_cr_streams_give_the_same_events)
{
	static const char *const eols[] = { "\r\n", "\r" };
	struct rec want = { 0 };
	size_t i, len;
	char *s;

	anthropic_expected(&want);
	for (i = 0; i < 2; i++) {
		s = with_line_ends(anthropic_stream, eols[i], &len);
		check_all_splits(s, len, &want);
		free(s);
	}
	rec_clear(&want);

	openai_expected(&want);
	for (i = 0; i < 2; i++) {
		s = with_line_ends(openai_stream, eols[i], &len);
		check_all_splits(s, len, &want);
		free(s);
	}
	rec_clear(&want);
}
END_TEST

START_TEST(cr_then_lf_in_the_next_chunk_is_one_line_end)
{
	struct rec r = { 0 };
	struct sse_parser *p = sse_new(rec_event, &r);

	/* Were the LF a second line end, "a" would be dispatched alone. */
	ck_assert_int_eq(sse_feed(p, "data: a\r", 8), 0);
	ck_assert_int_eq(sse_feed(p, "\ndata: b\r", 9), 0);
	ck_assert_int_eq(sse_feed(p, "\n", 1), 0);
	ck_assert_uint_eq(r.n, 0);
	ck_assert_int_eq(sse_feed(p, "\r", 1), 0);
	ck_assert_uint_eq(r.n, 1);
	rec_assert_event(&r, 0, "message", "a\nb");
	/* This LF completes the CRLF of the blank line: no second event. */
	ck_assert_int_eq(sse_feed(p, "\n", 1), 0);
	ck_assert_uint_eq(r.n, 1);

	/* CR CR is a line end and a blank line, split or not. */
	ck_assert_int_eq(sse_feed(p, "data: c\r", 8), 0);
	ck_assert_int_eq(sse_feed(p, "\r", 1), 0);
	ck_assert_uint_eq(r.n, 2);
	rec_assert_event(&r, 1, "message", "c");

	/* An empty chunk between CR and LF does not forget the CR. */
	ck_assert_int_eq(sse_feed(p, "data: d\r", 8), 0);
	ck_assert_int_eq(sse_feed(p, "", 0), 0);
	ck_assert_int_eq(sse_feed(p, "\ndata: e\n\n", 10), 0);
	ck_assert_uint_eq(r.n, 3);
	rec_assert_event(&r, 2, "message", "d\ne");

	/* LF CR is two line ends, so a blank line. */
	ck_assert_int_eq(sse_feed(p, "data: f\n\rdata: g\n\n", 18), 0);
	ck_assert_uint_eq(r.n, 5);
	rec_assert_event(&r, 3, "message", "f");
	rec_assert_event(&r, 4, "message", "g");
	sse_free(p);
	rec_clear(&r);
}
END_TEST

START_TEST(multi_line_data_joins_with_lf)
{
	struct rec r = { 0 };

	ck_assert_int_eq(feed_str("data: a\ndata:\ndata: c\n\n"
	    "data: x\r\ndata: y\rdata: z\n\n", &r), 0);
	ck_assert_uint_eq(r.n, 2);
	rec_assert_event(&r, 0, "message", "a\n\nc");
	rec_assert_event(&r, 1, "message", "x\ny\nz");
	rec_clear(&r);
}
END_TEST

START_TEST(field_without_colon_has_empty_value)
{
	struct rec r = { 0 };

	ck_assert_int_eq(feed_str("data\n\n", &r), 0);
	ck_assert_uint_eq(r.n, 1);
	rec_assert_event(&r, 0, "message", "");
	rec_clear(&r);

	ck_assert_int_eq(feed_str("data\ndata\n\ndata: a\ndata\n\n", &r), 0);
	ck_assert_uint_eq(r.n, 2);
	rec_assert_event(&r, 0, "message", "\n");
	rec_assert_event(&r, 1, "message", "a\n");
	rec_clear(&r);

	/* "event" alone clears the name; unknown fields are ignored. */
	ck_assert_int_eq(feed_str("event: x\nevent\nfoo\nid\nretry\n"
	    "data: y\n\n", &r), 0);
	ck_assert_uint_eq(r.n, 1);
	rec_assert_event(&r, 0, "message", "y");
	rec_clear(&r);

	/* Names are matched whole and case-sensitively. */
	ck_assert_int_eq(feed_str("Data: a\ndat: b\ndatas: c\ndata : d\n"
	    "eventname: e\n\n", &r), 0);
	ck_assert_uint_eq(r.n, 0);
}
END_TEST

START_TEST(colon_with_no_space_and_with_two_spaces)
{
	struct rec r = { 0 };

	ck_assert_int_eq(feed_str("data:x\n\n", &r), 0);
	ck_assert_uint_eq(r.n, 1);
	rec_assert_event(&r, 0, "message", "x");
	rec_clear(&r);

	/* Only one space goes; other blanks and later colons stay. */
	ck_assert_int_eq(feed_str("event:  e\ndata:  two spaces\n"
	    "data:\tt: u\ndata: \n\n", &r), 0);
	ck_assert_uint_eq(r.n, 1);
	rec_assert_event(&r, 0, " e", " two spaces\n\tt: u\n");
	rec_clear(&r);
}
END_TEST

START_TEST(event_name_resets_after_each_dispatch)
{
	struct rec r = { 0 };

	ck_assert_int_eq(feed_str("event: a\ndata: 1\n\ndata: 2\n\n"
	    "event: b\n\ndata: 3\n\n"
	    "event: c\nevent: d\ndata: 4\n\n"
	    "event:\ndata: 5\n\n", &r), 0);
	ck_assert_uint_eq(r.n, 5);
	rec_assert_event(&r, 0, "a", "1");
	rec_assert_event(&r, 1, "message", "2");
	/* b had no data: not dispatched, but its name is gone too. */
	rec_assert_event(&r, 2, "message", "3");
	rec_assert_event(&r, 3, "d", "4");
	rec_assert_event(&r, 4, "message", "5");
	rec_clear(&r);
}
END_TEST

START_TEST(event_without_data_is_not_dispatched)
{
	struct rec r = { 0 };

	ck_assert_int_eq(feed_str("event: ping\n\nid: 7\nretry: 100\n\n"
	    "event: x\n: data: y\n\nfoo: bar\n\n", &r), 0);
	ck_assert_uint_eq(r.n, 0);
}
END_TEST

START_TEST(empty_data_is_dispatched)
{
	struct rec r = { 0 };

	ck_assert_int_eq(feed_str("data:\n\nevent: e\ndata: \n\n", &r), 0);
	ck_assert_uint_eq(r.n, 2);
	rec_assert_event(&r, 0, "message", "");
	rec_assert_event(&r, 1, "e", "");
	rec_clear(&r);
}
END_TEST

START_TEST(bom_is_skipped_at_the_start_only)
{
	static const char s[] = "\xef\xbb\xbf" "data: a\n\n";
	struct rec want = { 0 }, r = { 0 };
	struct sse_parser *p;

	ck_assert_int_eq(feed_str("data: a\n\n", &want), 0);
	/* Whole, byte by byte, split inside the BOM: all the same. */
	check_all_splits(s, strlen(s), &want);
	rec_clear(&want);

	/* A second BOM is part of the field name, which then is not data. */
	ck_assert_int_eq(feed_str("\xef\xbb\xbf\xef\xbb\xbf" "data: a\n\n", &r),
	    0);
	ck_assert_uint_eq(r.n, 0);
	ck_assert_int_eq(feed_str("data: a\n\n\xef\xbb\xbf" "data: b\n\n", &r),
	    0);
	ck_assert_uint_eq(r.n, 1);
	rec_assert_event(&r, 0, "message", "a");
	rec_clear(&r);

	/* The start of a BOM that is not one is kept as text, whether its
	 * bytes come together or apart. */
	ck_assert_int_eq(feed_str("\xef\xbb" "data: a\n\n", &r), 0);
	ck_assert_int_eq(feed_str("\xef" "data: a\n\n", &r), 0);
	ck_assert_uint_eq(r.n, 0);
	p = sse_new(rec_event, &r);
	ck_assert_int_eq(sse_feed(p, "\xef", 1), 0);
	ck_assert_int_eq(sse_feed(p, "\xbb", 1), 0);
	ck_assert_int_eq(sse_feed(p, "\xbf\xbb" "data: a\n\n", 11), 0);
	ck_assert_uint_eq(r.n, 0);

	/* After sse_reset a new stream may start with a BOM again. */
	sse_reset(p);
	ck_assert_int_eq(sse_feed(p, s, strlen(s)), 0);
	ck_assert_uint_eq(r.n, 1);
	rec_assert_event(&r, 0, "message", "a");
	sse_free(p);
	rec_clear(&r);
}
END_TEST

START_TEST(nul_bytes_are_ordinary_bytes)
{
	static const char s[] =
	    "data: a\0b\n"
	    ": comment \0 with a NUL\n"
	    "data: \0\n"
	    "\0data: not data\n"
	    "data\0: not data either\n"
	    "\n";
	struct rec want = { 0 }, r = { 0 };

	ck_assert_int_eq(feed_whole(s, sizeof s - 1, &want), 0);
	ck_assert_uint_eq(want.n, 1);
	ck_assert_str_eq(want.ev[0].name, "message");
	ck_assert_uint_eq(want.ev[0].len, 5);
	ck_assert_mem_eq(want.ev[0].data, "a\0b\n\0", 5);
	check_all_splits(s, sizeof s - 1, &want);
	rec_clear(&want);

	/* A NUL right after the colon is a value byte, not a space. */
	ck_assert_int_eq(feed_whole("data:\0x\n\n", 9, &r), 0);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_uint_eq(r.ev[0].len, 2);
	ck_assert_mem_eq(r.ev[0].data, "\0x", 2);
	rec_clear(&r);
}
END_TEST

START_TEST(unfinished_event_is_discarded)
{
	struct rec r = { 0 };
	struct sse_parser *p;

	ck_assert_int_eq(feed_str("data: a\n\ndata: b\n", &r), 0);
	ck_assert_int_eq(feed_str("data: a\n\ndata: b", &r), 0);
	ck_assert_int_eq(feed_str("data: a\n\nevent: x\ndata: b\r", &r), 0);
	ck_assert_uint_eq(r.n, 3);
	rec_assert_event(&r, 0, "message", "a");
	rec_assert_event(&r, 1, "message", "a");
	rec_assert_event(&r, 2, "message", "a");
	rec_clear(&r);

	/* sse_reset forgets the partial event and line: the blank line
	 * that follows dispatches nothing, and the old name is gone. */
	p = sse_new(rec_event, &r);
	ck_assert_int_eq(sse_feed(p, "event: x\ndata: b\ndata: par", 26), 0);
	sse_reset(p);
	ck_assert_int_eq(sse_feed(p, "tial\n\n", 6), 0);
	ck_assert_uint_eq(r.n, 0);
	ck_assert_int_eq(sse_feed(p, "data: c\n\n", 9), 0);
	ck_assert_uint_eq(r.n, 1);
	rec_assert_event(&r, 0, "message", "c");
	/* A CR pending at the reset does not eat the new stream's LF. */
	ck_assert_int_eq(sse_feed(p, "data: d\r", 8), 0);
	sse_reset(p);
	ck_assert_int_eq(sse_feed(p, "\ndata: e\n\n", 10), 0);
	ck_assert_uint_eq(r.n, 2);
	rec_assert_event(&r, 1, "message", "e");
	sse_free(p);
	rec_clear(&r);
}
END_TEST

/* Feeds s to a new parser in chunks of `chunk` bytes; returns it (free
 * with sse_free) for its id and retry. */
static struct sse_parser *
feed_chunked(const char *s, size_t chunk, struct rec *r)
{
	struct sse_parser *p = sse_new(rec_event, r);
	size_t len = strlen(s), off, n;

	for (off = 0; off < len; off += n) {
		n = len - off < chunk ? len - off : chunk;
		ck_assert_int_eq(sse_feed(p, s + off, n), 0);
	}
	return p;
}

START_TEST(ids_and_retry_are_kept_for_resuming)
{
	/* The priming event of a resumable stream: an id, a retry and an
	 * empty data line; then a message with its own id; then an id in
	 * an event left unfinished, which never counts. */
	static const char stream[] = "id: ev-1\nretry: 500\ndata: \n\n"
	    "event: message\nid: ev-2\ndata: {}\n\nid: ev-3\ndata: x";
	struct sse_parser *p;
	struct rec r = { 0 };
	size_t chunk;
	char *big;

	for (chunk = 1; chunk <= sizeof stream; chunk++) {
		p = feed_chunked(stream, chunk, &r);
		ck_assert_str_eq(sse_last_id(p), "ev-2");
		ck_assert_int_eq(sse_retry_ms(p), 500);
		ck_assert_uint_eq(r.n, 2);
		rec_assert_event(&r, 0, "message", "");
		rec_assert_event(&r, 1, "message", "{}");
		/* A reset (a new connection) keeps what resuming needs and
		 * drops the unfinished event's id. */
		sse_reset(p);
		ck_assert_str_eq(sse_last_id(p), "ev-2");
		ck_assert_int_eq(sse_feed(p, "data: y\n\n", 9), 0);
		ck_assert_str_eq(sse_last_id(p), "ev-2");
		sse_free(p);
		rec_clear(&r);
	}

	/* An id on an event without data counts; a retry that is not all
	 * digits, an id with a NUL, and an overlong id are ignored. */
	p = feed_chunked("id: a\n\nretry: 5s\nretry\n\n", 3, &r);
	ck_assert_str_eq(sse_last_id(p), "a");
	ck_assert_int_eq(sse_retry_ms(p), -1);
	ck_assert_int_eq(sse_feed(p, "id: b\0c\n\n", 9), 0);
	ck_assert_str_eq(sse_last_id(p), "a");
	big = xmalloc(SSE_MAX_ID + 16);
	memcpy(big, "id: ", 4);
	memset(big + 4, 'z', SSE_MAX_ID + 1);
	memcpy(big + 5 + SSE_MAX_ID, "\n\n", 3);
	ck_assert_int_eq(sse_feed(p, big, strlen(big)), 0);
	ck_assert_str_eq(sse_last_id(p), "a");
	/* An empty id forgets the last one. */
	ck_assert_int_eq(sse_feed(p, "id\nretry: 20\n\n", 14), 0);
	ck_assert_str_eq(sse_last_id(p), "");
	ck_assert_int_eq(sse_retry_ms(p), 20);
	ck_assert_uint_eq(r.n, 0);
	free(big);
	sse_free(p);
}
END_TEST

START_TEST(utf8_split_mid_sequence_arrives_intact)
{
	/* é (2 bytes), ✓ (3), 😀 (4), in the name and in the data. */
	static const char s[] =
	    "event: h\xc3\xa9llo \xe2\x9c\x93\n"
	    "data: caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80\n"
	    "data: \xf0\x9f\x98\x80\n\n";
	struct rec want = { 0 };

	ck_assert_int_eq(feed_str(s, &want), 0);
	ck_assert_uint_eq(want.n, 1);
	rec_assert_event(&want, 0, "h\xc3\xa9llo \xe2\x9c\x93",
	    "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80\n\xf0\x9f\x98\x80");
	check_all_splits(s, strlen(s), &want);
	rec_clear(&want);
}
END_TEST

START_TEST(mixed_stream_any_chunking)
{
	/* Everything at once: a BOM, all line ends, comments, unknown and
	 * colonless fields, empty data, NULs and a trailing partial event. */
	static const char s[] =
	    "\xef\xbb\xbf: hi\r\n"
	    "event: one\rdata: 1\r\ndata:2\n\r\n"
	    "id: 5\nretry\ndata\r\r"
	    "event: \xe2\x9c\x93\ndata: \0z\n\n"
	    ":\n\r"
	    "data:  sp\r\nevent\ndata\n\n"
	    "event: gone\ndata: never";
	struct rec want = { 0 };

	ck_assert_int_eq(feed_whole(s, sizeof s - 1, &want), 0);
	ck_assert_uint_eq(want.n, 4);
	rec_assert_event(&want, 0, "one", "1\n2");
	rec_assert_event(&want, 1, "message", "");
	ck_assert_str_eq(want.ev[2].name, "\xe2\x9c\x93");
	ck_assert_uint_eq(want.ev[2].len, 2);
	ck_assert_mem_eq(want.ev[2].data, "\0z", 2);
	rec_assert_event(&want, 3, "message", " sp\n");
	check_all_splits(s, sizeof s - 1, &want);
	rec_clear(&want);
}
END_TEST

/* Feeds n bytes to p, repeating chunk (1 MiB of filler) as needed. */
static int
feed_fill(struct sse_parser *p, char *chunk, size_t n)
{
	size_t step;
	int rc;

	while (n > 0) {
		step = n < (1u << 20) ? n : (1u << 20);
		if ((rc = sse_feed(p, chunk, step)) != 0)
			return rc;
		n -= step;
	}
	return 0;
}

START_TEST(size_cap_fails_then_reset_recovers)
{
	struct rec r = { 0 };
	struct sse_parser *p = sse_new(rec_event, &r);
	char *chunk = xmalloc(1u << 20);

	memset(chunk, 'x', 1u << 20);

	/* Exactly SSE_MAX_EVENT of name and data is accepted... */
	ck_assert_int_eq(sse_feed(p, "event: ab\ndata: ", 16), 0);
	ck_assert_int_eq(feed_fill(p, chunk, SSE_MAX_EVENT - 2), 0);
	ck_assert_int_eq(sse_feed(p, "\n\n", 2), 0);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_str_eq(r.ev[0].name, "ab");
	ck_assert_uint_eq(r.ev[0].len, SSE_MAX_EVENT - 2);
	rec_clear(&r);

	/* ...one byte more is not, even as the \n joining a data line... */
	ck_assert_int_eq(sse_feed(p, "data: ", 6), 0);
	ck_assert_int_eq(feed_fill(p, chunk, SSE_MAX_EVENT), 0);
	ck_assert_int_eq(sse_feed(p, "\ndata\n", 6), -1);
	/* ...and the parser stays failed until it is reset. */
	ck_assert_int_eq(sse_feed(p, "\n\ndata: z\n\n", 11), -1);
	ck_assert_uint_eq(r.n, 0);

	/* An endless value fails as soon as it passes the cap. */
	sse_reset(p);
	ck_assert_int_eq(sse_feed(p, "data: ", 6), 0);
	ck_assert_int_eq(feed_fill(p, chunk, SSE_MAX_EVENT), 0);
	ck_assert_int_eq(sse_feed(p, "y", 1), -1);

	/* After a reset the same parser works normally. */
	sse_reset(p);
	ck_assert_int_eq(sse_feed(p, "data: ok\n\n", 10), 0);
	ck_assert_uint_eq(r.n, 1);
	rec_assert_event(&r, 0, "message", "ok");
	rec_clear(&r);

	/* Comments and ignored fields are not stored, so any length of
	 * them is fine. */
	ck_assert_int_eq(sse_feed(p, ":", 1), 0);
	ck_assert_int_eq(feed_fill(p, chunk, SSE_MAX_EVENT + 100), 0);
	ck_assert_int_eq(sse_feed(p, "\nid: ", 5), 0);
	ck_assert_int_eq(feed_fill(p, chunk, SSE_MAX_EVENT + 100), 0);
	ck_assert_int_eq(feed_fill(p, chunk, SSE_MAX_EVENT + 100), 0);
	ck_assert_int_eq(sse_feed(p, "\ndata: fine\n\n", 13), 0);
	ck_assert_uint_eq(r.n, 1);
	rec_assert_event(&r, 0, "message", "fine");
	rec_clear(&r);
	free(chunk);
	sse_free(p);
}
END_TEST

START_TEST(callback_stops_the_parse)
{
	static const char s[] = "data: 1\n\ndata: 2\n\ndata: 3\n\n";
	struct rec r = { 0 };
	struct sse_parser *p = sse_new(rec_event, &r);

	r.stop_at = 2;
	r.stop_rc = 42;
	ck_assert_int_eq(sse_feed(p, s, strlen(s)), 42);
	/* The third event, already in the buffer, is not delivered. */
	ck_assert_uint_eq(r.n, 2);
	rec_assert_event(&r, 1, "message", "2");

	/* Any non-zero value stops, -1 included; the next call goes on from
	 * after the event that stopped. */
	r.stop_at = 3;
	r.stop_rc = -1;
	ck_assert_int_eq(sse_feed(p, "data: 4\n\ndata: 5\n\n", 18), -1);
	ck_assert_uint_eq(r.n, 3);
	rec_assert_event(&r, 2, "message", "4");
	ck_assert_int_eq(sse_feed(p, "data: 6\n\n", 9), 0);
	ck_assert_uint_eq(r.n, 4);
	rec_assert_event(&r, 3, "message", "6");
	sse_free(p);
	rec_clear(&r);
}
END_TEST

/* The CPU time this thread has used, in microseconds. */
static int64_t
cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

START_TEST(megabyte_line_in_small_chunks_is_fast)
{
	struct rec r = { 0 };
	struct sse_parser *p = sse_new(rec_event, &r);
	size_t total = 1u << 20, i;
	char chunk[1024];
	int64_t start, took;

	memset(chunk, 'z', sizeof chunk);
	start = cpu_us();
	ck_assert_int_eq(sse_feed(p, "data: ", 6), 0);
	for (i = 0; i < total / sizeof chunk; i++)
		ck_assert_int_eq(sse_feed(p, chunk, sizeof chunk), 0);
	ck_assert_int_eq(sse_feed(p, "\n\n", 2), 0);

	/* And a hundred thousand small events, one line at a time. */
	for (i = 0; i < 100000; i++) {
		ck_assert_int_eq(sse_feed(p, "event: e\n", 9), 0);
		ck_assert_int_eq(sse_feed(p, "data: 0123456789\n\n", 18), 0);
	}
	took = cpu_us() - start;
	ck_assert_uint_eq(r.n, 100001);
	ck_assert_uint_eq(r.ev[0].len, total);
	ck_assert_int_eq(r.ev[0].data[0], 'z');
	ck_assert_int_eq(r.ev[0].data[total - 1], 'z');
	rec_assert_event(&r, 100000, "e", "0123456789");
	/* Linear work takes milliseconds of the thread's own time (about a
	 * second under TSan); a quadratic rescan of the line would take
	 * minutes. The thread's time, not the wall clock's: a loaded
	 * machine must not make linear work look slow. */
	ck_assert_msg(took < 10 * 1000 * 1000, "took %lld us", (long long)took);
	sse_free(p);
	rec_clear(&r);
}
END_TEST

static Suite *
sse_suite(void)
{
	Suite *s = suite_create("sse");
	TCase *edge = tcase_create("edge");
	TCase *streams = tcase_create("streams");
	TCase *big = tcase_create("big");

	tcase_add_test(edge, empty_input_gives_nothing);
	tcase_add_test(edge, comments_only_give_nothing);
	tcase_add_test(edge, cr_then_lf_in_the_next_chunk_is_one_line_end);
	tcase_add_test(edge, multi_line_data_joins_with_lf);
	tcase_add_test(edge, field_without_colon_has_empty_value);
	tcase_add_test(edge, colon_with_no_space_and_with_two_spaces);
	tcase_add_test(edge, event_name_resets_after_each_dispatch);
	tcase_add_test(edge, event_without_data_is_not_dispatched);
	tcase_add_test(edge, empty_data_is_dispatched);
	tcase_add_test(edge, bom_is_skipped_at_the_start_only);
	tcase_add_test(edge, nul_bytes_are_ordinary_bytes);
	tcase_add_test(edge, unfinished_event_is_discarded);
	tcase_add_test(edge, ids_and_retry_are_kept_for_resuming);
	tcase_add_test(edge, utf8_split_mid_sequence_arrives_intact);
	tcase_add_test(edge, callback_stops_the_parse);
	suite_add_tcase(s, edge);

	/* Every split of every example: many feeds, slow under sanitizers. */
	tcase_set_timeout(streams, 300);
	tcase_add_test(streams, anthropic_example_any_chunking);
	tcase_add_test(streams, openai_example_any_chunking);
	tcase_add_test(streams, crlf_and_cr_streams_give_the_same_events);
	tcase_add_test(streams, mixed_stream_any_chunking);
	suite_add_tcase(s, streams);

	tcase_set_timeout(big, 120);
	tcase_add_test(big, size_cap_fails_then_reset_recovers);
	tcase_add_test(big, megabyte_line_in_small_chunks_is_fast);
	suite_add_tcase(s, big);
	return s;
}

int
main(void)
{
	return tu_run(sse_suite());
}
