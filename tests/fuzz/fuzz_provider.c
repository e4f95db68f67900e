/*
 * libFuzzer target for a provider's response parsers. Built once per
 * provider, with FUZZ_PROVIDER naming provider_anthropic, provider_openai
 * or provider_responses. The input is
 * read three ways: as an SSE stream fed through the provider's
 * stream_event (split where the first byte says), as a whole reply body,
 * and as an error body. Nothing may crash, leak or read out of bounds,
 * and a finished turn must be a well-formed assistant message.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llm/provider.h"
#include "llm/sse.h"
#include "llm/turn.h"

#ifndef FUZZ_PROVIDER
#error "define FUZZ_PROVIDER"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_stream {
	struct llm_turn		*turn;
	struct llm_result	*res;
	int			 done;
};

static int
fuzz_event(void *ud, const char *event, const char *text, size_t len)
{
	struct fuzz_stream *fs = ud;
	int rc = FUZZ_PROVIDER.stream_event(fs->turn, event, text, len,
	    fs->res);

	if (rc == PROVIDER_DONE)
		fs->done = 1;
	return rc == PROVIDER_FAIL;
}

/* A finished message is {"role":"assistant","content":[…]} whose tool
 * inputs are objects. */
static void
fuzz_check(struct llm_turn *t, struct llm_result *res)
{
	json_t *content, *block;
	size_t i;

	if (turn_finish(t, res) != 0)
		return;
	content = json_object_get(res->message, "content");
	if (!json_is_array(content))
		abort();
	json_array_foreach(content, i, block) {
		const char *type = json_string_value(json_object_get(block,
		    "type"));

		if (type == NULL)
			abort();
		if (strcmp(type, "tool_use") == 0 &&
		    !json_is_object(json_object_get(block, "input")))
			abort();
		if (strcmp(type, "text") == 0 && json_string_length(
		    json_object_get(block, "text")) == 0)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct llm_result res = { 0 };
	struct fuzz_stream fs = { turn_new(NULL, NULL), &res, 0 };
	struct sse_parser *p = sse_new(fuzz_event, &fs);
	size_t split = size > 0 ? data[0] % (size + 1) : 0;

	if (sse_feed(p, text, split) == 0)
		sse_feed(p, text + split, size - split);
	if (fs.done)
		fuzz_check(fs.turn, &res);
	sse_free(p);
	turn_free(fs.turn);
	llm_result_clear(&res);

	fs.turn = turn_new(NULL, NULL);
	if (FUZZ_PROVIDER.parse_body(fs.turn, text, size, &res) == 0)
		fuzz_check(fs.turn, &res);
	turn_free(fs.turn);
	llm_result_clear(&res);

	FUZZ_PROVIDER.parse_error(text, size, &res);
	llm_result_clear(&res);
	return 0;
}
