/*
 * What a tools/call result says, as the text a model reads: its content
 * blocks in order (text as it is; audio or a resource link as a line
 * saying what it was), or its structured content when it has no blocks,
 * cut at a cap like a command's output. An image the models take is
 * passed on beside the text, and a line in the text says so; any other
 * image is a line saying why it was not passed on.
 */
#ifndef HUDDLE_MCP_CONTENT_H
#define HUDDLE_MCP_CONTENT_H

#include <jansson.h>
#include <stddef.h>

struct tool_output;

/* What an image passed on may be (doc/mcp.md, "Images"): its base64
 * text at most 5 MiB (the Messages API's limit, which it counts on the
 * base64), at most 8000 pixels a side, and at most 5 of them in one
 * result. */
#define MCP_IMAGE_BYTES		(5 * 1024 * 1024)
#define MCP_IMAGE_SIDE		8000
#define MCP_IMAGE_COUNT		5

/*
 * The text of result (a CallToolResult), at most about cap bytes (head
 * and tail kept, with a line saying how much was left out); *is_error
 * gets its isError. *images gets the images passed on, a new array of
 * image blocks as struct tool_output holds them, or NULL when there is
 * none. Returns malloc'd, valid UTF-8 text.
 */
char *mcp_content_text(json_t *result, size_t cap, int *is_error,
    json_t **images);

/*
 * Withholds o's images from index `from` on (an MCP result's, as
 * mcp_content_text made them): they leave o->images, and their lines in
 * o->text say they were not passed on, and why (`why`, a sentence
 * without its full stop). A line cut out of the text is added at its
 * end.
 */
void mcp_content_withhold(struct tool_output *o, size_t from,
    const char *why);

#endif
