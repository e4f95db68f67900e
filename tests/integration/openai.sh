#!/bin/sh
# The team scenario and the crash loop again, on the OpenAI-compatible
# path against the fake server as a reasoning server: every assistant
# tool-call message must carry its reasoning_content back.
set -u
here=$(dirname "$0")
status=0
for test in team.py crash_loop.py; do
	echo "== $test (openai, reasoning)"
	HUDDLE_TEST_API=openai python3 "$here/$test" || status=1
done
exit $status
