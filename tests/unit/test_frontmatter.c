/*
 * Unit tests of util/frontmatter: the YAML front matter of agent
 * definition files, read with libyaml, as Claude Code's and huddle's
 * files write it, and each shape it refuses, named by file and line.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "util/xmalloc.h"
#include "util/frontmatter.h"

/* Parses text, which must parse. */
static void
fm_ok(const char *text, struct frontmatter *f)
{
	char *err = NULL;

	ck_assert_msg(frontmatter_parse(text, "x.md", f, &err) == 0,
	    "refused: %s", err ? err : "(no error)");
	ck_assert_ptr_null(err);
}

/* Parses text and expects an error that starts with want. */
static void
fm_bad(const char *text, const char *want)
{
	struct frontmatter f;
	char *err = NULL;

	ck_assert_int_eq(frontmatter_parse(text, "x.md", &f, &err), -1);
	ck_assert_ptr_nonnull(err);
	ck_assert_msg(strncmp(err, want, strlen(want)) == 0,
	    "error '%s' does not start with '%s'", err, want);
	ck_assert_ptr_null(strchr(err, '\n'));
	/* Nothing is left to free on an error. */
	ck_assert_int_eq(f.nfields, 0);
	ck_assert_ptr_null(f.fields);
	ck_assert_ptr_null(f.body);
	free(err);
}

/* The text of key, which must be one value. */
static const char *
fm_text(const struct frontmatter *f, const char *key)
{
	const struct fm_field *k = frontmatter_get(f, key);

	ck_assert_msg(k != NULL, "no key %s", key);
	ck_assert_msg(!k->is_list, "%s is a list", key);
	ck_assert_int_eq(k->nitems, 0);
	return k->value;
}

/* Checks that key is the list of the n strings of want. */
static void
fm_list_is(const struct frontmatter *f, const char *key,
    const char *const *want, size_t n)
{
	const struct fm_field *k = frontmatter_get(f, key);
	size_t i;

	ck_assert_msg(k != NULL, "no key %s", key);
	ck_assert_msg(k->is_list, "%s is not a list", key);
	ck_assert_str_eq(k->value, "");
	ck_assert_int_eq(k->nitems, n);
	for (i = 0; i < n; i++)
		ck_assert_str_eq(k->items[i], want[i]);
}

START_TEST(frontmatter_reads_an_agent_file)
{
	struct frontmatter f;
	const struct fm_field *k;
	static const char *const tools[] = { "read_file", "bash" };
	static const char *const servers[] = { "github", "db" };

	fm_ok("---\n"
	    "name: reviewer # a comment\n"
	    "description: \"Reviews: code, \\\"carefully\\\"\"\n"
	    "tools: [read_file, 'bash']\n"
	    "# a comment line\n"
	    "mcpServers:\n"
	    "  - github\n"
	    "  - \"db\"\n"
	    "notes: |\n"
	    "  line one\n"
	    "    indented\n"
	    "plan_required: true\r\n"
	    "---\n"
	    "The body.\n", &f);
	ck_assert_int_eq(f.nfields, 6);
	k = frontmatter_get(&f, "name");
	ck_assert_str_eq(k->value, "reviewer");
	ck_assert_int_eq(k->line, 2);
	ck_assert_str_eq(fm_text(&f, "description"),
	    "Reviews: code, \"carefully\"");
	fm_list_is(&f, "tools", tools, 2);
	fm_list_is(&f, "mcpServers", servers, 2);
	ck_assert_int_eq(frontmatter_get(&f, "mcpServers")->line, 6);
	ck_assert_str_eq(fm_text(&f, "notes"), "line one\n  indented\n");
	ck_assert_int_eq(frontmatter_get(&f, "notes")->line, 9);
	ck_assert_str_eq(fm_text(&f, "plan_required"), "true");
	ck_assert_int_eq(frontmatter_get(&f, "plan_required")->line, 12);
	ck_assert_str_eq(f.body, "The body.\n");
	ck_assert_int_eq(f.body_line, 14);
	ck_assert_ptr_null(frontmatter_get(&f, "model"));
	frontmatter_free(&f);
	ck_assert_int_eq(f.nfields, 0);

	/* A byte-order mark before the fence; the file ends at the fence. */
	fm_ok("\xef\xbb\xbf---\nname: x\n---", &f);
	ck_assert_str_eq(fm_text(&f, "name"), "x");
	ck_assert_str_eq(f.body, "");
	frontmatter_free(&f);
}
END_TEST

START_TEST(frontmatter_reads_lists_both_ways)
{
	struct frontmatter f;
	static const char *const abc[] = { "a", "b c", "d, e" };
	static const char *const two[] = { "Read", "Bash(git diff:*)" };

	fm_ok("---\n"
	    "flow: [a, 'b c', \"d, e\"]\n"
	    "block:\n"
	    "  - a\n"
	    "  - b c   # a comment after an item\n"
	    "  # a comment between items\n"
	    "  - 'd, e'\n"
	    "flush:\n"
	    "- a\n"
	    "- b c\n"
	    "- d, e\n"
	    "lines: [a,\n"
	    "  b c, \"d, e\"]\n"
	    "claude: [Read, \"Bash(git diff:*)\"]\n"
	    "empty: []\n"
	    "bare:\n"
	    "csv: a, b\n"
	    "---\n", &f);
	fm_list_is(&f, "flow", abc, 3);
	fm_list_is(&f, "block", abc, 3);
	fm_list_is(&f, "flush", abc, 3);
	fm_list_is(&f, "lines", abc, 3);
	ck_assert_int_eq(frontmatter_get(&f, "lines")->line, 12);
	fm_list_is(&f, "claude", two, 2);
	fm_list_is(&f, "empty", NULL, 0);
	/* A bare key is an empty value; a comma-separated line is text
	 * (role.c splits it). */
	ck_assert_str_eq(fm_text(&f, "bare"), "");
	ck_assert_str_eq(fm_text(&f, "csv"), "a, b");
	frontmatter_free(&f);
}
END_TEST

START_TEST(frontmatter_reads_block_text_with_its_chomping)
{
	struct frontmatter f;

	fm_ok("---\n"
	    "clip: |\n"
	    "  one\n"
	    "    two\n"
	    "\n"
	    "strip: |-\n"
	    "  one\n"
	    "  two\n"
	    "\n"
	    "keep: |+\n"
	    "  one\n"
	    "  two\n"
	    "\n"
	    "fold: >\n"
	    "  one\n"
	    "  two\n"
	    "\n"
	    "  three\n"
	    "    indented\n"
	    "  four\n"
	    "foldstrip: >-\n"
	    "  a\n"
	    "  b\n"
	    "foldkeep: >+\n"
	    "  a\n"
	    "\n"
	    "plain: a long\n"
	    "  line, folded\n"
	    "last: x\n"
	    "---\n"
	    "Body\n", &f);
	ck_assert_str_eq(fm_text(&f, "clip"), "one\n  two\n");
	ck_assert_str_eq(fm_text(&f, "strip"), "one\ntwo");
	ck_assert_str_eq(fm_text(&f, "keep"), "one\ntwo\n\n");
	ck_assert_str_eq(fm_text(&f, "fold"),
	    "one two\nthree\n  indented\nfour\n");
	ck_assert_str_eq(fm_text(&f, "foldstrip"), "a b");
	ck_assert_str_eq(fm_text(&f, "foldkeep"), "a\n\n");
	ck_assert_str_eq(fm_text(&f, "plain"), "a long line, folded");
	ck_assert_int_eq(frontmatter_get(&f, "keep")->line, 10);
	ck_assert_int_eq(frontmatter_get(&f, "last")->line, 29);
	ck_assert_str_eq(f.body, "Body\n");
	ck_assert_int_eq(f.body_line, 31);
	frontmatter_free(&f);
}
END_TEST

START_TEST(frontmatter_reads_quotes_escapes_and_comments)
{
	struct frontmatter f;

	fm_ok("---\n"
	    "# a comment before the first key\n"
	    "\n"
	    "dq: \"tab\\there \\\"q\\\" back\\\\slash \\u00e9 \\x41\"\n"
	    "sq: 'it''s # not a comment, nor \\n'\n"
	    "plain: a # a comment\n"
	    "hash: a#b\n"
	    "colon: a:b\n"
	    "quoted: \"Use it when asked: review\"\n"
	    "folded: \"one\n"
	    "  two\"\n"
	    "'quoted key': v   # comments end where the line does\n"
	    "typed: [true, 12, ~, null]\n"
	    "---\n", &f);
	ck_assert_str_eq(fm_text(&f, "dq"),
	    "tab\there \"q\" back\\slash \xc3\xa9 A");
	ck_assert_int_eq(frontmatter_get(&f, "dq")->line, 4);
	ck_assert_str_eq(fm_text(&f, "sq"), "it's # not a comment, nor \\n");
	ck_assert_str_eq(fm_text(&f, "plain"), "a");
	ck_assert_str_eq(fm_text(&f, "hash"), "a#b");
	ck_assert_str_eq(fm_text(&f, "colon"), "a:b");
	ck_assert_str_eq(fm_text(&f, "quoted"), "Use it when asked: review");
	ck_assert_str_eq(fm_text(&f, "folded"), "one two");
	ck_assert_str_eq(fm_text(&f, "quoted key"), "v");
	ck_assert_int_eq(frontmatter_get(&f, "quoted key")->line, 12);
	/* Values are text as written, never typed. */
	ck_assert_str_eq(frontmatter_get(&f, "typed")->items[0], "true");
	ck_assert_str_eq(frontmatter_get(&f, "typed")->items[1], "12");
	ck_assert_str_eq(frontmatter_get(&f, "typed")->items[2], "~");
	ck_assert_str_eq(frontmatter_get(&f, "typed")->items[3], "null");
	frontmatter_free(&f);
}
END_TEST

START_TEST(frontmatter_without_one_or_empty)
{
	struct frontmatter f;

	/* No front matter: all body, from line 1. */
	fm_ok("# Title\n\nText.\n", &f);
	ck_assert_int_eq(f.nfields, 0);
	ck_assert_str_eq(f.body, "# Title\n\nText.\n");
	ck_assert_int_eq(f.body_line, 1);
	frontmatter_free(&f);
	fm_ok("", &f);
	ck_assert_int_eq(f.nfields, 0);
	ck_assert_str_eq(f.body, "");
	frontmatter_free(&f);
	/* "---" must be the whole first line. */
	fm_ok("---x\nname: a\n---\n", &f);
	ck_assert_int_eq(f.nfields, 0);
	ck_assert_str_eq(f.body, "---x\nname: a\n---\n");
	frontmatter_free(&f);
	fm_ok("\n---\nname: a\n---\n", &f);
	ck_assert_int_eq(f.nfields, 0);
	frontmatter_free(&f);

	/* An empty front matter, or one of comments and blank lines. */
	fm_ok("---\n---\nBody\n", &f);
	ck_assert_int_eq(f.nfields, 0);
	ck_assert_ptr_null(f.fields);
	ck_assert_str_eq(f.body, "Body\n");
	ck_assert_int_eq(f.body_line, 3);
	frontmatter_free(&f);
	fm_ok("---\r\n# nothing yet\r\n\r\n--- \r\nBody\r\n", &f);
	ck_assert_int_eq(f.nfields, 0);
	ck_assert_str_eq(f.body, "Body\r\n");
	ck_assert_int_eq(f.body_line, 5);
	frontmatter_free(&f);
}
END_TEST

START_TEST(frontmatter_refuses_anchors_tags_and_nesting)
{
	fm_bad("---\nname: a\nbase: &b x\nother: *b\n---\n",
	    "x.md:3: anchors and aliases are not accepted (&b)");
	fm_bad("---\nname: a\nother: *b\n---\n",
	    "x.md:3: anchors and aliases are not accepted (*b)");
	fm_bad("---\ntools: &t [a]\n---\n",
	    "x.md:2: anchors and aliases are not accepted");
	fm_bad("---\ntools: [a, *t]\n---\n",
	    "x.md:2: anchors and aliases are not accepted");
	fm_bad("---\nname: !!str x\n---\n", "x.md:2: tags are not accepted "
	    "(tag:yaml.org,2002:str)");
	fm_bad("---\nname: x\nmodel: !custom y\n---\n",
	    "x.md:3: tags are not accepted (!custom)");
	fm_bad("---\nname: a\nmeta:\n  a: 1\n  b: 2\n---\n",
	    "x.md:4: meta is a map, and nested maps are not accepted");
	fm_bad("---\nmeta: {a: 1}\n---\n",
	    "x.md:2: meta is a map, and nested maps are not accepted");
	fm_bad("---\ntools: [a, [b]]\n---\n",
	    "x.md:2: an item of tools is a list or a map");
	fm_bad("---\ntools:\n  - a\n  - b: c\n---\n",
	    "x.md:4: an item of tools is a list or a map");
	fm_bad("---\n[a, b]: c\n---\n", "x.md:2: a key is text, not a list");
	fm_bad("---\njust words\n---\n", "x.md:2: the front matter is not "
	    "`key: value` lines");
	fm_bad("---\n\n- item\n---\n", "x.md:3: the front matter is not");
}
END_TEST

START_TEST(frontmatter_refuses_twice_and_documents)
{
	fm_bad("---\nname: a\nname: b\n---\n",
	    "x.md:3: name is given twice (first on line 2)");
	fm_bad("---\nname: a\n'name': b\n---\n",
	    "x.md:3: name is given twice (first on line 2)");
	fm_bad("---\nname: a\n--- b\n---\n",
	    "x.md:3: the front matter holds more than one YAML document");
	fm_bad("---\nname: a\n...\n--- b\n---\n",
	    "x.md:4: the front matter holds more than one YAML document");
	fm_bad("---\ntools:\n  - a\n  -\n---\n",
	    "x.md:4: an empty item in a list");
	fm_bad("---\ntools: [a, '']\n---\n",
	    "x.md:2: an empty item in a list");
	fm_bad("---\nname: \"a\\0b\"\n---\n",
	    "x.md:2: name holds a NUL character");
	fm_bad("---\n\"\": a\n---\n", "x.md:2: a key is empty");
	fm_bad("---\nname: a\n", "x.md:1: the front matter that starts here "
	    "is not closed by a line of ---");
	fm_bad("---", "x.md:1: the front matter that starts here");
}
END_TEST

/* Claude Code's own agent files hold ": " in plain values, which YAML
 * refuses and Claude Code reads as text: so does huddle, those values
 * taken whole; any other error stands as libyaml said it. */
START_TEST(frontmatter_reads_claude_codes_colons)
{
	struct frontmatter f;

	fm_ok("---\nname: a\ndescription: Use it when asked: review it's "
	    "done. Examples: user: \"x\"  \r\ntools: [Read, Grep]\n---\nBody\n",
	    &f);
	ck_assert_str_eq(fm_text(&f, "description"), "Use it when asked: "
	    "review it's done. Examples: user: \"x\"");
	{
		const char *const tools[] = { "Read", "Grep" };

		fm_list_is(&f, "tools", tools, 2);
	}
	ck_assert_str_eq(f.body, "Body\n");
	ck_assert_int_eq(f.body_line, 6);
	frontmatter_free(&f);
	/* The retry does not hide another error. */
	fm_bad("---\nname: a: b\n  nested: c\n---\n",
	    "x.md:3: invalid YAML: did not find expected key");
	/* Only the line libyaml refused is read again: the lines it read
	 * keep their meaning, comments and lists too. */
	fm_ok("---\nname: reviewer\ndescription: Use when the user says: "
	    "review\ndisallowedTools: Bash # note: never a shell\ntools: Read "
	    "# was: Bash, Write\nlist:  [Bash, \"x: y\"]\n---\n", &f);
	ck_assert_str_eq(fm_text(&f, "description"), "Use when the user "
	    "says: review");
	ck_assert_str_eq(fm_text(&f, "disallowedTools"), "Bash");
	ck_assert_str_eq(fm_text(&f, "tools"), "Read");
	{
		const char *const list[] = { "Bash", "x: y" };

		fm_list_is(&f, "list", list, 2);
	}
	frontmatter_free(&f);
	/* A refused line's comment stays out of its value. */
	fm_ok("---\ndescription: a: b # c: d\n---\n", &f);
	ck_assert_str_eq(fm_text(&f, "description"), "a: b");
	frontmatter_free(&f);
	/* Two such lines: each read again in turn. */
	fm_ok("---\ndescription: a: b\nhint: c: d\n---\n", &f);
	ck_assert_str_eq(fm_text(&f, "hint"), "c: d");
	frontmatter_free(&f);
}
END_TEST

START_TEST(frontmatter_holds_at_most_64_keys)
{
	char *text = xstrdup("---\n"), *next;
	int i;

	for (i = 0; i < 65; i++) {
		next = xasprintf("%sk%d: x\n", text, i);
		free(text);
		text = next;
	}
	next = xasprintf("%s---\n", text);
	free(text);
	fm_bad(next, "x.md:66: more than 64 keys");
	free(next);
}
END_TEST

START_TEST(frontmatter_names_syntax_errors_at_their_line)
{
	struct frontmatter f;

	fm_bad("---\nname: a\n  nested: b\n---\n",
	    "x.md:3: invalid YAML: mapping values are not allowed");
	/* Lines are the file's, with CRLF and non-ASCII text before. */
	fm_bad("---\r\nname: \xc3\xa9t\xc3\xa9\r\n\r\n  bad: x\r\n---\r\n",
	    "x.md:4: invalid YAML: mapping values are not allowed");
	/* An open quote is found where the block ends, and said where it
	 * opens. */
	fm_bad("---\nname: a\nx: \"open\n---\nBody\n",
	    "x.md:4: invalid YAML: found unexpected end of stream (while "
	    "scanning a quoted scalar from line 3)");
	/* An open list: where libyaml finds what cannot go in it. */
	fm_bad("---\nname: a\ntools: [a, b\nmodel: x\n---\n",
	    "x.md:4: invalid YAML: did not find expected ',' or ']'");
	fm_bad("---\nname: a\n\tmodel: x\n---\n", "x.md:3: invalid YAML: ");
	fm_bad("---\nname: a\nx: \xff\n---\n",
	    "x.md:3: invalid YAML: invalid leading UTF-8 octet");
	fm_bad("---\nname: a\nx: a\x01z\n---\n",
	    "x.md:3: invalid YAML: control characters are not allowed");
	fm_bad("---\nname: a\n...\nb: 2\n---\n", "x.md:4: invalid YAML: ");
	/* A fence ends the front matter even inside block text. */
	fm_ok("---\nnotes: |\n  a\n---\n  b\n", &f);
	ck_assert_str_eq(frontmatter_get(&f, "notes")->value, "a\n");
	ck_assert_str_eq(f.body, "  b\n");
	frontmatter_free(&f);
}
END_TEST

static Suite *
frontmatter_suite(void)
{
	Suite *s = suite_create("frontmatter");
	TCase *tc = tcase_create("frontmatter");

	tcase_add_test(tc, frontmatter_reads_an_agent_file);
	tcase_add_test(tc, frontmatter_reads_lists_both_ways);
	tcase_add_test(tc, frontmatter_reads_block_text_with_its_chomping);
	tcase_add_test(tc, frontmatter_reads_quotes_escapes_and_comments);
	tcase_add_test(tc, frontmatter_without_one_or_empty);
	tcase_add_test(tc, frontmatter_refuses_anchors_tags_and_nesting);
	tcase_add_test(tc, frontmatter_refuses_twice_and_documents);
	tcase_add_test(tc, frontmatter_names_syntax_errors_at_their_line);
	tcase_add_test(tc, frontmatter_reads_claude_codes_colons);
	tcase_add_test(tc, frontmatter_holds_at_most_64_keys);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(frontmatter_suite());
}
