#!/usr/bin/env bash
# Score the orientation engine on the labelled traces (`make score`).
#
#   scripts/score.sh [score.py options...]
#
# Builds a release orientationctl with SwiftPM and runs the traces' scorer with
# `orientationctl replay` as the engine command. Extra arguments go to score.py before
# the `--` (for example -v, --filter walking, --json out.json).
#
# Environment:
#   TRACES        directory of NAME.csv + NAME.truth.json (default: ../shared/orientation-traces
#                 next to the repository)
#   SCRATCH_PATH  SwiftPM scratch path (default: .build)
#   SWIFT         swift driver (default: swift, or /opt/swift/usr/bin/swift)
#   REPLAY_ARGS   extra arguments for `orientationctl replay` (e.g. "--config my.conf")
#
# Exit status: that of score.py (0 ok, 2 an engine run failed, 3 causality violation), or
# the build's status if the build fails.
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

echo "score.sh: building orientationctl (release)..." >&2
"$swift" build --package-path "$root" --scratch-path "$scratch" -c release --product orientationctl >&2
bin=$("$swift" build --package-path "$root" --scratch-path "$scratch" -c release --show-bin-path)

# shellcheck disable=SC2086  # REPLAY_ARGS is split on purpose
exec python3 "$traces/score.py" --traces "$traces" "$@" -- "$bin/orientationctl" replay ${REPLAY_ARGS:-}
