#!/bin/sh
# Every header under src/ is guarded by the name of where it lives:
# src/tools/policy.h by HUDDLE_TOOLS_POLICY_H, src/main.h by HUDDLE_MAIN_H
# (#ifndef, #define, and a closing #endif), so a header moved to another
# layer cannot keep its old layer's name.
set -u
src="${top_srcdir:-.}/src"
fail=0
for h in $(cd "$src" && find . -name '*.h' | sed 's|^\./||' | sort); do
	want=HUDDLE_$(printf '%s' "${h%.h}_H" | tr 'a-z/.-' 'A-Z___')
	got=$(grep -m1 -E '^#ifndef ' "$src/$h" | awk '{print $2}')
	def=$(grep -m1 -E '^#define ' "$src/$h" | awk '{print $2}')
	if [ "$got" != "$want" ] || [ "$def" != "$want" ]; then
		echo "FAIL: src/$h is guarded by '${got:-nothing}', not $want"
		fail=1
	elif [ "$(grep -E '^#endif' "$src/$h" | tail -1)" = "" ]; then
		echo "FAIL: src/$h does not close its guard"
		fail=1
	fi
done
[ $fail -eq 0 ] && echo "ok: every header is guarded by its own name"
exit $fail
