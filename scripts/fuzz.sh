#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/targets and runs each for FUZZ_SECONDS.
#
#   scripts/fuzz.sh [TARGET...]        all targets when none is named
#   FUZZ_SECONDS=600 scripts/fuzz.sh   longer runs (default 10 s per target)
#   FUZZ_BUILD_ONLY=1 scripts/fuzz.sh  build, do not run
#   scripts/fuzz.sh --seeds            rewrite the marshalled D-Bus seeds of
#                                      client_options and dbus_message (committed)
#
# Without SwiftPM: each library module the targets need is compiled once with
# `swiftc -sanitize=fuzzer,address` (coverage + AddressSanitizer) into a static
# library under .build/fuzz/lib, rebuilt only when its sources change; each target
# is one file plus fuzz/support files, linked with libFuzzer from the toolchain
# (/opt/swift/usr/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a).
#
# Runs: the committed seeds in fuzz/corpus/TARGET are read-only input; new inputs go
# to .build/fuzz/corpus/TARGET, crashes to .build/fuzz/artifacts/TARGET/, the log to
# .build/fuzz/logs/TARGET.log. Exit status non-zero when any target crashed, leaked,
# timed out (-timeout=5 per input) or exceeded -rss_limit_mb=2048.
set -euo pipefail

cd "$(dirname "$0")/.."
if ! command -v swiftc >/dev/null 2>&1; then export PATH=/opt/swift/usr/bin:$PATH; fi

seconds=${FUZZ_SECONDS:-10}
build=.build/fuzz
lib=$build/lib

# Each target names the library module it fuzzes; the modules to build, their order
# and what each links come from the package's own graph (`swift package describe`), so
# a new dependency in Package.swift needs no edit here.
declare -A target_module=(
    [scan_type]=Sensors
    [mount_matrix]=Sensors
    [sysfs_number]=Sensors
    [trace_line]=OrientationEngine
    [engine]=OrientationEngine
    [configuration]=Sensors
    [client_options]=Service
    [dbus_message]=DBus
)
# "Module dep dep..." for every Swift library target, dependencies first (system
# library targets, the C shims, are headers given with -I below).
mapfile -t graph < <(swift package describe --type json | python3 -c '
import json, sys
targets = {t["name"]: t for t in json.load(sys.stdin)["targets"]}
swift = {n for n, t in targets.items() if t["type"] == "library" and t.get("module_type") == "SwiftTarget"}
done = []
def visit(name):
    if name in done or name not in swift:
        return
    for dep in targets[name].get("target_dependencies") or []:
        visit(dep)
    done.append(name)
for name in sorted(swift):
    visit(name)
for name in done:
    print(name, *[d for d in targets[name].get("target_dependencies") or [] if d in swift])
')
((${#graph[@]} > 0)) || { echo "fuzz: swift package describe gave no module graph" >&2; exit 1; }
declare -A module_deps=()
module_order=()
for line in "${graph[@]}"; do
    read -r module deps <<<"$line"
    module_deps[$module]=$deps
    module_order+=("$module")
done
# A module and everything it depends on, dependents before dependencies (link order).
closure() {
    local seen=" " queue=("$1") out=() m d
    while ((${#queue[@]} > 0)); do
        m=${queue[0]}
        queue=("${queue[@]:1}")
        [[ $seen == *" $m "* ]] && continue
        seen+="$m "
        for d in ${module_deps[$m]}; do queue+=("$d"); done
    done
    for ((i = ${#module_order[@]} - 1; i >= 0; i--)); do
        m=${module_order[i]}
        [[ $seen == *" $m "* ]] && out+=("$m")
    done
    echo "${out[@]}"
}
declare -A target_modules=()
for t in "${!target_module[@]}"; do target_modules[$t]=$(closure "${target_module[$t]}"); done
declare -A target_support=(
    [engine]="fuzz/support/ByteStream.swift"
    [client_options]="fuzz/support/ByteStream.swift fuzz/support/FuzzBytes.swift"
    [dbus_message]="fuzz/support/ByteStream.swift fuzz/support/FuzzBytes.swift"
)
all_targets=(scan_type mount_matrix sysfs_number trace_line engine configuration client_options dbus_message)

seeds=0
if [[ ${1:-} == --seeds ]]; then seeds=1; shift; fi
targets=("$@")
((${#targets[@]} > 0)) || targets=("${all_targets[@]}")
((seeds == 0)) || targets=(dbus_message)
for t in "${targets[@]}"; do
    [[ -n ${target_modules[$t]+x} ]] || { echo "fuzz: unknown target '$t' (known: ${all_targets[*]})" >&2; exit 2; }
done

common=(
    -swift-version 6 -O -wmo -gline-tables-only -parse-as-library
    -sanitize=fuzzer,address
    -I Sources/CDBus -I Sources/CLinux -I Sources/CUdev -I "$lib"
)
# lld: gold warns about every ASan helper it cannot export.
link=(-use-ld=lld -ldbus-1 -ludev)
for flag in $(pkg-config --cflags dbus-1 libudev); do common+=(-Xcc "$flag"); done

# True when $1 is missing or older than any of the other files.
stale() {
    local out=$1; shift
    [[ -e $out ]] || return 0
    local f
    for f in "$@"; do [[ $f -nt $out ]] && return 0; done
    return 1
}

mkdir -p "$lib"
needed=()
for t in "${targets[@]}"; do needed+=(${target_modules[$t]}); done
for module in "${module_order[@]}"; do
    [[ " ${needed[*]} " == *" $module "* ]] || continue
    mapfile -t sources < <(find Sources/"$module" -name '*.swift' | LC_ALL=C sort)
    inputs=("${sources[@]}")
    for dep in ${module_deps[$module]}; do inputs+=("$lib/lib$dep.a"); done
    stale "$lib/lib$module.a" "${inputs[@]}" || continue
    echo "fuzz: building $module"
    # DBus keeps Message(owning:), MessageReader and MessageWriter internal; the D-Bus
    # targets reach them with @testable import.
    testing=()
    [[ $module == DBus ]] && testing=(-enable-testing)
    swiftc "${common[@]}" "${testing[@]}" -module-name "$module" \
        -emit-module -emit-module-path "$lib/$module.swiftmodule" \
        -emit-library -static -o "$lib/lib$module.a" "${sources[@]}"
done

for t in "${targets[@]}"; do
    files=(fuzz/targets/"$t".swift ${target_support[$t]:-})
    libs=()
    for module in ${target_modules[$t]}; do libs+=("$lib/lib$module.a"); done
    stale "$build/$t" "${files[@]}" "${libs[@]}" || continue
    echo "fuzz: linking $t"
    swiftc "${common[@]}" -module-name "Fuzz_$t" "${files[@]}" "${libs[@]}" "${link[@]}" -o "$build/$t"
done

if ((seeds == 1)); then
    # The generator has its own main: ASan and the instrumented libraries, no libFuzzer.
    swiftc "${common[@]/-sanitize=fuzzer,address/-sanitize=address}" -module-name MakeDBusSeeds \
        fuzz/tools/make-dbus-seeds.swift "$lib/libDBus.a" "$lib/libPosix.a" "${link[@]}" -o "$build/make-dbus-seeds"
    # Values held in multi-payload enums keep tag bits in their pointers: LeakSanitizer
    # takes the generator's global seed table for leaked at exit.
    ASAN_OPTIONS=detect_leaks=0 SWIFT_BACKTRACE=enable=no \
        "$build/make-dbus-seeds" fuzz/corpus/client_options fuzz/corpus/dbus_message
    exit 0
fi

[[ ${FUZZ_BUILD_ONLY:-0} == 1 ]] && exit 0

# The Swift runtime's crash handler gets in the way of libFuzzer's and ASan's.
export SWIFT_BACKTRACE=enable=no
failed=()
for t in "${targets[@]}"; do
    mkdir -p "$build/corpus/$t" "$build/artifacts/$t" "$build/logs"
    dict=()
    [[ -f fuzz/dict/$t.dict ]] && dict=(-dict="fuzz/dict/$t.dict")
    log=$build/logs/$t.log
    status=0
    "$build/$t" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -detect_leaks=1 \
        -print_final_stats=1 -artifact_prefix="$build/artifacts/$t/" "${dict[@]}" \
        "$build/corpus/$t" "fuzz/corpus/$t" >"$log" 2>&1 || status=$?
    summary=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 | sed -E 's/^#([0-9]+)[[:space:]]+DONE +/\1 runs, /' || true)
    if ((status != 0)); then
        failed+=("$t")
        echo "fuzz: $t FAILED (exit $status), log $log; last lines:" >&2
        tail -n 40 "$log" >&2
        ls "$build/artifacts/$t" >&2 || true
    else
        echo "fuzz: $t ok, ${seconds}s: ${summary:-no summary}"
    fi
done

if ((${#failed[@]} > 0)); then
    echo "fuzz: failed: ${failed[*]} (inputs in $build/artifacts/)" >&2
    exit 1
fi
