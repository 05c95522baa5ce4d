#!/usr/bin/env bash
# make fresh-test: `make test` from a clean clone on a really fresh, minimal Debian 12.
#
#   scripts/fresh-test.sh
#
# Copies a minimal Debian 12 root (scripts/minbase-root.sh: `debootstrap
# --variant=minbase bookworm`, made once and cached in .build/fresh/bookworm-minbase),
# puts a clean clone of this repository's HEAD into the copy (and the evaluation data beside it when there is a
# ../shared), and runs in it, with `systemd-nspawn`:
#
#     apt-get install make          # what README asks of a minimal machine first
#     make test                     # which installs everything else itself
#
# The Swift toolchain is bind-mounted read-only at /opt/swift, as README expects it to
# be unpacked. The copy is removed afterwards; the cached root is kept (delete
# .build/fresh to rebuild it). Not part of `make test`: run it before resolving work that
# touches prerequisites.
#
# Environment:
#   SWIFT_TOOLCHAIN   directory holding usr/bin/swift (default: the one on PATH, or /opt/swift)
#   DEBIAN_MIRROR     default http://deb.debian.org/debian
#   KEEP=1            keep the copy (its path is printed) for a look inside
#
# Exit status: that of `make test` inside, or 1 when the root cannot be made or booted.
set -euo pipefail

cd "$(dirname "$0")/.."
repo=$PWD

toolchain=${SWIFT_TOOLCHAIN:-}
if [[ -z $toolchain ]]; then
    if command -v swift >/dev/null 2>&1; then
        toolchain=$(cd "$(dirname "$(readlink -f "$(command -v swift)")")/../.." && pwd)
    else
        toolchain=/opt/swift
    fi
fi
[[ -x $toolchain/usr/bin/swift ]] || { echo "fresh-test: no toolchain at $toolchain (set SWIFT_TOOLCHAIN)" >&2; exit 1; }

# The host tools: debootstrap and systemd-nspawn (Debian's systemd-container).
need=()
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
command -v systemd-nspawn >/dev/null 2>&1 || need+=(systemd-container)
if ((${#need[@]} > 0)); then
    as_root=()
    [[ $(id -u) -eq 0 ]] || as_root=(sudo)
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}"
fi
[[ $(id -u) -eq 0 ]] || { echo "fresh-test: debootstrap and systemd-nspawn need root (run with sudo)" >&2; exit 1; }
cache=$(scripts/minbase-root.sh)

work=$(mktemp -d "$repo/.build/fresh/run.XXXXXX")
cleanup() {
    if [[ ${KEEP:-0} == 1 ]]; then echo "fresh-test: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
echo "fresh-test: copying the root into $work"
cp -a "$cache" "$work/root"
rm -f "$work/root/.complete"
# Name resolution for apt inside (minbase has no resolver configuration of its own).
cp -L /etc/resolv.conf "$work/root/etc/resolv.conf" 2>/dev/null || true
mkdir -p "$work/root/build" "$work/root/opt/swift"
git clone --quiet --no-hardlinks "$repo" "$work/root/build/main"
binds=(--bind-ro="$toolchain:/opt/swift")
if [[ -d $repo/../shared ]]; then
    binds+=(--bind-ro="$(cd "$repo/../shared" && pwd):/build/shared")
fi

echo "fresh-test: make test in a minimal Debian 12 (systemd-nspawn)"
status=0
systemd-nspawn --quiet --register=no --keep-unit --directory="$work/root" "${binds[@]}" \
    --chdir=/build/main --setenv=CI=true --setenv=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c 'set -e
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q >/dev/null
        apt-get install -y -q --no-install-recommends make >/dev/null
        make test' || status=$?
echo "fresh-test: make test exited with status $status"
exit "$status"
