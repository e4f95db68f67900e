/*
 * Which API errors are final, and what the person should do about each:
 * one table per provider (errors.c), read after a call has failed for
 * good. Whether a failure is retried at all is the retry policy's
 * (retry.h, and the 429s no wait passes in llm.c); this says, for a
 * failure that ends the call, the sentence that tells what to check.
 */
#ifndef HUDDLE_LLM_ERRORS_H
#define HUDDLE_LLM_ERRORS_H

#include "llm/llm.h"

/* What to do about r's failure, a sentence (static), or NULL when there
 * is nothing to add (a failure that passes with time, a cancel). */
const char *errors_advice(const struct llm_result *r);

#endif
