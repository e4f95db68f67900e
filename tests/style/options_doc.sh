#!/bin/sh
# The option lists of README.md and doc/huddle.1 against the options
# table, as the binary's --help gives it: each names every option and no
# option the table lacks; doc/settings.md names every settings key.
set -u
top="${top_srcdir:-.}"
huddle="${top_builddir:-.}/src/huddle"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

"$huddle" --help | sed -n 's/^  \(-., \)\{0,1\}--\([a-z-]*\).*/\2/p' |
    sort -u > "$tmp/table"
if [ "$(wc -l < "$tmp/table")" -lt 40 ]; then
	echo "FAIL: --help lists only $(wc -l < "$tmp/table") options"
	exit 1
fi

# README.md: the first cells of the tables headed "| option … | meaning |".
awk '/^\| option( \/ variable)? \| meaning \|/ { t = 1; next }
    !/^\|/ { t = 0 } t { split($0, c, "|"); print c[2] }' "$top/README.md" |
    grep -o -- '--[a-z][a-z-]*' | sed 's/^--//' | sort -u > "$tmp/readme"

# doc/huddle.1: the tags (the line after .TP) of the OPTIONS section.
awk '/^\.SH OPTIONS/ { s = 1; next } /^\.SH/ { s = 0 }
    s && tag { print; tag = 0 } s && /^\.TP/ { tag = 1 }' \
    "$top/doc/huddle.1" | grep -o -- '\\-\\-[a-z][a-z\\-]*' |
    sed 's/\\//g; s/^--//' | sort -u > "$tmp/man"

for doc in readme man; do
	missing=$(comm -23 "$tmp/table" "$tmp/$doc")
	extra=$(comm -13 "$tmp/table" "$tmp/$doc")
	if [ -n "$missing" ]; then
		echo "FAIL: $doc lacks:" $missing; fail=1
	fi
	if [ -n "$extra" ]; then
		echo "FAIL: $doc lists options huddle lacks:" $extra; fail=1
	fi
	[ -z "$missing$extra" ] && echo "ok: $doc lists the options of the table"
done

# doc/settings.md: every key --settings shows, as `key` or "key".
for key in $(XDG_CONFIG_HOME="$tmp" HOME="$tmp" "$huddle" --settings \
    --workdir "$tmp" | awk 'NR > 1 { print $1 }'); do
	if ! grep -q -e "\`$key\`" -e "\"$key\"" "$top/doc/settings.md"; then
		echo "FAIL: doc/settings.md lacks the key $key"; fail=1
	fi
done
[ $fail -eq 0 ] && echo "ok: the docs name every option and key"
exit $fail
