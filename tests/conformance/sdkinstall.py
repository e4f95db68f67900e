"""npm packages the conformance tests run, pinned in a package.json and
package-lock.json of the source tree (doc/conformance.md) and installed
with `npm ci` under the build tree, once, and again when the pins change.

install_pins() installs any such pinned folder. The providers' SDKs are
the pins beside this file: sdktypes.py checks request bodies against their
types, catalog.py compares their model lists with the catalog,
streamevents.py reads their stream event types (install_sdks()).
mcpsuite.py installs the MCP conformance suite pinned in mcp/.

Two tests started at once by `make check -j` share one install: a lock
makes the second wait for the first's `npm ci`.
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
PINS = ("package.json", "package-lock.json")


def build_dir(name):
    """The folder under the build tree's tests/conformance where the pins
    called name are installed: node_modules lives in the build tree, as
    the source tree may be read-only (make distcheck)."""
    return os.path.abspath(os.path.join(TOP_BUILDDIR, "tests",
                                        "conformance", name))


SDK_DIR = build_dir("sdk")
MODULES = os.path.join(SDK_DIR, "node_modules")
TSC = os.path.join(MODULES, ".bin", "tsc")


def pins_digest(pins):
    """A digest of the package.json and package-lock.json in folder pins."""
    h = hashlib.sha256()
    for name in PINS:
        with open(os.path.join(pins, name), "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def stamp(dest):
    """The file in dest's node_modules that holds the digest of the pins
    installed there."""
    return os.path.join(dest, "node_modules", ".huddle-pins")


def installed(dest, want, needed):
    """Whether the packages of the pins with digest want are in place in
    dest, file needed among them."""
    try:
        with open(stamp(dest)) as f:
            return f.read().strip() == want and os.path.exists(needed)
    except OSError:
        return False


def install_pins(pins, dest, who, needed, purpose):
    """Installs the packages pinned in folder pins into folder dest (its
    node_modules) when they are missing there or the pins changed; needed
    is a file the install must have made. who names the test in what it
    prints, purpose says what the packages are for in the sentence of a
    skip. Returns nothing; exits 77 without node or npm and 99 when npm
    ci fails."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        print("%s: skipped, no node/npm (install nodejs and npm %s)"
              % (who, purpose))
        sys.exit(77)
    want = pins_digest(pins)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(dest + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if installed(dest, want, needed):
            return
        os.makedirs(dest, exist_ok=True)
        for name in PINS:
            src, dst = os.path.join(pins, name), os.path.join(dest, name)
            if not (os.path.exists(dst) and os.path.samefile(src, dst)):
                shutil.copyfile(src, dst)
        env = dict(os.environ, npm_config_update_notifier="false")
        start = time.monotonic()
        r = subprocess.run([npm, "ci", "--no-audit", "--no-fund"],
                           cwd=dest, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=600)
        if r.returncode != 0 or not os.path.exists(needed):
            print("%s: npm ci in %s failed (status %d):\n%s"
                  % (who, dest, r.returncode,
                     r.stdout.decode(errors="replace")[-3000:]))
            sys.exit(99)
        with open(stamp(dest), "w") as f:
            f.write(want + "\n")
        print("%s: npm ci took %.1f s" % (who, time.monotonic() - start))


def install_sdks(who):
    """Installs the providers' SDKs pinned beside this file (see
    install_pins)."""
    install_pins(SOURCE, SDK_DIR, who, TSC,
                 "to check huddle against the providers' SDKs")


def versions(dest=SDK_DIR,
             packages=("@anthropic-ai/sdk", "openai", "typescript")):
    """The installed versions of packages in dest (by default the
    providers' SDKs), for the log."""
    out = []
    for pkg in packages:
        path = os.path.join(dest, "node_modules", pkg, "package.json")
        with open(path) as f:
            out.append("%s %s" % (pkg, json.load(f)["version"]))
    return ", ".join(out)
