/*
 * The incremental Server-Sent Events parser (see sse.h).
 *
 * There is no line buffer. A line is read as it arrives: its field name
 * (at most five bytes matter, "event") is kept aside until the colon or
 * the line end says what the line is, and from then on the value is
 * copied straight into the buffer of the event being built, or skipped.
 * So each input byte is looked at once and copied at most once, a line
 * split across chunks costs nothing extra, and a long comment or unknown
 * field is dropped without being stored: the only memory that grows is
 * the event itself, and SSE_MAX_EVENT bounds it.
 *
 * A CR ends a line at once; the parser remembers it, so that an LF right
 * after it, even at the start of the next chunk, only completes the CRLF
 * and does not end a second (blank) line.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "llm/sse.h"
#include "util/xmalloc.h"

/* First sizes of the buffers, and the size above which sse_reset gives a
 * buffer back rather than keep it for the next stream. */
#define SSE_DATA_INIT	256
#define SSE_EVENT_INIT	32
#define SSE_KEEP	(64 * 1024)

enum sse_state {
	SSE_FIELD,	/* reading the field name */
	SSE_SPACE,	/* just past the colon: one space may follow */
	SSE_VALUE,	/* copying the value to its buffer */
	SSE_SKIP	/* a comment or ignored field: drop up to the line end */
};

/* A growable byte string, always with room for a terminating NUL. */
struct sse_buf {
	char	*s;
	size_t	 len;
	size_t	 cap;
};

struct sse_parser {
	sse_event_fn	 fn;
	void		*ud;

	enum sse_state	 state;
	char		 field[5];	/* long enough for "event" */
	size_t		 fieldlen;
	struct sse_buf	*target;	/* where SSE_VALUE bytes go */
	int		 cr;		/* the last line ended in CR */
	int		 started;	/* past the byte order mark, if any */
	size_t		 bom;		/* bytes of a byte order mark seen */
	int		 failed;	/* an event grew too big */

	struct sse_buf	 event;		/* the event name so far */
	struct sse_buf	 data;		/* its data lines, joined with \n */
	int		 has_data;	/* a data line was seen */

	/* "id:" and "retry:": the value of the line being read (at most
	 * SSE_MAX_ID bytes; longer is marked and ignored), the id of the
	 * event being built, the id of the last event that ended, and the
	 * retry time asked. */
	struct sse_buf	 small;
	int		 small_long;
	struct sse_buf	*line_field;	/* &small: an id or retry line */
	int		 line_is_id;
	char		 next_id[SSE_MAX_ID + 1];
	char		 last_id[SSE_MAX_ID + 1];
	long		 retry_ms;
};

static void
sse_buf_init(struct sse_buf *b, size_t cap)
{
	b->s = xmalloc(cap);
	b->len = 0;
	b->cap = cap;
}

/*
 * Appends n bytes to b, one of p's buffers. Fails, for good until
 * sse_reset, when the event (name and data together) would exceed
 * SSE_MAX_EVENT; the test is made before anything is allocated, so memory
 * stays bounded however the bytes come.
 */
static int
sse_append(struct sse_parser *p, struct sse_buf *b, const char *s, size_t n)
{
	size_t used = p->event.len + p->data.len, cap;

	if (n > SSE_MAX_EVENT - used) {
		p->failed = 1;
		return -1;
	}
	if (b->len + n >= b->cap) {
		cap = b->cap;
		while (cap <= b->len + n)
			cap *= 2;
		if (cap > SSE_MAX_EVENT + 1)
			cap = SSE_MAX_EVENT + 1;
		b->s = xrealloc(b->s, cap);
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	return 0;
}

struct sse_parser *
sse_new(sse_event_fn fn, void *ud)
{
	struct sse_parser *p = xcalloc(1, sizeof *p);

	p->fn = fn;
	p->ud = ud;
	sse_buf_init(&p->event, SSE_EVENT_INIT);
	sse_buf_init(&p->data, SSE_DATA_INIT);
	sse_buf_init(&p->small, SSE_MAX_ID + 1);
	p->retry_ms = -1;
	sse_reset(p);
	return p;
}

void
sse_free(struct sse_parser *p)
{
	if (p == NULL)
		return;
	free(p->event.s);
	free(p->data.s);
	free(p->small.s);
	free(p);
}

void
sse_reset(struct sse_parser *p)
{
	/* After one huge event, do not hold its memory for the next. */
	if (p->event.cap > SSE_KEEP) {
		free(p->event.s);
		sse_buf_init(&p->event, SSE_EVENT_INIT);
	}
	if (p->data.cap > SSE_KEEP) {
		free(p->data.s);
		sse_buf_init(&p->data, SSE_DATA_INIT);
	}
	p->event.len = 0;
	p->data.len = 0;
	p->has_data = 0;
	p->small.len = 0;
	p->small_long = 0;
	p->line_field = NULL;
	/* The id of an event left unfinished never counts. */
	memcpy(p->next_id, p->last_id, sizeof p->next_id);
	p->state = SSE_FIELD;
	p->fieldlen = 0;
	p->target = NULL;
	p->cr = 0;
	p->started = 0;
	p->bom = 0;
	p->failed = 0;
}

/*
 * A blank line: hands the event to the callback if it had data, and starts
 * a new one either way. Returns what the callback returned.
 */
static int
sse_dispatch(struct sse_parser *p)
{
	const char *name;
	int rc = 0;

	memcpy(p->last_id, p->next_id, sizeof p->last_id);
	if (p->has_data) {
		p->event.s[p->event.len] = '\0';
		p->data.s[p->data.len] = '\0';
		name = p->event.len > 0 ? p->event.s : "message";
		rc = p->fn(p->ud, name, p->data.s, p->data.len);
	}
	p->event.len = 0;
	p->data.len = 0;
	p->has_data = 0;
	return rc;
}

/*
 * The field name is complete (at its colon or the line end): decides where
 * the value goes. A data line adds the \n that joins it to the data line
 * before it; an event line starts the name afresh.
 */
static int
sse_field(struct sse_parser *p)
{
	p->target = NULL;
	if (p->fieldlen == 4 && memcmp(p->field, "data", 4) == 0) {
		if (p->has_data && sse_append(p, &p->data, "\n", 1) == -1)
			return -1;
		p->has_data = 1;
		p->target = &p->data;
	} else if (p->fieldlen == 5 && memcmp(p->field, "event", 5) == 0) {
		p->event.len = 0;
		p->target = &p->event;
	} else if ((p->fieldlen == 2 && memcmp(p->field, "id", 2) == 0) ||
	    (p->fieldlen == 5 && memcmp(p->field, "retry", 5) == 0)) {
		p->small.len = 0;
		p->small_long = 0;
		p->line_is_id = p->fieldlen == 2;
		p->target = p->line_field = &p->small;
	}
	return 0;
}

/* An "id:" or "retry:" line has ended: an id without NUL becomes the
 * next event's id; a retry of digits only sets the retry time. */
static void
sse_small_end(struct sse_parser *p)
{
	size_t n = p->small.len, i;
	long ms = 0;

	p->line_field = NULL;
	if (p->small_long)
		return;
	if (p->line_is_id) {
		if (memchr(p->small.s, '\0', n) == NULL) {
			memcpy(p->next_id, p->small.s, n);
			p->next_id[n] = '\0';
		}
		return;
	}
	for (i = 0; i < n; i++) {
		if (p->small.s[i] < '0' || p->small.s[i] > '9')
			return;
		/* An hour is longer than anyone waits to resume. */
		if (ms < 3600000)
			ms = ms * 10 + (p->small.s[i] - '0');
	}
	if (n > 0)
		p->retry_ms = ms;
}

/*
 * A line has ended. Still in its field name, it is either blank (dispatch)
 * or a field with no colon, which has an empty value.
 */
static int
sse_line_end(struct sse_parser *p)
{
	int rc = 0;

	if (p->state == SSE_FIELD)
		rc = p->fieldlen == 0 ? sse_dispatch(p) : sse_field(p);
	if (p->line_field != NULL)
		sse_small_end(p);
	p->state = SSE_FIELD;
	p->fieldlen = 0;
	p->target = NULL;
	return rc;
}

/* How many bytes of s come before the first CR or LF. */
static size_t
sse_span(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len && s[i] != '\n' && s[i] != '\r'; i++)
		;
	return i;
}

/* Parses len bytes after the byte order mark has been dealt with. */
static int
sse_scan(struct sse_parser *p, const char *buf, size_t len)
{
	size_t i = 0, n;
	int rc;
	char c;

	while (i < len) {
		c = buf[i];
		if (p->cr) {
			p->cr = 0;
			if (c == '\n') {
				i++;
				continue;
			}
		}
		if (c == '\n' || c == '\r') {
			p->cr = c == '\r';
			i++;
			if ((rc = sse_line_end(p)) != 0)
				return rc;
			continue;
		}
		switch (p->state) {
		case SSE_FIELD:
			i++;
			if (c == ':') {
				if (sse_field(p) == -1)
					return -1;
				p->state = p->target != NULL ? SSE_SPACE :
				    SSE_SKIP;
			} else if (p->fieldlen == sizeof p->field) {
				/* Longer than any field that matters. */
				p->state = SSE_SKIP;
			} else
				p->field[p->fieldlen++] = c;
			break;
		case SSE_SPACE:
			p->state = SSE_VALUE;
			if (c == ' ')
				i++;
			break;
		case SSE_VALUE:
			n = sse_span(buf + i, len - i);
			if (p->target == &p->small) {
				if (n > SSE_MAX_ID - p->small.len)
					p->small_long = 1;
				else {
					memcpy(p->small.s + p->small.len,
					    buf + i, n);
					p->small.len += n;
				}
			} else if (sse_append(p, p->target, buf + i, n) == -1)
				return -1;
			i += n;
			break;
		case SSE_SKIP:
			i += sse_span(buf + i, len - i);
			break;
		}
	}
	return 0;
}

int
sse_feed(struct sse_parser *p, const char *buf, size_t len)
{
	static const char bom[] = "\xef\xbb\xbf";
	int rc;

	if (p->failed)
		return -1;

	/*
	 * The byte order mark may itself come split across chunks, so its
	 * bytes are held back until it is complete, or found not to be one,
	 * and then they are ordinary text.
	 */
	while (!p->started && len > 0) {
		if (buf[0] == bom[p->bom]) {
			buf++;
			len--;
			if (++p->bom == sizeof bom - 1)
				p->started = 1;
		} else {
			p->started = 1;
			if ((rc = sse_scan(p, bom, p->bom)) != 0)
				return rc;
		}
	}
	return sse_scan(p, buf, len);
}

const char *
sse_last_id(const struct sse_parser *p)
{
	return p->last_id;
}

long
sse_retry_ms(const struct sse_parser *p)
{
	return p->retry_ms;
}
