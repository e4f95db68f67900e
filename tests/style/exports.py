#!/usr/bin/env python3
"""Every function a file of src/ exports is used by another file of the
program (doc/style.md, "Docs that cannot drift"): from `nm` on the
build's objects, a function defined in one object and named by no other
object of src/ is either used only in its own file (make it static), by
nothing (delete it), or by the tests only, which the list below allows,
each with its reason. A name on the list that the program now uses, or
that is gone, is reported too, so the list stays true."""

import collections
import os
import subprocess
import sys

BUILD = os.environ.get("top_builddir", ".")

# Exported for the tests alone, and why.
TESTS_ONLY = {
    "bus_drain": "the plain form of bus_drain_filtered the tests read with",
    "bus_wait": "the plain form of bus_wait_since",
    "catalog_load": "reads a catalog file without the user's own",
    "confine_free": "frees a confinement the program keeps for its life",
    "context_tokens": "the estimate the context tests check",
    "detailview_block": "one block of the detail view, checked alone",
    "detailview_field": "one field of the detail view, checked alone",
    "env_is_secret": "the environment filter's rule, checked alone",
    "event_check": "holds events to their schema (doc/headless.md)",
    "event_ftype_name": "the schema's type names, for the doc test",
    "event_schema": "the schema, for the doc test",
    "image_base64_decode": "the decoder the image reader uses, fuzzed",
    "image_size": "an image's size from its header, checked alone",
    "jsonrpc_parse": "the JSON-RPC reader, fuzzed and checked alone",
    "landlock_readable": "what the sandbox lets a path be read as",
    "mcp_oauth_auth_method": "the token endpoint's auth, checked alone",
    "mcp_oauth_as_urls": "where server metadata is looked for",
    "mcp_oauth_challenge": "WWW-Authenticate's reading, checked alone",
    "mcp_oauth_expiry": "a token's end, its life capped, checked alone",
    "mcp_oauth_issuer_ok": "RFC 8414's issuer check, checked alone",
    "mcp_oauth_pkce_ok": "the PKCE requirement, checked alone",
    "mcp_oauth_printable": "what servers say made printable, checked alone",
    "mcp_oauth_token_ok": "the tokens a header takes, checked alone",
    "mcp_oauth_prm_urls": "where resource metadata is looked for",
    "mcp_oauth_resource_ok": "the resource check, checked alone",
    "mcp_oauth_s256": "PKCE's challenge, against RFC 7636's vector",
    "mcp_oauth_scopes": "the choice of scopes, checked alone",
    "mcp_oauth_url_ok": "which endpoints may carry secrets",
    "mcp_redirect_param": "a query's reading, checked alone",
    "mcp_set_tool_name": "the name a server's tool gets, checked alone",
    "mcp_set_wait": "waits for servers to start, as the tests must",
    "mcptools_list": "the tools list of a set, checked alone",
    "options_help_line": "a row's --help line, held to its default",
    "netgate_target": "parses a proxy request's target, checked alone",
    "netgate_team_allowed": "the team-wide allow list, checked alone",
    "policy_check": "one command against the risk policy",
    "proxy_connections": "how many connections the proxy holds",
    "reaperexe_copy": "makes the reaper's sealed copy, checked alone",
    "reaperexe_self": "the program's own executable, checked alone",
    "req_type_request_msg": "a request type's message name",
    "retry_backoff_ms": "the backoff's waits, checked alone",
    "roles_add": "adds a role as a file would, for the role tests",
    "sandbox_open_walk": "the sandbox's path walk, checked alone",
    "settings_load": "reads one settings file, checked alone",
    "store_check_integrity": "the store's integrity check after a crash",
    "store_path": "where the database is, for the crash tests",
    "store_set_ceiling": "a small ceiling for the disk-full tests",
    "table_columns": "the table's column widths, checked alone",
    "table_row_text": "one row of the table as drawn, checked alone",
    "team_find_request": "how REQ resolves, checked alone",
    "team_state_dir": "the state folder, for the tests to look in",
    "team_tool_call": "runs a tool as an agent would, for the tests",
    "team_tool_member": "a member the tool tests act as",
    "team_tool_member_free": "frees that member",
    "text_cp_width": "one code point's width, checked alone",
    "turn_block_count": "a turn's blocks, checked alone",
    "utf8_valid": "the UTF-8 check, fuzzed and checked alone",
    "view_pane": "a pane by name, for the view tests",
}



def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True,
                         check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "T":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
    return defined, used


def objects(top):
    return [os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs
            if f.endswith(".o")]


def main():
    program = objects(os.path.join(BUILD, "src"))
    tests = objects(os.path.join(BUILD, "tests"))
    if not program or not tests:
        print("FAIL: no objects under %s: build first (make check)" % BUILD)
        return 1
    where, users = {}, collections.defaultdict(set)
    for obj in program:
        defined, used = symbols(obj)
        for name in defined:
            where[name] = obj
        for name in used:
            users[name].add(obj)
    by_tests = set()
    for obj in tests:
        by_tests |= symbols(obj)[1]
    bad = []
    for name, obj in sorted(where.items()):
        if name == "main" or users[name] - {obj}:
            if name in TESTS_ONLY:
                bad.append("%s is used by the program now: take it off "
                           "the list" % name)
            continue
        if name in TESTS_ONLY:
            continue
        if name in by_tests:
            bad.append("%s (%s) is used by the tests only: say why in "
                       "TESTS_ONLY, or let the tests do without it"
                       % (name, obj))
        else:
            bad.append("%s (%s) is used by no other file: make it static "
                       "or delete it" % (name, obj))
    for name in sorted(set(TESTS_ONLY) - set(where)):
        bad.append("%s is on the list but exported by nothing" % name)
    for b in bad:
        print("FAIL: " + b)
    print("%d exported functions, %d for the tests alone, %d wrong"
          % (len(where), len(TESTS_ONLY), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
