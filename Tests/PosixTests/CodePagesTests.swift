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
        let before = try #require(residentExecutableKiB(pid: getpid()))
        #expect(before >= 256, "a test runner that has run code has code resident")
        let advised = try CodePages.releaseExecutable().get()
        #expect(advised > 0)
        let after = try #require(residentExecutableKiB(pid: getpid()))
        #expect(after * 2 < before, "resident code: \(before) KiB before, \(after) KiB after")
        #expect(Self.written.reduce(0, +) == sum)
        #expect(heap.enumerated().allSatisfy { $0.element == UInt8(truncatingIfNeeded: $0.offset &* 7) })
        // Released twice in a row: nothing to give back is not an error.
        #expect(throws: Never.self) { try CodePages.releaseExecutable().get() }
    }
}
