#!/usr/bin/env python3
"""The docs name what exists (doc/style.md, "Docs that cannot drift"):
every name README.md and doc/*.md write in backquotes that reads as code
is in the tree, or on the short list below with the reason it is not.

  * an identifier with an underscore (`bus_send`, `bus_send()`, a JSON
    field): a word of some file of src/, tests/, scripts/, bench/,
    data/ or the build files;
  * a path (`src/agent/team.c`, tests/screen/ui.py, `context.c`): the
    file, or a file of that name anywhere in the tree, or a program the
    build makes (named in Makefile.am);
  * an option in a command of huddle's own (`huddle --resume --team X`):
    an option --help lists.

A name that is not there is printed with the file and line that writes
it."""

import os
import re
import subprocess
import sys

TOP = os.environ.get("top_srcdir", ".")
BUILD = os.environ.get("top_builddir", ".")
SEARCHED = ["src", "tests", "scripts", "bench", "data", ".ci",
            "Makefile.am", "configure.ac"]

# Names the docs write that are not the tree's, and why.
ELSEWHERE = {
    # The Messages API's blocks of server tools huddle does not offer:
    # doc/models.md says what becomes of them.
    "advisor_tool_result": "an API block huddle does not use",
    "bash_code_execution_tool_result": "an API block huddle does not use",
    "code_execution_tool_result": "an API block huddle does not use",
    "text_editor_code_execution_tool_result": "an API block huddle does "
    "not use",
    "tool_search_tool_result": "an API block huddle does not use",
    "web_fetch_tool_result": "an API block huddle does not use",
    "container_upload": "an API block huddle does not use",
    "mcp_tool_use": "the API's MCP connector, which huddle does not use",
    "mcp_tool_result": "the API's MCP connector, which huddle does not use",
    "mcp_tool_listing": "the API's MCP connector, which huddle does not "
    "use",
    # The system's, not ours.
    "landlock_restrict_self": "a Linux system call",
    "pthread_cancel": "a POSIX function huddle does not call",
    "lower_snake_case": "a way of writing names",
}

# Paths the docs write that are the person's or made at run time.
NOT_OURS = {
    "CLAUDE.md", "AGENTS.md", "../AGENTS.md", ".mcp.json",
    ".claude/settings.json", ".claude/settings.local.json",
    ".huddle/settings.json", "src/app/.huddle/settings.json",
    "frames/NAME.json", "checks.json", "models.json", "hello.py",
    "setup.py", "conftest.py", "package.json",
    "tests/conformance/mcpsuite/node_modules",
    "tests/integration/npx-cache",
}

CODE = re.compile(r"`([^`\n]+)`")
IDENT = re.compile(r"^([a-z][a-z0-9_]*_[a-z0-9_]+)(\(\))?$")
PATH = re.compile(r"(?<![\w/.])((?:src|tests|doc|scripts|bench|data)/"
                  r"[A-Za-z0-9_./-]*[A-Za-z0-9_])")
FILE = re.compile(r"^[A-Za-z0-9_.-]+\.(?:c|h|py|sh|md)$")
HUDDLE_OPT = re.compile(r"(?:^|\s)--([a-z][a-z-]*)")


def words_of_tree():
    """Every word of the searched files."""
    words = set()
    for top in SEARCHED:
        path = os.path.join(TOP, top)
        paths = [path] if os.path.isfile(path) else [
            os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs
            if "node_modules" not in d and "corpus" not in d]
        for p in paths:
            try:
                with open(p, encoding="utf-8", errors="replace") as fh:
                    words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*",
                                            fh.read()))
            except OSError:
                pass
    return words


def names_of_files():
    names, paths = set(), set()
    for top in ("src", "tests", "doc", "scripts", "bench", "data"):
        for d, _, fs in os.walk(os.path.join(TOP, top)):
            for f in fs:
                names.add(f)
                paths.add(os.path.relpath(os.path.join(d, f), TOP))
            paths.add(os.path.relpath(d, TOP))
    return names, paths


def options():
    out = subprocess.run([os.path.join(BUILD, "src", "huddle"), "--help"],
                         capture_output=True, text=True).stdout
    return set(re.findall(r"^  (?:-., )?--([a-z-]+)", out, re.M))


def main():
    words = words_of_tree()
    names, paths = names_of_files()
    with open(os.path.join(TOP, "Makefile.am"), encoding="utf-8") as fh:
        built = fh.read()
    opts = options()
    if len(opts) < 40:
        print("FAIL: --help lists only %d options" % len(opts))
        return 1
    docs = ["README.md"] + sorted(
        os.path.join("doc", f) for f in os.listdir(os.path.join(TOP, "doc"))
        if f.endswith(".md"))
    bad = []
    for doc in docs:
        with open(os.path.join(TOP, doc), encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        for n, line in enumerate(lines, 1):
            where = "%s:%d" % (doc, n)
            for code in CODE.findall(line):
                m = IDENT.match(code)
                if m and m.group(1) not in words and \
                        m.group(1) not in ELSEWHERE:
                    bad.append("%s: `%s` is named nowhere in the tree"
                               % (where, code))
                if FILE.match(code) and code not in names and \
                        code not in NOT_OURS:
                    bad.append("%s: no file is called %s" % (where, code))
                if code.startswith("huddle "):
                    for o in HUDDLE_OPT.findall(code):
                        if o not in opts:
                            bad.append("%s: huddle has no --%s"
                                       % (where, o))
            for p in PATH.findall(line):
                p = p.rstrip(".")
                if p in paths or p in NOT_OURS or p in built or \
                        os.path.basename(p) in names:
                    continue
                bad.append("%s: %s is not in the tree" % (where, p))
    for b in bad:
        print("FAIL: " + b)
    print("%d docs read, %d names not in the tree" % (len(docs), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
