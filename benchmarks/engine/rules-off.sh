#!/bin/sh
# Does every rule of the engine have a test that fails without it?
#
#   benchmarks/engine/rules-off.sh [--work DIR] [KEY=OFF ...]
#
# For each tunable KEY (as the configuration file spells it), a copy of the source tree
# is built with that tunable's default set to OFF, the value that switches its rule off,
# and the engine's tests are run (`swift test --filter OrientationEngineTests`, without
# the tunables table's own tests, which check each default against its bounds and
# against conf/orientationd.conf). A rule none of whose tests fails is reported, and the
# exit status is then 1. With no KEY=OFF, the rules listed below.
#
# The copy is the working tree as it is (uncommitted changes included), in DIR
# (default .build/rules-off, kept between runs so that a run rebuilds only the engine);
# the first run builds every test target once. Each rule takes about a minute.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$root/.build/rules-off
if [ "${1:-}" = "--work" ]; then work=$2; shift 2; fi
case "${1:-}" in -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac

# Each rule's tunable at the value, within its range, that turns it off (or makes it
# never hold).
[ $# -gt 0 ] || set -- \
    RestMs=0 OrientationSettleMs=0 EdgeDeg=0 EdgeSettleMs=0 ConfirmReadings=1 \
    OrientationHysteresisDeg=0 DisturbanceDecayMs=0 PickUpMs=0 PickUpTurnDegS=0 PickUpJoltG=100 \
    PickUpGateToleranceMs=0 \
    LengthFilterMs=0 StrideMs=0 RestElevationDeg=90 CalmElevationDeg=65 MaxElevationDeg=90 \
    MinElevationDeg=-90 FlatwardRateDegS=0 FlatExitMs=0 CalmGravityShare=0 \
    AccelerationToleranceG=10 AccelerationGateG=100 RelearnMs=600000 TiltSettleMs=0 \
    TiltHysteresisDeg=0 SparseReadingMs=10000 TiltDisturbanceLimit=1000 \
    GyroDisturbanceDecayMs=250 GyroCalmRateDegS=1000 GyroCalmAngleDeg=6 GyroBiasRateDegS=0 \
    GyroBiasLongRestMs=600000 GyroTimeoutMs=60000 GyroStuckMs=600000 GyroMaxRateDegS=100000 \
    GyroIntegrateMaxMs=0 GyroSmoothRatio=10 GyroDisagreeDeg=180 FusionPullMaxG=1000

mkdir -p "$work/tree" "$work/tmp"
# The working tree as it is: what git tracks, and what it does not ignore (the copy's
# own build is kept; files gone from the tree go from the copy too).
find "$work/tree" -mindepth 1 -maxdepth 1 ! -name .build -exec rm -rf {} +
(cd "$root" && git ls-files -z --cached --others --exclude-standard) |
    (cd "$root" && xargs -0 cp --parents -p -t "$work/tree" 2>/dev/null) || true
tunables=Sources/OrientationEngine/EngineTunables.swift
cd "$work/tree"
cp "$tunables" "$work/tunables.orig"
restore() { cp "$work/tunables.orig" "$work/tree/$tunables"; }
trap restore EXIT INT TERM

uncaught=0
for rule in "$@"; do
    key=${rule%%=*}; off=${rule#*=}
    # The property behind the key, from its entry in the tunables table.
    prop=$(sed -n "s/.*Entry(key: \"$key\", path: \\\\\\.\\([A-Za-z0-9]*\\).*/\\1/p" "$work/tunables.orig")
    if [ -z "$prop" ]; then echo "$key: no such tunable" >&2; exit 2; fi
    restore
    sed -i "s/^\\(    public var $prop: [A-Za-z]* = \\).*/\\1$off/" "$tunables"
    if cmp -s "$tunables" "$work/tunables.orig"; then echo "$key: its default could not be changed" >&2; exit 2; fi
    out=$(TMPDIR=$work/tmp swift test --filter OrientationEngineTests \
              --skip TunablesTests 2>&1) && status=0 || status=$?
    failed=$(printf '%s\n' "$out" | sed -n 's/^✘ Test \(.*\) failed after.*/\1/p' | grep -v '^run with' || true)
    count=$(printf '%s' "$failed" | grep -c . || true)
    if [ "$count" -eq 0 ]; then
        if [ "$status" -ne 0 ]; then
            # A value the configuration would refuse may trap (a programmer's error): the
            # rule is not shown to be tested either way.
            echo "$key=$off: THE TESTS DID NOT COMPLETE (status $status; a value out of the tunable's range?)"
        else
            echo "$key=$off: NO TEST FAILS"
        fi
        uncaught=1
    else
        echo "$key=$off: $count failing, e.g. $(printf '%s\n' "$failed" | head -1)"
    fi
done
exit $uncaught
