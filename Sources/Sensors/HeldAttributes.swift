import Posix

/// Attribute files of one sysfs device that are read again and again (a poll): each is
/// opened at its first reading and kept open, and each reading is a `pread` at offset 0.
/// sysfs prints an attribute afresh at every read from the start, so a reading costs one
/// system call instead of open, read and close (a path lookup each).
///
/// On real sysfs an attribute is never unlinked while its device exists, and the reads
/// of a removed device fail (ENODEV). Test rigs such as umockdev replace or remove the
/// files instead: with an event loop, an inotify watch on the device directory (silent on
/// real sysfs, so no cost per reading) closes the files that were replaced, which are
/// opened again by name at the next reading; without one, or where inotify is not
/// available, the open files are checked about once a second (a link count of 0).
final class HeldAttributes {
    /// The full paths, in the order the readers index them.
    let paths: [String]
    private let directory: String
    private var files: [FileDescriptor?]
    /// One reading's bytes; allocated once.
    private var buffer: [UInt8]
    private weak var loop: EventLoop?
    private var watch: DirectoryWatch?
    /// Whether a watch was tried (it is tried once, at the first reading).
    private var watchTried = false
    /// Without a watch: when the open files were last checked.
    private var checkedMs: Int64?

    /// `names` in the device directory `directory`, read `limit` bytes at most each.
    /// `loop`: where the directory watch is registered; nil for none.
    init(directory: String, names: [String], loop: EventLoop?, limit: Int = 256) {
        self.directory = directory
        paths = names.map { directory + "/" + $0 }
        files = Array(repeating: nil, count: names.count)
        buffer = [UInt8](repeating: 0, count: limit)
        self.loop = loop
    }

    deinit { close() }

    /// Closes the files and ends the watch (the reader stopped); the next reading opens
    /// them again.
    func close() {
        for i in files.indices {
            files[i]?.close()
            files[i] = nil
        }
        watch = nil
        watchTried = false
        checkedMs = nil
    }

    /// Reads attribute `index` and hands `body` its bytes (the newline sysfs ends them
    /// with included); the error of the open or the read otherwise, after which the file
    /// is opened again by name at the next reading.
    func read<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) -> T) -> Result<T, Errno> {
        if index == 0 { revalidate() }
        do {
            let fd: FileDescriptor
            if let open = files[index] {
                fd = open
            } else {
                fd = try FileDescriptor.open(paths[index])
                files[index] = fd
            }
            let read = buffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try fd.read(at: 0, into: raw) } }
            let count = try read.get()
            return .success(buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[..<count])) })
        } catch {
            files[index]?.close()
            files[index] = nil
            return .failure(error)
        }
    }

    /// Whether a directory watch is set up (from the first reading until ``close()``,
    /// where there is a loop and inotify).
    var isWatching: Bool { watch != nil }

    /// Attribute `index` as text, without the trailing newline (as ``SysfsFile/read(_:)``).
    func text(_ index: Int) -> Result<String, Errno> {
        read(index) { bytes in
            var end = bytes.count
            while end > 0, bytes[end - 1] == UInt8(ascii: "\n") || bytes[end - 1] == 0 { end -= 1 }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)
        }
    }

    /// Before a round of readings: the watch set up at the first, or, without one, the
    /// open files checked for having been replaced about once a second.
    private func revalidate() {
        if !watchTried {
            watchTried = true
            if let loop {
                watch = try? DirectoryWatch(path: directory, loop: loop) { [weak self] names, gone in
                    self?.replaced(names, directoryGone: gone)
                }
            }
        }
        guard watch == nil else { return }
        let now = MonotonicClock.milliseconds()
        guard checkedMs.map({ now - $0 >= 1000 || now < $0 }) ?? true else { return }
        checkedMs = now
        for i in files.indices where files[i].map({ (try? $0.linkCount()) == 0 }) ?? false {
            files[i]?.close()
            files[i] = nil
        }
    }

    /// Entries of the directory were created, replaced or removed: the open files of
    /// those names (all of them, if the directory went) are stale.
    private func replaced(_ names: [String], directoryGone: Bool) {
        for i in files.indices where directoryGone || names.contains(where: { paths[i].hasSuffix("/" + $0) }) {
            files[i]?.close()
            files[i] = nil
        }
    }
}
