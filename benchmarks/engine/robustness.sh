#!/bin/sh
# Score an engine command on robustness variants of the dev traces (see augment.py).
#   benchmarks/engine/robustness.sh [--seed N] -- COMMAND [ARGS...]
# Prints one summary line per variant. Needs python3.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
traces=${TRACES:-$here/../../../shared/orientation-traces}
seed=1
if [ "${1:-}" = "--seed" ]; then seed=$2; shift 2; fi
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "usage: $0 [--seed N] -- COMMAND [ARGS...]" >&2; exit 1; }
# The scorer sits with the synthetic traces; the real recordings are a folder below them.
scorer=$traces/score.py
[ -f "$scorer" ] || scorer=$traces/../score.py
out=$(mktemp -d /tmp/engine-robustness.XXXXXX)
trap 'rm -rf "$out"' EXIT
python3 "$here/augment.py" --traces "$traces" --out "$out" --seed "$seed" >/dev/null
for d in "$out"/*/; do
    v=$(basename "$d")
    res=$(python3 "$scorer" --traces "$d" --causality 0 -- "$@" | tail -2 | tr '\n' ' ' || true)
    printf '%-10s %s\n' "$v" "$res"
done
