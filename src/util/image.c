/*
 * The formats, base64 and headers of images (see image.h).
 *
 * Where each format keeps its size:
 *   PNG   the 8-byte signature, then the IHDR chunk (length 13): width
 *         and height, 4 bytes each, big-endian, at 16 and 20;
 *   GIF   "GIF87a" or "GIF89a", then the logical screen's width and
 *         height, 2 bytes each, little-endian, at 6 and 8;
 *   WebP  a RIFF container of form "WEBP" whose first chunk is VP8
 *         (lossy: a key frame's start code 9d 01 2a at 23, then 14 bits
 *         of width and of height at 26 and 28), VP8L (lossless: the
 *         signature 0x2f at 20, then 14 bits of width - 1 and of
 *         height - 1) or VP8X (extended: 3 bytes of canvas width - 1
 *         and of height - 1 at 24 and 27);
 *   JPEG  SOI (ff d8), then segments, each a marker (ff, fill bytes ff,
 *         the marker's byte) and, but for RSTn, SOI and TEM, a 2-byte
 *         big-endian length that counts itself; the frame's size is in
 *         the first SOFn segment (c0..cf but c4, c8 and cc): precision
 *         (1 byte), height, width (2 bytes each). A scan (SOS) or the
 *         end (EOI) before it means no size.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/image.h"
#include "util/xmalloc.h"

const char *
image_type(const char *mime)
{
	static const char *const types[] = { "image/png", "image/jpeg",
	    "image/gif", "image/webp" };
	size_t i;

	if (mime == NULL)
		return NULL;
	for (i = 0; i < sizeof types / sizeof types[0]; i++)
		if (strcasecmp(mime, types[i]) == 0)
			return types[i];
	if (strcasecmp(mime, "image/jpg") == 0)
		return "image/jpeg";
	return NULL;
}

/* The value of a base64 character, or -1. */
static int
image_b64(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int
image_base64_valid(const char *in, size_t len, size_t *decoded)
{
	size_t pad = 0, i;

	if (len % 4 != 0)
		return 0;
	while (pad < len && pad < 3 && in[len - 1 - pad] == '=')
		pad++;
	if (pad > 2)
		return 0;
	for (i = 0; i < len - pad; i++)
		if (image_b64((unsigned char)in[i]) < 0)
			return 0;
	if (decoded != NULL)
		*decoded = len / 4 * 3 - pad;
	return 1;
}

size_t
image_base64_decode(const char *in, size_t len, unsigned char *out,
    size_t cap)
{
	unsigned acc = 0;
	size_t i, n = 0;
	int bits = 0, v;

	for (i = 0; i < len && n < cap; i++) {
		if ((v = image_b64((unsigned char)in[i])) < 0)
			break;
		acc = (acc << 6 | (unsigned)v) & 0xffffff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (unsigned char)(acc >> bits);
		}
	}
	return n;
}

static unsigned
image_be16(const unsigned char *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static unsigned
image_le16(const unsigned char *p)
{
	return (unsigned)p[1] << 8 | p[0];
}

static unsigned long
image_be32(const unsigned char *p)
{
	return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 |
	    (unsigned long)p[2] << 8 | p[3];
}

static int
image_png(const unsigned char *b, size_t len, unsigned long *w,
    unsigned long *h)
{
	static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n',
	    0x1a, '\n' };

	if (len < 24 || memcmp(b, sig, 8) != 0 || image_be32(b + 8) != 13 ||
	    memcmp(b + 12, "IHDR", 4) != 0)
		return -1;
	*w = image_be32(b + 16);
	*h = image_be32(b + 20);
	/* The format's own bound. */
	if (*w > 0x7fffffffUL || *h > 0x7fffffffUL)
		return -1;
	return 0;
}

static int
image_gif(const unsigned char *b, size_t len, unsigned long *w,
    unsigned long *h)
{
	if (len < 10 || (memcmp(b, "GIF87a", 6) != 0 &&
	    memcmp(b, "GIF89a", 6) != 0))
		return -1;
	*w = image_le16(b + 6);
	*h = image_le16(b + 8);
	return 0;
}

static int
image_webp(const unsigned char *b, size_t len, unsigned long *w,
    unsigned long *h)
{
	unsigned long bits;

	if (len < 16 || memcmp(b, "RIFF", 4) != 0 ||
	    memcmp(b + 8, "WEBP", 4) != 0)
		return -1;
	if (memcmp(b + 12, "VP8 ", 4) == 0) {
		if (len < 30 || b[23] != 0x9d || b[24] != 0x01 ||
		    b[25] != 0x2a)
			return -1;
		*w = image_le16(b + 26) & 0x3fff;
		*h = image_le16(b + 28) & 0x3fff;
		return 0;
	}
	if (memcmp(b + 12, "VP8L", 4) == 0) {
		if (len < 25 || b[20] != 0x2f)
			return -1;
		bits = (unsigned long)b[21] | (unsigned long)b[22] << 8 |
		    (unsigned long)b[23] << 16 | (unsigned long)b[24] << 24;
		*w = (bits & 0x3fff) + 1;
		*h = (bits >> 14 & 0x3fff) + 1;
		return 0;
	}
	if (memcmp(b + 12, "VP8X", 4) == 0) {
		if (len < 30)
			return -1;
		*w = ((unsigned long)b[24] | (unsigned long)b[25] << 8 |
		    (unsigned long)b[26] << 16) + 1;
		*h = ((unsigned long)b[27] | (unsigned long)b[28] << 8 |
		    (unsigned long)b[29] << 16) + 1;
		return 0;
	}
	return -1;
}

/* Whether a JPEG marker starts a frame (SOF0..SOF15: not DHT, JPG or
 * DAC, which share the range). */
static int
image_sof(unsigned char m)
{
	return m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc;
}

static int
image_jpeg(const unsigned char *b, size_t len, unsigned long *w,
    unsigned long *h)
{
	size_t pos = 2, seg;
	unsigned char m;

	if (len < 4 || b[0] != 0xff || b[1] != 0xd8)
		return -1;
	/* Each turn moves pos forward by at least one byte. */
	while (pos < len) {
		if (b[pos] != 0xff)
			return -1;
		while (pos < len && b[pos] == 0xff)
			pos++;
		if (pos >= len)
			return -1;
		m = b[pos++];
		if (m == 0xd8 || m == 0x01 || (m >= 0xd0 && m <= 0xd7))
			continue;
		if (m == 0x00 || m == 0xd9 || m == 0xda)
			return -1;
		if (len - pos < 2)
			return -1;
		seg = image_be16(b + pos);
		if (seg < 2 || seg > len - pos)
			return -1;
		if (image_sof(m)) {
			if (seg < 7)
				return -1;
			*h = image_be16(b + pos + 3);
			*w = image_be16(b + pos + 5);
			return 0;
		}
		pos += seg;
	}
	return -1;
}

int
image_size(const unsigned char *buf, size_t len, const char *mime,
    unsigned *w, unsigned *h)
{
	const char *type = image_type(mime);
	unsigned long lw = 0, lh = 0;
	int rc = -1;

	if (type == NULL || buf == NULL)
		return -1;
	if (strcmp(type, "image/png") == 0)
		rc = image_png(buf, len, &lw, &lh);
	else if (strcmp(type, "image/gif") == 0)
		rc = image_gif(buf, len, &lw, &lh);
	else if (strcmp(type, "image/webp") == 0)
		rc = image_webp(buf, len, &lw, &lh);
	else
		rc = image_jpeg(buf, len, &lw, &lh);
	if (rc == -1 || lw == 0 || lh == 0)
		return -1;
	*w = (unsigned)lw;
	*h = (unsigned)lh;
	return 0;
}

int
image_base64_size(const char *b64, size_t len, size_t most,
    const char *mime, unsigned *w, unsigned *h)
{
	size_t cap = len / 4 * 3 + 3, n;
	unsigned char *buf;
	int rc;

	if (cap > most)
		cap = most;
	buf = xmalloc(cap + 1);
	n = image_base64_decode(b64, len, buf, cap);
	rc = image_size(buf, n, mime, w, h);
	free(buf);
	return rc;
}
