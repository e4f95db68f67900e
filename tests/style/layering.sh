#!/bin/sh
# The layering rules (doc/architecture.md), checked on the source tree: only src/ui/
# includes curses; core/, llm/, tools/ and mcp/ never include ui/ or agent/;
# tools/ (what a model's tool calls run) stands on util/ alone.
set -u
src="${top_srcdir:-.}/src"
fail=0

curses=$(grep -rlE '#[[:space:]]*include[[:space:]]*[<"](ncursesw?/)?(n?curses|panel)\.h' "$src" | grep -v "/src/ui/" || true)
if [ -n "$curses" ]; then
	echo "FAIL: curses included outside src/ui/:"; echo "$curses"; fail=1
fi
for layer in core llm tools util mcp; do
	[ -d "$src/$layer" ] || continue
	up=$(grep -rlE '#[[:space:]]*include[[:space:]]*"(ui|agent)/' "$src/$layer" || true)
	if [ -n "$up" ]; then
		echo "FAIL: $layer/ includes ui/ or agent/:"; echo "$up"; fail=1
	fi
done
util_up=$(grep -rlE '#[[:space:]]*include[[:space:]]*"(core|llm|tools)/' "$src/util" || true)
if [ -n "$util_up" ]; then
	echo "FAIL: util/ depends on a layer above it:"; echo "$util_up"; fail=1
fi
tools_up=$(grep -rlE '#[[:space:]]*include[[:space:]]*"(core|llm)/' "$src/tools" || true)
if [ -n "$tools_up" ]; then
	echo "FAIL: tools/ depends on core/ or llm/:"; echo "$tools_up"; fail=1
fi
[ $fail -eq 0 ] && echo "ok: layering"
exit $fail
