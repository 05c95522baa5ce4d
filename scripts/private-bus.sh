#!/usr/bin/env bash
# The one private D-Bus launcher: the tests (TestBus), the benchmarks (compare.py) and
# the scripts (demo, screenshots, bench) all start their buses through it.
#
# Run:
#   scripts/private-bus.sh DIR [TYPE [POLICY_FILE]]
#       writes DIR/bus.conf — a TYPE bus (default: session) listening on DIR/bus,
#       authenticated by EXTERNAL, with the <policy> elements of POLICY_FILE (default:
#       everyone may own and call everything) — then becomes dbus-daemon in the
#       foreground (exec: the caller's pid is the daemon's), which prints its address on
#       standard output once it listens.
#
# Sourced:
#   private_bus_start DIR   runs the above in the background; sets bus_pid and
#                           bus_address; returns 1 (with a message) if it does not
#                           listen within 5 s
#   stop_process PID        SIGTERM, up to ~2 s to exit, then SIGKILL
#   on_exit FUNCTION        runs FUNCTION at exit, after Ctrl-C (status 130), SIGTERM
#                           (143) and SIGHUP (129, the terminal closed): where a script
#                           stops what it started. FUNCTION gets the script's status as
#                           $1, and runs to its end: signals are ignored from its start
#                           (after SIGTERM the terminal's hangup may follow, and a
#                           second Ctrl-C must not leave the bus or the daemon running)

private_bus_launch() {
    local dir=$1 type=${2:-session} policy=${3:-}
    {
        cat <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>$type</type>
  <listen>unix:path=$dir/bus</listen>
  <auth>EXTERNAL</auth>
CONF
        if [[ -n $policy ]]; then
            cat "$policy"
        else
            cat <<CONF
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
CONF
        fi
        echo "</busconfig>"
    } >"$dir/bus.conf"
    exec dbus-daemon --nofork --nopidfile --nosyslog --config-file="$dir/bus.conf" --print-address=1
}

private_bus_start() {
    local dir=$1 i
    # Its stderr goes to a log (it warns that it cannot raise its fd limit when not root).
    bash "${BASH_SOURCE[0]}" "$dir" >"$dir/address" </dev/null 2>"$dir/bus.log" &
    bus_pid=$!
    for ((i = 0; i < 100; i++)); do
        [[ -s "$dir/address" ]] && break
        if ! kill -0 "$bus_pid" 2>/dev/null; then
            echo "dbus-daemon exited:" >&2
            cat "$dir/bus.log" >&2
            return 1
        fi
        sleep 0.05
    done
    if [[ ! -s "$dir/address" ]]; then
        echo "the private bus did not start within 5 s" >&2
        return 1
    fi
    bus_address=$(head -n 1 "$dir/address")
}

stop_process() {
    local pid=$1 i
    [[ -n "$pid" ]] || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    for ((i = 0; i < 40; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

on_exit() {
    trap "on_exit_run \$? $1" EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP
}

on_exit_run() {
    local status=$1 function=$2
    trap - EXIT
    trap '' INT TERM HUP
    "$function" "$status"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    set -euo pipefail
    if [[ $# -lt 1 || $# -gt 3 ]]; then
        echo "usage: $0 DIR [TYPE [POLICY_FILE]]" >&2
        exit 2
    fi
    private_bus_launch "$@"
fi
