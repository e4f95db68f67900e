/*
 * UTF-8 validation and repair (see utf8.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"
#include "util/xmalloc.h"

size_t
utf8_valid_len(const unsigned char *s, size_t avail)
{
	unsigned char c = s[0];
	size_t len, i;
	unsigned int cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else
		return 0;
	if (avail < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

int
utf8_valid(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t avail = strlen(s), n;

	while (avail > 0) {
		if ((n = utf8_valid_len(u, avail)) == 0)
			return 0;
		u += n;
		avail -= n;
	}
	return 1;
}

char *
utf8_sanitize(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t avail = strlen(s);
	char *out = xmalloc(avail * 3 + 1), *o = out;

	while (avail > 0) {
		size_t n = utf8_valid_len(p, avail);

		if (n == 0) {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			n = 1;
		} else {
			memcpy(o, p, n);
			o += n;
		}
		p += n;
		avail -= n;
	}
	*o = '\0';
	return out;
}

char *
utf8_clean(const char *s, size_t len, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	char *raw, *fixed, *out;
	size_t i, n, avail;

	if (len > max) {
		len = max;
		for (i = 0; i < 3 && len > 0 && (u[len] & 0xc0) == 0x80; i++)
			len--;
	}
	raw = xmalloc(len + 1);
	for (i = n = 0; i < len; i++) {
		if (u[i] == '\t' || u[i] == '\n' || u[i] == '\r')
			raw[n++] = ' ';
		else if (u[i] >= 0x20 && u[i] != 0x7f)
			raw[n++] = (char)u[i];
	}
	raw[n] = '\0';
	fixed = utf8_sanitize(raw);
	free(raw);

	/* Repair can make the text longer (one byte to three); cut again,
	 * on a character boundary, and drop U+0080..U+009F on the way. */
	u = (const unsigned char *)fixed;
	avail = strlen(fixed);
	out = xmalloc(avail + 1);
	n = 0;
	while (avail > 0) {
		size_t cl = utf8_valid_len(u, avail);

		if (cl == 0)
			cl = 1;		/* cannot happen after repair */
		if (!(cl == 2 && u[0] == 0xc2 && u[1] < 0xa0)) {
			if (n + cl > max)
				break;
			memcpy(out + n, u, cl);
			n += cl;
		}
		u += cl;
		avail -= cl;
	}
	out[n] = '\0';
	free(fixed);
	return out;
}
