import Glibc
import Testing
@_spi(Testing) @testable import Posix

@Suite struct TimerTests {
    @Test func oneShotFiresOnceAfterItsDelay() throws {
        let loop = try EventLoop()
        var fired: [Int64] = []
        let timer = try Posix.Timer(loop: loop) { fired.append(MonotonicClock.milliseconds()) }
        #expect(!timer.isArmed)
        let start = MonotonicClock.milliseconds()
        timer.arm(afterMs: 20)
        #expect(timer.isArmed)
        #expect(loop.run(until: deadline(afterMs: 2000)) { fired.isEmpty })
        #expect(fired[0] - start >= 19)  // timerfd never fires early (ms rounding aside)
        // No second expiry for a one-shot timer.
        _ = loop.run(until: deadline(afterMs: 60)) { true }
        #expect(fired.count == 1)
    }

    @Test func zeroDelayFiresImmediately() throws {
        let loop = try EventLoop()
        var count = 0
        let timer = try Posix.Timer(loop: loop) { count += 1 }
        timer.arm(afterMs: 0)
        #expect(loop.run(until: deadline(afterMs: 2000)) { count == 0 })
        withExtendedLifetime(timer) {}
    }

    @Test func repeatingTimerFiresUntilDisarmed() throws {
        let loop = try EventLoop()
        var count = 0
        let timer = try Posix.Timer(loop: loop) { count += 1 }
        timer.arm(afterMs: 5, intervalMs: 5)
        #expect(loop.run(until: deadline(afterMs: 3000)) { count < 4 })

        timer.disarm()
        #expect(!timer.isArmed)
        let stopped = count
        _ = loop.run(until: deadline(afterMs: 60)) { true }
        #expect(count == stopped)

        // Re-arming after disarm works.
        timer.arm(afterMs: 1)
        #expect(loop.run(until: deadline(afterMs: 2000)) { count == stopped })
    }

    @Test func rearmingReplacesThePreviousSchedule() throws {
        let loop = try EventLoop()
        var count = 0
        let timer = try Posix.Timer(loop: loop) { count += 1 }
        timer.arm(afterMs: 1, intervalMs: 1)
        timer.arm(afterMs: 10_000)  // now a one-shot far in the future
        _ = loop.run(until: deadline(afterMs: 60)) { true }
        #expect(count == 0)
        withExtendedLifetime(timer) {}
    }

    @Test func releasingATimerUnregistersAndClosesIt() throws {
        let loop = try EventLoop()
        var count = 0
        var timer: Posix.Timer? = try Posix.Timer(loop: loop) { count += 1 }
        let fd = try #require(descriptorNumber(of: timer!))
        #expect(loop.isWatching(fd: fd))
        timer!.arm(afterMs: 1, intervalMs: 1)
        #expect(loop.run(until: deadline(afterMs: 2000)) { count == 0 })

        timer = nil
        #expect(!loop.isWatching(fd: fd))
        let after = count
        _ = loop.run(until: deadline(afterMs: 30)) { true }
        #expect(count == after)
    }

    @Test func timerDoesNotKeepTheLoopAlive() throws {
        var loop: EventLoop? = try EventLoop()
        weak let weakLoop = loop
        let timer = try Posix.Timer(loop: loop!) {}
        loop = nil
        #expect(weakLoop == nil)
        timer.arm(afterMs: 1)  // harmless without a loop
        timer.disarm()
    }
}
