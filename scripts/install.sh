#!/usr/bin/env bash
# Installs or uninstalls orientationd: `make install` and `make uninstall` run it.
#
#   scripts/install.sh install      release build (unless ORIENTATIOND_PREBUILT), then
#                                   copy the programs and the system files
#   scripts/install.sh uninstall    remove exactly what install laid down
#
# Directories come from the environment (the Makefile passes them; these are its
# defaults). DESTDIR is prepended to every destination, never to the paths written
# into the files (staged installs, packaging).
#
#   PREFIX                 /usr/local
#   BINDIR                 $PREFIX/bin               orientationctl
#   LIBEXECDIR             $PREFIX/libexec           orientationd
#   DATADIR                $PREFIX/share
#   MANDIR                 $DATADIR/man              man8/orientationd.8, man1/orientationctl.1
#   SYSCONFDIR             /etc                      orientationd/orientationd.conf (example,
#                                                    installed only when absent)
#   DBUSPOLICYDIR          $DATADIR/dbus-1/system.d
#   DBUSSYSTEMSERVICEDIR   $DATADIR/dbus-1/system-services
#   DBUSSESSIONSERVICEDIR  $DATADIR/dbus-1/services
#   POLKITACTIONDIR        $DATADIR/polkit-1/actions
#   DBUSINTERFACESDIR      $DATADIR/dbus-1/interfaces   the documented interface XML
#   DOCDIR                 $DATADIR/doc/orientationd    LICENSE, README.md, docs/api.md
#   BASHCOMPLETIONDIR      $DATADIR/bash-completion/completions
#   ZSHCOMPLETIONDIR       $DATADIR/zsh/vendor-completions
#   FISHCOMPLETIONDIR      $DATADIR/fish/vendor_completions.d
#   UDEVRULESDIR           $PREFIX/lib/udev/rules.d
#   SYSTEMDSYSTEMUNITDIR   $PREFIX/lib/systemd/system
#
#   INSTALL_SESSION_SERVICE  no (default): no session-bus activation file. yes: install
#                          $DBUSSESSIONSERVICEDIR/org.orientationd.Orientation1.service,
#                          which starts a daemon with the simulated sensor on a
#                          developer's session bus (never on a user's machine: see docs/installing.md)
#   SENSOR_PROXY_COMPAT_FILES  auto (default): install the net.hadess.SensorProxy bus
#                          policy and polkit action only where iio-sensor-proxy's
#                          files of the same names are absent; yes: always; no: never.
#   REPLACE_SENSOR_PROXY   no (default): orientationd owns only its own name. yes: also
#                          install the systemd drop-in
#                          $SYSTEMDSYSTEMUNITDIR/orientationd.service.d/sensor-proxy.conf
#                          (--sensor-proxy-compat) and the activation file
#                          $DBUSSYSTEMSERVICEDIR/net.hadess.SensorProxy.service: orientationd
#                          in iio-sensor-proxy's place (what the orientationd-sensor-proxy
#                          Debian package holds; remove iio-sensor-proxy first)
#   ORIENTATIOND_PREBUILT  a directory holding already built orientationd and
#                          orientationctl: no build (the tests use the debug build).
#                          Without it, the release build in .build/release is used when
#                          it is there and up to date; as root, a tree owned by someone
#                          else is never built in (root-owned files in a user's tree):
#                          build first as that user (`make release`), install second.
#   STRIP                  yes (default): the installed programs are stripped of debug
#                          information and symbols; no: installed as built
#   SWIFT                  the swift driver (default: swift).
set -euo pipefail

usage() {
    echo "usage: $0 install|uninstall" >&2
    exit 2
}
[[ $# -eq 1 ]] || usage
action=$1
[[ $action == install || $action == uninstall ]] || usage

cd "$(dirname "$0")/.."
repo=$PWD

DESTDIR=${DESTDIR:-}
PREFIX=${PREFIX:-/usr/local}
BINDIR=${BINDIR:-$PREFIX/bin}
LIBEXECDIR=${LIBEXECDIR:-$PREFIX/libexec}
DATADIR=${DATADIR:-$PREFIX/share}
MANDIR=${MANDIR:-$DATADIR/man}
SYSCONFDIR=${SYSCONFDIR:-/etc}
DBUSPOLICYDIR=${DBUSPOLICYDIR:-$DATADIR/dbus-1/system.d}
DBUSSYSTEMSERVICEDIR=${DBUSSYSTEMSERVICEDIR:-$DATADIR/dbus-1/system-services}
DBUSSESSIONSERVICEDIR=${DBUSSESSIONSERVICEDIR:-$DATADIR/dbus-1/services}
POLKITACTIONDIR=${POLKITACTIONDIR:-$DATADIR/polkit-1/actions}
DBUSINTERFACESDIR=${DBUSINTERFACESDIR:-$DATADIR/dbus-1/interfaces}
DOCDIR=${DOCDIR:-$DATADIR/doc/orientationd}
BASHCOMPLETIONDIR=${BASHCOMPLETIONDIR:-$DATADIR/bash-completion/completions}
ZSHCOMPLETIONDIR=${ZSHCOMPLETIONDIR:-$DATADIR/zsh/vendor-completions}
FISHCOMPLETIONDIR=${FISHCOMPLETIONDIR:-$DATADIR/fish/vendor_completions.d}
STRIP=${STRIP:-yes}
UDEVRULESDIR=${UDEVRULESDIR:-$PREFIX/lib/udev/rules.d}
SYSTEMDSYSTEMUNITDIR=${SYSTEMDSYSTEMUNITDIR:-$PREFIX/lib/systemd/system}
SENSOR_PROXY_COMPAT_FILES=${SENSOR_PROXY_COMPAT_FILES:-auto}
INSTALL_SESSION_SERVICE=${INSTALL_SESSION_SERVICE:-no}
REPLACE_SENSOR_PROXY=${REPLACE_SENSOR_PROXY:-no}
SWIFT=${SWIFT:-swift}

case $STRIP in
    yes | no) ;;
    *) echo "install: STRIP must be yes or no" >&2; exit 2 ;;
esac
case $INSTALL_SESSION_SERVICE in
    yes | no) ;;
    *) echo "install: INSTALL_SESSION_SERVICE must be yes or no" >&2; exit 2 ;;
esac
case $REPLACE_SENSOR_PROXY in
    yes | no) ;;
    *) echo "install: REPLACE_SENSOR_PROXY must be yes or no" >&2; exit 2 ;;
esac

case $SENSOR_PROXY_COMPAT_FILES in
    auto | yes | no) ;;
    *) echo "install: SENSOR_PROXY_COMPAT_FILES must be auto, yes or no" >&2; exit 2 ;;
esac
for variable in PREFIX BINDIR LIBEXECDIR DATADIR MANDIR SYSCONFDIR DBUSPOLICYDIR DBUSSYSTEMSERVICEDIR \
    DBUSSESSIONSERVICEDIR POLKITACTIONDIR UDEVRULESDIR SYSTEMDSYSTEMUNITDIR DBUSINTERFACESDIR DOCDIR \
    BASHCOMPLETIONDIR ZSHCOMPLETIONDIR FISHCOMPLETIONDIR; do
    if [[ ${!variable} != /* ]]; then
        echo "install: $variable must be an absolute path (it is '${!variable}')" >&2
        exit 2
    fi
done

config=$SYSCONFDIR/orientationd/orientationd.conf

# Files whose content is substituted: @libexecdir@ becomes the daemon's directory.
substituted=(
    "systemd/orientationd.service|$SYSTEMDSYSTEMUNITDIR/orientationd.service"
    "dbus/system-services/org.orientationd.Orientation1.service|$DBUSSYSTEMSERVICEDIR/org.orientationd.Orientation1.service"
)
# Session-bus activation: developers only (INSTALL_SESSION_SERVICE=yes); removed by
# uninstall either way.
session_service="dbus/session-services/org.orientationd.Orientation1.service|$DBUSSESSIONSERVICEDIR/org.orientationd.Orientation1.service"
[[ $INSTALL_SESSION_SERVICE == yes ]] && substituted+=("$session_service")
# In iio-sensor-proxy's place: REPLACE_SENSOR_PROXY=yes; removed by uninstall either way.
replacement=(
    "systemd/orientationd-sensor-proxy.conf|$SYSTEMDSYSTEMUNITDIR/orientationd.service.d/sensor-proxy.conf"
    "dbus/system-services/net.hadess.SensorProxy.service|$DBUSSYSTEMSERVICEDIR/net.hadess.SensorProxy.service"
)
[[ $REPLACE_SENSOR_PROXY == yes ]] && substituted+=("${replacement[@]}")
# Files copied as they are (source|destination).
copied=(
    "dbus/org.orientationd.Orientation1.conf|$DBUSPOLICYDIR/org.orientationd.Orientation1.conf"
    "polkit/org.orientationd.Orientation1.policy|$POLKITACTIONDIR/org.orientationd.Orientation1.policy"
    "udev/80-orientationd.rules|$UDEVRULESDIR/80-orientationd.rules"
    "man/orientationd.8|$MANDIR/man8/orientationd.8"
    "man/orientationctl.1|$MANDIR/man1/orientationctl.1"
    "dbus/org.orientationd.Orientation1.xml|$DBUSINTERFACESDIR/org.orientationd.Orientation1.xml"
    "LICENSE|$DOCDIR/LICENSE"
    "README.md|$DOCDIR/README.md"
    "docs/api.md|$DOCDIR/api.md"
    "completions/orientationctl.bash|$BASHCOMPLETIONDIR/orientationctl"
    "completions/_orientationctl|$ZSHCOMPLETIONDIR/_orientationctl"
    "completions/orientationctl.fish|$FISHCOMPLETIONDIR/orientationctl.fish"
)
# The iio-sensor-proxy compatibility files: iio-sensor-proxy ships files of the same
# names (its bus policy in /etc/dbus-1/system.d before 3.1, in the data directory
# since). source|destination|other places where iio-sensor-proxy's copy may be.
compat=(
    "dbus/net.hadess.SensorProxy.conf|$DBUSPOLICYDIR/net.hadess.SensorProxy.conf|$SYSCONFDIR/dbus-1/system.d/net.hadess.SensorProxy.conf /etc/dbus-1/system.d/net.hadess.SensorProxy.conf /usr/share/dbus-1/system.d/net.hadess.SensorProxy.conf"
    "polkit/net.hadess.SensorProxy.policy|$POLKITACTIONDIR/net.hadess.SensorProxy.policy|/usr/share/polkit-1/actions/net.hadess.SensorProxy.policy"
)

say() { echo "  $*"; }

# Whether a file at DESTDIR+path exists and is not our copy of `source`.
foreign() {
    local source=$1 path=$DESTDIR$2
    [[ -e $path ]] && ! cmp -s "$repo/$source" "$path"
}

# The release build to install: ORIENTATIOND_PREBUILT, or .build/release, built first
# unless that would mean root building in someone else's tree.
release_binaries() {
    if [[ -n ${ORIENTATIOND_PREBUILT:-} ]]; then
        say "using the binaries in $ORIENTATIOND_PREBUILT (ORIENTATIOND_PREBUILT)" >&2
        echo "$ORIENTATIOND_PREBUILT"
        return
    fi
    local flags bin=$repo/.build/release owner
    owner=$(stat -c %U "$repo/.build" 2>/dev/null || stat -c %U "$repo")
    if [[ $(id -u) -eq 0 && $owner != root ]]; then
        if [[ ! -x $bin/orientationd || ! -x $bin/orientationctl ]]; then
            echo "install: no release build in $bin, and root does not build in $owner's tree:" >&2
            echo "install: run 'make release' as $owner first, then 'sudo make install'" >&2
            exit 1
        fi
        local newer
        newer=$(find Sources Package.swift -newer "$bin/orientationd" -print -quit 2>/dev/null)
        if [[ -n $newer ]]; then
            echo "install: $newer is newer than the release build: run 'make release' as $owner first" >&2
            exit 1
        fi
        say "using the release build in $bin (built by $owner)" >&2
    else
        mapfile -t flags < <("$repo/scripts/release-flags.sh")
        # The toolchain's leftovers of every build (empty TemporaryDirectory.*, lock
        # files) go to .build/tmp, not to the user's TMPDIR (as the Makefile's builds).
        mkdir -p "$repo/.build/tmp"
        TMPDIR="$repo/.build/tmp" "$SWIFT" build "${flags[@]}" --product orientationd >&2
        TMPDIR="$repo/.build/tmp" "$SWIFT" build "${flags[@]}" --product orientationctl >&2
        bin=$(TMPDIR="$repo/.build/tmp" "$SWIFT" build "${flags[@]}" --show-bin-path)
    fi
    echo "$bin"
}

install_programs() {
    local bin
    bin=$(release_binaries)
    for program in orientationd orientationctl; do
        [[ -x $bin/$program ]] || { echo "install: $bin/$program is missing" >&2; exit 1; }
    done
    install -D -m 0755 "$bin/orientationd" "$DESTDIR$LIBEXECDIR/orientationd"
    install -D -m 0755 "$bin/orientationctl" "$DESTDIR$BINDIR/orientationctl"
    if [[ $STRIP == yes ]]; then
        strip --strip-all "$DESTDIR$LIBEXECDIR/orientationd" "$DESTDIR$BINDIR/orientationctl"
    fi
    say "$LIBEXECDIR/orientationd"
    say "$BINDIR/orientationctl"
}

do_install() {
    echo "install: into ${DESTDIR:-/} with PREFIX=$PREFIX"
    install_programs
    local entry source destination others
    for entry in "${copied[@]}"; do
        source=${entry%%|*} destination=${entry#*|}
        install -D -m 0644 "$source" "$DESTDIR$destination"
        say "$destination"
    done
    for entry in "${substituted[@]}"; do
        source=${entry%%|*} destination=${entry#*|}
        install -d -m 0755 "$DESTDIR$(dirname "$destination")"
        sed "s|@libexecdir@|$LIBEXECDIR|g" "$source" > "$DESTDIR$destination.tmp"
        chmod 0644 "$DESTDIR$destination.tmp"
        mv -f "$DESTDIR$destination.tmp" "$DESTDIR$destination"
        say "$destination"
    done
    for entry in "${compat[@]}"; do
        IFS='|' read -r source destination others <<<"$entry"
        if [[ $SENSOR_PROXY_COMPAT_FILES == no ]]; then
            say "skipped $destination (SENSOR_PROXY_COMPAT_FILES=no)"
            continue
        fi
        if [[ $SENSOR_PROXY_COMPAT_FILES == auto ]]; then
            local theirs=""
            for other in $destination $others; do
                if foreign "$source" "$other"; then theirs=$other; break; fi
            done
            if [[ -n $theirs ]]; then
                say "skipped $destination: iio-sensor-proxy's $theirs is there and serves the facade too"
                continue
            fi
        fi
        install -D -m 0644 "$source" "$DESTDIR$destination"
        say "$destination"
    done
    if [[ -e $DESTDIR$config ]]; then
        say "kept the existing $config"
    else
        install -D -m 0644 conf/orientationd.conf "$DESTDIR$config"
        say "$config (example: every setting commented out)"
    fi
    if [[ $DATADIR != /usr/share ]]; then
        echo "install: note: polkitd reads actions only from /usr/share/polkit-1/actions, and the"
        echo "install: system bus reads policies from /usr/share/dbus-1/system.d and /etc/dbus-1/system.d:"
        echo "install: with DATADIR=$DATADIR use PREFIX=/usr, or POLKITACTIONDIR=/usr/share/polkit-1/actions"
        echo "install: DBUSPOLICYDIR=/etc/dbus-1/system.d (see docs/installing.md)."
    fi
    if [[ -z $DESTDIR ]]; then
        echo "install: done. Next: systemctl daemon-reload; udevadm control --reload; udevadm trigger"
    fi
}

do_uninstall() {
    echo "uninstall: from ${DESTDIR:-/} with PREFIX=$PREFIX"
    local entry source destination others path
    for path in "$LIBEXECDIR/orientationd" "$BINDIR/orientationctl"; do
        rm -f "$DESTDIR$path" && say "removed $path"
    done
    for entry in "${copied[@]}" "${substituted[@]}" "$session_service" "${replacement[@]}"; do
        destination=${entry#*|}
        [[ -e $DESTDIR$destination ]] || continue
        rm -f "$DESTDIR$destination" && say "removed $destination"
    done
    for entry in "${compat[@]}"; do
        IFS='|' read -r source destination others <<<"$entry"
        if [[ -e $DESTDIR$destination ]]; then
            if foreign "$source" "$destination"; then
                say "kept $destination: it is not orientationd's (iio-sensor-proxy's?)"
            else
                rm -f "$DESTDIR$destination" && say "removed $destination"
            fi
        fi
    done
    if [[ -e $DESTDIR$config ]]; then
        if cmp -s conf/orientationd.conf "$DESTDIR$config"; then
            rm -f "$DESTDIR$config" && say "removed $config"
        else
            say "kept $config: it was changed"
        fi
    fi
    rmdir "$DESTDIR$SYSCONFDIR/orientationd" "$DESTDIR$DOCDIR" \
        "$DESTDIR$SYSTEMDSYSTEMUNITDIR/orientationd.service.d" 2>/dev/null || true
}

case $action in
    install) do_install ;;
    uninstall) do_uninstall ;;
esac
