#!/usr/bin/env bash
# The `make run` demo: a private session bus, orientationd on it with the simulated
# sensor, and `orientationctl monitor` in the foreground until Ctrl-C (or SIGTERM).
# On exit it stops everything it started and removes its temporary directory.
#
#   scripts/demo.sh         the monitor (make run)
#   scripts/demo.sh gtk     the GTK 4 demo app instead (make demo), until its window
#                           closes or Ctrl-C
#
# Environment:
#   ORIENTATIOND_BIN_DIR   where orientationd and orientationctl are
#                          (default: .build/debug in the repository)
#   ORIENTATIOND_SENSOR    the daemon's --sensor value (default: simulated)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin_dir=${ORIENTATIOND_BIN_DIR:-$repo/.build/debug}
sensor=${ORIENTATIOND_SENSOR:-simulated}
name=org.orientationd.Orientation1
client=${1:-monitor}
demo_app=$repo/examples/gtk-demo/.build/debug/orientation-demo
case "$client" in
    monitor) ;;
    gtk)
        if [[ ! -x "$demo_app" ]]; then
            echo "demo: $demo_app not found: build it first (make demo)" >&2
            exit 1
        fi
        if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
            echo "demo: no display (DISPLAY or WAYLAND_DISPLAY); 'make screenshots' runs the app without one" >&2
            exit 1
        fi
        ;;
    *) echo "usage: $0 [monitor|gtk]" >&2; exit 2 ;;
esac

for tool in orientationd orientationctl; do
    if [[ ! -x "$bin_dir/$tool" ]]; then
        echo "demo: $bin_dir/$tool not found: build first (make build)" >&2
        exit 1
    fi
done
for tool in dbus-daemon busctl; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "demo: $tool not found: run scripts/prerequisites.sh run" >&2
        exit 1
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/orientationd-demo.XXXXXX")
bus_pid=""
daemon_pid=""
monitor_pid=""

# shellcheck source=scripts/private-bus.sh
source "$repo/scripts/private-bus.sh"

cleanup() {
    local status=$1
    # Monitor first, then the daemon (so it leaves the bus cleanly), then the bus.
    stop_process "$monitor_pid"
    stop_process "$daemon_pid"
    stop_process "$bus_pid"
    rm -rf "$tmp"
    echo "demo: stopped orientationd and the private bus" >&2
    exit "$status"
}
on_exit cleanup
# Ctrl-C is how the demo is stopped: a clean stop, status 0 (SIGTERM stays 143).
trap 'exit 0' INT

# A private session-type bus listening on a socket inside $tmp.
private_bus_start "$tmp" || { echo "demo: cannot start a private bus" >&2; exit 1; }
address=$bus_address

# Waits (polling every 50 ms, at most $1 polls) until the command in "$@" succeeds.
wait_for() {
    local polls=$1 i
    shift
    for ((i = 0; i < polls; i++)); do
        "$@" && return 0
        sleep 0.05
    done
    return 1
}
"$bin_dir/orientationd" --address "$address" --sensor "$sensor" </dev/null &
daemon_pid=$!

name_owned() {
    kill -0 "$daemon_pid" 2>/dev/null || { echo "demo: orientationd exited" >&2; exit 1; }
    busctl --address="$address" status "$name" >/dev/null 2>&1
}
wait_for 200 name_owned || { echo "demo: $name was not owned within 10 s" >&2; exit 1; }

short_address=${address%%,guid=*}
cat <<EOF
orientationd is running on a private session bus with the $sensor sensor
(daemon pid $daemon_pid), at:
  ADDR='$short_address'

Below, 'orientationctl monitor' (make run) or the demo window (make demo) starts a
client and shows every change; the
simulated device turns through normal, left-up, bottom-up and right-up, then lies
face-up, and repeats. Press Ctrl-C to stop the monitor, the daemon and the bus.

From another terminal, while this runs (after setting ADDR as above):
  busctl --address="\$ADDR" introspect $name /org/orientationd/Orientation1
  busctl --address="\$ADDR" get-property $name /org/orientationd/Orientation1 $name Orientation Tilt
  busctl --address="\$ADDR" monitor $name
  $bin_dir/orientationctl --address "\$ADDR" get
  $bin_dir/orientationctl --address "\$ADDR" lock      # and unlock

EOF

# In the background and waited for, so that SIGTERM to this script is handled at
# once (bash runs traps only between foreground commands).
if [[ $client == gtk ]]; then
    echo "The demo window shows the four pages; close it (or press Ctrl-C) to stop."
    "$demo_app" --address "$address" </dev/null &
else
    "$bin_dir/orientationctl" --address "$address" monitor </dev/null &
fi
monitor_pid=$!
set +e
wait "$monitor_pid"
status=$?
set -e
monitor_pid=""
exit "$status"
