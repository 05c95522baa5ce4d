#!/usr/bin/env bash
# make deb: the Debian packages, built with dpkg-buildpackage and checked by lintian.
#
#   scripts/deb.sh
#
# Builds (dpkg-buildpackage -b: binary packages only, unsigned) from this checkout
#
#   orientationd_<version>_<arch>.deb          the daemon, orientationctl and their files
#   orientationd-dbgsym_<version>_<arch>.deb   their debug information
#   orientationd-sensor-proxy_<version>_all.deb  orientationd in iio-sensor-proxy's place
#
# and moves them, with the .buildinfo and .changes files, from the parent directory
# (where dpkg-buildpackage writes them) into the repository's top directory. Then
# runs lintian on them: any error fails; warnings are printed.
#
# Build dependencies are checked by dpkg-buildpackage (debian/control); the Swift
# toolchain comes from PATH, else /opt/swift (debian/rules).
#
# Exit status: 0 when the packages are built and lintian reports no error.
set -euo pipefail

cd "$(dirname "$0")/.."
repo=$PWD
parent=$(dirname "$repo")
version=$(dpkg-parsechangelog -S Version)
arch=$(dpkg-architecture -q DEB_HOST_ARCH)

# The build and lintian leave things in TMPDIR (the Swift driver its empty
# TemporaryDirectory.* at every compile, lintian its mldbm-* ELF caches): they get a
# directory of their own, removed at the end.
work_tmp=$(mktemp -d "${TMPDIR:-/tmp}/orientationd-deb.XXXXXX")
trap 'rm -rf "$work_tmp"' EXIT
export TMPDIR=$work_tmp

dpkg-buildpackage -b -us -uc

outputs=(
    "orientationd_${version}_${arch}.deb"
    "orientationd-dbgsym_${version}_${arch}.deb"
    "orientationd-sensor-proxy_${version}_all.deb"
    "orientationd_${version}_${arch}.buildinfo"
    "orientationd_${version}_${arch}.changes"
)
for file in "${outputs[@]}"; do
    if [[ -e $parent/$file ]]; then
        mv -f "$parent/$file" "$repo/$file"
    elif [[ $file != *-dbgsym_* ]]; then
        echo "deb: dpkg-buildpackage did not write $parent/$file" >&2
        exit 1
    fi
done

echo "deb: lintian"
lintian --fail-on error --info --display-info \
    "orientationd_${version}_${arch}.changes"
echo "deb: built, and lintian found no error:"
for file in "${outputs[@]}"; do
    [[ $file == *.deb && -e $file ]] && echo "  $repo/$file"
done
echo "deb: install with: sudo apt install ./orientationd_${version}_${arch}.deb"
