/*
 * A tools/call result as text for the model (see content.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mcp/content.h"
#include "tools/tool.h"
#include "util/image.h"
#include "util/number.h"
#include "util/xmalloc.h"

/* The most of a server's media type quoted in a line. */
#define MCP_CONTENT_MIME	64
/* How the line of an image passed on ends (mcp_content_image). */
#define MCP_CONTENT_PASSED	", passed to the model]"

/*
 * An image block of a result: added to images when the models take it,
 * with the line that says so; otherwise the line says why not. Returns
 * the line (malloc'd).
 */
static char *
mcp_content_image(json_t *b, json_t *images)
{
	const char *mime = json_string_value(json_object_get(b, "mimeType"));
	json_t *data = json_object_get(b, "data");
	const char *type = image_type(mime);
	size_t len = json_string_length(data), decoded;
	char got[NUMBER_THOUSANDS_SIZE], most[NUMBER_THOUSANDS_SIZE];
	unsigned w, h;

	if (mime == NULL)
		mime = "";
	if (type == NULL)
		return xasprintf("[image %.*s not passed on: the models take "
		    "png, jpeg, gif or webp]", MCP_CONTENT_MIME, mime);
	if (json_array_size(images) >= MCP_IMAGE_COUNT)
		return xasprintf("[image %s not passed on: a result passes at "
		    "most %d images to the model]", type, MCP_IMAGE_COUNT);
	if (!json_is_string(data) || len == 0)
		return xasprintf("[image %s not passed on: it has no data]",
		    type);
	if (len > MCP_IMAGE_BYTES) {
		number_thousands((int64_t)len, got, sizeof got);
		number_thousands(MCP_IMAGE_BYTES, most, sizeof most);
		return xasprintf("[image %s not passed on: its base64 is %s "
		    "bytes, more than the %s the models take]", type, got,
		    most);
	}
	if (!image_base64_valid(json_string_value(data), len, &decoded))
		return xasprintf("[image %s not passed on: its data is not "
		    "valid base64]", type);
	if (image_base64_size(json_string_value(data), len, decoded, type, &w,
	    &h) == -1)
		return xasprintf("[image %s not passed on: its header cannot be "
		    "read as %s]", type, type);
	if (w > MCP_IMAGE_SIDE || h > MCP_IMAGE_SIDE)
		return xasprintf("[image %s %ux%u not passed on: the models take "
		    "at most %d pixels a side]", type, w, h, MCP_IMAGE_SIDE);
	json_array_append_new(images, json_pack("{s:s, s:{s:s, s:s, s:O}}",
	    "type", "image", "source", "type", "base64", "media_type", type,
	    "data", data));
	return xasprintf("[image %s %ux%u" MCP_CONTENT_PASSED, type, w, h);
}

/* Appends one content block's text to *buf; an image the models take
 * joins images. */
static void
mcp_content_block(json_t *b, json_t *images, char **buf, size_t *len,
    size_t *cap)
{
	const char *type = json_string_value(json_object_get(b, "type"));
	const char *text = NULL;
	char *line = NULL;

	if (*len > 0)
		*buf = xappend(*buf, len, cap, "\n", 1);
	if (type == NULL)
		type = "?";
	if (strcmp(type, "text") == 0)
		text = json_string_value(json_object_get(b, "text"));
	else if (strcmp(type, "image") == 0)
		line = mcp_content_image(b, images);
	else if (strcmp(type, "audio") == 0) {
		const char *mime = json_string_value(json_object_get(b,
		    "mimeType"));
		const char *data = json_string_value(json_object_get(b,
		    "data"));

		line = xasprintf("[%s %s, %zu bytes of base64, not shown]",
		    type, mime ? mime : "", data ? strlen(data) : 0);
	} else if (strcmp(type, "resource") == 0) {
		json_t *r = json_object_get(b, "resource");
		const char *uri = json_string_value(json_object_get(r, "uri"));

		text = json_string_value(json_object_get(r, "text"));
		if (text == NULL)
			line = xasprintf("[resource %s, binary, not shown]",
			    uri ? uri : "");
	} else if (strcmp(type, "resource_link") == 0) {
		const char *uri = json_string_value(json_object_get(b, "uri"));
		const char *name = json_string_value(json_object_get(b,
		    "name"));

		line = xasprintf("[resource link %s%s%s]", uri ? uri : "",
		    name ? ": " : "", name ? name : "");
	} else
		line = xasprintf("[a %s block, not shown]", type);
	if (line != NULL)
		text = line;
	if (text != NULL)
		*buf = xappend(*buf, len, cap, text, strlen(text));
	free(line);
}

void
mcp_content_withhold(struct tool_output *o, size_t from, const char *why)
{
	size_t n = json_array_size(o->images), want, found = 0, skip, len = 0;
	size_t cap = 0, plen = strlen(MCP_CONTENT_PASSED);
	const char *p, *at;
	char *out = NULL, *line;

	if (from >= n)
		return;
	want = n - from;
	for (p = o->text; p != NULL && (p = strstr(p, MCP_CONTENT_PASSED)) !=
	    NULL; p += plen)
		found++;
	/* The images' lines are in their order: the last `want` lines are
	 * theirs (fewer when the cut of a long text took some). */
	skip = found > want ? found - want : 0;
	p = o->text != NULL ? o->text : "";
	while ((at = strstr(p, MCP_CONTENT_PASSED)) != NULL) {
		out = xappend(out, &len, &cap, p, (size_t)(at - p));
		if (skip > 0) {
			skip--;
			out = xappend(out, &len, &cap, at, plen);
		} else {
			line = xasprintf(" not passed on: %s]", why);
			out = xappend(out, &len, &cap, line, strlen(line));
			free(line);
			want--;
		}
		p = at + plen;
	}
	out = xappend(out, &len, &cap, p, strlen(p));
	for (; want > 0; want--) {
		line = xasprintf("%s[an image not passed on: %s]", len > 0 ?
		    "\n" : "", why);
		out = xappend(out, &len, &cap, line, strlen(line));
		free(line);
	}
	free(o->text);
	o->text = out;
	while (json_array_size(o->images) > from)
		json_array_remove(o->images, json_array_size(o->images) - 1);
	if (from == 0) {
		json_decref(o->images);
		o->images = NULL;
	}
}

/* Cuts text (freed) to about cap bytes, keeping its head and tail. */
static char *
mcp_content_cut(char *text, size_t cap)
{
	size_t len = strlen(text), head, tail;
	char *out, *h, *t;

	if (cap == 0 || len <= cap)
		return text;
	head = tool_trim_partial(text, cap / 2);
	tail = cap / 2;
	/* Start the tail on a character's first byte. */
	while (tail > 0 && ((unsigned char)text[len - tail] & 0xc0) == 0x80)
		tail--;
	h = xmalloc(head + 1);
	memcpy(h, text, head);
	h[head] = '\0';
	t = text + len - tail;
	out = xasprintf("%s\n[… %zu bytes left out …]\n%s", h,
	    len - head - tail, t);
	free(h);
	free(text);
	return out;
}

char *
mcp_content_text(json_t *result, size_t cap, int *is_error,
    json_t **images)
{
	json_t *content = json_object_get(result, "content"), *b;
	json_t *sc = json_object_get(result, "structuredContent");
	char *buf = NULL, *clean;
	size_t len = 0, bcap = 0, i;

	*is_error = json_is_true(json_object_get(result, "isError"));
	*images = json_array();
	json_array_foreach(content, i, b)
		mcp_content_block(b, *images, &buf, &len, &bcap);
	if (json_array_size(*images) == 0) {
		json_decref(*images);
		*images = NULL;
	}
	if (len == 0 && sc != NULL) {
		free(buf);
		buf = json_dumps(sc, JSON_COMPACT);
		len = buf != NULL ? strlen(buf) : 0;
	}
	clean = tool_sanitize(buf ? buf : "", len, NULL);
	free(buf);
	return mcp_content_cut(clean, cap);
}
