#!/usr/bin/env bash
# Daemon benchmark: prints figures (it is not a test and has no pass/fail).
#
# Builds orientationd in release with the Swift runtime linked statically, starts a
# private bus, and measures with benchmarks/daemon/measure.py (Debian's python3):
#   (a) start -> name acquired (median, max over BENCH_STARTS starts)
#   (b) idle VmRSS and Pss with no client
#   (c) voluntary context switches over BENCH_IDLE_SECONDS idle with no started
#       client, and the same with one started client for information
#   (d) binary sizes
# Everything it starts is stopped on exit, failure or interruption.
#
# Environment: BENCH_STARTS (default 20), BENCH_IDLE_SECONDS (default 10),
# SWIFT_SCRATCH (a --scratch-path for the build; default .build).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
command -v swift >/dev/null 2>&1 || export PATH="/opt/swift/usr/bin:$PATH"
starts=${BENCH_STARTS:-20}
idle=${BENCH_IDLE_SECONDS:-10}
python=/usr/bin/python3

scratch=()
[[ -n "${SWIFT_SCRATCH:-}" ]] && scratch=(--scratch-path "$SWIFT_SCRATCH")

mapfile -t release_flags < <("$(dirname "${BASH_SOURCE[0]}")/release-flags.sh")
echo "bench: building release (${release_flags[*]})"
# The toolchain's leftovers (empty TemporaryDirectory.*, lock files) go to .build/tmp.
mkdir -p "$repo/.build/tmp"
TMPDIR="$repo/.build/tmp" swift build "${release_flags[@]}" "${scratch[@]}" 2>&1 | tail -n 5
bin_dir=$(TMPDIR="$repo/.build/tmp" swift build "${release_flags[@]}" "${scratch[@]}" --show-bin-path)

"$python" -c 'import dbus, gi' 2>/dev/null || {
    echo "bench: $python lacks dbus or gi: run scripts/prerequisites.sh bench" >&2
    exit 1
}

# shellcheck source=scripts/private-bus.sh
source "$repo/scripts/private-bus.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/orientationd-bench.XXXXXX")
bus_pid=""
measure_pid=""
cleanup() {
    local status=$1 i pid
    if [[ -n "$measure_pid" ]]; then
        kill -TERM "$measure_pid" 2>/dev/null || true
        wait "$measure_pid" 2>/dev/null || true
    fi
    # measure.py stops its own daemons; make sure none outlives a failure. It writes
    # the PID of the daemon it last started to $tmp/daemon.pid.
    if [[ -s "$tmp/daemon.pid" ]]; then
        pid=$(<"$tmp/daemon.pid")
        if [[ "$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline")" == "$bin_dir/orientationd "* ]]; then
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    stop_process "$bus_pid"
    rm -rf "$tmp"
    exit "$status"
}
on_exit cleanup

private_bus_start "$tmp" || { echo "bench: cannot start a private bus" >&2; exit 1; }
address=$bus_address

cat <<TEXT
bench: release orientationd on a private bus, $starts starts, ${idle} s idle windows.
  start -> name acquired: measure.py subscribes to NameOwnerChanged for
  org.orientationd.Orientation1, reads the monotonic clock just before spawning the
  daemon and again when the signal with the new owner is dispatched (so the figure
  includes fork/exec from Python and the bus's signal delivery). Each daemon is
  stopped with SIGTERM (exit status checked) before the next start.
  memory: VmRSS from /proc/PID/status and Pss from /proc/PID/smaps_rollup, 1 s
  after start, no client. Wake-ups: voluntary_ctxt_switches summed over
  /proc/PID/task/*/status, delta over the idle window.
TEXT
echo "  linked: $(readelf -d "$bin_dir/orientationd" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')"
echo

# In the background and waited for, so that SIGTERM to this script acts at once.
"$python" benchmarks/daemon/measure.py --address "$address" --daemon "$bin_dir/orientationd" \
    --starts "$starts" --idle-seconds "$idle" \
    --binary "$bin_dir/orientationd" --binary "$bin_dir/orientationctl" \
    --json "$tmp/figures.json" --pid-file "$tmp/daemon.pid" </dev/null &
measure_pid=$!
wait "$measure_pid"
measure_pid=""
