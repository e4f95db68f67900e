/*
 * Tests of llm/http and the client's cancellation and stall handling
 * against small misbehaving servers in this process, on 127.0.0.1: a
 * server that never accepts (the call hangs in connect), one that never
 * answers, one that stalls mid-stream, and one that asks to retry in 30 s.
 * A cancel must end the call within 100 ms in each case.
 */
#include "config.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "llm/llm.h"
#include "testutil.h"
#include "util/clock.h"
#include "util/xmalloc.h"

/* Where the test server holds a call, in the order a call gets there
 * (a_cancel_ends_the_call_at_once runs once for each). */
enum mode { NEVER_ACCEPT, NEVER_ANSWER, STALL_MID_STREAM, RETRY_LATER };

struct server {
	enum mode	 mode;
	int		 listen_fd;
	int		 port;
	int		 filler[4];	/* fills the accept queue */
	atomic_int	 stop;
	pthread_t	 thread;
};

static const char stream_head[] =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
    "request-id: req_stall\r\nAnthropic-RateLimit-Requests-Remaining: 7\r\n"
    "x-ratelimit-remaining-tokens: 900\r\n\r\n"
    "event: message_start\n"
    "data: {\"type\":\"message_start\",\"message\":{\"usage\":"
    "{\"input_tokens\":1,\"output_tokens\":1}}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
    "{\"type\":\"text_delta\",\"text\":\"partial\"}}\n\n";

static const char retry_reply[] =
    "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n"
    "retry-after: 30\r\nrequest-id: req_429\r\nconnection: close\r\n"
    "content-length: 79\r\n\r\n"
    "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\","
    "\"message\":\"slow down\"}}     ";

static void
send_all(int fd, const char *s, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, s, len);

		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

static void *
serve(void *arg)
{
	struct server *s = arg;
	struct pollfd pfd = { .fd = s->listen_fd, .events = POLLIN };
	char buf[8192];
	int fd = -1;

	while (!atomic_load(&s->stop)) {
		if (fd == -1 && s->mode != NEVER_ACCEPT &&
		    poll(&pfd, 1, 50) > 0) {
			fd = accept(s->listen_fd, NULL, NULL);
			/* Read the request; the reply does not depend on it. */
			if (fd != -1 && read(fd, buf, sizeof buf) > 0) {
				if (s->mode == STALL_MID_STREAM)
					send_all(fd, stream_head,
					    sizeof stream_head - 1);
				else if (s->mode == RETRY_LATER)
					send_all(fd, retry_reply,
					    sizeof retry_reply - 1);
			}
		} else
			usleep(20 * 1000);
	}
	if (fd != -1)
		close(fd);
	return NULL;
}

static void
server_start(struct server *s, enum mode mode)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof a;
	size_t i;

	memset(s, 0, sizeof *s);
	s->mode = mode;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(s->listen_fd, 0);
	ck_assert_int_eq(bind(s->listen_fd, (struct sockaddr *)&a, sizeof a),
	    0);
	ck_assert_int_eq(listen(s->listen_fd, 0), 0);
	getsockname(s->listen_fd, (struct sockaddr *)&a, &len);
	s->port = ntohs(a.sin_port);
	for (i = 0; i < 4; i++)
		s->filler[i] = -1;
	if (mode == NEVER_ACCEPT) {
		/* With a backlog of 0 and nobody accepting, these fill the
		 * queue; the kernel then drops further SYNs and the client's
		 * connect hangs. */
		for (i = 0; i < 4; i++) {
			s->filler[i] = socket(AF_INET, SOCK_STREAM |
			    SOCK_NONBLOCK, 0);
			connect(s->filler[i], (struct sockaddr *)&a, sizeof a);
		}
		usleep(50 * 1000);
	}
	pthread_create(&s->thread, NULL, serve, s);
}

static void
server_stop(struct server *s)
{
	size_t i;

	atomic_store(&s->stop, 1);
	pthread_join(s->thread, NULL);
	for (i = 0; i < 4; i++) {
		if (s->filler[i] != -1)
			close(s->filler[i]);
	}
	close(s->listen_fd);
}

struct caller {
	struct llm_client	*cl;
	struct llm_result	 res;
	int64_t			 returned_ms;
};

static void *
call_thread(void *arg)
{
	struct caller *c = arg;
	struct llm_request req = { 0 };

	req.messages = json_pack("[{s:s, s:s}]", "role", "user", "content",
	    "hi");
	llm_call(c->cl, &req, NULL, NULL, &c->res);
	c->returned_ms = clock_mono_ms();
	json_decref(req.messages);
	return NULL;
}

static void
config_for(struct llm_config *c, const struct server *s, char **url)
{
	llm_config_defaults(c);
	*url = xasprintf("http://127.0.0.1:%d", s->port);
	c->base_url = *url;
	c->api_key = "test-key";
	c->model = "m";
}

/* Starts a call, lets it reach the server's trap, cancels it, and
 * returns how long the cancel took to end the call. */
static int64_t
cancel_latency(enum mode mode, struct llm_result *out)
{
	struct server s;
	struct llm_config cfg;
	struct caller c = { 0 };
	pthread_t th;
	int64_t fired;
	char *url;

	server_start(&s, mode);
	config_for(&cfg, &s, &url);
	cfg.connect_timeout_ms = 30000;
	c.cl = llm_client_new(&cfg);
	pthread_create(&th, NULL, call_thread, &c);
	usleep(400 * 1000);
	ck_assert_int_eq(c.returned_ms, 0);	/* still trapped */
	fired = clock_mono_ms();
	llm_cancel(c.cl);
	pthread_join(th, NULL);
	*out = c.res;
	llm_client_free(c.cl);
	server_stop(&s);
	free(url);
	return c.returned_ms - fired;
}

/* Wherever the call is (connecting, waiting for the answer, streaming, or
 * waiting to retry after its one attempt: the modes in their order), a
 * cancel ends it within 100 ms. */
START_TEST(a_cancel_ends_the_call_at_once)
{
	enum mode mode = (enum mode)_i;
	struct llm_result res;
	int64_t took = cancel_latency(mode, &res);

	ck_assert_int_eq(res.status, LLM_ERR_CANCELLED);
	if (mode == RETRY_LATER)
		ck_assert_int_eq(res.attempts, 1);
	ck_assert_int_le(took, 100);
	llm_result_clear(&res);
}
END_TEST

START_TEST(a_stalled_stream_fails_after_the_stall_timeout)
{
	struct server s;
	struct llm_config cfg;
	struct caller c = { 0 };
	int64_t start;
	char *url;

	server_start(&s, STALL_MID_STREAM);
	config_for(&cfg, &s, &url);
	cfg.stall_timeout_s = 1;
	/* A stall after the 200 is retried from the top (tests/integration/
	 * overload.py); here, the timeout itself. */
	cfg.max_retries = 0;
	c.cl = llm_client_new(&cfg);
	start = clock_mono_ms();
	call_thread(&c);
	ck_assert_int_eq(c.res.status, LLM_ERR_STREAM);
	ck_assert_int_eq(c.res.attempts, 1);
	ck_assert_str_eq(c.res.error_type, "timeout_error");
	ck_assert_str_eq(c.res.request_id, "req_stall");
	/* Rate-limit headers are kept, by lower-cased name. */
	ck_assert_str_eq(json_string_value(json_object_get(c.res.ratelimit,
	    "anthropic-ratelimit-requests-remaining")), "7");
	ck_assert_str_eq(json_string_value(json_object_get(c.res.ratelimit,
	    "x-ratelimit-remaining-tokens")), "900");
	ck_assert_int_ge(c.returned_ms - start, 900);
	ck_assert_int_lt(c.returned_ms - start, 5000);
	llm_result_clear(&c.res);
	llm_client_free(c.cl);
	server_stop(&s);
	free(url);
}
END_TEST

START_TEST(a_silent_server_is_a_retried_timeout)
{
	struct server s;
	struct llm_config cfg;
	struct caller c = { 0 };
	char *url;

	server_start(&s, NEVER_ANSWER);
	config_for(&cfg, &s, &url);
	cfg.stall_timeout_s = 1;
	cfg.max_retries = 0;
	c.cl = llm_client_new(&cfg);
	call_thread(&c);
	ck_assert_int_eq(c.res.status, LLM_ERR_TRANSPORT);
	ck_assert_str_eq(c.res.error_type, "timeout_error");
	ck_assert_int_eq(c.res.http_status, 0);
	llm_result_clear(&c.res);
	llm_client_free(c.cl);
	server_stop(&s);
	free(url);
}
END_TEST

START_TEST(nothing_listening_is_a_connection_error)
{
	struct llm_config cfg;
	struct caller c = { 0 };
	struct server s;
	char *url;

	/* Bind a port, then close it: nothing listens there. */
	server_start(&s, NEVER_ANSWER);
	server_stop(&s);
	config_for(&cfg, &s, &url);
	cfg.max_retries = 1;
	c.cl = llm_client_new(&cfg);
	call_thread(&c);
	ck_assert_int_eq(c.res.status, LLM_ERR_TRANSPORT);
	ck_assert_str_eq(c.res.error_type, "connection_error");
	ck_assert_int_eq(c.res.attempts, 2);
	ck_assert_ptr_nonnull(c.res.error_message);
	llm_result_clear(&c.res);
	llm_client_free(c.cl);
	free(url);
}
END_TEST

static Suite *
http_suite(void)
{
	Suite *s = suite_create("http");
	TCase *tc = tcase_create("http");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, a_cancel_ends_the_call_at_once, NEVER_ACCEPT,
	    RETRY_LATER + 1);
	tcase_add_test(tc, a_stalled_stream_fails_after_the_stall_timeout);
	tcase_add_test(tc, a_silent_server_is_a_retried_timeout);
	tcase_add_test(tc, nothing_listening_is_a_connection_error);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	curl_global_init(CURL_GLOBAL_ALL);
	return tu_run(http_suite());
}
