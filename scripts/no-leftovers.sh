#!/usr/bin/env bash
# Runs a command (make test: the build, the tests and the fuzzers) and fails when it
# left anything behind: a new entry in /tmp, a file in its own temporary directory, or
# a file git does not know and does not ignore.
#
#   scripts/no-leftovers.sh COMMAND [ARGUMENT...]
#
# The command runs with TMPDIR set to a new directory, /tmp/orientationd-make.XXXXXX
# (short: sockets are made below it), which is removed afterwards. Before that, what
# is still in it is checked: only what the Swift toolchain itself leaves in every
# build may remain (the driver's empty TemporaryDirectory.*, SwiftPM's *.lock files,
# and swift-generated-sources, where the compiler writes macro expansions, such as
# Swift Testing's #expect, for the debug info to point at); anything else, such as a test's directory that was not removed, is a
# leftover. X11's socket directories (/tmp/.X11-unix and the like, which the X server
# of the GTK tests makes and which outlive any one server) are not counted.
#
# Environment: LEFTOVERS_TMP, the directory watched instead of /tmp (its own test).
# Exit status: the command's when it failed; 1 when it passed but left something; 0.
set -uo pipefail

[[ $# -ge 1 ]] || { echo "usage: $0 COMMAND [ARGUMENT...]" >&2; exit 2; }
cd "$(dirname "$0")/.."

system_tmp=${LEFTOVERS_TMP:-/tmp}
x11='^\.(X11|ICE|XIM|font|Test)-unix$'
list_tmp() { ls -A "$system_tmp" | grep -Ev "$x11" | sort; }
untracked() {
    git rev-parse --is-inside-work-tree >/dev/null 2>&1 || return 0
    git status --porcelain --untracked-files=all | sed -n 's/^?? //p' | sort
}

before_tmp=$(list_tmp)
before_git=$(untracked)
work=$(mktemp -d "$system_tmp/orientationd-make.XXXXXX")
chmod 0755 "$work"  # the tests' unprivileged peers reach into it

TMPDIR=$work "$@"
status=$?

left_inside=$(cd "$work" && find . -mindepth 1 -maxdepth 1 \
    ! -name 'TemporaryDirectory.*' ! -name '*.lock' ! -name swift-generated-sources -printf '%P\n' | sort)
rm -rf "$work"
new_tmp=$(comm -13 <(echo "$before_tmp") <(list_tmp))
new_git=$(comm -13 <(echo "$before_git") <(untracked))

((status == 0)) || exit "$status"
found=0
if [[ -n $left_inside ]]; then
    echo "no-leftovers: left in its temporary directory (TMPDIR):" >&2
    sed 's/^/  /' <<<"$left_inside" >&2
    found=1
fi
if [[ -n $new_tmp ]]; then
    echo "no-leftovers: new in $system_tmp:" >&2
    sed 's/^/  /' <<<"$new_tmp" >&2
    found=1
fi
if [[ -n $new_git ]]; then
    echo "no-leftovers: new files that git neither tracks nor ignores:" >&2
    sed 's/^/  /' <<<"$new_git" >&2
    found=1
fi
if ((found)); then exit 1; fi
echo "no-leftovers: nothing left behind (/tmp, TMPDIR, the working tree)"
