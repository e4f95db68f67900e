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
