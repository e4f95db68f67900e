/*
 * libFuzzer target for llm/sse: the events a stream gives must not depend
 * on how it is cut into chunks, and must be the ones the standard says.
 *
 * The first bytes of the input choose the chunking and whether the
 * callback stops the parse; the rest is the stream. It is fed whole, cut
 * at the chosen points (by a parser just sse_reset), and one byte at a
 * time, and each way must deliver the same events and return value as a
 * plain reference that follows the standard's algorithm over the whole
 * buffer. Any difference aborts; ASan and UBSan watch the memory.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llm/sse.h"
#include "util/xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_CUTS	16

/* Every dispatched event, serialised: name length, name, data length,
 * data. Two runs agree when their logs are byte for byte the same. */
struct fuzz_log {
	char	*s;
	size_t	 len;
	size_t	 cap;
	size_t	 nevents;
	size_t	 stop_at;	/* the callback returns 1 on this event */
};

static void
fuzz_log_add(struct fuzz_log *l, const void *p, size_t n)
{
	l->s = xgrow(l->s, &l->cap, l->len + n, 1);
	memcpy(l->s + l->len, p, n);
	l->len += n;
}

static int
fuzz_event(void *ud, const char *event, const char *data, size_t len)
{
	struct fuzz_log *l = ud;
	size_t namelen;

	if (event == NULL || data == NULL || data[len] != '\0')
		abort();
	namelen = strlen(event);
	fuzz_log_add(l, &namelen, sizeof namelen);
	fuzz_log_add(l, event, namelen);
	fuzz_log_add(l, &len, sizeof len);
	fuzz_log_add(l, data, len);
	l->nevents++;
	return l->nevents == l->stop_at ? 1 : 0;
}

/*
 * Feeds buf to p in chunks ending at the given offsets (then the rest),
 * stopping at the first non-zero result, which is returned. Each chunk is
 * its own heap copy so that a read past its end is caught.
 */
static int
fuzz_feed(struct sse_parser *p, const uint8_t *buf, size_t len,
    const size_t *cuts, size_t ncuts)
{
	size_t i, from = 0, to;
	char *chunk;
	int rc = 0;

	for (i = 0; i <= ncuts && rc == 0; i++) {
		to = i < ncuts ? cuts[i] : len;
		chunk = xmalloc(to - from);
		memcpy(chunk, buf + from, to - from);
		rc = sse_feed(p, chunk, to - from);
		free(chunk);
		from = to;
	}
	return rc;
}

static int
fuzz_cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

static void
fuzz_check_same(const struct fuzz_log *a, int rca, const struct fuzz_log *b,
    int rcb)
{
	if (rca != rcb || a->nevents != b->nevents || a->len != b->len ||
	    (a->len > 0 && memcmp(a->s, b->s, a->len) != 0))
		abort();
}

/*
 * The reference: the standard's steps written out as plainly as possible
 * over the whole stream, lines first and fields second, with none of the
 * parser's incremental state. The data buffer gets each value plus an LF
 * and loses the last LF at dispatch; an empty buffer means no data line.
 */
static int
fuzz_reference(const uint8_t *s, size_t len, struct fuzz_log *l)
{
	char *name = xmalloc(len + 1), *buf = xmalloc(len + 1);
	size_t i = 0, start, end, flen, nlen = 0, blen = 0;
	const uint8_t *colon, *v;
	size_t vlen;
	int rc = 0;

	if (len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < len && rc == 0) {
		start = i;
		while (i < len && s[i] != '\r' && s[i] != '\n')
			i++;
		if (i == len)
			break;		/* no line end: an unfinished line */
		end = i;
		if (s[i] == '\r' && i + 1 < len && s[i + 1] == '\n')
			i += 2;
		else
			i++;

		if (end == start) {
			if (blen > 0) {
				buf[--blen] = '\0';
				name[nlen] = '\0';
				rc = fuzz_event(l, nlen > 0 ? name : "message",
				    buf, blen);
			}
			nlen = blen = 0;
			continue;
		}
		if (s[start] == ':')
			continue;
		colon = memchr(s + start, ':', end - start);
		if (colon != NULL) {
			flen = colon - (s + start);
			v = colon + 1;
			if (v < s + end && *v == ' ')
				v++;
			vlen = (s + end) - v;
		} else {
			flen = end - start;
			v = s + end;
			vlen = 0;
		}
		if (flen == 5 && memcmp(s + start, "event", 5) == 0) {
			memcpy(name, v, vlen);
			nlen = vlen;
		} else if (flen == 4 && memcmp(s + start, "data", 4) == 0) {
			memcpy(buf + blen, v, vlen);
			blen += vlen;
			buf[blen++] = '\n';
		}
	}
	free(name);
	free(buf);
	return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_log log = { 0 }, whole, bytes = { 0 }, ref = { 0 };
	struct sse_parser *p, *q;
	size_t cuts[FUZZ_MAX_CUTS], ncuts, i, stop_at, *every;
	int rc_whole, rc;

	/* Header: the number of cuts and the stop event, then two bytes per
	 * cut for its offset into the stream. */
	if (size < 2)
		return 0;
	ncuts = data[0] % (FUZZ_MAX_CUTS + 1);
	stop_at = data[1] % 8 == 0 ? data[1] / 8 : 0;
	data += 2;
	size -= 2;
	if (ncuts > size / 2)
		ncuts = size / 2;
	for (i = 0; i < ncuts; i++)
		cuts[i] = (size_t)data[2 * i] << 8 | data[2 * i + 1];
	data += 2 * ncuts;
	size -= 2 * ncuts;
	for (i = 0; i < ncuts; i++)
		cuts[i] %= size + 1;
	qsort(cuts, ncuts, sizeof *cuts, fuzz_cmp_size);

	/* Whole, into log; then keep that as `whole`. */
	log.stop_at = stop_at;
	p = sse_new(fuzz_event, &log);
	rc_whole = fuzz_feed(p, data, size, NULL, 0);
	whole = log;
	memset(&log, 0, sizeof log);
	log.stop_at = stop_at;

	/* The same as the standard says (the cap cannot be reached here). */
	if (size < SSE_MAX_EVENT) {
		ref.stop_at = stop_at;
		rc = fuzz_reference(data, size, &ref);
		fuzz_check_same(&ref, rc, &whole, rc_whole);
		free(ref.s);
	}

	/* Cut, by the same parser after sse_reset: it may have been left
	 * mid-line, after a CR, or failed, and must forget all of it. */
	sse_reset(p);
	rc = fuzz_feed(p, data, size, cuts, ncuts);
	fuzz_check_same(&whole, rc_whole, &log, rc);
	sse_free(p);

	/* One byte at a time, by a new parser. */
	every = xmalloc((size + 1) * sizeof *every);
	for (i = 0; i < size; i++)
		every[i] = i + 1;
	bytes.stop_at = stop_at;
	q = sse_new(fuzz_event, &bytes);
	rc = fuzz_feed(q, data, size, every, size);
	fuzz_check_same(&whole, rc_whole, &bytes, rc);
	sse_free(q);
	free(every);

	free(whole.s);
	free(log.s);
	free(bytes.s);
	return 0;
}
