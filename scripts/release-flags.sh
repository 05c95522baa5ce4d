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
#   -Xlinker -z -Xlinker now
#       every symbol bound at start, so that the relocation table can be made
#       read-only at once (full RELRO, as Debian builds every daemon); the programs
#       import only a few dozen symbols from glibc, libdbus and libudev
#   -Xlinker --build-id
#       a GNU build ID, as every Debian binary has: dh_strip files the debug
#       information under it (the -dbgsym package), and coredumpctl and debuggers
#       find it by it
#   -Xlinker --symbol-ordering-file=scripts/orientationd.order
#       the functions a running daemon uses placed together (benchmarks/compare/
#       order_file.py writes the list; BENCHMARKS.md shows what it buys in memory)
#   -Xswiftc -L -Xswiftc .build/release-link
#       libstdc++ (which the Swift runtime needs) linked in as well: that directory
#       holds a one-line linker script, libstdc++.so, that names GCC's libstdc++.a (the
#       way glibc's own libc.so is a script). Only the few functions the runtime calls
#       are taken, instead of mapping all of libstdc++.so and running its start-up in
#       a process that is otherwise pure C and Swift. Left out when there is no
#       libstdc++.a (Debian's libstdc++-12-dev, which scripts/prerequisites.sh installs).
#
# Run: mapfile -t flags < <(scripts/release-flags.sh)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
printf '%s\n' -c release -Xswiftc -static-stdlib -Xswiftc -use-ld=lld \
    -Xlinker -z -Xlinker pack-relative-relocs \
    -Xlinker -z -Xlinker now -Xlinker --build-id
if [[ -f $here/orientationd.order ]]; then
    printf '%s\n' -Xlinker "--symbol-ordering-file=$here/orientationd.order" -Xlinker --no-warn-symbol-ordering
fi
# Where GCC's archive is, asked of the compiler driver Swift links with (the toolchain's
# clang, next to swift), or of gcc.
archive=
for driver in clang /opt/swift/usr/bin/clang gcc; do
    if command -v "$driver" >/dev/null 2>&1; then
        archive=$("$driver" -print-file-name=libstdc++.a 2>/dev/null || true)
        [[ $archive == /* && -f $archive ]] && break
    fi
done
if [[ $archive == /* && -f $archive ]]; then
    link_dir=$here/../.build/release-link
    script="INPUT($archive)"
    if [[ ! -f $link_dir/libstdc++.so || $(<"$link_dir/libstdc++.so") != "$script" ]]; then
        mkdir -p "$link_dir"
        printf '%s\n' "$script" >"$link_dir/libstdc++.so"
    fi
    printf '%s\n' -Xswiftc -L -Xswiftc "$(cd "$link_dir" && pwd)"
fi
