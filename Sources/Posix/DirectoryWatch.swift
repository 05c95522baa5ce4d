import CLinux
import Glibc

/// Tells which entries of one directory were created, replaced or removed (inotify),
/// registered with an event loop.
///
/// For sysfs device directories: a kernel attribute's content changes in place and
/// raises no event, so on real hardware the watch never wakes anyone; test rigs
/// (umockdev's `set_attribute`, which GNOME's and KDE's CI use to fake sensors) replace
/// attribute files instead, and readers that keep the files open must reopen them.
public final class DirectoryWatch {
    private let descriptor: FileDescriptor
    private weak var loop: EventLoop?

    /// `handler` runs on the loop with the names of the entries that appeared, were
    /// replaced or went away since the last call, and whether the directory itself went
    /// away (then no more calls follow).
    public init(path: String, loop: EventLoop, handler: @escaping (_ names: [String], _ directoryGone: Bool) -> Void) throws(Errno) {
        descriptor = FileDescriptor(owning: try system_inotify_init().get())
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)
        _ = try system_inotify_add_watch(descriptor.rawValue, path, mask).get()
        self.loop = loop
        let fd = descriptor.rawValue
        // The handler holds the descriptor number only: the watch must not be kept alive
        // by its own registration.
        try loop.add(fd: fd, events: .readable) { _ in
            var names: [String] = []
            var gone = false
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { system_read(fd, $0) }
                guard case .success(let n) = count, n > 0 else { break }
                Self.parse(buffer[..<n], names: &names, gone: &gone)
            }
            if !names.isEmpty || gone { handler(names, gone) }
        }
    }

    deinit {
        loop?.remove(fd: descriptor.rawValue)
    }

    /// `struct inotify_event` records: wd, mask, cookie, len (4 bytes each), then `len`
    /// bytes of NUL-padded name. A short or inconsistent record ends the batch.
    static func parse(_ bytes: ArraySlice<UInt8>, names: inout [String], gone: inout Bool) {
        var index = bytes.startIndex
        func word(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        while bytes.endIndex - index >= 16 {
            let mask = word(index + 4)
            let length = Int(word(index + 12))
            let nameStart = index + 16
            guard length <= bytes.endIndex - nameStart else { return }
            if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 { gone = true }
            let raw = bytes[nameStart..<(nameStart + length)].prefix { $0 != 0 }
            if !raw.isEmpty { names.append(String(decoding: raw, as: UTF8.self)) }
            index = nameStart + length
        }
    }
}
