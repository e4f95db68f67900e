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
check "bad --max-retries" 2 "from 0 to 10" -- --max-retries 99
check "missing option argument" 2 "Try 'huddle --help'" -- --workdir
exit $fail
