#!/bin/sh
# The pages stand alone: every file of the project that README.md and
# doc/ name (src/…, doc/…, tests/…, bench/…, scripts/…, data/…) is in the
# source tree or built from it (named in Makefile.am), every relative link
# leads to a file, and no page sends the reader to a document outside the
# repository.
set -u
top="${top_srcdir:-.}"
fail=0
pages="$top/README.md $top/doc/*.md $top/doc/huddle.1"

for path in $(grep -ohE '(^|[^A-Za-z0-9_./-])(src|doc|tests|bench|scripts|data)/[A-Za-z0-9_./-]+' $pages |
    sed -E 's/^[^sdtb]//; s/[.,:)]*$//' | sort -u); do
	[ -e "$top/$path" ] && continue
	# A built program or a generated source: Makefile.am names it.
	grep -qE "(^|[^A-Za-z0-9_/.-])$path([^A-Za-z0-9_/.-]|\$)" "$top/Makefile.am" && continue
	echo "FAIL: named but not in the tree: $path ($(grep -lF "$path" $pages | tr '\n' ' '))"
	fail=1
done
for page in $top/README.md $top/doc/*.md; do
	dir=$(dirname "$page")
	for link in $(grep -oE '\]\([^)#[:space:]]+' "$page" | sed 's/^](//'); do
		case $link in
		http://*|https://*|mailto:*) continue ;;
		esac
		[ -e "$dir/$link" ] || {
			echo "FAIL: $page links to $link, which is not there"
			fail=1
		}
	done
done
outside=$(grep -nE '(DESIGN|STYLE|TARGETS|LLM-API)\.md|\.\./shared' $pages || true)
if [ -n "$outside" ]; then
	echo "FAIL: a page names a document outside the repository:"
	echo "$outside"
	fail=1
fi
[ $fail -eq 0 ] && echo "ok: the pages name only what the tree has"
exit $fail
