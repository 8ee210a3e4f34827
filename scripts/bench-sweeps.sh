#!/usr/bin/env bash
# Side-by-side: long binary and finite sweeps with two mmds binaries
# (before and after), each case run back to back so both see the same
# load. Prints each run's CPU seconds (user + sys), CPU per threshold and
# peak RSS (/usr/bin/time -v), and the ratio before/after.
#
#   scripts/bench-sweeps.sh OLD_MMDS NEW_MMDS [N]
#
# N is the number of thresholds of the long sweeps (default 100000).
set -euo pipefail
OLD=${1:?usage: bench-sweeps.sh OLD_MMDS NEW_MMDS [N]}
NEW=${2:?usage: bench-sweeps.sh OLD_MMDS NEW_MMDS [N]}
N=${3:-100000}
if ! [[ -x /usr/bin/time ]]; then
	echo "bench-sweeps: needs GNU time at /usr/bin/time (Debian: apt-get install time)" >&2
	exit 2
fi
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "$(date -u '+%Y-%m-%d %H:%M UTC')  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)  load: $(cut -d' ' -f1-3 /proc/loadavg)"
# run BIN ARGS...: "cpu_s rss_mb"
run() {
	/usr/bin/time -v "$@" --quiet -o "$tmp/out" 2>"$tmp/time" >/dev/null
	awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } /Maximum resident/ { r = $2 }
		END { printf "%.2f %.1f\n", u + s, r / 1024 }' "$tmp/time"
}
printf '%-44s %12s %12s %10s %10s %8s\n' case "before CPU" "after CPU" "before RSS" "after RSS" ratio
for c in "binary --sweep 0.0025:0.2:30 --format table" \
	"binary --sweep 0:0.2:$N --format csv" \
	"binary --sweep 0:0.2:$N --format json" \
	"binary --sweep 0:0.2:$N --format table" \
	"finite --sweep 0:0.2:30 --format table" \
	"finite --sweep 0:0.2:$N --format csv" \
	"finite --sweep 0:0.2:$N --format json"; do
	n=$(sed -E 's/.*:([0-9]+) .*/\1/' <<<"$c")
	read -r oc orss < <(run "$OLD" $c)
	read -r nc nrss < <(run "$NEW" $c)
	awk -v c="$c" -v n="$n" -v oc="$oc" -v nc="$nc" -v or="$orss" -v nr="$nrss" 'BEGIN {
		printf "%-44s %7.2f s %6.3fms %6.3f s %6.4fms %7.0f MB %7.0f MB %7.0fx\n", c, oc, 1000 * oc / n, nc, 1000 * nc / n, or, nr, oc / (nc > 0 ? nc : 0.005) }'
done
