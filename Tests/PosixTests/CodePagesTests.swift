import Glibc
import Posix
import Testing
import TestSupport

@Suite struct CodePagesTests {
    /// Computed at run time, so it lives in writable memory the release must not touch.
    private static let written: [Int] = (0..<512).map { $0 * 3 }

    /// The executable's code leaves this process's resident set, the process runs on
    /// (other tests run on other threads meanwhile), and what it wrote — static data,
    /// the heap — is intact.
    @Test func releasesTheExecutablesCodeAndKeepsItsData() throws {
        let heap = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let sum = Self.written.reduce(0, +)
        // Every page of the executable's read-only mappings made resident first, so that
        // "before" does not depend on what other tests happened to run.
        try touchExecutablesReadOnlyMappings()
        let before = try #require(residentExecutableKiB(pid: getpid()))
        #expect(before >= 1024, "the whole executable's code is resident")
        let advised = try CodePages.releaseExecutable().get()
        #expect(advised >= 1024 * 1024)
        // Other tests, on other threads of this process, fault some of it back meanwhile.
        let after = try #require(residentExecutableKiB(pid: getpid()))
        #expect(after * 2 < before, "resident code: \(before) KiB before, \(after) KiB after")
        #expect(Self.written.reduce(0, +) == sum)
        #expect(heap.enumerated().allSatisfy { $0.element == UInt8(truncatingIfNeeded: $0.offset &* 7) })
        // Released twice in a row: nothing to give back is not an error.
        #expect(throws: Never.self) { try CodePages.releaseExecutable().get() }
    }

    /// Idle: the first quiet moment releases; quiet moments within the interval ask for
    /// one wake-up at its end (once), which then releases; a quiet moment after a longer
    /// silence releases at once.
    @Test func pacingReleasesAtMostOncePerInterval() {
        var pacing = CodePages.Pacing(idleIntervalMs: 500, busyIntervalMs: 10_000)
        #expect(pacing.quiet(nowMs: 1_000, busy: false) == .release)
        #expect(pacing.quiet(nowMs: 1_005, busy: false) == .wake(afterMs: 495))
        #expect(pacing.quiet(nowMs: 1_200, busy: false) == .wait)
        #expect(pacing.quiet(nowMs: 1_499, busy: false) == .wait)
        #expect(pacing.quiet(nowMs: 1_500, busy: false) == .release)  // the wake-up
        #expect(pacing.quiet(nowMs: 4_000, busy: false) == .release)  // after a silence
        #expect(pacing.quiet(nowMs: 4_100, busy: false) == .wake(afterMs: 400))
        // A clock that stepped back still gets a bounded wake-up, never a negative one.
        var stepped = CodePages.Pacing(idleIntervalMs: 500, busyIntervalMs: 10_000)
        #expect(stepped.quiet(nowMs: 10_000, busy: false) == .release)
        if case .wake(let afterMs) = stepped.quiet(nowMs: 9_000, busy: false) {
            #expect(afterMs > 0 && afterMs <= 1_500)
        } else {
            Issue.record("expected a wake-up")
        }
    }

    /// Busy (a sensor read, a tick every 100 ms): no timer is asked for, and a release
    /// comes once the long interval has passed, at the next tick's quiet moment.
    @Test func pacingWhileBusyWaitsForTheLongInterval() {
        var pacing = CodePages.Pacing(idleIntervalMs: 500, busyIntervalMs: 10_000)
        #expect(pacing.quiet(nowMs: 0, busy: false) == .release)
        var releases: [Int64] = []
        for tick in stride(from: Int64(100), through: 25_000, by: 100) {
            switch pacing.quiet(nowMs: tick, busy: true) {
            case .release: releases.append(tick)
            case .wake: Issue.record("a timer asked for while busy, at \(tick) ms")
            case .wait: break
            }
        }
        #expect(releases == [10_000, 20_000])
        // Idle again soon after a busy release: the short interval, from that release.
        #expect(pacing.quiet(nowMs: 20_100, busy: false) == .wake(afterMs: 400))
    }
}

/// Reads one byte of every page of this process's executable's mappings that are not
/// writable, which maps them all.
private func touchExecutablesReadOnlyMappings() throws {
    let mappings = try #require(executableReadOnlyMappings(pid: getpid()))
    var sink: UInt8 = 0
    for mapping in mappings {
        for address in stride(from: mapping.range.lowerBound, to: mapping.range.upperBound, by: 4096) {
            sink &+= UnsafePointer<UInt8>(bitPattern: address)?.pointee ?? 0
        }
    }
    withExtendedLifetime(sink) {}
}
