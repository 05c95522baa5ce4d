import Glibc
import Posix
import Testing

/// FileDescriptor.drain: read until the descriptor has nothing more.
@Suite struct DrainTests {
    func pipe(with bytes: [UInt8]) throws -> (read: FileDescriptor, write: FileDescriptor) {
        let ends = try FileDescriptor.pipe()
        try ends.read.setNonBlocking()
        try ends.write.writeAll(bytes)
        return ends
    }

    @Test func readsEverythingInChunksThenWouldBlock() throws {
        let ends = try pipe(with: Array(0..<10))
        var chunks: [[UInt8]] = []
        let (end, readAnything) = ends.read.drain(chunkSize: 4) { chunks.append(Array($0)); return true }
        #expect(end == .wouldBlock)
        #expect(readAnything)
        #expect(chunks == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]])
    }

    @Test func endOfFileAfterTheWriterCloses() throws {
        let ends = try pipe(with: [1, 2, 3])
        ends.write.close()
        var total = 0
        let (end, readAnything) = ends.read.drain(chunkSize: 64) { total += $0.count; return true }
        #expect(end == .endOfFile)
        #expect(readAnything && total == 3)
    }

    @Test func handlerCanStopEarly() throws {
        let ends = try pipe(with: Array(repeating: 7, count: 100))
        var calls = 0
        let (end, _) = ends.read.drain(chunkSize: 10) { _ in calls += 1; return false }
        #expect(end == .stopped)
        #expect(calls == 1)
    }

    @Test func nothingToReadIsWouldBlockWithNothingRead() throws {
        let ends = try pipe(with: [])
        let (end, readAnything) = ends.read.drain(chunkSize: 8) { _ in true }
        #expect(end == .wouldBlock)
        #expect(!readAnything)
    }
}
