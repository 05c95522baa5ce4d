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
    /// `quiet`: its standard error goes to /dev/null (a probe whose failure the caller
    /// reports in its own words, once).
    static func run(_ path: String, _ arguments: [String], capture: Bool = true, quiet: Bool = false) -> (Int32, String)? {
        guard capture else {
            guard let pid = spawn(path, arguments, standardOutput: nil, quiet: quiet) else { return nil }
            return (wait(pid), "")
        }
        guard let child = start(path, arguments, quiet: quiet) else { return nil }
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

    /// `quiet`: its standard error goes to /dev/null.
    static func start(_ path: String, _ arguments: [String], quiet: Bool = false) -> Child? {
        guard let pipe = try? FileDescriptor.pipe() else { return nil }
        let pid = spawn(path, arguments, standardOutput: pipe.write.rawValue, quiet: quiet)
        pipe.write.close()
        guard let pid else { return nil }
        return Child(pid: pid, output: pipe.read)
    }

    /// Waits for a child; its exit status, or 128 + the signal that ended it.
    @discardableResult
    static func wait(_ pid: pid_t) -> Int32 { Subprocess.wait(pid) }

    private static func spawn(_ path: String, _ arguments: [String], standardOutput: Int32?, quiet: Bool) -> pid_t? {
        let devNull = quiet ? try? FileDescriptor.open("/dev/null", .writeOnly) : nil
        defer { devNull?.close() }
        return try? Subprocess.start(path, arguments, output: standardOutput, error: devNull?.rawValue)
    }
}
