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
# purges both and checks that nothing of them is left. The copy is removed afterwards.
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
echo "deb-test: passed"
