#!/bin/sh
# The command line of the real binary: --version, --help, and a clear
# message with status 2 for bad options.
set -u
huddle="${top_builddir:-.}/src/huddle"
fail=0

check() {
	# check DESCRIPTION WANT_STATUS PATTERN -- ARGS...
	desc=$1 want=$2 pattern=$3
	shift 4
	out=$("$huddle" "$@" 2>&1)
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "FAIL: $desc: status $got, want $want"; fail=1
	elif ! printf '%s\n' "$out" | grep -q -- "$pattern"; then
		echo "FAIL: $desc: output lacks '$pattern':"; echo "$out"; fail=1
	else
		echo "ok: $desc"
	fi
}

check "--version" 0 "^huddle [0-9][0-9.]*\$" -- --version
check "-V" 0 "^huddle " -- -V
check "--help" 0 "usage: huddle" -- --help
check "unknown option" 2 "Try 'huddle --help'" -- --no-such-option
check "stray argument" 2 "unexpected argument 'stray'" -- stray
check "bad --plan-review" 2 "human, lead or any" -- --plan-review maybe
check "bad --max-teammates" 2 "from 1 to 64" -- --max-teammates 0
check "bad --shutdown-timeout" 2 "seconds" -- --shutdown-timeout x
check "bad --max-retries" 2 "from 0 to 1000" -- --max-retries 1001
check "bad --retry-for" 2 "e.g. 90s, 10m or 1h" -- --retry-for 5x
check "bad --retry-max-delay" 2 "e.g. 40s" -- --retry-max-delay 0
check "missing option argument" 2 "Try 'huddle --help'" -- --workdir
check "a missing value is named" 2 "--max-teammates needs a value" -- --max-teammates

# Usage errors exit 2, in the order a person fixes them: the working
# directory, then the state directory (named, with --state-dir), then
# the key.
check "--workdir that is a file" 2 "--workdir /etc/passwd: not a directory" \
    -- --workdir /etc/passwd --headless
check "--workdir that is missing" 2 "No such file or directory" \
    -- --workdir /nonexistent-huddle-dir --headless
check "a state directory that cannot be" 2 "state directory /etc/passwd/x cannot be used.*--state-dir" \
    -- --state-dir /etc/passwd/x --headless
out=$(HOME=/etc/passwd XDG_STATE_HOME= ANTHROPIC_API_KEY= ANTHROPIC_AUTH_TOKEN= \
    "$huddle" --headless --workdir /etc/passwd </dev/null 2>&1)
if printf '%s\n' "$out" | grep -q "not a directory"; then
	echo "ok: the workdir is named before the state and the key"
else
	echo "FAIL: workdir first: $out"; fail=1
fi
out=$(HOME=/etc/passwd XDG_STATE_HOME= ANTHROPIC_API_KEY= ANTHROPIC_AUTH_TOKEN= \
    "$huddle" --headless </dev/null 2>&1)
if printf '%s\n' "$out" | grep -q "state directory.*XDG_STATE_HOME"; then
	echo "ok: the state directory is named before the key"
else
	echo "FAIL: state before key: $out"; fail=1
fi

# The model catalog and the choices that go with it.
check "--models lists the default" 0 "(default)" -- --models
check "--models shows prices" 0 "IN \$/M" -- --models
check "bad --thinking" 2 "adaptive, off" -- --thinking sometimes
check "too small a thinking budget" 2 "at least 1024" -- --thinking 10
check "bad --max-cost" 2 "US dollars" -- --max-cost 0
check "bad --max-tokens" 2 "number of tokens" -- --max-tokens x
check "missing catalog" 2 "model catalog /nonexistent" -- --catalog /nonexistent --models
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '{"default_model": "x", "models": []}' > "$tmp/bad.json"
check "bad catalog" 2 "non-empty" -- --catalog "$tmp/bad.json" --models
cat > "$tmp/models.json" <<'JSON'
{"default_model": "always",
 "models": [{"id": "always", "context_window": 1000, "max_output": 100,
             "thinking": "adaptive", "thinking_always_on": true,
             "prices": {"input": 1, "output": 1, "cache_write_5m": 1,
                        "cache_write_1h": 1, "cache_read": 1}}]}
JSON
check "--catalog replaces the catalog" 0 "^always " -- --catalog "$tmp/models.json" --models
ANTHROPIC_API_KEY=unused check "thinking off on a model that always thinks" 2 \
    "always thinks" -- --catalog "$tmp/models.json" --thinking off --ask hi
ANTHROPIC_API_KEY=unused check "a budget for an adaptive model" 2 \
    "adaptive or off" -- --catalog "$tmp/models.json" --thinking 2048 --ask hi
exit $fail
