/*
 * A tools/call result as text for the model (see content.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mcp/content.h"
#include "tools/tool.h"
#include "util/xmalloc.h"

/* Appends one content block's text to *buf. */
static void
mcp_content_block(json_t *b, char **buf, size_t *len, size_t *cap)
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
	else if (strcmp(type, "image") == 0 || strcmp(type, "audio") == 0) {
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

char *
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
mcp_content_text(json_t *result, size_t cap, int *is_error)
{
	json_t *content = json_object_get(result, "content"), *b;
	json_t *sc = json_object_get(result, "structuredContent");
	char *buf = NULL, *clean;
	size_t len = 0, bcap = 0, i;

	*is_error = json_is_true(json_object_get(result, "isError"));
	json_array_foreach(content, i, b)
		mcp_content_block(b, &buf, &len, &bcap);
	if (len == 0 && sc != NULL) {
		free(buf);
		buf = json_dumps(sc, JSON_COMPACT);
		len = buf != NULL ? strlen(buf) : 0;
	}
	clean = tool_sanitize(buf ? buf : "", len, NULL);
	free(buf);
	return mcp_content_cut(clean, cap);
}
