#!/bin/bash
# The half of make deb-test that runs inside a minimal Debian 12 (systemd-nspawn):
# scripts/deb-test.sh copies this script and the packages into the root's
# /srv/deb-test and runs it there as root.
#
#   deb-test-inside.sh VERSION ORIENTATIOND_DEB SENSOR_PROXY_DEB
#
# 1. What `apt install ./orientationd_*.deb` would pull into a fresh system is only
#    what the package declares (Depends and Recommends, and theirs).
# 2. With those dependencies installed, a snapshot of the system; then the package is
#    installed as a user would (apt-get install ./…deb), and run from the installed
#    files: --version, --bus-introspect, a daemon with the simulated sensor on a
#    private bus that reads the installed bus policy, asked by an unprivileged user;
#    the unit enabled, the configuration a conffile.
# 3. orientationd-sensor-proxy: the daemon then owns net.hadess.SensorProxy under the
#    installed policy, and the package conflicts with iio-sensor-proxy.
# 4. apt-get purge: the system is as in the snapshot (files, their owners and modes,
#    /etc's contents, the unit's enablement).
# Prints one line per check; exits 1 at the first that fails.
set -euo pipefail
version=$1 deb=$2 proxy_deb=$3
here=/srv/deb-test
export DEBIAN_FRONTEND=noninteractive
cd "$here"

pass() { echo "deb-test: ok: $*"; }
fail() { echo "deb-test: FAILED: $*" >&2; exit 1; }

# Everything on the system but what apt and dpkg keep for themselves, logs, /srv (this
# test) and the kernel's file systems: paths, kinds, modes, owners, sizes, and the
# contents of /etc.
snapshot() {
    find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp \
        -o -path /srv -o -path /var/lib/dpkg -o -path /var/lib/apt -o -path /var/cache \
        -o -path /var/log -o -path /root \) -prune -o -printf '%p %y %m %u:%g %s\n' | sort
    find /etc -xdev -type f -exec md5sum {} + | sort -k2
}

# The first field of each dependency (alternatives: the first), without versions.
first_alternatives() {
    tr ',' '\n' | sed -e 's/|.*//' -e 's/(.*)//' -e 's/[[:space:]]//g' | grep -v '^$' || true
}

apt-get update -q >/dev/null

# 1. Only what it declares.
declared=$( { dpkg-deb -f "$deb" Depends; echo ,; dpkg-deb -f "$deb" Recommends; } | tr ',|' '\n\n' \
    | sed -e 's/(.*)//' -e 's/[[:space:]]//g' | grep -v '^$' | sort -u)
allowed=$(apt-cache depends --recurse --no-suggests --no-conflicts --no-breaks --no-replaces \
    --no-enhances $declared 2>/dev/null | sed -e 's/^ *|\{0,1\}[A-Za-z]*: *//' -e 's/^ *//' \
    | tr -d '<>' | sort -u)
pulled=$(apt-get install -s -q "./$deb" | awk '$1 == "Inst" { print $2 }' | sort -u)
for package in $pulled; do
    [[ $package == orientationd ]] && continue
    grep -qx "$package" <<<"$allowed" || fail "apt install ./$deb pulls in $package, which nothing it declares asks for"
done
pass "apt install ./$deb pulls in $(wc -w <<<"$pulled") packages, all of them declared by it or by its dependencies"

# 2. Installed as a user installs it, on a system that has its dependencies.
dependencies=$( { dpkg-deb -f "$deb" Depends; echo ,; dpkg-deb -f "$deb" Recommends; } | first_alternatives)
apt-get install -y -q $dependencies >/dev/null
snapshot >before.txt
apt-get install -y -q "./$deb" >install.log 2>&1 || { cat install.log; fail "apt-get install ./$deb"; }
[[ $(dpkg-query -W -f='${Status}' orientationd) == "install ok installed" ]] || fail "orientationd is not installed"
pass "apt-get install ./$deb"

[[ $(/usr/libexec/orientationd --version) == "orientationd $version" ]] || fail "orientationd --version: $(/usr/libexec/orientationd --version)"
[[ $(orientationctl --version) == "orientationctl $version" ]] || fail "orientationctl --version: $(orientationctl --version)"
pass "orientationd --version and orientationctl --version say $version"

if ldd /usr/libexec/orientationd /usr/bin/orientationctl | grep -q 'not found'; then
    fail "a shared library is missing: $(ldd /usr/libexec/orientationd /usr/bin/orientationctl | grep 'not found')"
fi
pass "every shared library the programs need is installed"

/usr/libexec/orientationd --bus-introspect >introspect.xml
cmp -s introspect.xml /usr/share/dbus-1/interfaces/org.orientationd.Orientation1.xml \
    || fail "--bus-introspect differs from the installed interface XML"
pass "orientationd --bus-introspect is the installed org.orientationd.Orientation1.xml"

[[ -L /etc/systemd/system/multi-user.target.wants/orientationd.service ]] \
    || fail "orientationd.service is not enabled"
dpkg-query -W -f='${Conffiles}\n' orientationd | grep -q '^ /etc/orientationd/orientationd.conf ' \
    || fail "/etc/orientationd/orientationd.conf is not a conffile"
pass "orientationd.service enabled; /etc/orientationd/orientationd.conf a conffile"

# A private bus configured as the system bus is (the installed system.conf, which
# reads the installed policies; its relative directories made absolute, as the copy
# is elsewhere), on a socket of its own.
sed -e 's|<listen>.*</listen>|<listen>unix:path=/srv/deb-test/bus</listen>|' \
    -e 's|<includedir>system.d</includedir>|<includedir>/usr/share/dbus-1/system.d</includedir>|' \
    -e '/<include [^>]*>\/etc\/dbus-1\/system.conf</d' \
    -e '/<user>/d' -e '/<fork\/>/d' -e '/<pidfile>/d' -e '/<syslog\/>/d' \
    /usr/share/dbus-1/system.conf >bus.conf
address=unix:path=$here/bus
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap cleanup EXIT

# Starts the bus; returns once it listens (it prints its address then).
start_bus() {
    rm -f bus bus.address owners
    mkfifo bus.address
    dbus-daemon --config-file="$here/bus.conf" --nofork --print-address=3 3>bus.address &
    pids+=($!)
    local line
    read -r -t 10 line <bus.address || fail "the private bus did not start"
}

# Waits, on the bus's NameOwnerChanged, until NAME has an owner (not a poll: the
# monitor is in place before the daemon starts).
watch_name() {
    mkfifo owners
    dbus-monitor --address "$address" \
        "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='$1'" >owners &
    pids+=($!)
    exec 3<owners
    local line
    while IFS= read -r -t 10 line <&3; do [[ $line == *member=NameLost* ]] && return 0; done
    fail "dbus-monitor did not start"
}
wait_for_owner() {
    local line seen=0
    while IFS= read -r -t 10 line <&3; do
        [[ $line == *"string \"$1\""* ]] && seen=1 && continue
        if ((seen)) && [[ $line == *'string ":'* ]]; then return 0; fi
    done
    cat daemon.log >&2
    fail "$1 was never owned"
}

as_user() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }

start_bus
watch_name org.orientationd.Orientation1
/usr/libexec/orientationd --address "$address" --sensor simulated --no-polkit 2>daemon.log &
pids+=($!)
wait_for_owner org.orientationd.Orientation1
as_user orientationctl get --address "$address" >get.txt || { cat daemon.log; fail "orientationctl get as nobody"; }
grep -q '^HasSensor: yes' get.txt || fail "orientationctl get: $(cat get.txt)"
grep -q '^SensorBackend: simulated' get.txt || fail "orientationctl get: $(cat get.txt)"
pass "the installed daemon, with the simulated sensor, answers an unprivileged orientationctl get under the installed bus policy"
cleanup; pids=(); exec 3<&-

# 3. In iio-sensor-proxy's place.
apt-get install -y -q "./$proxy_deb" >install.log 2>&1 || { cat install.log; fail "apt-get install ./$proxy_deb"; }
grep -q '^ExecStart=/usr/libexec/orientationd --system --sensor-proxy-compat$' \
    /lib/systemd/system/orientationd.service.d/sensor-proxy.conf || fail "the drop-in does not start the facade"
apt-get install -s -q iio-sensor-proxy | grep -q '^Remv orientationd-sensor-proxy' \
    || fail "installing iio-sensor-proxy would not remove orientationd-sensor-proxy"
pass "orientationd-sensor-proxy installed: its drop-in starts the facade, and it conflicts with iio-sensor-proxy"

start_bus
watch_name net.hadess.SensorProxy
/usr/libexec/orientationd --address "$address" --sensor simulated --no-polkit --sensor-proxy-compat 2>daemon.log &
pids+=($!)
wait_for_owner net.hadess.SensorProxy
reply=$(as_user dbus-send --bus="$address" --print-reply --dest=net.hadess.SensorProxy /net/hadess/SensorProxy \
    org.freedesktop.DBus.Properties.Get string:net.hadess.SensorProxy string:HasAccelerometer) \
    || { cat daemon.log; fail "HasAccelerometer as nobody"; }
[[ $reply == *"boolean true"* ]] || fail "HasAccelerometer: $reply"
pass "with orientationd-sensor-proxy's policy the daemon owns net.hadess.SensorProxy: HasAccelerometer true for nobody"
cleanup; pids=(); exec 3<&-

# 4. Purged: nothing left.
apt-get purge -y -q orientationd-sensor-proxy orientationd >purge.log 2>&1 || { cat purge.log; fail "apt-get purge"; }
snapshot >after.txt
if ! diff -u before.txt after.txt >left.diff; then
    cat left.diff >&2
    fail "apt-get purge left the system different from before the install"
fi
if dpkg-query -W orientationd orientationd-sensor-proxy >/dev/null 2>&1; then
    fail "dpkg still knows the packages: $(dpkg-query -W -f='${Package} ${Status}\n' orientationd orientationd-sensor-proxy)"
fi
pass "apt-get purge orientationd orientationd-sensor-proxy: nothing left (files, /etc, the unit's enablement)"
