import Glibc
import Posix

/// Runs programs (Posix.Subprocess): to completion (`run`), or in the background with their
/// standard output on a pipe (`start`).
enum Spawn {
    static func find(_ name: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") where access("\(directory)/\(name)", X_OK) == 0 {
            return "\(directory)/\(name)"
        }
        return nil
    }

    /// Exit status and standard output; nil when the program cannot be started.
    static func run(_ path: String, _ arguments: [String], capture: Bool = true) -> (Int32, String)? {
        guard capture else {
            guard let pid = spawn(path, arguments, standardOutput: nil) else { return nil }
            return (wait(pid), "")
        }
        guard let child = start(path, arguments) else { return nil }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while let n = try? chunk.withUnsafeMutableBytes({ raw throws(Errno) in try child.output.read(into: raw) }), n > 0 {
            output += chunk[0..<n]
        }
        child.output.close()
        return (wait(child.pid), String(decoding: output, as: UTF8.self))
    }

    /// A program running in the background; its standard output is the read end of a pipe.
    struct Child {
        var pid: pid_t
        var output: FileDescriptor
    }

    static func start(_ path: String, _ arguments: [String]) -> Child? {
        guard let pipe = try? FileDescriptor.pipe() else { return nil }
        let pid = spawn(path, arguments, standardOutput: pipe.write.rawValue)
        pipe.write.close()
        guard let pid else { return nil }
        return Child(pid: pid, output: pipe.read)
    }

    /// Waits for a child; its exit status, or 128 + the signal that ended it.
    @discardableResult
    static func wait(_ pid: pid_t) -> Int32 { Subprocess.wait(pid) }

    private static func spawn(_ path: String, _ arguments: [String], standardOutput: Int32?) -> pid_t? {
        try? Subprocess.start(path, arguments, output: standardOutput)
    }
}
