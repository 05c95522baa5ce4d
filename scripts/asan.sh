#!/bin/bash
# make asan: the integration tests once, with the daemon they start built with
# AddressSanitizer (LeakSanitizer included), and every sanitizer report a failure.
#
# - orientationd is built with `-sanitize=address` into its own scratch path
#   (ASAN_SCRATCH, default .build/asan); the tests themselves are the normal build.
# - ORIENTATIOND_DAEMON makes the tests' ChildProcess start that binary; daemons still
#   running at the end of a test get SIGTERM (LeakSanitizer reports only at a normal
#   exit) instead of SIGKILL, and their reports fail the test
#   (Tests/IntegrationTests/Support/SanitizerRun.swift).
# - ASAN_OPTIONS reach only instrumented processes (the daemon), not the test runner,
#   whose toolchain libraries have leaks of their own (see the Swift-on-Linux notes).
#   Reports go to files in a report directory (log_path) as well as being searched
#   for in each daemon's standard error.
# - No suppressions: the daemon's run has none to hide.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
ASAN_SCRATCH=${ASAN_SCRATCH:-.build/asan}
FILTER=${ASAN_FILTER:-IntegrationTests}
# The tests' own build (default: the package's usual .build).
test_scratch=()
[ -n "${ASAN_TEST_SCRATCH:-}" ] && test_scratch=(--scratch-path "$ASAN_TEST_SCRATCH")

echo "== building orientationd with AddressSanitizer ($ASAN_SCRATCH)"
$SWIFT build --product orientationd -Xswiftc -sanitize=address --scratch-path "$ASAN_SCRATCH"
daemon="$($SWIFT build --product orientationd -Xswiftc -sanitize=address --scratch-path "$ASAN_SCRATCH" --show-bin-path)/orientationd"
nm "$daemon" | grep __asan_init >/dev/null || { echo "make asan: $daemon is not instrumented" >&2; exit 1; }

echo "== building the tests"
$SWIFT build --build-tests "${test_scratch[@]}"

reports=$(mktemp -d "${TMPDIR:-/tmp}/orientationd-asan.XXXXXX")
echo "== running $FILTER with ORIENTATIOND_DAEMON=$daemon (reports in $reports)"
status=0
ORIENTATIOND_DAEMON="$daemon" ORIENTATIOND_SANITIZER_REPORTS="$reports" \
    ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:log_path=$reports/asan" \
    SWIFT_BACKTRACE=enable=no \
    $SWIFT test --skip-build "${test_scratch[@]}" --filter "$FILTER" || status=$?

checked=$(grep -c . "$reports/checked.log" 2>/dev/null || true)
exited=$(grep -c ' exit [0-9]' "$reports/checked.log" 2>/dev/null || true)
found=$(find "$reports" -name 'asan.*' -o -name 'report-*' | sort)
echo "== $checked daemon processes checked, $exited of them exited normally (leak-checked at exit)"
if [ -n "$found" ]; then
    echo "make asan: sanitizer reports:" >&2
    for file in $found; do echo "--- $file" >&2; cat "$file" >&2; done
    exit 1
fi
if [ "$status" -ne 0 ]; then
    echo "make asan: the tests failed (status $status); reports: none" >&2
    exit "$status"
fi
if [ "${checked:-0}" -eq 0 ]; then
    echo "make asan: no daemon was checked: is ORIENTATIOND_DAEMON honoured?" >&2
    exit 1
fi
echo "== AddressSanitizer: 0 errors; LeakSanitizer: 0 leaks"
rm -rf "$reports"
