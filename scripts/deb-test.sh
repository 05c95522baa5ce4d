#!/usr/bin/env bash
# make deb-test: the Debian packages installed, run and purged on a minimal Debian 12.
#
#   scripts/deb-test.sh          (after scripts/deb.sh; make deb-test runs both)
#
# Copies the cached minimal Debian 12 root (scripts/minbase-root.sh), puts the packages
# make deb built and scripts/deb-test-inside.sh into its /srv/deb-test, and runs that
# script there under systemd-nspawn, with the network for apt: it checks that the
# package pulls in only what it declares, installs it with apt, runs the installed
# programs (a daemon with the simulated sensor on a private bus under the installed
# bus policy, asked by an unprivileged user), installs orientationd-sensor-proxy,
# purges both and checks that nothing of them is left. Then a second copy, with the
# package and systemd as its init, is booted (systemd-nspawn --boot), and
# scripts/deb-boot-check.sh checks the daemon as systemd runs it: started at boot from
# the installed unit inside its sandbox, asked by an unprivileged user, logging to the
# journal with priorities, reloaded, started by the bus, restarted as iio-sensor-proxy's
# stand-in when orientationd-sensor-proxy is installed, stopped cleanly at shutdown.
# The copies are removed afterwards.
#
# Environment: DEBIAN_MIRROR (for the cached root), KEEP=1 (keep the copy).
# Exit status: 0 when every check passed.
set -euo pipefail

cd "$(dirname "$0")/.."
repo=$PWD
version=$(dpkg-parsechangelog -S Version)
arch=$(dpkg-architecture -q DEB_HOST_ARCH)
deb=orientationd_${version}_${arch}.deb
proxy_deb=orientationd-sensor-proxy_${version}_all.deb
for file in "$deb" "$proxy_deb"; do
    [[ -f $file ]] || { echo "deb-test: $file is missing: run make deb first" >&2; exit 1; }
done
[[ $(id -u) -eq 0 ]] || { echo "deb-test: systemd-nspawn needs root (run with sudo)" >&2; exit 1; }

cache=$(scripts/minbase-root.sh)
work=$(mktemp -d "$repo/.build/fresh/deb-test.XXXXXX")
cleanup() {
    if [[ ${KEEP:-0} == 1 ]]; then echo "deb-test: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
cp -a "$cache" "$work/root"
rm -f "$work/root/.complete"
cp -L /etc/resolv.conf "$work/root/etc/resolv.conf" 2>/dev/null || true
mkdir -p "$work/root/srv/deb-test"
cp "$deb" "$proxy_deb" scripts/deb-test-inside.sh "$work/root/srv/deb-test/"

echo "deb-test: $deb and $proxy_deb on a minimal Debian 12 (systemd-nspawn)"
systemd-nspawn --quiet --register=no --keep-unit --directory="$work/root" \
    --setenv=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /srv/deb-test/deb-test-inside.sh "$version" "$deb" "$proxy_deb"

# The installed daemon under systemd: a second copy with systemd as its init and the
# package installed, booted (systemd-nspawn --boot); scripts/deb-boot-check.sh runs in it
# as a oneshot unit and powers it off. Then its journal, read from here: the daemon
# stopped cleanly at the shutdown (before the bus).
echo "deb-test: $deb under systemd (systemd-nspawn --boot)"
boot=$work/boot
cp -a "$cache" "$boot"
rm -f "$boot/.complete"
cp -L /etc/resolv.conf "$boot/etc/resolv.conf" 2>/dev/null || true
mkdir -p "$boot/srv/deb-test"
cp "$deb" "$proxy_deb" scripts/deb-boot-check.sh "$boot/srv/deb-test/"
systemd-nspawn --quiet --register=no --keep-unit --directory="$boot" \
    --setenv=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --setenv=DEBIAN_FRONTEND=noninteractive \
    /bin/sh -c "apt-get update -q >/dev/null && apt-get install -y -q systemd-sysv polkitd ./srv/deb-test/$deb >/dev/null" \
    || { echo "deb-test: FAILED: cannot install systemd and $deb in the boot copy" >&2; exit 1; }
cat >"$boot/etc/systemd/system/deb-boot-check.service" <<'UNIT'
[Unit]
Description=make deb-test: the installed daemon under systemd
After=multi-user.target
[Service]
Type=oneshot
ExecStart=/srv/deb-test/deb-boot-check.sh
ExecStopPost=/bin/systemctl poweroff --no-block
[Install]
WantedBy=multi-user.target
UNIT
ln -s /etc/systemd/system/deb-boot-check.service "$boot/etc/systemd/system/multi-user.target.wants/"
mkdir -p "$boot/var/log/journal"
timeout 300 systemd-nspawn --quiet --register=no --keep-unit --boot --directory="$boot" >"$work/boot.console" 2>&1 || true
log=$boot/srv/deb-test/boot.log
[[ -f $log ]] || { echo "deb-test: FAILED: the boot check did not run; the console:" >&2; tail -40 "$work/boot.console" >&2; exit 1; }
grep '^deb-test: ' "$log"
[[ $(tail -1 "$log") == "deb-test: boot checks passed" ]] || { cat "$log" >&2; exit 1; }
# At the shutdown: orientationd stopped (cleanly) before the bus began to stop.
journal=$(journalctl --directory="$boot/var/log/journal" -o cat --no-pager)
stopped=$(grep -n '^orientationd.service: Deactivated successfully' <<<"$journal" | tail -1 | cut -d: -f1)
bus_stopping=$(grep -n '^Stopping dbus.service' <<<"$journal" | tail -1 | cut -d: -f1)
if [[ -z $stopped || -z $bus_stopping ]] || ((stopped > bus_stopping)) || grep -q 'lost the connection' <<<"$journal"; then
    echo "deb-test: FAILED: at the shutdown orientationd did not stop cleanly before the bus:" >&2
    grep -E 'orientationd|dbus.service' <<<"$journal" | tail -12 >&2
    exit 1
fi
echo "deb-test: ok: at the shutdown orientationd stopped cleanly, before the bus"
echo "deb-test: passed"
