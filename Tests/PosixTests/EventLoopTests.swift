import Glibc
import Testing
@_spi(Testing) @testable import Posix

// Every test creates its loop and uses it on the test's own thread (synchronous tests
// never hop threads), as EventLoop requires. Every wait is bounded by a deadline.

@Suite struct EventLoopTests {
    @Test func pipeBecomesReadableAndHandlerSeesData() throws {
        let loop = try EventLoop()
        let (r, w) = try FileDescriptor.pipe()
        try r.setNonBlocking()
        var received: [UInt8] = []
        var seenEvents: IOEvents = []
        try loop.add(fd: r.rawValue, events: .readable) { events in
            seenEvents.formUnion(events)
            received += drain(r)
        }
        #expect(loop.isWatching(fd: r.rawValue))

        // Nothing written yet: the loop must time out without calling the handler.
        #expect(loop.run(until: deadline(afterMs: 30)) { received.isEmpty } == false)
        #expect(seenEvents.isEmpty)

        try w.writeAll("ping")
        #expect(loop.run(until: deadline(afterMs: 2000)) { received.count < 4 })
        #expect(received == Array("ping".utf8))
        #expect(seenEvents.contains(.readable))
    }

    /// whenQuiet runs once the loop would sleep after start and after each burst it
    /// handled, never twice in a row: a daemon's "nothing is happening now" moment.
    @Test func whenQuietRunsOnceAfterEachBurst() throws {
        let loop = try EventLoop()
        let (r, w) = try FileDescriptor.pipe()
        try r.setNonBlocking()
        var log: [String] = []
        try loop.add(fd: r.rawValue, events: .readable) { _ in
            log.append("handled \(drain(r).count)")
            if log.count >= 4 { loop.quit(0) }
        }
        loop.whenQuiet = {
            log.append("quiet")
            try? w.writeAll("ab")
        }
        // A bound on the test, should the loop never get there.
        let bound = try Timer(loop: loop) { log.append("timeout"); loop.quit(1) }
        bound.arm(afterMs: 5000)
        #expect(loop.run() == 0)
        #expect(log == ["quiet", "handled 2", "quiet", "handled 2"])
    }

    @Test func hangupIsReportedWithoutAskingForIt() throws {
        let loop = try EventLoop()
        let (r, w) = try FileDescriptor.pipe()
        var seen: IOEvents = []
        try loop.add(fd: r.rawValue, events: []) { events in seen.formUnion(events) }
        w.close()
        #expect(loop.run(until: deadline(afterMs: 2000)) { !seen.contains(.hangup) })
    }

    @Test func modifyChangesWatchedConditions() throws {
        let loop = try EventLoop()
        let (r, w) = try FileDescriptor.pipe()
        // The write end of an empty pipe is always writable.
        var writableCalls = 0
        try loop.add(fd: w.rawValue, events: []) { events in
            if events.contains(.writable) { writableCalls += 1 }
        }
        #expect(loop.run(until: deadline(afterMs: 30)) { writableCalls == 0 } == false)
        #expect(writableCalls == 0)

        try loop.modify(fd: w.rawValue, events: .writable)
        #expect(loop.run(until: deadline(afterMs: 2000)) { writableCalls == 0 })

        try loop.modify(fd: w.rawValue, events: [])
        let before = writableCalls
        _ = loop.run(until: deadline(afterMs: 30)) { true }
        #expect(writableCalls == before)

        // Modifying an unknown descriptor is a no-op, not an error.
        try loop.modify(fd: r.rawValue, events: .readable)
        #expect(!loop.isWatching(fd: r.rawValue))
    }

    @Test func removeStopsDelivery() throws {
        let loop = try EventLoop()
        let (r, w) = try FileDescriptor.pipe()
        var calls = 0
        try loop.add(fd: r.rawValue, events: .readable) { _ in calls += 1 }
        loop.remove(fd: r.rawValue)
        #expect(!loop.isWatching(fd: r.rawValue))
        loop.remove(fd: r.rawValue)  // twice: harmless
        loop.remove(fd: 12345)  // unknown: harmless
        try w.writeAll("x")
        _ = loop.run(until: deadline(afterMs: 30)) { true }
        #expect(calls == 0)

        // Can be registered again after removal.
        try loop.add(fd: r.rawValue, events: .readable) { _ in calls += 1 }
        #expect(loop.run(until: deadline(afterMs: 2000)) { calls == 0 })
    }

    @Test func removingAnotherReadySourceFromAHandlerSuppressesItsEventInTheSameBatch() throws {
        let loop = try EventLoop()
        let a = try FileDescriptor.pipe()
        let b = try FileDescriptor.pipe()
        var calls: [String] = []
        var replacementCalls = 0
        var replacement: (read: FileDescriptor, write: FileDescriptor)?

        // Whichever handler runs first removes and closes the other source, then
        // registers a new pipe that may reuse the closed descriptor's number. The stale
        // event for the removed source must be neither delivered nor misrouted to it.
        func register(_ name: String, _ own: FileDescriptor, other: FileDescriptor) throws {
            try loop.add(fd: own.rawValue, events: .readable) { _ in
                calls.append(name)
                let otherFD = other.rawValue
                loop.remove(fd: otherFD)
                other.close()
                if let pipe = try? FileDescriptor.pipe() {
                    replacement = pipe
                    try? loop.add(fd: pipe.read.rawValue, events: .readable) { _ in replacementCalls += 1 }
                }
                loop.remove(fd: own.rawValue)
            }
        }
        try register("a", a.read, other: b.read)
        try register("b", b.read, other: a.read)
        try a.write.writeAll("1")
        try b.write.writeAll("2")

        // Both are ready before the first wait, so both events arrive in one batch.
        #expect(loop.run(until: deadline(afterMs: 2000)) { calls.isEmpty })
        #expect(calls.count == 1)
        _ = loop.run(until: deadline(afterMs: 30)) { true }
        #expect(calls.count == 1)
        #expect(replacementCalls == 0)
        withExtendedLifetime(replacement) {}
    }

    @Test func postedWorkRunsBeforeTheLoopSleeps() throws {
        let loop = try EventLoop()
        // Safety net: if posted work were left for after the next wait, only this timer
        // would end the run, with a different code.
        let safety = try Posix.Timer(loop: loop) { loop.quit(99) }
        safety.arm(afterMs: 3000)

        let (r, w) = try FileDescriptor.pipe()
        try r.setNonBlocking()
        var order: [String] = []
        try loop.add(fd: r.rawValue, events: .readable) { _ in
            _ = drain(r)
            order.append("handler")
            // Posted from a handler: must run before the loop waits again, with no
            // other source ready to wake it.
            loop.post {
                order.append("posted")
                loop.post {
                    order.append("nested")
                    loop.quit(7)
                }
            }
        }
        try w.writeAll("x")
        let start = MonotonicClock.milliseconds()
        #expect(loop.run() == 7)
        #expect(MonotonicClock.milliseconds() - start < 2000)
        #expect(order == ["handler", "posted", "nested"])
        loop.remove(fd: r.rawValue)
    }

    @Test func postBeforeRunAndQuitCodeIsReturned() throws {
        let loop = try EventLoop()
        var ran = false
        loop.post {
            ran = true
            loop.quit(42)
        }
        #expect(loop.run() == 42)
        #expect(ran)

        // A second run starts afresh and returns its own code.
        let timer = try Posix.Timer(loop: loop) { loop.quit(-3) }
        timer.arm(afterMs: 1)
        #expect(loop.run() == -3)
    }

    @Test func quitStopsBeforeTheRestOfTheBatch() throws {
        let loop = try EventLoop()
        let a = try FileDescriptor.pipe()
        let b = try FileDescriptor.pipe()
        var calls = 0
        try loop.add(fd: a.read.rawValue, events: .readable) { _ in calls += 1; loop.quit(1) }
        try loop.add(fd: b.read.rawValue, events: .readable) { _ in calls += 1; loop.quit(1) }
        try a.write.writeAll("x")
        try b.write.writeAll("x")
        #expect(loop.run() == 1)
        #expect(calls == 1)
        loop.remove(fd: a.read.rawValue)
        loop.remove(fd: b.read.rawValue)
    }

    @Test func runUntilDeadlineReturnsFalseOnTimeoutAndTrueWhenConditionMet() throws {
        let loop = try EventLoop()
        let start = MonotonicClock.milliseconds()
        #expect(loop.run(until: start + 60) { true } == false)
        let elapsed = MonotonicClock.milliseconds() - start
        #expect(elapsed >= 60)
        #expect(elapsed < 2000)

        // Already met: returns at once without waiting.
        let t0 = MonotonicClock.milliseconds()
        #expect(loop.run(until: t0 + 5000) { false })
        #expect(MonotonicClock.milliseconds() - t0 < 1000)

        // A deadline in the past with an unmet condition fails at once.
        #expect(loop.run(until: t0 - 10) { true } == false)

        // Posted work runs inside run(until:while:) and can satisfy the condition.
        var done = false
        loop.post { done = true }
        #expect(loop.run(until: deadline(afterMs: 2000)) { !done })
    }
}
