import CLinux
import Glibc

/// A signalfd for a set of signals, which are blocked for normal delivery.
final class SignalSource {
    let descriptor: FileDescriptor

    init(signals: [Int32]) throws(Errno) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        try system_sigprocmask_block(&mask).get()
        descriptor = FileDescriptor(owning: try system_signalfd(&mask).get())
    }

    /// Reads every pending signal number.
    func drain() -> [Int32] {
        var result: [Int32] = []
        var info = signalfd_siginfo()
        let size = MemoryLayout<signalfd_siginfo>.size
        while true {
            let n = withUnsafeMutableBytes(of: &info) { raw in system_read(descriptor.rawValue, raw) }
            guard case .success(let count) = n, count == size else { break }
            result.append(Int32(info.ssi_signo))
        }
        return result
    }
}
