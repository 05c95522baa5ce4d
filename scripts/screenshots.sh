#!/usr/bin/env bash
# `make screenshots`: the GTK 4 demo app (examples/gtk-demo) under a real X server
# (Xvfb, GDK_BACKEND=x11, GTK's cairo renderer: software only), driven by a replay
# sensor through the four orientations; the app saves a PNG of its window for each
# page and orientation into docs/screenshots/ (or $1), then exits. Everything started
# here is stopped on exit.
#
# Environment:
#   ORIENTATIOND_BIN_DIR   where orientationd is (default: .build/debug in the repository)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin_dir=${ORIENTATIOND_BIN_DIR:-$repo/.build/debug}
demo_app=$repo/examples/gtk-demo/.build/debug/orientation-demo
out=${1:-$repo/docs/screenshots}
name=org.orientationd.Orientation1

for program in "$bin_dir/orientationd" "$demo_app"; do
    [[ -x $program ]] || { echo "screenshots: $program not found: build first (make screenshots builds both)" >&2; exit 1; }
done
for tool in dbus-daemon busctl Xvfb; do
    command -v "$tool" >/dev/null 2>&1 || { echo "screenshots: $tool not found: run scripts/prerequisites.sh demo" >&2; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/orientationd-screenshots.XXXXXX")
bus_pid="" daemon_pid="" x_pid="" app_pid=""
# shellcheck source=scripts/private-bus.sh
source "$repo/scripts/private-bus.sh"
cleanup() {
    local status=$1
    exec 4>&- 2>/dev/null || true
    stop_process "$app_pid"
    stop_process "$daemon_pid"
    stop_process "$x_pid"
    stop_process "$bus_pid"
    rm -rf "$tmp"
    exit "$status"
}
on_exit cleanup

private_bus_start "$tmp" || { echo "screenshots: cannot start a private bus" >&2; exit 1; }
# The tour's samples go through a FIFO named for what it plays (the sensor's name in
# the pictures is "Replay of screenshot-tour.csv").
mkfifo "$tmp/screenshot-tour.csv"
exec 4<>"$tmp/screenshot-tour.csv"
"$bin_dir/orientationd" --address "$bus_address" --sensor "replay:$tmp/screenshot-tour.csv" </dev/null 2>"$tmp/daemon.log" &
daemon_pid=$!
for ((i = 0; i < 200; i++)); do
    busctl --address="$bus_address" status "$name" >/dev/null 2>&1 && break
    kill -0 "$daemon_pid" 2>/dev/null || { echo "screenshots: orientationd exited:" >&2; cat "$tmp/daemon.log" >&2; exit 1; }
    sleep 0.05
done

# Xvfb picks a free display number and writes it to fd 3.
Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp 3>"$tmp/display" </dev/null 2>"$tmp/x.log" &
x_pid=$!
for ((i = 0; i < 200; i++)); do
    [[ -s $tmp/display ]] && break
    kill -0 "$x_pid" 2>/dev/null || { echo "screenshots: Xvfb exited:" >&2; cat "$tmp/x.log" >&2; exit 1; }
    sleep 0.05
done
[[ -s $tmp/display ]] || { echo "screenshots: Xvfb did not start" >&2; exit 1; }

mkdir -p "$out"
t=0
# One second at 50 Hz of the device at rest: t_ms,x,y,z in m/s^2.
hold() {
    local x=$1 y=$2 z=$3 n
    for ((n = 0; n < 50; n++)); do
        printf '%d,%s,%s,%s\n' "$t" "$x" "$y" "$z" >&4
        t=$((t + 20))
    done
}
hold 0 -9.81 0
DISPLAY=":$(cat "$tmp/display")" GDK_BACKEND=x11 GSK_RENDERER=cairo GTK_A11Y=none GSETTINGS_BACKEND=memory \
    "$demo_app" --address "$bus_address" --state-log "$tmp/state.log" --screenshots "$out" </dev/null 2>"$tmp/app.log" &
app_pid=$!
for pose in "normal 0 -9.81 0" "left-up 9.81 0 0" "bottom-up 0 9.81 0" "right-up -9.81 0 0"; do
    read -r orientation x y z <<<"$pose"
    hold "$x" "$y" "$z"
    for ((i = 0; i < 600; i++)); do
        grep -q "event=captured .*orientation=$orientation\$" "$tmp/state.log" 2>/dev/null && break
        kill -0 "$app_pid" 2>/dev/null || { echo "screenshots: the app exited:" >&2; cat "$tmp/app.log" >&2; exit 1; }
        sleep 0.05
    done
    grep -q "event=captured .*orientation=$orientation\$" "$tmp/state.log" ||
        { echo "screenshots: no screenshots for $orientation within 30 s" >&2; cat "$tmp/app.log" "$tmp/state.log" >&2; exit 1; }
    echo "screenshots: $orientation: $(grep -c "event=screenshot .*-$orientation.png" "$tmp/state.log") pages"
done
# Back to normal: the Relay page's normal picture needs a turn to normal seen on it.
hold 0 -9.81 0
set +e
wait "$app_pid"
status=$?
set -e
app_pid=""
[[ $status -eq 0 ]] || { echo "screenshots: the app exited with $status:" >&2; cat "$tmp/app.log" >&2; exit 1; }
echo "screenshots: $(ls "$out"/*.png | wc -l) PNG files in $out"
