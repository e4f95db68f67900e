/*
 * The result of one tool call: the text the model reads, and whether the
 * call failed; an MCP tool's result may also carry images. Every tool
 * (file tools, bash, messaging) fills one of these; the agent loop turns
 * it into a tool_result block.
 */
#ifndef HUDDLE_TOOLS_TOOL_H
#define HUDDLE_TOOLS_TOOL_H

#include <jansson.h>
#include <stddef.h>

struct tool_output {
	int	 is_error;
	char	*text;		/* malloc'd; what the model reads */
	/* NULL, or the images the model sees after the text: an array of
	 * Messages-API image blocks, {"type": "image", "source": {"type":
	 * "base64", "media_type", "data"}}, each already checked (MCP
	 * results only: mcp/content.c). Owned: one reference. */
	json_t	*images;
	/* NULL, or a file holding the whole output of which text is a cut
	 * (bash: bash_options.keep_dir). Owned: the path, not the file. */
	char	*whole;
};

/* Frees the text, images and whole path and zeroes o. Safe on a zeroed or cleared
 * output. */
void tool_output_clear(struct tool_output *o);

/*
 * Set o (freeing any earlier text) to an error / a success whose text is
 * the formatted message, repaired to valid UTF-8. Return -1 / 0, so a tool
 * can end with `return tool_error(out, ...)`.
 */
int tool_error(struct tool_output *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int tool_ok(struct tool_output *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Appends the formatted text to o's text, keeping its error flag. */
void tool_append(struct tool_output *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Returns a malloc'd, NUL-terminated, valid UTF-8 copy of the len bytes at
 * buf: NUL bytes and invalid sequences become U+FFFD. *nuls (may be NULL)
 * receives the number of NUL bytes seen, so a caller can say the data
 * looked binary.
 */
char *tool_sanitize(const char *buf, size_t len, size_t *nuls);

/*
 * The length of buf without an incomplete UTF-8 sequence cut off at its
 * end, for cutting text at a byte cap without splitting a character.
 */
size_t tool_trim_partial(const char *buf, size_t len);

#endif
