/*
 * What a tools/call result says, as the text a model reads: its content
 * blocks in order (text as it is; an image, audio or a resource link as a
 * line saying what it was), or its structured content when it has no
 * blocks, cut at a cap like a command's output.
 */
#ifndef HUDDLE_MCP_CONTENT_H
#define HUDDLE_MCP_CONTENT_H

#include <jansson.h>
#include <stddef.h>

/* The text of result (a CallToolResult), at most about cap bytes (head
 * and tail kept, with a line saying how much was left out); *is_error
 * gets its isError. Returns malloc'd, valid UTF-8 text. */
char *mcp_content_text(json_t *result, size_t cap, int *is_error);

/* Cuts text (freed) to about cap bytes, keeping its head and tail. */
char *mcp_content_cut(char *text, size_t cap);

#endif
