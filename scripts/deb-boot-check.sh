#!/bin/bash
# The booted half of make deb-test: runs as a oneshot unit (deb-boot-check.service) in
# a minimal Debian 12 booted with systemd-nspawn --boot, the package installed, so that
# the daemon runs as it does on a user's machine: started by systemd from the installed
# unit, inside its sandbox (system call filter, read-only system, no capabilities), on
# the system bus, logging to the journal.
#
# 1. The enabled unit started the daemon at boot; an unprivileged user asks it through
#    the installed bus policy.
# 2. Its lines reach the journal with their priority and without the program's name.
# 3. systemctl reload with an invalid configuration file: the error is in the journal at
#    priority err, the daemon goes on with the previous configuration.
# 4. Stopped, it is started again by the bus when a client calls.
# 5. Under the real polkitd, root may start a client and lock; nobody is refused, and told.
# 6. It was never restarted nor killed by its sandbox; a lock survives a restart.
# 7. orientationd-sensor-proxy installed on the running system: the daemon is restarted
#    with the drop-in and owns net.hadess.SensorProxy, which starts it when called.
# Writes one line per check to /srv/deb-test/boot.log, the journal after them; the last
# line is "deb-test: boot checks passed" when every check passed.
exec >/srv/deb-test/boot.log 2>&1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

pass() { echo "deb-test: ok: $*"; }
fail() {
    echo "deb-test: FAILED: $*"
    echo "--- journalctl -u orientationd"
    journalctl -u orientationd --no-pager -o short-monotonic
    exit 1
}
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
# Waits up to 10 s for a condition (the daemon acts on a signal in its own time).
eventually() {
    for _ in $(seq 100); do
        "$@" && return 0
        sleep 0.1
    done
    return 1
}

# 1. Started at boot (enabled), under the installed unit and policy.
systemctl is-active --quiet orientationd.service || fail "orientationd.service is not active after boot: $(systemctl is-active orientationd.service)"
pid=$(systemctl show -P MainPID orientationd.service)
state=$(as_nobody orientationctl get) || fail "orientationctl get as nobody: $state"
grep -qx 'HasSensor: no' <<<"$state" || fail "orientationctl get as nobody: $state"
pass "the enabled unit started orientationd at boot under its sandbox; nobody's orientationctl get is answered"

# 2. The journal has its line at info, as written: no program name, no "<6>".
line='no display accelerometer found'
journalctl -u orientationd.service -p info..info -o cat | grep -q "^$line" \
    || fail "the journal has no line starting \"$line\" at priority info"
pass "its lines reach the journal with their priority (info) and without the program's name"

# 3. Reload with an invalid file: an error, and the previous configuration goes on.
conf=/etc/orientationd/orientationd.conf
cp "$conf" /srv/deb-test/conf.saved
printf '[Engine]\nNoSuchKey = 1\n' >"$conf"
systemctl reload orientationd.service || fail "systemctl reload orientationd failed"
has_error() { journalctl -u orientationd.service -p err -o cat | grep -q 'SIGHUP: invalid configuration'; }
eventually has_error || fail "after a reload with an invalid $conf, no error in the journal at priority err"
cp /srv/deb-test/conf.saved "$conf"
[[ $(systemctl show -P MainPID orientationd.service) == "$pid" ]] && systemctl is-active --quiet orientationd.service \
    || fail "after a reload with an invalid $conf the daemon is gone or was restarted"
pass "systemctl reload with an invalid configuration: an error in the journal (priority err), the daemon goes on"

# 4. Bus activation.
systemctl stop orientationd.service
systemctl is-active --quiet orientationd.service && fail "systemctl stop left orientationd running"
state=$(as_nobody orientationctl get) || fail "orientationctl get as nobody with the service stopped: $state"
systemctl is-active --quiet orientationd.service || fail "a client's call did not start orientationd.service"
pass "stopped, orientationd.service is started again by the bus when a client calls"

# 5. The real polkitd decides: root may start a client and lock the rotation; a user
#    outside any session (nobody) may not, and is told so.
# The monitor runs until stopped: its first line is read as it comes (up to 10 s), then
# it is stopped.
exec {monitor}< <(exec orientationctl monitor 2>&1)
monitor_pid=$!
out=""
while IFS= read -r -t 10 line <&"$monitor"; do
    out+="$line"$'\n'
    [[ $line == *'state: device'* ]] && break
done
kill "$monitor_pid" 2>/dev/null
exec {monitor}<&-
grep -q 'state: device' <<<"$out" || fail "root's orientationctl monitor: $out"
orientationctl lock >/dev/null && orientationctl unlock >/dev/null || fail "root's orientationctl lock failed"
# Refused, the monitor exits by itself; the timeout only bounds a daemon that hangs.
out=$(as_nobody timeout 10 orientationctl monitor 2>&1)
[[ $? == 1 ]] && grep -q 'not authorized for org.orientationd.Orientation1.claim' <<<"$out" \
    || fail "nobody's orientationctl monitor was not refused by polkit: $out"
out=$(as_nobody orientationctl lock 2>&1) && fail "nobody's orientationctl lock was not refused: $out"
grep -q 'not authorized for org.orientationd.Orientation1.lock' <<<"$out" || fail "nobody's orientationctl lock: $out"
pass "under polkitd, root may start a client and lock the rotation; nobody, outside a session, is refused and told so"

# 6. Never restarted, never killed (a system call the filter refuses is SIGSYS).
[[ $(systemctl show -P NRestarts orientationd.service) == 0 ]] || fail "orientationd.service was restarted"
journalctl -u orientationd.service -o cat | grep -Eq 'status=31/SYS|code=killed|code=dumped' \
    && fail "orientationd exited or was killed: $(journalctl -u orientationd.service -o cat | grep -E 'status=|exited')"
pass "never restarted, never killed by its sandbox"

# 6b. The lock survives a restart: kept in the unit's StateDirectory, writable inside
#     the read-only system of the sandbox.
orientationctl lock >/dev/null || fail "root's orientationctl lock failed"
systemctl restart orientationd.service || fail "systemctl restart orientationd.service failed"
out=$(as_nobody orientationctl get 2>&1) || fail "orientationctl get after a restart: $out"
grep -q '^RotationLocked: yes' <<<"$out" || fail "the lock did not survive a restart: $out"
[[ -f /var/lib/orientationd/state ]] || fail "no /var/lib/orientationd/state: $(ls -la /var/lib/orientationd 2>&1)"
orientationctl unlock >/dev/null || fail "root's orientationctl unlock failed"
systemctl restart orientationd.service || fail "systemctl restart orientationd.service failed"
out=$(as_nobody orientationctl get 2>&1) || fail "orientationctl get after a restart: $out"
grep -q '^RotationLocked: no' <<<"$out" || fail "unlocked, then restarted: $out"
pass "RotationLocked survives a restart: kept in /var/lib/orientationd, inside the sandbox"

# 7. orientationd-sensor-proxy installed on the running system: its postinst restarts the
#    daemon with the drop-in, which then owns iio-sensor-proxy's name too; stopped, a
#    call to that name starts it (the activation file's SystemdService=).
sensor_proxy() {
    as_nobody busctl --system get-property net.hadess.SensorProxy /net/hadess/SensorProxy \
        net.hadess.SensorProxy HasAccelerometer 2>&1
}
dpkg -i /srv/deb-test/orientationd-sensor-proxy_*.deb >/dev/null 2>&1 || fail "dpkg -i orientationd-sensor-proxy failed"
has_name() { [[ $(sensor_proxy) == "b false" ]]; }
eventually has_name || fail "after installing orientationd-sensor-proxy, net.hadess.SensorProxy answers: $(sensor_proxy)"
pass "orientationd-sensor-proxy installed: the running daemon was restarted with the drop-in and owns net.hadess.SensorProxy"
systemctl stop orientationd.service
answer=$(sensor_proxy)
[[ $answer == "b false" ]] || fail "with the service stopped, net.hadess.SensorProxy answers: $answer"
systemctl is-active --quiet orientationd.service || fail "a call to net.hadess.SensorProxy did not start orientationd.service"
pass "stopped, orientationd.service is started again by a call to net.hadess.SensorProxy"

echo "--- journalctl -u orientationd"
journalctl -u orientationd --no-pager -o short-monotonic
echo "deb-test: boot checks passed"
