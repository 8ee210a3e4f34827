#!/usr/bin/env bash
# learn-targets.sh — the labels method's targets (docs/learn.md, "Targets"):
# a quick sweep of `mmds train MODEL --method labels` on seeds 1–8 for the
# binary paper model and examples/finite-random-n6-k2.json, each certified by
# `mmds verify --reference best`. Per seed it prints the certified gap to the
# optimum over all privatizers at every threshold (optimum − certified min
# adversarial loss, both at the certified distortion D̂) and the training's CPU
# time (user + system, /usr/bin/time: the host is shared, so wall time says
# little). A seed meets the target when every gap is ≤ TOL.
#
# For the Gaussian paper model (docs/learn.md, "The labels method on the
# Gaussian model") it prints, at every threshold where the best known
# mechanism exceeds Proposition 1 by more than GAP_MIN at the certified D̂,
# the fraction of that gap the certified min adversarial loss closes,
# (certified − Proposition 1)/(best known − Proposition 1); a threshold
# that finalized nothing prints "n/f" and misses the target. A seed meets
# the target when every fraction is ≥ FRAC. It also prints the thresholds
# at which verify flagged a FINDING (a certified value above every
# mechanism mmds knows: the verdict "beats the best known mechanism").
#
#   scripts/learn-targets.sh              # make learn-targets
#   MMDS=bin/mmds SEEDS="1 2" OUT=/tmp/t scripts/learn-targets.sh
#
# Needs jq. Exit 0 when every seed of every model meets the target, 1 otherwise.
set -euo pipefail

MMDS=${MMDS:-bin/mmds}
SEEDS=${SEEDS:-1 2 3 4 5 6 7 8}
TOL=${TOL:-0.005}
OUT=${OUT:-$(mktemp -d -t mmds-learn-targets.XXXXXX)}
FINITE=${FINITE:-examples/finite-random-n6-k2.json}
MODELS=${MODELS:-binary finite gauss}
FRAC=${FRAC:-0.5}
GAP_MIN=${GAP_MIN:-0.05}
command -v jq >/dev/null || { echo "learn-targets: needs jq" >&2; exit 2; }
[ -x "$MMDS" ] || { echo "learn-targets: $MMDS is not an executable (make build, or set MMDS)" >&2; exit 2; }
mkdir -p "$OUT"

echo "$(date -u '+%Y-%m-%d %H:%M UTC')  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)  load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "targets: binary/finite: gap to the optimum over all privatizers ≤ $TOL at every threshold; gauss: ≥ $FRAC of the gap from Proposition 1 to the best known mechanism closed where it exceeds $GAP_MIN; results in $OUT"
status=0
gauss_targets() {
	local met=0 n=0 worst=1 cpumax=0 nfind=0
	for s in $SEEDS; do
		dir="$OUT/gauss-s$s"
		rm -rf "$dir"
		/usr/bin/time -f '%U %S %e' -o "$dir.time" \
			"$MMDS" train gauss --method labels --preset quick --seed "$s" --out "$dir" --quiet --format json >/dev/null
		read -r user sys wall <"$dir.time"
		cpu=$(echo "$user + $sys" | bc)
		"$MMDS" verify --reference best --format json --quiet "$dir" >"$dir.verify.json" || true
		# Per threshold: the fraction closed, "n/f" (not finalized: counts
		# as 0), or "-" (no gap above GAP_MIN at D̂: no target there).
		fracs=$(jq -r --argjson g "$GAP_MIN" '[.points[] |
			if .certified == null then "n/f"
			else (.optimum.min_adv_loss) as $p | (.optimum.best_achievable.min_adv_loss) as $b |
				if $b - $p > $g then ((.certified.min_adv_loss - $p) / ($b - $p) * 1000 | round / 1000 | tostring) else "-" end
			end] | join(" ")' "$dir.verify.json")
		low=$(for f in $fracs; do case $f in n/f) echo 0 ;; -) ;; *) echo "$f" ;; esac; done | sort -g | head -1)
		low=${low:-1}
		n=$((n + 1))
		[ "$(echo "$low >= $FRAC" | bc -l)" = 1 ] && met=$((met + 1))
		worst=$(echo "if ($low < $worst) $low else $worst" | bc -l)
		cpumax=$(echo "if ($cpu > $cpumax) $cpu else $cpumax" | bc -l)
		finds=$(jq -r '[.points[] | select((.verdict // "") | contains("beats the best known mechanism")) | .D | . * 1000 | round / 1000 | tostring] | join(" ")' "$dir.verify.json")
		[ -n "$finds" ] && nfind=$((nfind + 1))
		printf 'gauss  seed %s  CPU %6.2f s (wall %6.2f s)  least fraction %.3f  fractions closed: %s  FINDING at D = %s\n' "$s" "$cpu" "$wall" "$low" "$fracs" "${finds:--}"
	done
	printf 'gauss  %d of %d seeds close ≥ %s of the gap at every threshold; least fraction %.3f; most CPU per quick run %.2f s; FINDING on %d of %d seeds\n' \
		"$met" "$n" "$FRAC" "$worst" "$cpumax" "$nfind" "$n"
	[ "$met" = "$n" ]
}

for model in $MODELS; do
	if [ "$model" = gauss ]; then
		gauss_targets || status=1
		continue
	fi
	cfg=()
	[ "$model" = finite ] && cfg=(--config "$FINITE")
	met=0 n=0 worst=0 cpumax=0
	for s in $SEEDS; do
		dir="$OUT/$model-s$s"
		rm -rf "$dir"
		/usr/bin/time -f '%U %S %e' -o "$dir.time" \
			"$MMDS" train "$model" --method labels --preset quick --seed "$s" --out "$dir" --quiet --format json "${cfg[@]}" >/dev/null
		read -r user sys wall <"$dir.time"
		cpu=$(echo "$user + $sys" | bc)
		"$MMDS" verify --reference best --format json --quiet "$dir" >"$dir.verify.json" || true
		# The optimum over all privatizers: gap_global for the binary model,
		# gap (the global LP) for a finite one; null for a point not finalized.
		gaps=$(jq -r '[.points[] | (.gap_global // .gap // "null")] | map(tostring) | join(" ")' "$dir.verify.json")
		max=$(jq -r '[.points[] | (.gap_global // .gap // 1e9)] | max' "$dir.verify.json")
		ok=$(jq -r --argjson tol "$TOL" '[.points[] | (.gap_global // .gap // 1e9) <= $tol] | all' "$dir.verify.json")
		n=$((n + 1))
		[ "$ok" = true ] && met=$((met + 1))
		worst=$(echo "if ($max > $worst) $max else $worst" | bc -l)
		cpumax=$(echo "if ($cpu > $cpumax) $cpu else $cpumax" | bc -l)
		printf '%-6s seed %s  CPU %6.2f s (wall %6.2f s)  max gap %+.5f  gaps: %s\n' "$model" "$s" "$cpu" "$wall" "$max" \
			"$(for g in $gaps; do printf '%+.5f ' "$g"; done)"
	done
	printf '%-6s %d of %d seeds within %s at every threshold; worst gap %.5f; most CPU per quick run %.2f s\n' \
		"$model" "$met" "$n" "$TOL" "$worst" "$cpumax"
	[ "$met" = "$n" ] || status=1
done
exit $status
