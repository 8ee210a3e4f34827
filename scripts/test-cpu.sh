#!/usr/bin/env bash
# The test suite's cost per package (docs/performance.md, "Test suite"):
# builds each package's test binary (go test -c, the build cache warm), then
# runs it once from its package's folder under GNU time, as go test would,
# and prints CPU seconds (user + system), peak RSS and the binary's size.
# CPU, not wall time: on a shared machine wall time measures the neighbours.
#
#	scripts/test-cpu.sh [go test flags, e.g. -tags slow] [-- packages]
#
# Run from the repository root after make highs.
set -euo pipefail
cd "$(dirname "$0")/.."
export PKG_CONFIG_PATH=$PWD/.highs/pkgconfig CGO_ENABLED=1
flags=() pkgs=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do flags+=("$1"); shift; done
[ "${1:-}" = -- ] && shift
pkgs=("$@")
[ ${#pkgs[@]} -eq 0 ] && mapfile -t pkgs < <(go list ./...)
bins=$(mktemp -d)
trap 'rm -rf "$bins"' EXIT
mod=$(go list -m)
total=0
echo "| package | CPU s (user + sys) | peak RSS MB | test binary MB |"
echo "|---|---|---|---|"
for p in "${pkgs[@]}"; do
	p=$(go list "$p")
	dir=$(go list -f '{{.Dir}}' "$p")
	bin=$bins/$(echo "${p#"$mod"/}" | tr / _).test
	go test -c ${flags[@]+"${flags[@]}"} -o "$bin" "$p" >/dev/null
	[ -f "$bin" ] || continue
	size=$(stat -c %s "$bin")
	if ! (cd "$dir" && /usr/bin/time -f '%U %S %M' -o "$bins/time" "$bin" -test.count=1 >"$bins/out" 2>&1); then
		echo "FAIL $p" >&2
		tail -20 "$bins/out" >&2
	fi
	read -r u s rss <"$bins/time"
	cpu=$(echo "$u + $s" | bc)
	total=$(echo "$total + $cpu" | bc)
	printf '| %s | %.1f | %d | %d |\n' "${p#"$mod"/}" "$cpu" $((rss / 1024)) $((size / 1000000))
	rm -f "$bin"
done
printf '| total | %.1f | | |\n' "$total"
