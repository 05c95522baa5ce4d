#!/usr/bin/env bash
# The one set of `swift build` flags for a release build (make release, make bench,
# make install, make score, scripts/bench-daemon.sh), one per line:
#
#   -c release -Xswiftc -static-stdlib
#       the Swift runtime linked in: nothing to install beside the binaries
#   -Xswiftc -use-ld=lld  (the toolchain's own linker)
#   -Xlinker -z -Xlinker pack-relative-relocs
#       the executable's ~20,000 relative relocations as a 4 KB bitmap (DT_RELR,
#       glibc 2.36) instead of 470 KB of entries the loader reads at every start
#   -Xlinker --symbol-ordering-file=scripts/orientationd.order
#       the functions a running daemon uses placed together (benchmarks/compare/
#       order_file.py writes the list; BENCHMARKS.md shows what it buys in memory)
#
# Run: mapfile -t flags < <(scripts/release-flags.sh)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
printf '%s\n' -c release -Xswiftc -static-stdlib -Xswiftc -use-ld=lld \
    -Xlinker -z -Xlinker pack-relative-relocs
if [[ -f $here/orientationd.order ]]; then
    printf '%s\n' -Xlinker "--symbol-ordering-file=$here/orientationd.order" -Xlinker --no-warn-symbol-ordering
fi
