"""The tally every test script keeps: each check's name with ok (and how
long it took) or FAIL and why, then a closing 'N passed, N failed' line
and the script's exit status."""

import sys
import time


class Results:
    """Counts checks and prints the closing 'N passed, N failed' line."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def run(self, name, fn, *args):
        start = time.monotonic()
        try:
            fn(*args)
        except Exception as e:  # a failed check of any kind
            self.failed += 1
            print("FAIL: %s: %s" % (name, e))
        else:
            self.passed += 1
            print("ok: %s (%.2f s)" % (name, time.monotonic() - start))

    def finish(self):
        """Prints the summary and exits: 1 when a check failed."""
        print("%d passed, %d failed" % (self.passed, self.failed))
        sys.exit(1 if self.failed else 0)
