#!/usr/bin/env bash
# Installs the Debian 12 packages that orientationd needs, only those missing.
#
#   scripts/prerequisites.sh run     build and run: compiler inputs, a bus, busctl
#   scripts/prerequisites.sh test    the run set + what the tests use (umockdev,
#                                    Debian's python3 with gi and dbus, gdbus)
#   scripts/prerequisites.sh bench   the run set + Debian's python3 with gi and dbus
#   scripts/prerequisites.sh demo    the run set + GTK 4 and Xvfb, for the demo app
#                                    (examples/gtk-demo: make demo, make screenshots)
#   scripts/prerequisites.sh deb     the run set + what builds and checks the Debian
#                                    package (make deb: debhelper, lintian)
#   scripts/prerequisites.sh deb-test  the deb set + debootstrap and systemd-nspawn,
#                                    for the package's install test (make deb-test)
#
# Checks each package with dpkg-query; when something is missing it runs
# `apt-get update` once and installs the missing packages non-interactively,
# through sudo when not root. It also checks that `swift` is on PATH.
set -euo pipefail

usage() {
    echo "usage: $0 run|test|bench|demo|deb|deb-test" >&2
    exit 2
}

[[ $# -eq 1 ]] || usage

# Build and run: the system libraries the package links (pkg-config finds them),
# what the Swift toolchain needs to link on Debian 12, a dbus-daemon for private
# buses, dbus-send and friends, and systemd for busctl.
run_set=(
    pkg-config libdbus-1-dev libudev-dev
    libc6-dev libstdc++-12-dev binutils
    dbus dbus-daemon dbus-bin
    systemd
    # The Swift toolchain's own runtime libraries (what its swift-frontend, swift-build,
    # clang and lld link against beyond libc): a minimal Debian 12 lacks them, and the
    # toolchain does not even start without libncurses6.
    libcurl4 libedit2 libncurses6 libsqlite3-0 libxml2 libstdc++6 libgcc-s1 zlib1g
)
# The demo app (examples/gtk-demo): GTK 4's headers (pkg-config gtk4), an X server
# without a screen for make screenshots and its tests, and a font to draw with.
demo_extra=(libgtk-4-dev xvfb fonts-dejavu-core)
# Tests: umockdev fakes udev devices (library, typelib for Debian's python3,
# umockdev-run/-wrapper), python3-gi and python3-dbus drive it and talk to the
# bus, gdbus (libglib2.0-bin) is a second, independent D-Bus client.
test_extra=(
    umockdev libumockdev-dev gir1.2-umockdev-1.0
    python3 python3-gi python3-dbus
    libglib2.0-bin
    # polkitd stand-in for the authorization tests; monitor-sensor, iio-sensor-proxy's
    # own client, for the compatibility facade.
    python3-dbusmock iio-sensor-proxy
    # kill(1), which the unit's ExecReload names: systemd-analyze verify checks that it
    # exists.
    procps
    # GLib's and Qt's D-Bus code generators, run on the shipped interface XML; the
    # shells whose completions are installed, to check them.
    libglib2.0-dev-bin qtbase5-dev-tools zsh fish
    # The examples (examples/): C with GDBus, C++ with QtDBus; Python uses python3-gi.
    libglib2.0-dev qtbase5-dev
    # orientationctl follow against a real compositor: headless sway, and wlr-randr.
    sway wlr-randr
    # follow --focused-app: two real Wayland windows (GTK 3 through python3-gi).
    gir1.2-gtk-3.0
    # The GTK 4 demo app under a real X server.
    "${demo_extra[@]}"
    # make test fails on new files in the tree that git neither tracks nor ignores
    # (scripts/no-leftovers.sh asks git status); a copy that came without git (a
    # tarball, a minimal root with a clone put into it) needs it installed.
    git
)
# Benchmarks: the start-up timer listens for NameOwnerChanged from Debian's python3;
# make order-file runs the daemon under valgrind's callgrind.
bench_extra=(python3 python3-gi python3-dbus valgrind)
# The Debian package (make deb): debian/control's Build-Depends beyond the run set,
# dpkg-buildpackage and lintian. Its test (make deb-test) installs it into a minimal
# Debian 12 made by debootstrap and entered with systemd-nspawn.
deb_extra=(debhelper dpkg-dev lintian)
deb_test_extra=(debootstrap systemd-container)

case "$1" in
    run) wanted=("${run_set[@]}") ;;
    test) wanted=("${run_set[@]}" "${test_extra[@]}") ;;
    bench) wanted=("${run_set[@]}" "${bench_extra[@]}") ;;
    demo) wanted=("${run_set[@]}" "${demo_extra[@]}") ;;
    deb) wanted=("${run_set[@]}" "${deb_extra[@]}") ;;
    deb-test) wanted=("${run_set[@]}" "${deb_extra[@]}" "${deb_test_extra[@]}") ;;
    *) usage ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    echo "prerequisites: dpkg-query/apt-get not found: this script is for Debian 12 (bookworm)." >&2
    echo "prerequisites: install the equivalents of: ${wanted[*]}" >&2
    exit 1
fi

missing=()
for package in "${wanted[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    if [[ "$status" != "install ok installed" ]]; then
        missing+=("$package")
    fi
done

if ((${#missing[@]} > 0)); then
    if [[ $(id -u) -eq 0 ]]; then
        as_root=()
    elif command -v sudo >/dev/null 2>&1; then
        as_root=(sudo)
    else
        echo "prerequisites: missing packages: ${missing[*]}" >&2
        echo "prerequisites: not root and no sudo: install them as root, then run again." >&2
        exit 1
    fi
    echo "prerequisites: installing ${missing[*]}"
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "${missing[@]}"
else
    echo "prerequisites ($1): all ${#wanted[@]} Debian packages present"
fi

# The facade's bus policy keeps iio-sensor-proxy's compass to the geoclue user; its
# test needs that user, which Debian's geoclue-2.0 makes. Made here (a locked system
# account, as that package makes it) when GeoClue is not installed.
if [[ "$1" == test ]] && ! getent passwd geoclue >/dev/null; then
    if [[ $(id -u) -eq 0 ]]; then
        echo "prerequisites: adding the system user geoclue (GeoClue's, for the compass policy test)"
        useradd --system --no-create-home --home-dir /var/lib/geoclue --shell /usr/sbin/nologin geoclue
    elif command -v sudo >/dev/null 2>&1; then
        sudo useradd --system --no-create-home --home-dir /var/lib/geoclue --shell /usr/sbin/nologin geoclue
    else
        echo "prerequisites: no geoclue user and not root: add it (useradd --system geoclue), then run again." >&2
        exit 1
    fi
fi

# The Swift toolchain is not a Debian package: it is unpacked by hand (here under
# /opt/swift). The Makefile adds /opt/swift/usr/bin to PATH when swift is missing.
if ! command -v swift >/dev/null 2>&1; then
    if [[ -x /opt/swift/usr/bin/swift ]]; then
        echo "prerequisites: swift is not on PATH, but /opt/swift/usr/bin/swift exists:" >&2
        echo "prerequisites:   export PATH=/opt/swift/usr/bin:\$PATH   (the Makefile does this itself)" >&2
    else
        echo "prerequisites: swift not found on PATH nor in /opt/swift/usr/bin." >&2
        echo "prerequisites: install the Swift 6.x toolchain for Debian 12 and put its usr/bin on PATH." >&2
    fi
    exit 1
fi
