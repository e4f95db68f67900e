"""The providers' SDKs the conformance tests read: the packages pinned in
package.json and package-lock.json beside this file (doc/conformance.md),
installed with `npm ci` under the build tree, once, and again when the
pins change. sdktypes.py checks request bodies against their types;
catalog.py compares their model lists with the catalog.

Two tests started at once by `make check -j` share the one install: a
lock makes the second wait for the first's `npm ci`.
"""

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

SOURCE = os.path.dirname(os.path.abspath(__file__))
TOP_BUILDDIR = os.environ.get("top_builddir", ".")
# node_modules lives in the build tree: the source tree may be read-only
# (make distcheck).
SDK_DIR = os.path.abspath(os.path.join(TOP_BUILDDIR, "tests", "conformance",
                                       "sdk"))
MODULES = os.path.join(SDK_DIR, "node_modules")
PINS = ("package.json", "package-lock.json")
STAMP = os.path.join(MODULES, ".huddle-pins")
TSC = os.path.join(MODULES, ".bin", "tsc")
LOCK = SDK_DIR + ".lock"


def pins_digest():
    """A digest of the pinned package.json and package-lock.json."""
    h = hashlib.sha256()
    for name in PINS:
        with open(os.path.join(SOURCE, name), "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def installed(want):
    """Whether the packages of the pins with digest want are in place."""
    try:
        with open(STAMP) as f:
            return f.read().strip() == want and os.path.exists(TSC)
    except OSError:
        return False


def install_sdks(who):
    """Installs the pinned packages under the build tree when they are
    missing or the pins changed (who names the test in what it prints);
    returns nothing, exits 77 without node or npm and 99 when npm ci
    fails."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        print("%s: skipped, no node/npm (install nodejs and npm to check "
              "huddle against the providers' SDKs)" % who)
        sys.exit(77)
    want = pins_digest()
    os.makedirs(os.path.dirname(SDK_DIR), exist_ok=True)
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if installed(want):
            return
        os.makedirs(SDK_DIR, exist_ok=True)
        for name in PINS:
            src, dst = os.path.join(SOURCE, name), os.path.join(SDK_DIR,
                                                                name)
            if not (os.path.exists(dst) and os.path.samefile(src, dst)):
                shutil.copyfile(src, dst)
        env = dict(os.environ, npm_config_update_notifier="false")
        start = time.monotonic()
        r = subprocess.run([npm, "ci", "--no-audit", "--no-fund"],
                           cwd=SDK_DIR, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=600)
        if r.returncode != 0 or not os.path.exists(TSC):
            print("%s: npm ci in %s failed (status %d):\n%s"
                  % (who, SDK_DIR, r.returncode,
                     r.stdout.decode(errors="replace")[-3000:]))
            sys.exit(99)
        with open(STAMP, "w") as f:
            f.write(want + "\n")
        print("%s: npm ci took %.1f s" % (who, time.monotonic() - start))


def versions():
    """The installed versions of the pinned packages, for the log."""
    out = []
    for pkg in ("@anthropic-ai/sdk", "openai", "typescript"):
        path = os.path.join(MODULES, pkg, "package.json")
        with open(path) as f:
            out.append("%s %s" % (pkg, json.load(f)["version"]))
    return ", ".join(out)
