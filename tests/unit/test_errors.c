/*
 * Unit tests of llm/errors: each final failure of each provider gets the
 * sentence that says what to check, and one that passes with time or a
 * cancel gets none beyond the API's own words.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "llm/errors.h"
#include "llm/llm.h"
#include "testutil.h"
#include "util/xmalloc.h"

/* The advice for a failure of provider p (NULL: none). */
static const char *
advice(enum llm_provider_kind p, int status, const char *type,
    const char *message)
{
	static struct llm_result r;

	memset(&r, 0, sizeof r);
	r.status = LLM_ERR_API;
	r.provider = p;
	r.http_status = status;
	r.error_type = (char *)type;
	r.error_message = (char *)message;
	return errors_advice(&r);
}

static void
says(const char *got, const char *part)
{
	ck_assert_msg(got != NULL && strstr(got, part) != NULL, "%s lacks %s",
	    got ? got : "(none)", part);
}

START_TEST(anthropic_errors_say_what_to_check)
{
	says(advice(LLM_ANTHROPIC, 401, "authentication_error",
	    "invalid x-api-key"), "API key (ANTHROPIC_API_KEY or "
	    "ANTHROPIC_AUTH_TOKEN");
	says(advice(LLM_ANTHROPIC, 403, "permission_error", "no"),
	    "permissions");
	says(advice(LLM_ANTHROPIC, 404, "not_found_error", "model: x"),
	    "--models");
	says(advice(LLM_ANTHROPIC, 400, "invalid_request_error",
	    "prompt is too long: 210000 tokens > 200000 maximum"),
	    "/compact");
	says(advice(LLM_ANTHROPIC, 413, "request_too_large", "too big"),
	    "larger than the API takes");
	says(advice(LLM_ANTHROPIC, 400, "invalid_request_error",
	    "messages.0: bad"), "please report");
	says(advice(LLM_ANTHROPIC, 529, "overloaded_error", "Overloaded"),
	    "--retry-for");
}
END_TEST

START_TEST(openai_errors_say_what_to_check)
{
	says(advice(LLM_RESPONSES, 401, "invalid_request_error",
	    "Incorrect API key provided"), "API key (OPENAI_API_KEY");
	says(advice(LLM_RESPONSES, 404, "invalid_request_error",
	    "The model `gpt-9` does not exist"), "--models");
	says(advice(LLM_OPENAI, 400, "invalid_request_error",
	    "This model's maximum context length is 128000 tokens"),
	    "/compact");
	says(advice(LLM_RESPONSES, 400, "invalid_request_error",
	    "Your request was rejected as a result of our safety system"),
	    "usage policy");
	says(advice(LLM_OPENAI, 503, "server_error", "busy"),
	    "--retry-for");
}
END_TEST

START_TEST(what_passes_gets_nothing)
{
	struct llm_result r;
	char *line;

	memset(&r, 0, sizeof r);
	r.status = LLM_ERR_TRANSPORT;
	r.error_type = xstrdup("connection_error");
	ck_assert_ptr_null(errors_advice(&r));
	llm_result_clear(&r);
	r.status = LLM_ERR_CANCELLED;
	ck_assert_ptr_null(errors_advice(&r));
	/* The line: the API's words first, then what to check. */
	r.status = LLM_ERR_API;
	r.provider = LLM_ANTHROPIC;
	r.http_status = 401;
	r.error_type = xstrdup("authentication_error");
	r.error_message = xstrdup("invalid x-api-key");
	line = llm_result_error_line(&r);
	ck_assert_msg(strncmp(line, "HTTP 401 authentication_error: invalid "
	    "x-api-key; check the API key", 59) == 0, "%s", line);
	free(line);
	llm_result_clear(&r);
	/* Not reached: the address, what set it, and what to check come
	 * first. */
	r.status = LLM_ERR_TRANSPORT;
	r.error_type = xstrdup("connection_error");
	r.error_message = xstrdup("Couldn't connect to server");
	r.where = xstrdup("http://127.0.0.1:9 (ANTHROPIC_BASE_URL)");
	line = llm_result_error_line(&r);
	ck_assert_str_eq(line, "connection_error at http://127.0.0.1:9 "
	    "(ANTHROPIC_BASE_URL): Couldn't connect to server; check the "
	    "address and that the server runs");
	free(line);
	llm_result_clear(&r);
}
END_TEST

static Suite *
errors_suite(void)
{
	Suite *s = suite_create("errors");
	TCase *tc = tcase_create("errors");

	tcase_add_test(tc, anthropic_errors_say_what_to_check);
	tcase_add_test(tc, openai_errors_say_what_to_check);
	tcase_add_test(tc, what_passes_gets_nothing);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(errors_suite());
}
