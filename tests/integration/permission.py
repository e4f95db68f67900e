#!/usr/bin/env python3
"""A permission request is a record the front ends can read: headless
request events (and /requests) carry its fields — the tool, the command
verbatim, the short reason and its sentence, the flagged part and where
it is, the directory it runs in and who asked — beside the body, which
holds the same record as JSON. The command padded with 400 blanks and 40
line ends before `rm -rf junk2` is flagged there, not at its harmless
first line.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakellm_client import FakeLLM, Results  # noqa: E402
from team_driver import Huddle, call, ev, expect, notes, say  # noqa: E402

PADDED = ("echo harmless-looking-step" + " " * 400 + "\n" * 40 +
          "rm -rf junk2")


def test_the_request_carries_its_fields(fake):
    fake.reset()
    fake.script(
        call("lead", "spawn_teammate", name="carl", role="ops",
             prompt="Clean up."),
        *notes("lead"),
        call("carl", "bash", command=PADDED),
        say("carl", "Done."),
        call("carl", "shutdown_response", request_id="{{request_id}}",
             approve=True))
    with Huddle(fake) as h:
        os.makedirs(os.path.join(h.workdir, "junk2"))
        h.send("go")
        req = h.wait(ev("request", type="permission", status="pending"),
                     what="the permission request")
        p = req.get("permission")
        expect(isinstance(p, dict), "no permission fields: %r" % req)
        expect(p["tool"] == "bash" and p["command"] == PADDED,
               "tool and command: %r" % p)
        expect(p["reason"] == "rm -r", "the reason: %r" % p["reason"])
        expect(p["detail"] == "deletes recursively (rm -r)", p["detail"])
        expect(p["flagged"] == "rm -rf junk2" and
               PADDED.encode()[p["flagged_at"]:].decode() == "rm -rf junk2",
               "the flagged part: %r at %r" % (p.get("flagged"),
                                                p.get("flagged_at")))
        expect(os.path.realpath(p["directory"]) ==
               os.path.realpath(h.workdir), "the directory: %r" %
               p["directory"])
        expect(p["who"] == "carl", "who asked: %r" % p["who"])
        # The body is the same record, as JSON.
        body = json.loads(req["body"])
        expect(body["command"] == PADDED and body["reason"] == "rm -r",
               "the body: %r" % req["body"])
        # /requests reports the same fields.
        mark = len(h.events)
        h.send("/requests")
        rep = h.wait(ev("requests"), since=mark, what="the /requests report")
        mine = [r for r in rep["requests"] if r["id"] == req["id"]]
        expect(mine and mine[0].get("permission", {}).get("flagged") ==
               "rm -rf junk2", "the report: %r" % rep)
        h.send("/approve %s" % req["id"])
        h.wait(ev("tool_result", "carl", tool="bash", is_error=False),
               what="the command ran once approved")
        expect(not os.path.exists(os.path.join(h.workdir, "junk2")),
               "junk2 remains")
        h.quit()


def main():
    r = Results()
    with FakeLLM() as fake:
        r.run("a permission request carries its fields",
              test_the_request_carries_its_fields, fake)
    r.finish()


if __name__ == "__main__":
    main()
