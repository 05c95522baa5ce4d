import Posix

/// A device node read on the event loop, for the backends that stream from /dev (IIO
/// buffer, evdev): opened non-blocking, registered with the loop, drained in chunks when
/// readable, and its end — end of file, a read error, a hang-up with nothing to read —
/// reported once, after which it is closed and unregistered.
final class DeviceNode {
    let path: String
    private let loop: EventLoop
    private let chunkSize: Int
    private(set) var descriptor: FileDescriptor?
    private var onChunk: ((ArraySlice<UInt8>) -> Void)?
    private var onEnd: ((String) -> Void)?

    init(path: String, loop: EventLoop, chunkSize: Int) {
        self.path = path
        self.loop = loop
        self.chunkSize = chunkSize
    }

    deinit { close() }

    var isOpen: Bool { descriptor != nil }

    /// Opens and registers the node: `chunk` gets what is read, `end` why it ended.
    func open(chunk: @escaping (ArraySlice<UInt8>) -> Void, end: @escaping (String) -> Void) throws(Errno) {
        guard descriptor == nil else { return }
        let fd = try FileDescriptor.open(path, [.readOnly, .nonBlocking])
        try loop.add(fd: fd.rawValue, events: .readable) { [weak self] events in self?.readable(events) }
        descriptor = fd
        onChunk = chunk
        onEnd = end
    }

    /// Unregisters and closes the node (no end is reported).
    func close() {
        guard let descriptor else { return }
        loop.remove(fd: descriptor.rawValue)
        descriptor.close()
        self.descriptor = nil
        onChunk = nil
        onEnd = nil
    }

    /// Reads everything pending now; false when nothing could be read.
    @discardableResult
    func drain() -> Bool {
        guard let descriptor else { return false }
        let (end, readSomething) = descriptor.drain(chunkSize: chunkSize) { [self] chunk in
            onChunk?(chunk)
            return self.descriptor != nil  // the handler may have closed the node
        }
        switch end {
        case .endOfFile: ended("end of file on \(path)")
        case .failed(let error): ended("read \(path): \(error)")
        case .wouldBlock, .stopped: break
        }
        return readSomething
    }

    private func readable(_ events: IOEvents) {
        if !drain(), events.contains(.hangup) || events.contains(.error) { ended("\(path) hung up") }
    }

    private func ended(_ why: String) {
        guard descriptor != nil else { return }
        let report = onEnd
        close()
        report?(why)
    }
}
