/*
 * Unit tests of the MCP client (src/mcp/): JSON-RPC framing and reading,
 * the splitting of a stream into lines however it arrives, a tool
 * result's text, tool names and the allow list, configurations refused;
 * and, against the test server (tests/mcp/server.py) on stdio through a
 * reaper, both revisions, pagination, a timeout and a cancel (the server
 * told), a death reported and the restart at the next call; and hostile
 * servers: one that floods pings and stops reading, one that writes
 * without end, one with a huge tool list, HTTP streams kept open for
 * ever or with an event too large, and secrets in an address.
 */
#include "config.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcp/content.h"
#include "mcp/jsonrpc.h"
#include "mcp/set.h"
#include "b64.h"
#include "testutil.h"
#include "tools/reaper.h"
#include "tools/tool.h"
#include "tools/reaperexe.h"
#include "util/cancel.h"
#include "util/clock.h"
#include "util/xmalloc.h"

extern char **environ;

/* --- framing and reading ------------------------------------------------- */

/* Appends the set's tools to list once its servers have started (in the
 * background, as a team's do). */
static void
ready_tools(struct mcp_set *set, json_t *list)
{
	mcp_set_start(set);
	mcp_set_wait(set, clock_mono_ms() + 60000);
	mcp_set_tools(set, NULL, list);
}

/* Lists the set's tools once (starting its servers), keeping nothing. */
static void
list_once(struct mcp_set *set)
{
	json_t *list = json_array();

	ready_tools(set, list);
	json_decref(list);
}

START_TEST(request_is_one_line)
{
	char *r = jsonrpc_request(7, "tools/call", json_pack("{s:s}", "text",
	    "a\nb"));
	struct jsonrpc_msg m;

	ck_assert_ptr_null(strchr(r, '\n'));
	ck_assert_int_eq(jsonrpc_parse(r, strlen(r), &m), 0);
	ck_assert_int_eq(m.kind, JSONRPC_REQUEST);
	ck_assert_str_eq(m.method, "tools/call");
	ck_assert_int_eq(json_integer_value(m.id), 7);
	ck_assert_str_eq(json_string_value(json_object_get(m.params, "text")),
	    "a\nb");
	jsonrpc_msg_clear(&m);
	free(r);
	r = jsonrpc_notification("notifications/initialized", NULL);
	ck_assert_str_eq(r, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"}");
	free(r);
}
END_TEST

START_TEST(messages_are_told_apart)
{
	static const struct {
		const char		*text;
		enum jsonrpc_kind	 kind;
	} cases[] = {
		{ "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}",
		    JSONRPC_RESPONSE },
		{ "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"error\":{\"code\":-1,"
		    "\"message\":\"no\"}}", JSONRPC_RESPONSE },
		{ "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/"
		    "list_changed\"}", JSONRPC_NOTIFICATION },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
		    JSONRPC_REQUEST },
		{ "{\"id\":3,\"result\":{}}", JSONRPC_INVALID },
		{ "{\"jsonrpc\":\"1.0\",\"id\":3,\"result\":{}}",
		    JSONRPC_INVALID },
		{ "{\"jsonrpc\":\"2.0\",\"id\":[1],\"result\":{}}",
		    JSONRPC_INVALID },
		{ "{\"jsonrpc\":\"2.0\",\"id\":3}", JSONRPC_INVALID },
		{ "[1,2]", JSONRPC_INVALID },
	};
	struct jsonrpc_msg m;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		jsonrpc_parse(cases[i].text, strlen(cases[i].text), &m);
		ck_assert_msg(m.kind == cases[i].kind, "%s: %d", cases[i].text,
		    m.kind);
		jsonrpc_msg_clear(&m);
	}
	ck_assert_int_eq(jsonrpc_parse("{not json", 9, &m), -1);
	ck_assert_int_eq(m.kind, JSONRPC_INVALID);
	jsonrpc_msg_clear(&m);
	jsonrpc_parse(cases[0].text, strlen(cases[0].text), &m);
	ck_assert(jsonrpc_is_reply_to(&m, 3));
	ck_assert(!jsonrpc_is_reply_to(&m, 4));
	jsonrpc_msg_clear(&m);
}
END_TEST

START_TEST(error_text_names_the_code)
{
	json_t *e = json_pack("{s:i, s:s}", "code", -32601, "message",
	    "Method not found");
	char *t = jsonrpc_error_text(e);

	ck_assert_str_eq(t, "Method not found (code -32601)");
	free(t);
	json_decref(e);
}
END_TEST

START_TEST(lines_come_whole_however_cut)
{
	const char *stream = "{\"a\":1}\r\n\n  \n{\"b\":2}\n{\"c\":";
	struct jsonrpc_lines l;
	char *line;
	size_t i;
	int n = 0;

	memset(&l, 0, sizeof l);
	for (i = 0; stream[i] != '\0'; i++) {
		ck_assert_int_eq(jsonrpc_lines_feed(&l, stream + i, 1), 0);
		while ((line = jsonrpc_lines_next(&l)) != NULL) {
			ck_assert_str_eq(line, n == 0 ? "{\"a\":1}" :
			    "{\"b\":2}");
			n++;
			free(line);
		}
	}
	ck_assert_int_eq(n, 2);
	ck_assert_ptr_null(jsonrpc_lines_next(&l));
	ck_assert_int_eq(jsonrpc_lines_feed(&l, "3}\n", 3), 0);
	line = jsonrpc_lines_next(&l);
	ck_assert_str_eq(line, "{\"c\":3}");
	free(line);
	jsonrpc_lines_clear(&l);
}
END_TEST

START_TEST(a_line_too_long_fails)
{
	struct jsonrpc_lines l;
	char *big = xmalloc(1024 * 1024);
	int i, rc = 0;

	memset(big, 'x', 1024 * 1024);
	memset(&l, 0, sizeof l);
	for (i = 0; i < 20 && rc == 0; i++)
		rc = jsonrpc_lines_feed(&l, big, 1024 * 1024);
	ck_assert_int_eq(rc, -1);
	ck_assert_int_eq(jsonrpc_lines_feed(&l, "\n", 1), -1);
	jsonrpc_lines_clear(&l);
	free(big);
}
END_TEST

/* --- results, names ------------------------------------------------------- */

START_TEST(result_blocks_become_text)
{
	json_t *r = json_loads("{\"content\":[{\"type\":\"text\",\"text\":"
	    "\"one\"},{\"type\":\"image\",\"mimeType\":\"image/png\","
	    "\"data\":\"AAAA\"},{\"type\":\"audio\",\"mimeType\":"
	    "\"audio/wav\",\"data\":\"UklG\"},{\"type\":\"resource\","
	    "\"resource\":{\"uri\":\"file:///x\",\"text\":\"inside\"}},"
	    "{\"type\":\"resource_link\",\"uri\":\"file:///y\",\"name\":"
	    "\"y\"}],\"isError\":true}", 0, NULL);
	json_t *images = NULL;
	int err = 0;
	char *t = mcp_content_text(r, 0, &err, &images);

	/* "AAAA" is base64 of three zero bytes: no PNG header. Audio stays
	 * a line. */
	ck_assert_int_eq(err, 1);
	ck_assert_str_eq(t, "one\n[image image/png not passed on: its header "
	    "cannot be read as image/png]\n[audio audio/wav, 4 bytes of "
	    "base64, not shown]\ninside\n[resource link file:///y: y]");
	ck_assert_ptr_null(images);
	free(t);
	json_decref(r);
	r = json_loads("{\"content\":[],\"structuredContent\":{\"n\":42}}", 0,
	    NULL);
	t = mcp_content_text(r, 0, &err, &images);
	ck_assert_int_eq(err, 0);
	ck_assert_str_eq(t, "{\"n\":42}");
	ck_assert_ptr_null(images);
	free(t);
	json_decref(r);
}
END_TEST

START_TEST(long_results_are_cut)
{
	char *big = xmalloc(100001);
	json_t *r, *images;
	int err;
	char *t;

	memset(big, 'y', 100000);
	big[0] = 'H';
	big[99999] = 'T';
	big[100000] = '\0';
	r = json_pack("{s:[{s:s, s:s}]}", "content", "type", "text", "text",
	    big);
	t = mcp_content_text(r, 1000, &err, &images);
	ck_assert_uint_lt(strlen(t), 1100);
	ck_assert_int_eq(t[0], 'H');
	ck_assert_int_eq(t[strlen(t) - 1], 'T');
	ck_assert_ptr_nonnull(strstr(t, "99000 bytes left out"));
	free(t);
	json_decref(r);
	free(big);
}
END_TEST

/* The base64 of a PNG's start, w x h (the reader needs no more). */
static char *
png_b64(unsigned long w, unsigned long h)
{
	unsigned char b[33] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
	    0, 0, 0, 13, 'I', 'H', 'D', 'R' };
	int i;

	for (i = 0; i < 4; i++) {
		b[16 + i] = (unsigned char)(w >> (24 - 8 * i));
		b[20 + i] = (unsigned char)(h >> (24 - 8 * i));
	}
	return b64_encode(b, sizeof b);
}

static void
add_image(json_t *content, const char *mime, const char *data)
{
	json_t *b = json_pack("{s:s}", "type", "image");

	if (mime != NULL)
		json_object_set_new(b, "mimeType", json_string(mime));
	if (data != NULL)
		json_object_set_new(b, "data", json_string(data));
	json_array_append_new(content, b);
}

START_TEST(images_pass_to_the_model_or_say_why_not)
{
	static const unsigned char webp[30] = { 'R', 'I', 'F', 'F', 0, 0, 0, 0,
	    'W', 'E', 'B', 'P', 'V', 'P', '8', 'L', 0, 0, 0, 0, 0x2f };
	json_t *content = json_array(), *r, *images = NULL, *img;
	char *png = png_b64(640, 480), *wide = png_b64(9000, 10), *t;
	char *w = b64_encode(webp, sizeof webp);
	char *tiff = b64_encode((const unsigned char *)"II*\0", 4);
	int err;

	json_array_append_new(content, json_pack("{s:s, s:s}", "type", "text",
	    "text", "shot:"));
	add_image(content, "image/png", png);
	add_image(content, "image/tiff", tiff);
	add_image(content, "IMAGE/PNG", wide);
	add_image(content, "image/jpeg", "/9j/4A@@");
	add_image(content, "image/gif", NULL);
	add_image(content, "image/jpeg", png);
	add_image(content, "image/webp", w);
	r = json_pack("{s:o}", "content", content);
	t = mcp_content_text(r, 0, &err, &images);
	ck_assert_str_eq(t, "shot:\n"
	    "[image image/png 640x480, passed to the model]\n"
	    "[image image/tiff not passed on: the models take png, jpeg, gif "
	    "or webp]\n"
	    "[image image/png 9000x10 not passed on: the models take at most "
	    "8000 pixels a side]\n"
	    "[image image/jpeg not passed on: its data is not valid base64]\n"
	    "[image image/gif not passed on: it has no data]\n"
	    "[image image/jpeg not passed on: its header cannot be read as "
	    "image/jpeg]\n"
	    "[image image/webp 1x1, passed to the model]");
	/* The two images as the Messages API takes them, data unchanged. */
	ck_assert_uint_eq(json_array_size(images), 2);
	img = json_array_get(images, 0);
	ck_assert_str_eq(json_string_value(json_object_get(img, "type")),
	    "image");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
	    img, "source"), "type")), "base64");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
	    img, "source"), "media_type")), "image/png");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
	    img, "source"), "data")), png);
	ck_assert_uint_eq(json_object_size(img), 2);
	ck_assert_uint_eq(json_object_size(json_object_get(img, "source")), 3);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
	    json_array_get(images, 1), "source"), "media_type")),
	    "image/webp");
	free(t);
	json_decref(images);
	json_decref(r);
	free(png);
	free(wide);
	free(w);
	free(tiff);
}
END_TEST

START_TEST(images_are_bounded_in_number_and_size)
{
	json_t *content = json_array(), *r, *images = NULL;
	char *png = png_b64(8000, 8000), *big, *t;
	size_t n = MCP_IMAGE_BYTES + 4;
	int err, i;

	for (i = 0; i < MCP_IMAGE_COUNT + 2; i++)
		add_image(content, "image/png", png);
	r = json_pack("{s:o}", "content", content);
	t = mcp_content_text(r, 0, &err, &images);
	ck_assert_uint_eq(json_array_size(images), MCP_IMAGE_COUNT);
	ck_assert_ptr_nonnull(strstr(t, "[image image/png 8000x8000, passed "
	    "to the model]\n[image image/png not passed on: a result passes "
	    "at most 5 images to the model]\n[image image/png not passed on: "
	    "a result passes at most 5 images to the model]"));
	free(t);
	json_decref(images);
	json_decref(r);
	/* Past 5 MiB of base64 (the APIs count the base64): refused before
	 * anything is decoded. */
	big = xmalloc(n + 1);
	memset(big, 'A', n);
	memcpy(big, png, strlen(png));
	big[n] = '\0';
	r = json_pack("{s:[{s:s, s:s, s:s}]}", "content", "type", "image",
	    "mimeType", "image/png", "data", big);
	t = mcp_content_text(r, 0, &err, &images);
	ck_assert_str_eq(t, "[image image/png not passed on: its base64 is "
	    "5,242,884 bytes, more than the 5,242,880 the models take]");
	ck_assert_ptr_null(images);
	free(t);
	json_decref(r);
	/* Exactly 5 MiB passes. */
	big[n - 4] = '\0';
	r = json_pack("{s:[{s:s, s:s, s:s}]}", "content", "type", "image",
	    "mimeType", "image/png", "data", big);
	t = mcp_content_text(r, 0, &err, &images);
	ck_assert_str_eq(t, "[image image/png 8000x8000, passed to the "
	    "model]");
	ck_assert_uint_eq(json_array_size(images), 1);
	free(t);
	json_decref(images);
	json_decref(r);
	free(big);
	free(png);
}
END_TEST

START_TEST(withheld_images_say_so)
{
	struct tool_output o = { 0 };
	char *png = png_b64(10, 20);
	int i;

	o.text = xstrdup("a\n[image image/png 10x20, passed to the model]\n"
	    "b\n[image image/png 10x20, passed to the model]\n"
	    "[image image/png 10x20, passed to the model]");
	o.images = json_array();
	for (i = 0; i < 3; i++)
		json_array_append_new(o.images, json_pack("{s:s, s:{s:s, s:s, "
		    "s:s}}", "type", "image", "source", "type", "base64",
		    "media_type", "image/png", "data", png));
	mcp_content_withhold(&o, 3, "never");
	ck_assert_uint_eq(json_array_size(o.images), 3);
	mcp_content_withhold(&o, 1, "too many");
	ck_assert_str_eq(o.text, "a\n[image image/png 10x20, passed to the "
	    "model]\nb\n[image image/png 10x20 not passed on: too many]\n"
	    "[image image/png 10x20 not passed on: too many]");
	ck_assert_uint_eq(json_array_size(o.images), 1);
	/* A line the cut of a long text took is added at the end. */
	free(o.text);
	o.text = xstrdup("[… 99 bytes left out …]");
	mcp_content_withhold(&o, 0, "gone");
	ck_assert_str_eq(o.text, "[… 99 bytes left out …]\n[an image not "
	    "passed on: gone]");
	ck_assert_ptr_null(o.images);
	tool_output_clear(&o);
	free(png);
}
END_TEST

START_TEST(tool_names_fit_the_apis)
{
	char n[MCP_NAME_MAX + 1], longer[200];
	size_t i;

	mcp_set_tool_name("test", "echo", n);
	ck_assert_str_eq(n, "mcp__test__echo");
	mcp_set_tool_name("my server", "fs.read/file", n);
	ck_assert_str_eq(n, "mcp__my_server__fs_read_file");
	memset(longer, 'z', sizeof longer - 1);
	longer[sizeof longer - 1] = '\0';
	mcp_set_tool_name("s", longer, n);
	ck_assert_uint_eq(strlen(n), MCP_NAME_MAX);
	for (i = 0; n[i] != '\0'; i++)
		ck_assert(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
		    "TUVWXYZ0123456789_-", n[i]) != NULL);
	ck_assert(mcp_set_is_tool_name("mcp__s__t"));
	ck_assert(!mcp_set_is_tool_name("bash"));
}
END_TEST

START_TEST(the_allow_list)
{
	json_t *allow = json_pack("[s, s]", "mcp__test__echo", "mcp__web__*");

	ck_assert(mcp_set_allowed(allow, "test", "mcp__test__echo"));
	ck_assert(!mcp_set_allowed(allow, "test", "mcp__test__add"));
	ck_assert(mcp_set_allowed(allow, "web", "mcp__web__anything"));
	ck_assert(!mcp_set_allowed(allow, "webby", "mcp__webby__x"));
	ck_assert(!mcp_set_allowed(NULL, "test", "mcp__test__echo"));
	json_decref(allow);
}
END_TEST

START_TEST(unusable_configurations_are_named)
{
	static const char *const bad[] = {
		"{\"s\": {\"args\": [\"x\"]}}",
		"{\"s\": {\"command\": \"x\", \"args\": \"y\"}}",
		"{\"s\": {\"command\": \"x\", \"args\": [1]}}",
		"{\"s\": {\"type\": \"sse\", \"url\": \"http://h/\"}}",
		"{\"s\": {\"type\": \"http\", \"url\": \"ftp://h/\"}}",
		"{\"s\": 3}",
		"[]",
	};
	struct mcp_launch launch;
	size_t i;

	memset(&launch, 0, sizeof launch);
	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		json_t *cfg = json_loads(bad[i], 0, NULL);
		char *err = NULL;

		ck_assert_ptr_null(mcp_set_new(cfg, &launch, NULL, NULL, &err));
		ck_assert_msg(err != NULL && (strstr(err, "MCP server s") ||
		    strstr(err, "mcpServers")), "%s: %s", bad[i], err);
		free(err);
		json_decref(cfg);
	}
}
END_TEST

START_TEST(unread_lines_are_capped)
{
	struct jsonrpc_lines l;
	char *chunk = xmalloc(1024 * 1024);
	size_t i;
	int rc = 0;

	/* Lines, none taken: the total is capped all the same. */
	memset(chunk, 'x', 1024 * 1024);
	for (i = 255; i < 1024 * 1024; i += 256)
		chunk[i] = '\n';
	memset(&l, 0, sizeof l);
	for (i = 0; i < 32 && rc == 0; i++)
		rc = jsonrpc_lines_feed(&l, chunk, 1024 * 1024);
	ck_assert_int_eq(rc, -1);
	ck_assert_uint_le(i, JSONRPC_MAX_BUFFERED / (1024 * 1024) + 1);
	jsonrpc_lines_clear(&l);
	/* Taken as they come, they never are. */
	for (i = 0; i < 20; i++) {
		char *line;
		size_t n = 0, bad = 0;

		ck_assert_int_eq(jsonrpc_lines_feed(&l, chunk, 1024 * 1024),
		    0);
		while ((line = jsonrpc_lines_next(&l)) != NULL) {
			bad += strlen(line) != 255;
			n++;
			free(line);
		}
		ck_assert_uint_eq(n, 4096);
		ck_assert_uint_eq(bad, 0);
	}
	jsonrpc_lines_clear(&l);
	free(chunk);
}
END_TEST

START_TEST(server_names_and_cwd_are_checked)
{
	static const char *const bad_names[] = {
		"", "a b", "a.b", "a__b", "éa", "123456789012345678901234567890123",
	};
	static const char *const good[] = {
		"{\"git-hub_2\": {\"command\": \"x\"}}",
		"{\"s\": {\"command\": \"x\", \"cwd\": \"/tmp\"}}",
		"{\"12345678901234567890123456789012\": {\"command\": \"x\"}}",
	};
	struct mcp_launch launch;
	struct mcp_set *set;
	size_t i;
	json_t *cfg;
	char *err = NULL;

	memset(&launch, 0, sizeof launch);
	for (i = 0; i < sizeof bad_names / sizeof *bad_names; i++) {
		cfg = json_pack("{s:{s:s}}", bad_names[i], "command", "x");
		ck_assert_ptr_null(mcp_set_new(cfg, &launch, NULL, NULL, &err));
		ck_assert_msg(err != NULL && strstr(err, "MCP server name"),
		    "%s: %s", bad_names[i], err);
		free(err);
		err = NULL;
		json_decref(cfg);
	}
	cfg = json_loads("{\"s\": {\"command\": \"x\", \"cwd\": "
	    "\"tools\"}}", 0, NULL);
	ck_assert_ptr_null(mcp_set_new(cfg, &launch, NULL, NULL, &err));
	ck_assert_msg(strstr(err, "MCP server s") && strstr(err, "absolute"),
	    "%s", err);
	free(err);
	err = NULL;
	json_decref(cfg);
	for (i = 0; i < sizeof good / sizeof *good; i++) {
		cfg = json_loads(good[i], 0, NULL);
		set = mcp_set_new(cfg, &launch, NULL, NULL, &err);
		ck_assert_msg(set != NULL, "%s: %s", good[i], err);
		mcp_set_free(set);
		json_decref(cfg);
	}
}
END_TEST

/* --- against the test server ---------------------------------------------- */

static char *wd, *program, *script;
static int notices;

static void
setup(void)
{
	const char *top = getenv("top_srcdir");
	char buf[PATH_MAX], *t = tu_tmpdir(), *path;

	ck_assert_ptr_nonnull(realpath(t, buf));
	free(t);
	wd = xstrdup(buf);
	program = reaperexe_self();
	path = xasprintf("%s/tests/mcp/server.py", top ? top : "..");
	ck_assert_ptr_nonnull(realpath(path, buf));
	free(path);
	script = xstrdup(buf);
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	notices = 0;
}

static void
teardown(void)
{
	tu_rmtree(wd);
	free(wd);
	free(program);
	free(script);
}

static char last_notice[4096];

static void
count_notice(void *ud, const char *text)
{
	(void)ud;
	ck_assert_ptr_nonnull(strstr(text, "MCP server test"));
	snprintf(last_notice, sizeof last_notice, "%s", text);
	notices++;
}

/* A launch of the test's servers: run by the reaper, in wd. */
static void
launch_init(struct mcp_launch *launch)
{
	memset(launch, 0, sizeof *launch);
	launch->bo.program = program;
	launch->bo.workdir = wd;
}

/* The set of one stdio server "test" started with flag (and cwd, when
 * not NULL); launch must outlive it. */
static struct mcp_set *
test_set_mode(struct mcp_launch *launch, const char *flag, const char *cwd,
    char **log)
{
	json_t *cfg;
	char *err = NULL;
	struct mcp_set *set;

	launch_init(launch);
	*log = xasprintf("%s/mcp.log", wd);
	cfg = json_pack("{s:{s:s, s:[s, s, s, s]}}", "test", "command",
	    "python3", "args", script, "--log", *log, flag);
	if (cwd != NULL)
		json_object_set_new(json_object_get(cfg, "test"), "cwd",
		    json_string(cwd));
	set = mcp_set_new(cfg, launch, count_notice, NULL, &err);
	ck_assert_msg(set != NULL, "%s", err ? err : "");
	json_decref(cfg);
	return set;
}

/* The set of one stdio server "test"; launch must outlive it. */
static struct mcp_set *
test_set(struct mcp_launch *launch, int legacy, char **log)
{
	/* (--sse means nothing on stdio.) */
	return test_set_mode(launch, legacy ? "--legacy" : "--sse", NULL,
	    log);
}

/* The set of the HTTP server "test" at url. */
static struct mcp_set *
http_set(const char *url)
{
	json_t *cfg = json_pack("{s:{s:s, s:s}}", "test", "type", "http",
	    "url", url);
	char *err = NULL;
	struct mcp_set *set = mcp_set_new(cfg, NULL, count_notice, NULL,
	    &err);

	ck_assert_msg(set != NULL, "%s", err ? err : "");
	json_decref(cfg);
	return set;
}

/* Starts the HTTP test server with flag (and flag2, may be NULL); *port
 * gets its port. */
static pid_t
http_server2(const char *flag, const char *flag2, int *port)
{
	char *pf = xasprintf("%s/port", wd), buf[32];
	char *log = xasprintf("--log=%s/http.log", wd);
	char *argv[] = { "python3", script, "--http", "--port-file", pf,
	    log, (char *)flag, (char *)flag2, NULL };
	int64_t until = clock_mono_ms() + 20000;
	FILE *f = NULL;
	pid_t pid;

	ck_assert_int_eq(posix_spawnp(&pid, "python3", NULL, NULL, argv,
	    environ), 0);
	while (clock_mono_ms() < until && (f = fopen(pf, "r")) == NULL)
		usleep(20000);
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
	fclose(f);
	free(pf);
	free(log);
	*port = atoi(buf);
	return pid;
}

static pid_t
http_server(const char *flag, int *port)
{
	return http_server2(flag, NULL, port);
}

static void
http_server_end(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* How often the server's log has text. */
static int
logged(const char *log, const char *text)
{
	FILE *f = fopen(log, "r");
	char line[65536];
	int n = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof line, f) != NULL)
		if (strstr(line, text) != NULL)
			n++;
	fclose(f);
	return n;
}

/* Calls name with args (a JSON text) and returns whether it failed. */
static int
call(struct mcp_set *set, const char *name, const char *args,
    struct cancel *cancel, int timeout_s, struct tool_output *o)
{
	json_t *in = json_loads(args, 0, NULL);
	struct mcp_server *s;
	char *tool = NULL;
	int rc;

	s = mcp_set_find(set, NULL, name, &tool);
	ck_assert_msg(s != NULL, "no %s", name);
	rc = mcp_server_call(s, tool, in, NULL, cancel, timeout_s, 4096, o);
	free(tool);
	json_decref(in);
	return rc;
}

/* call, with a cancel fired after 300 ms (once the thread that fires
 * it is joined). */
static int
call_cancelled(struct mcp_set *set, const char *name, const char *args,
    int timeout_s, struct tool_output *o)
{
	struct tu_firer f;
	struct cancel c;
	pthread_t th;
	int rc;

	tu_fire_after(&f, &c, 300, &th);
	rc = call(set, name, args, &c, timeout_s, o);
	pthread_join(th, NULL);
	cancel_destroy(&c);
	return rc;
}

/* Fails the test unless echo, called with 2 s to answer, times out
 * within 10 s. */
static void
echo_times_out(struct mcp_set *set)
{
	struct tool_output o = { 0 };
	int64_t t0 = clock_mono_ms();

	ck_assert_int_eq(call(set, "mcp__test__echo", "{\"text\":\"x\"}",
	    NULL, 2, &o), -1);
	ck_assert_msg(strstr(o.text, "timed out") != NULL, "%s", o.text);
	ck_assert_int_lt(clock_mono_ms() - t0, 10000);
	tool_output_clear(&o);
}

START_TEST(stdio_server_in_both_revisions)
{
	struct mcp_launch launch;
	struct tool_output o = { 0 };
	json_t *list = json_array(), *t;
	struct mcp_set *set;
	char *log, *text;
	size_t i;
	int legacy;

	for (legacy = 0; legacy < 2; legacy++) {
		set = test_set(&launch, legacy, &log);
		json_array_clear(list);
		ready_tools(set, list);
		/* Five tools (six with the legacy server's ask) and the
		 * task-only research, over three pages (four). */
		text = mcp_set_text(set);
		ck_assert_msg(json_array_size(list) == 5 + (size_t)legacy,
		    "%s", text);
		free(text);
		json_array_foreach(list, i, t)
			ck_assert(json_is_object(json_object_get(t,
			    "input_schema")));
		ck_assert_int_eq(logged(log, "tools/list"), 3 + legacy);
		ck_assert_int_eq(call(set, "mcp__test__add", "{\"a\":2,"
		    "\"b\":3}", NULL, 10, &o), 0);
		ck_assert_str_eq(o.text, "5");
		tool_output_clear(&o);
		text = mcp_set_text(set);
		ck_assert_ptr_nonnull(strstr(text, legacy ? "revision "
		    "2025-06-18" : "revision 2026-07-28"));
		free(text);
		ck_assert_int_eq(logged(log, "\"initialize\""), legacy);
		mcp_set_free(set);
		unlink(log);
		free(log);
	}
	json_decref(list);
}
END_TEST

START_TEST(timeout_and_cancel_tell_the_server)
{
	struct mcp_launch launch;
	struct tool_output o = { 0 };
	struct mcp_set *set;
	char *log;

	set = test_set(&launch, 0, &log);
	list_once(set);
	ck_assert_int_eq(call(set, "mcp__test__slow", "{\"seconds\":30}",
	    NULL, 1, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "timed out after 1 s"));
	tool_output_clear(&o);
	ck_assert_int_eq(call_cancelled(set, "mcp__test__slow",
	    "{\"seconds\":30}", 30, &o), -1);
	ck_assert_ptr_nonnull(strstr(o.text, "cancelled"));
	tool_output_clear(&o);
	/* The server still answers, and heard both. */
	ck_assert_int_eq(call(set, "mcp__test__echo", "{\"text\":\"x\"}",
	    NULL, 10, &o), 0);
	ck_assert_str_eq(o.text, "echo: x");
	tool_output_clear(&o);
	ck_assert_int_eq(logged(log, "notifications/cancelled"), 2);
	mcp_set_free(set);
	free(log);
}
END_TEST

START_TEST(a_dead_server_restarts_at_next_use)
{
	struct mcp_launch launch;
	struct tool_output o = { 0 };
	json_t *list = json_array();
	struct mcp_set *set;
	char *log, *text;

	set = test_set(&launch, 0, &log);
	ready_tools(set, list);
	/* Its task-only tool is named once, and not offered. */
	ck_assert_int_eq(notices, 1);
	ck_assert_ptr_nonnull(strstr(last_notice, "research not offered"));
	notices = 0;
	ck_assert_int_eq(call(set, "mcp__test__crash", "{}", NULL, 10, &o),
	    -1);
	ck_assert_ptr_nonnull(strstr(o.text, "failed"));
	tool_output_clear(&o);
	ck_assert_int_eq(notices, 1);
	text = mcp_set_text(set);
	ck_assert_ptr_nonnull(strstr(text, "stopped"));
	free(text);
	/* Its tools are still offered; a call starts it again. */
	json_array_clear(list);
	ready_tools(set, list);
	ck_assert_uint_eq(json_array_size(list), 5);
	ck_assert_int_eq(call(set, "mcp__test__grow", "{}", NULL, 10, &o), 0);
	tool_output_clear(&o);
	ck_assert_int_eq(logged(log, "server/discover"), 2);
	/* grow announced a new tool: the list was read again. */
	json_array_clear(list);
	ready_tools(set, list);
	ck_assert_uint_eq(json_array_size(list), 6);
	json_decref(list);
	mcp_set_free(set);
	free(log);
}
END_TEST

START_TEST(stdio_server_runs_in_root_or_its_cwd)
{
	struct mcp_launch launch;
	struct tool_output o = { 0 };
	struct mcp_set *set;
	char *log;

	/* Never in the working tree, which teammates can write. */
	set = test_set_mode(&launch, "--cwd-tool", NULL, &log);
	list_once(set);
	ck_assert_int_eq(call(set, "mcp__test__cwd", "{}", NULL, 10, &o), 0);
	ck_assert_str_eq(o.text, "/");
	tool_output_clear(&o);
	mcp_set_free(set);
	free(log);
	set = test_set_mode(&launch, "--cwd-tool", "/tmp", &log);
	list_once(set);
	ck_assert_int_eq(call(set, "mcp__test__cwd", "{}", NULL, 10, &o), 0);
	ck_assert_str_eq(o.text, "/tmp");
	tool_output_clear(&o);
	mcp_set_free(set);
	free(log);
}
END_TEST

START_TEST(a_server_that_floods_pings_cannot_block)
{
	struct mcp_launch launch;
	struct tool_output o = { 0 };
	struct mcp_set *set;
	int64_t t0;
	char *log;

	set = test_set_mode(&launch, "--flood-pings", NULL, &log);
	list_once(set);
	/* It stops reading at the call: its pings' answers are dropped
	 * once its input is full, and the deadline holds. */
	echo_times_out(set);
	/* A request that cannot even be written yields to the cancel. */
	t0 = clock_mono_ms();
	ck_assert_int_eq(call_cancelled(set, "mcp__test__echo",
	    "{\"text\":\"y\"}", 60, &o), -1);
	ck_assert_msg(strstr(o.text, "cancelled") != NULL, "%s", o.text);
	ck_assert_int_lt(clock_mono_ms() - t0, 10000);
	tool_output_clear(&o);
	/* And it can be ended. */
	mcp_set_free(set);
	free(log);
}
END_TEST

START_TEST(a_server_that_never_stops_writing)
{
	struct mcp_launch launch;
	json_t *list = json_array();
	struct mcp_set *set;
	char *log, *text;
	int i;

	set = test_set_mode(&launch, "--spam-lines", NULL, &log);
	ready_tools(set, list);
	ck_assert_uint_eq(json_array_size(list), 5);
	/* Each look at it reads a bounded part of its output. */
	for (i = 0; i < 5; i++) {
		json_array_clear(list);
		ready_tools(set, list);
		ck_assert_uint_eq(json_array_size(list), 5);
	}
	text = mcp_set_text(set);
	ck_assert_msg(strstr(text, "ready") != NULL, "%s", text);
	free(text);
	json_decref(list);
	mcp_set_free(set);
	free(log);
}
END_TEST

START_TEST(a_huge_tool_list_is_bounded)
{
	struct mcp_launch launch;
	json_t *list = json_array(), *t;
	struct mcp_set *set;
	const char *d;
	char *log, *schema;
	size_t i;

	set = test_set_mode(&launch, "--huge-list", NULL, &log);
	ready_tools(set, list);
	ck_assert_uint_eq(json_array_size(list), 100);
	ck_assert_int_eq(notices, 1);
	ck_assert_ptr_nonnull(strstr(last_notice, "150 tools"));
	json_array_foreach(list, i, t) {
		d = json_string_value(json_object_get(t, "description"));
		schema = json_dumps(json_object_get(t, "input_schema"),
		    JSON_COMPACT);
		ck_assert_uint_le(strlen(d), 1024 + 100);
		ck_assert_uint_le(strlen(schema), 8192);
		if (i == 0)
			ck_assert_ptr_nonnull(strstr(d, "é…"));
		if (i == 1) {
			ck_assert_str_eq(schema, "{\"type\":\"object\"}");
			ck_assert_ptr_nonnull(strstr(d, "too large"));
		}
		free(schema);
	}
	json_decref(list);
	mcp_set_free(set);
	free(log);
}
END_TEST

START_TEST(an_http_stream_kept_open_for_ever)
{
	struct mcp_set *set;
	char *url;
	int port;
	pid_t pid = http_server("--sse-keepalive-forever", &port);

	url = xasprintf("http://127.0.0.1:%d/mcp", port);
	set = http_set(url);
	list_once(set);
	echo_times_out(set);
	mcp_set_free(set);
	free(url);
	http_server_end(pid);
}
END_TEST

/* The launch of the start-clock test: a start whose network waits for
 * the person until `asked_until` (monotonic ms). */
static int64_t asked_until;

static int
held_begin(void *ud, const char *name, json_t *config,
    struct bash_options *bo, void **handle, char **err)
{
	(void)ud;
	(void)name;
	(void)config;
	(void)bo;
	(void)err;
	*handle = &asked_until;
	return 0;
}

static void
held_end(void *ud, void *handle)
{
	(void)ud;
	(void)handle;
}

static int
held_asking(void *ud, void *handle)
{
	(void)ud;
	return handle == &asked_until && clock_mono_ms() < asked_until;
}

/* The set of the stdio server "test" that sleeps 2.5 s before it reads,
 * with 1.5 s to start (0.5 s for server/discover), its network waiting
 * for the person (held_asking) for the first 2.7 s when `held`. */
static struct mcp_set *
test_set_held(struct mcp_launch *launch, int held, char **log)
{
	json_t *cfg;
	char *err = NULL;
	struct mcp_set *set;

	launch_init(launch);
	launch->begin = held_begin;
	launch->end = held_end;
	launch->asking = held_asking;
	launch->start_ms = 1500;
	launch->probe_ms = 500;
	*log = xasprintf("%s/mcp.log", wd);
	cfg = json_pack("{s:{s:s, s:[s, s, s, s, s]}}", "test", "command",
	    "python3", "args", script, "--log", *log, "--legacy",
	    "--start-delay=2.5");
	set = mcp_set_new(cfg, launch, count_notice, NULL, &err);
	ck_assert_msg(set != NULL, "%s", err ? err : "");
	json_decref(cfg);
	asked_until = held ? clock_mono_ms() + 2700 : 0;
	return set;
}

/* A start whose network waits for the person does not count that time:
 * a server that takes 2.5 s to answer, with 1.5 s to start, starts when
 * the person was asked for 2.7 s of it, and fails when nobody was. */
START_TEST(the_persons_time_stops_a_starts_clock)
{
	struct mcp_launch launch;
	struct mcp_set *set;
	char *log, *text;
	int held;

	for (held = 1; held >= 0; held--) {
		set = test_set_held(&launch, held, &log);
		mcp_set_start(set);
		mcp_set_wait(set, clock_mono_ms() + 20000);
		text = mcp_set_text(set);
		ck_assert_msg(strstr(text, held ? ": ready" : ": failed") !=
		    NULL, "%s", text);
		free(text);
		mcp_set_free(set);
		free(log);
	}
}
END_TEST

/* A server whose own stream ends at once each time, with retry 0 and a
 * megabyte's reply to a request that is no one's: huddle neither spins
 * (its waits grow: three GETs in some 5 s) nor keeps the replies. */
START_TEST(a_tight_own_stream_does_not_spin)
{
	struct mcp_set *set;
	char *url, *log = xasprintf("%s/http.log", wd);
	int64_t t0;
	int port;
	pid_t pid = http_server2("--legacy", "--get-tight", &port);

	url = xasprintf("http://127.0.0.1:%d/mcp", port);
	set = http_set(url);
	list_once(set);
	t0 = clock_mono_ms();
	while (clock_mono_ms() - t0 < 5000 && logged(log, "\"GET\"") < 5)
		usleep(50000);
	ck_assert_msg(logged(log, "\"GET\"") <= 3, "%d GETs in 5 s",
	    logged(log, "\"GET\""));
	mcp_set_free(set);
	free(url);
	free(log);
	http_server_end(pid);
}
END_TEST

/* A server whose own stream asks a ping, and then answers the POST of
 * huddle's reply one byte every two seconds: the quit does not wait for
 * it. */
START_TEST(a_trickling_server_does_not_hold_the_quit)
{
	struct mcp_set *set;
	char *url, *log = xasprintf("%s/http.log", wd);
	int64_t t0;
	int port;
	pid_t pid = http_server2("--legacy", "--get-trickle", &port);

	url = xasprintf("http://127.0.0.1:%d/mcp", port);
	set = http_set(url);
	list_once(set);
	t0 = clock_mono_ms();
	while (clock_mono_ms() - t0 < 10000 && logged(log, "\"p1\"") == 0)
		usleep(50000);
	ck_assert_int_eq(logged(log, "\"p1\""), 1);
	t0 = clock_mono_ms();
	mcp_set_free(set);
	ck_assert_int_lt(clock_mono_ms() - t0, 3000);
	free(url);
	free(log);
	http_server_end(pid);
}
END_TEST

START_TEST(an_http_event_too_large)
{
	struct tool_output o = { 0 };
	struct mcp_set *set;
	char *url;
	int port;
	pid_t pid = http_server("--huge-event", &port);

	url = xasprintf("http://127.0.0.1:%d/mcp", port);
	set = http_set(url);
	list_once(set);
	ck_assert_int_eq(call(set, "mcp__test__echo", "{\"text\":\"x\"}",
	    NULL, 20, &o), -1);
	ck_assert_msg(strstr(o.text, "too large") != NULL, "%s", o.text);
	tool_output_clear(&o);
	mcp_set_free(set);
	free(url);
	http_server_end(pid);
}
END_TEST

/* A server that asks for an OAuth sign-in where nobody can be asked (no
 * launch lends a way to the person) is told of in a sentence that says
 * so, not as a bare 401. */
START_TEST(a_server_that_asks_to_sign_in_is_named)
{
	struct mcp_set *set;
	char *url;
	int port;
	pid_t pid = http_server("--auth", &port);

	url = xasprintf("http://127.0.0.1:%d/mcp", port);
	set = http_set(url);
	list_once(set);
	ck_assert_int_eq(notices, 1);
	ck_assert_msg(strstr(last_notice, "asks to sign in") != NULL &&
	    strstr(last_notice, "nobody can be asked") != NULL, "%s",
	    last_notice);
	mcp_set_free(set);
	free(url);
	http_server_end(pid);
}
END_TEST

START_TEST(errors_show_no_secret_of_the_address)
{
	struct mcp_set *set;
	char *text;

	/* Nothing listens on port 1. */
	set = http_set("http://user:sekret@127.0.0.1:1/key-in-path?token=abc");
	list_once(set);
	ck_assert_int_eq(notices, 1);
	ck_assert_msg(strstr(last_notice, "http://127.0.0.1:1") != NULL,
	    "%s", last_notice);
	text = mcp_set_text(set);
	ck_assert(strstr(text, "http://127.0.0.1:1") != NULL);
	ck_assert_msg(strstr(last_notice, "sekret") == NULL && strstr(
	    last_notice, "key-in") == NULL && strstr(last_notice, "token") ==
	    NULL && strstr(text, "sekret") == NULL && strstr(text, "key-in") ==
	    NULL, "%s\n%s", last_notice, text);
	free(text);
	mcp_set_free(set);
}
END_TEST

static Suite *
mcp_suite(void)
{
	Suite *s = suite_create("mcp");
	TCase *wire = tcase_create("wire");
	TCase *text = tcase_create("text");
	TCase *live = tcase_create("live");

	tcase_add_test(wire, request_is_one_line);
	tcase_add_test(wire, messages_are_told_apart);
	tcase_add_test(wire, error_text_names_the_code);
	tcase_add_test(wire, lines_come_whole_however_cut);
	tcase_add_test(wire, a_line_too_long_fails);
	tcase_add_test(wire, unread_lines_are_capped);
	suite_add_tcase(s, wire);
	tcase_add_test(text, result_blocks_become_text);
	tcase_add_test(text, long_results_are_cut);
	tcase_add_test(text, images_pass_to_the_model_or_say_why_not);
	tcase_add_test(text, images_are_bounded_in_number_and_size);
	tcase_add_test(text, withheld_images_say_so);
	tcase_add_test(text, tool_names_fit_the_apis);
	tcase_add_test(text, the_allow_list);
	tcase_add_test(text, unusable_configurations_are_named);
	tcase_add_test(text, server_names_and_cwd_are_checked);
	suite_add_tcase(s, text);
	tcase_add_checked_fixture(live, setup, teardown);
	tcase_set_timeout(live, 60);
	tcase_add_test(live, stdio_server_in_both_revisions);
	tcase_add_test(live, timeout_and_cancel_tell_the_server);
	tcase_add_test(live, a_dead_server_restarts_at_next_use);
	tcase_add_test(live, stdio_server_runs_in_root_or_its_cwd);
	tcase_add_test(live, a_server_that_floods_pings_cannot_block);
	tcase_add_test(live, a_server_that_never_stops_writing);
	tcase_add_test(live, a_huge_tool_list_is_bounded);
	tcase_add_test(live, an_http_stream_kept_open_for_ever);
	tcase_add_test(live, an_http_event_too_large);
	tcase_add_test(live, a_tight_own_stream_does_not_spin);
	tcase_add_test(live, the_persons_time_stops_a_starts_clock);
	tcase_add_test(live, a_trickling_server_does_not_hold_the_quit);
	tcase_add_test(live, a_server_that_asks_to_sign_in_is_named);
	tcase_add_test(live, errors_show_no_secret_of_the_address);
	suite_add_tcase(s, live);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, mcp_suite());
}
