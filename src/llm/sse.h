/*
 * An incremental parser for Server-Sent Events (text/event-stream).
 *
 * Bytes may arrive in chunks of any size, split anywhere: mid-line,
 * between CR and LF, mid-UTF-8. Lines end in LF, CRLF or CR. Within an
 * event, "event:" sets its name, several "data:" lines join with "\n",
 * lines starting with ':' are comments, one space after the colon is
 * dropped, and unknown fields are ignored. "id:" and "retry:" are kept for
 * whoever resumes the stream (sse_last_id, sse_retry_ms). A blank line
 * dispatches the event — unless it had no data line, in which case nothing
 * is dispatched (the id it carried still counts). A leading UTF-8 byte
 * order mark is skipped. An event left unfinished when the stream ends is
 * discarded, as the standard says.
 */
#ifndef HUDDLE_LLM_SSE_H
#define HUDDLE_LLM_SSE_H

#include <stddef.h>

/* The largest event (name + data) accepted; beyond it feeding fails. */
#define SSE_MAX_EVENT (16u * 1024 * 1024)

/*
 * Called once per dispatched event. `event` is the event name, or
 * "message" when none was given (a NUL byte inside a name cuts it short);
 * `data` is NUL-terminated and `len` long. Return 0 to go on, or a
 * positive value to stop: sse_feed returns it, leaves the rest of that
 * buffer unparsed, and the next sse_feed carries on after the event that
 * stopped. The callback must not feed, reset or free its own parser.
 */
typedef int (*sse_event_fn)(void *ud, const char *event, const char *data,
    size_t len);

struct sse_parser;

struct sse_parser *sse_new(sse_event_fn fn, void *ud);
void sse_free(struct sse_parser *p);

/*
 * Feeds len bytes. Returns 0; the callback's value when it asked to stop;
 * or -1 when an event exceeds SSE_MAX_EVENT — and -1 again on every later
 * feed until sse_reset().
 */
int sse_feed(struct sse_parser *p, const char *buf, size_t len);

/* Forgets any partial event and line, ready for a new stream; the last
 * event id and the retry time are kept (a resumed stream goes on from
 * them). */
void sse_reset(struct sse_parser *p);

/* The longest event id kept; a longer one is ignored. */
#define SSE_MAX_ID 1024

/*
 * The last event id of the stream, as the standard has it: the value of
 * the last "id:" field of an event that ended (a blank line), even one
 * without data; "" when none came (or the last was empty). Valid until
 * the next feed.
 */
const char *sse_last_id(const struct sse_parser *p);

/* The reconnection time the stream asked for with "retry:" (digits
 * only), in ms, or -1 when it asked none. */
long sse_retry_ms(const struct sse_parser *p);

#endif
