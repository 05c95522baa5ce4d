#!/usr/bin/env bash
# A minimal Debian 12 root, made once by debootstrap and cached: make fresh-test and
# make deb-test copy it and work in the copy.
#
#   root=$(scripts/minbase-root.sh)
#
# Prints the cached root's directory (.build/fresh/bookworm-minbase), making it first
# with `debootstrap --variant=minbase bookworm` when it is not there or was left half
# made. Needs root, debootstrap and a Debian mirror (DEBIAN_MIRROR, default
# http://deb.debian.org/debian). Progress goes to standard error.
set -euo pipefail

cd "$(dirname "$0")/.."
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=$PWD/.build/fresh/bookworm-minbase

[[ $(id -u) -eq 0 ]] || { echo "minbase-root: debootstrap needs root (run with sudo)" >&2; exit 1; }
if [[ ! -e $cache/.complete ]]; then
    echo "minbase-root: debootstrap --variant=minbase bookworm (once; cached in $cache)" >&2
    rm -rf "$cache.tmp"
    mkdir -p "$(dirname "$cache")"
    debootstrap --variant=minbase bookworm "$cache.tmp" "$mirror" >&2
    rm -rf "$cache"
    mv "$cache.tmp" "$cache"
    touch "$cache/.complete"
fi
echo "$cache"
