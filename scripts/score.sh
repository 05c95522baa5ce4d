#!/usr/bin/env bash
# Score the orientation engine on the labelled traces (`make score`).
#
#   scripts/score.sh [score.py options...]
#
# Builds a release orientationctl with SwiftPM and runs the traces' scorer with
# `orientationctl replay` as the engine command on the synthetic set, the real
# recordings, and the real recordings decimated to 25 and 10 Hz, printing each set's
# table per activity (scenario) and its tilt and score lines. Extra arguments go to score.py before the `--` (for example -v,
# --filter walking, --json out.json), and then only the synthetic set is scored.
#
# Environment:
#   TRACES        directory of NAME.csv + NAME.truth.json (default: ../shared/orientation-traces
#                 next to the repository)
#   SCRATCH_PATH  SwiftPM scratch path (default: .build)
#   SWIFT         swift driver (default: swift, or /opt/swift/usr/bin/swift)
#   REAL          directory of real recordings to score at their own rate, 25 Hz and 10 Hz
#                 (default: TRACES/real; e.g. a held-out set)
#   REPLAY_ARGS   extra arguments for `orientationctl replay` (e.g. "--config my.conf")
#
# Exit status: that of score.py (0 ok, 2 an engine run failed, 3 causality violation), or
# the build's status if the build fails, or the Dev set suite's if it fails.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
traces=${TRACES:-$root/../shared/orientation-traces}
scratch=${SCRATCH_PATH:-$root/.build}
swift=${SWIFT:-swift}
if ! command -v "$swift" >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    swift=/opt/swift/usr/bin/swift
fi

if [ ! -f "$traces/score.py" ]; then
    echo "score.sh: no scorer at $traces/score.py (set TRACES=DIR)" >&2
    exit 1
fi

real=${REAL:-$traces/real}
if [ -n "${REAL:-}" ] && [ ! -d "$real" ]; then
    echo "score.sh: REAL=$real is not a directory" >&2
    exit 1
fi
echo "score.sh: building orientationctl (release)..." >&2
# The same flags as every release build, so that scoring does not rebuild the tree. The
# toolchain's leftovers of every build and test run (empty TemporaryDirectory.*, lock
# files) go to the scratch path's tmp, not to the user's TMPDIR (as the Makefile's).
mapfile -t flags < <("$root/scripts/release-flags.sh")
swift_tmp=$scratch/tmp
mkdir -p "$swift_tmp"
TMPDIR=$swift_tmp "$swift" build --package-path "$root" --scratch-path "$scratch" "${flags[@]}" --product orientationctl >&2
bin=$(TMPDIR=$swift_tmp "$swift" build --package-path "$root" --scratch-path "$scratch" "${flags[@]}" --show-bin-path)

# One score.py run per set: its table per activity, then its tilt and score lines.
#   synthetic     the labelled synthetic traces (TRACES)
#   real          the real recordings (REAL, default TRACES/real), with the gyroscope
#                 recorded beside them (gyro/NAME.csv) where there is one, and without
#   real@25Hz     the same, decimated to 25 Hz (the first sample at or after each 40 ms tick)
#   real@10Hz     the same at 10 Hz: what the daemon sees when it polls an IIO sensor
# With extra score.py arguments (e.g. -v, --filter) only the synthetic set is scored, in full.
# shellcheck disable=SC2086  # REPLAY_ARGS is split on purpose
if [ $# -gt 0 ]; then
    exec python3 "$traces/score.py" --traces "$traces" "$@" -- "$bin/orientationctl" replay ${REPLAY_ARGS:-}
fi
status=0
score_set() {
    local label=$1 dir=$2 out
    shift 2
    out=$(python3 "$traces/score.py" -v --traces "$dir" -- "$bin/orientationctl" replay ${REPLAY_ARGS:-} "$@") || status=$?
    echo "== $label ($dir)"
    # The per-activity (scenario) table, then the set's tilt and score lines.
    printf '%s\n' "$out" | sed -n '/^scenario /,/^$/p'
    printf '%s\n' "$out" | grep -E '^(tilt|score):'
}
score_set synthetic "$traces"
if [ -d "$real" ]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/orientationd-score.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    python3 "$root/benchmarks/engine/augment.py" --traces "$real" --out "$work" --variants dec25,dec10 >/dev/null
    # Each rate with the gyroscope recorded beside the recordings (real/gyro/NAME.csv,
    # decimated with them), and with the accelerometer alone (--no-gyro).
    for set in "real:$real" "real@25Hz:$work/dec25" "real@10Hz:$work/dec10"; do
        label=${set%%:*} dir=${set#*:}
        if [ -d "$dir/gyro" ]; then
            score_set "$label, with the gyroscope" "$dir"
        fi
        score_set "$label, accelerometer alone" "$dir" --no-gyro
    done
fi
# The Dev set suite: the engine itself (not through orientationctl) against the
# synthetic traces' targets, causality and a perturbed copy of them. It needs these
# traces, so it runs here rather than in `make test`.
echo "== the Dev set suite (swift test --filter DevSetTests)"
TRACES="$traces" TMPDIR=$swift_tmp "$swift" test --package-path "$root" --scratch-path "$scratch" --filter DevSetTests >&2 || status=$?
exit $status
