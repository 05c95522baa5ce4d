# Sourced by scripts that need a private D-Bus session bus (demo, benchmarks).
#
#   private_bus_start DIR   starts dbus-daemon listening on DIR/bus; sets bus_pid and
#                           bus_address; returns 1 (with a message) if it does not
#                           listen within 5 s
#   stop_process PID        SIGTERM, up to ~2 s to exit, then SIGKILL

private_bus_start() {
    local dir=$1 i
    cat >"$dir/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=$dir/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
CONF
    # Its stderr goes to a log (it warns that it cannot raise its fd limit when not root).
    dbus-daemon --nofork --nosyslog --config-file="$dir/bus.conf" --print-address=3 \
        3>"$dir/address" </dev/null 2>"$dir/bus.log" &
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
