#!/bin/sh
# The team scenario on OpenAI's two APIs against the fake server:
# chat completions with the fake as a reasoning server (every assistant
# tool-call message must carry its reasoning_content back), and the
# Responses API with a reasoning model (every function call must come back
# with the encrypted reasoning item before it). The crash loop once more.
set -u
here=$(dirname "$0")
status=0
for run in "openai-chat team.py" "openai-chat crash_loop.py" \
    "openai team.py"; do
	set -- $run
	echo "== $2 ($1)"
	HUDDLE_TEST_API=$1 python3 "$here/$2" || status=1
done
exit $status
