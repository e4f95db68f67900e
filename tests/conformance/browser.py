#!/usr/bin/env python3
"""The person's browser in the sign-in tests: $BROWSER for huddle.

huddle opens its sign-in page with `$BROWSER URL` once the person
approves the sign-in request. This program does what a browser and a
person who is already signed in would: it fetches URL and follows the
redirects — huddle's loopback start page to the authorization server's
page, whose authorization endpoint (the conformance suite's, or
tests/integration/oauth.py's) sends it on to huddle's loopback listener
with the code — and ends there. No proxy is used, as a browser on the
person's machine would reach 127.0.0.1 directly.

With BROWSER_LOG set, it appends one line per run to that file: the
status of the last page, or the error; then one line that tells how it
was started ("started: blocked=MASK sid=SID"): the signals it found
blocked (none, when started as from a shell) and its session.
"""

import os
import sys
import urllib.error
import urllib.request


def main():
    if len(sys.argv) != 2:
        print("usage: browser.py URL", file=sys.stderr)
        return 2
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(sys.argv[1], timeout=20) as r:
            status, where = r.status, r.geturl()
            r.read()
        line = "browser: %d at %s" % (status, where.split("?")[0])
        code = 0 if status == 200 else 1
    except (urllib.error.URLError, OSError) as e:
        line = "browser: %s" % e
        code = 1
    log = os.environ.get("BROWSER_LOG")
    if log:
        blocked = "?"
        try:
            with open("/proc/self/status") as st:
                for s in st:
                    if s.startswith("SigBlk:"):
                        blocked = s.split()[1]
        except OSError:
            pass
        with open(log, "a") as f:
            print(line, file=f)
            print("started: blocked=%s sid=%d" % (blocked, os.getsid(0)),
                  file=f)
    return code


if __name__ == "__main__":
    sys.exit(main())
