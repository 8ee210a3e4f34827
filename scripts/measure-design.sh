#!/usr/bin/env bash
# Measures the shape of the code for docs/design.md ("Measurements"): lines
# per package (non-test / test), the longest functions, duplicates pairs,
# arrows that run back up (internal/ importing a domain package), packages
# that import HiGHS, and branches on the model kind. Prints Markdown; run it
# before and after a redesign and compare.
#
#   scripts/measure-design.sh [N]    # N: how many longest functions (15)
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
export CGO_ENABLED=1
N=${1:-15}
MOD=$($GO list -m)

echo "Measured at $(git describe --always --dirty) on $(date -u +%Y-%m-%d)."
echo
echo "**Lines per package** (Go files, \`wc -l\`; generated code included)"
echo
echo "| package | non-test | test | test/non-test |"
echo "|---|---:|---:|---:|"
tot_src=0 tot_test=0
while read -r pkg dir; do
	src=$($GO list -f '{{range .GoFiles}}{{$.Dir}}/{{.}} {{end}}{{range .CgoFiles}}{{$.Dir}}/{{.}} {{end}}' "$pkg")
	tst=$($GO list -f '{{range .TestGoFiles}}{{$.Dir}}/{{.}} {{end}}{{range .XTestGoFiles}}{{$.Dir}}/{{.}} {{end}}' "$pkg")
	s=0 t=0
	[ -n "$src" ] && s=$(cat $src | wc -l)
	[ -n "$tst" ] && t=$(cat $tst | wc -l)
	tot_src=$((tot_src + s)) tot_test=$((tot_test + t))
	ratio=$(awk -v s="$s" -v t="$t" 'BEGIN { if (s > 0) printf "%.2f", t / s; else print "—" }')
	echo "| \`${pkg#"$MOD"/}\` | $s | $t | $ratio |"
done < <($GO list -f '{{.ImportPath}} {{.Dir}}' ./... | grep -v "^$MOD/scripts/")
echo "| **total** | **$tot_src** | **$tot_test** | $(awk -v s=$tot_src -v t=$tot_test 'BEGIN { printf "%.2f", t / s }') |"

echo
echo "**The $N longest functions** (lines from \`func\` to the closing brace; \`go run ./scripts/measure funcs\`)"
echo
echo '```'
$GO run ./scripts/measure funcs -n "$N"
echo '```'
echo
echo "Functions over 60 lines: $($GO run ./scripts/measure funcs -n 100000 | awk '$1 > 60' | wc -l)."

echo
echo "**Duplicates** (\`duplicates --most 10\`, the tree's Go, assembly and build files)"
echo
echo '```'
if command -v duplicates >/dev/null; then
	duplicates --most 10 --seconds 120
else
	echo "duplicates: not installed here"
fi
echo '```'

echo
echo "**Arrows that run back up** (a package under \`internal/\` importing a package outside it; test imports in brackets)"
echo
n=0
while read -r pkg imports; do
	up=$(tr ' ' '\n' <<<"$imports" | grep "^$MOD/" | grep -v "^$MOD/internal/" | grep -v "^${pkg}/" | sed "s#^$MOD/##" | sort -u | tr '\n' ' ' || true)
	if [ -n "$up" ]; then
		echo "- \`${pkg#"$MOD"/}\` → ${up% }"
		n=$((n + $(wc -w <<<"$up")))
	fi
done < <($GO list -f '{{.ImportPath}} {{join .Imports " "}}' "./internal/...")
while read -r pkg imports; do
	up=$(tr ' ' '\n' <<<"$imports" | grep "^$MOD/" | grep -v "^$MOD/internal/" | sed "s#^$MOD/##" | sort -u | tr '\n' ' ' || true)
	[ -n "$up" ] && echo "- (\`${pkg#"$MOD"/}\` tests → ${up% })"
done < <($GO list -f '{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}' "./internal/...")
echo
echo "Arrows (non-test): $n."

echo
echo "**Packages that import \`github.com/lanl/highs\`** (non-test; tests in brackets)"
echo
$GO list -f '{{.ImportPath}} {{join .Imports " "}}|{{join .TestImports " "}} {{join .XTestImports " "}}' ./... |
	while IFS='|' read -r head tests; do
		pkg=${head%% *}
		if grep -qw 'github.com/lanl/highs' <<<"$head"; then
			echo "- \`${pkg#"$MOD"/}\`"
		elif grep -qw 'github.com/lanl/highs' <<<"$tests"; then
			echo "- (\`${pkg#"$MOD"/}\` tests)"
		fi
	done

echo
echo "**Branches on the model kind** (non-test; \`go run ./scripts/measure kinds\`: type switches naming a concrete"
echo "model type, comparisons and switch cases against \`model.Gauss|Binary|Finite\` or \`learn.Gauss|Binary\`)"
echo
echo '```'
$GO run ./scripts/measure kinds | awk '{ split($1, a, ":"); f = a[1]; sub(/\/[^\/]*$/, "", f); n[f]++; t++ } END { for (p in n) printf "%-22s %d\n", p, n[p] | "sort"; close("sort"); printf "%-22s %d\n", "total", t }'
echo '```'
echo
echo "Type switches on a concrete model type: $($GO run ./scripts/measure kinds | grep -c 'type switch' || true)" \
	"($($GO run ./scripts/measure kinds | grep 'type switch' | awk '{ print $1 }' | sed 's/:[0-9]*$//' | tr '\n' ' ' | sed 's/ $//'))."
