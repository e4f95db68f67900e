/*
 * libFuzzer target for util/image and the images of an MCP result
 * (mcp/content.c): bytes a server sends as an image. The input's first
 * byte chooses the media type it claims; the rest is the image.
 *
 * What must hold, whatever the bytes:
 *   - the header reader reads nothing past the bytes it is given (ASan
 *     watches an exact-size copy), and a size it reads is never 0;
 *   - the image as base64 is valid base64 of exactly its length, and its
 *     size read through the base64 is the size read from the bytes;
 *   - the bytes taken as base64 text are valid or not without harm, and
 *     a valid text decodes to the length the check said;
 *   - an MCP result holding the image gives valid UTF-8 text, and passes
 *     the image on only with a line that says so, at most 8000 pixels a
 *     side, its block as the Messages API takes it.
 * Any difference calls abort().
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/content.h"
#include "util/image.h"
#include "util/utf8.h"
#include "util/xmalloc.h"
#include "../unit/b64.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const fuzz_mimes[] = { "image/png", "image/jpeg",
    "image/gif", "image/webp", "image/JPG", "image/tiff" };

/* The bytes taken as base64 text. */
static void
fuzz_text(const unsigned char *b, size_t n)
{
	size_t decoded = 0, got;
	unsigned char *out;

	if (!image_base64_valid((const char *)b, n, &decoded))
		return;
	out = xmalloc(decoded + 1);
	got = image_base64_decode((const char *)b, n, out, decoded + 1);
	if (got != decoded)
		abort();
	free(out);
}

/* The image in an MCP result. */
static void
fuzz_result(const char *mime, const char *b64)
{
	json_t *r = json_pack("{s:[{s:s, s:s, s:s}, {s:s, s:s}]}", "content",
	    "type", "image", "mimeType", mime, "data", b64, "type", "text",
	    "text", "after");
	json_t *images = NULL, *source;
	char *text;
	unsigned w, h;
	int err;

	text = mcp_content_text(r, 0, &err, &images);
	if (!utf8_valid(text) || strstr(text, "after") == NULL)
		abort();
	if (images != NULL) {
		source = json_object_get(json_array_get(images, 0), "source");
		if (json_array_size(images) != 1 ||
		    strstr(text, "passed to the model]") == NULL ||
		    strcmp(json_string_value(json_object_get(source, "data")),
		    b64) != 0 ||
		    image_type(json_string_value(json_object_get(source,
		    "media_type"))) == NULL ||
		    sscanf(strchr(text, ' ') + 1, "%*s %ux%u", &w, &h) != 2 ||
		    w > MCP_IMAGE_SIDE || h > MCP_IMAGE_SIDE)
			abort();
	} else if (strstr(text, "not passed on: ") == NULL)
		abort();
	free(text);
	json_decref(images);
	json_decref(r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *mime;
	unsigned char *copy;
	unsigned w = 0, h = 0, bw = 0, bh = 0;
	size_t n, decoded;
	char *b64;
	int rc, brc;

	if (size == 0)
		return 0;
	mime = fuzz_mimes[data[0] % (sizeof fuzz_mimes / sizeof *fuzz_mimes)];
	n = size - 1;
	copy = xmalloc(n > 0 ? n : 1);
	memcpy(copy, data + 1, n);
	rc = image_size(copy, n, mime, &w, &h);
	if (rc == 0 && (w == 0 || h == 0))
		abort();
	b64 = b64_encode(copy, n);
	if (!image_base64_valid(b64, strlen(b64), &decoded) || decoded != n)
		abort();
	brc = image_base64_size(b64, strlen(b64), n, mime, &bw, &bh);
	if (brc != rc || (rc == 0 && (bw != w || bh != h)))
		abort();
	fuzz_text(copy, n);
	if (n > 0)
		fuzz_result(mime, b64);
	free(b64);
	free(copy);
	return 0;
}
