import Glibc
import Posix

/// Runs programs with posix_spawn: to completion (`run`), or in the background with their
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
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    private static func spawn(_ path: String, _ arguments: [String], standardOutput: Int32?) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let standardOutput { posix_spawn_file_actions_adddup2(&actions, standardOutput, 1) }
        // The child gets the default signal mask and actions, not follow's blocked set.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGINT)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        return posix_spawn(&pid, path, &actions, &attributes, argv, environ) == 0 ? pid : nil
    }
}
