#!/bin/sh
# Engine throughput in samples/s, release build (-O, whole module), one core.
#   benchmarks/engine/bench.sh [TRACES_DIR] [MIN_SAMPLES]
# Compiles Sources/OrientationAPI and Sources/OrientationEngine as their own modules (as
# SwiftPM does) and bench.swift against them with swiftc, without touching the package's
# .build.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
traces=${1:-${TRACES:-$root/../shared/orientation-traces}}
out=$(mktemp -d /tmp/engine-bench.XXXXXX)
trap 'rm -rf "$out"' EXIT
swiftc=${SWIFTC:-swiftc}
command -v "$swiftc" >/dev/null 2>&1 || swiftc=/opt/swift/usr/bin/swiftc
"$swiftc" -O -wmo -parse-as-library -module-name OrientationAPI -emit-module \
    -emit-module-path "$out/OrientationAPI.swiftmodule" -emit-library -static \
    -o "$out/libOrientationAPI.a" "$root"/Sources/OrientationAPI/*.swift
"$swiftc" -O -wmo -parse-as-library -module-name OrientationEngine -emit-module -I "$out" \
    -emit-module-path "$out/OrientationEngine.swiftmodule" -emit-library -static \
    -o "$out/libOrientationEngine.a" "$root"/Sources/OrientationEngine/*.swift
# The tests' deterministic generator, for the motion bench.swift makes without the traces.
"$swiftc" -O -wmo -parse-as-library -module-name TestSupport -emit-module \
    -emit-module-path "$out/TestSupport.swiftmodule" -emit-library -static \
    -o "$out/libTestSupport.a" "$root/Tests/TestSupport/SplitMix.swift"
"$swiftc" -O -wmo -I "$out" -L "$out" -lOrientationEngine -lOrientationAPI -lTestSupport "$here/bench.swift" -o "$out/bench"
# Not exec'd: the trap must run to remove $out.
if command -v taskset >/dev/null 2>&1; then
    taskset -c 0 "$out/bench" "$traces" ${2:-}
else
    "$out/bench" "$traces" ${2:-}
fi
