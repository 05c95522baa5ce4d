import Foundation
import Glibc
import TestSupport

/// A product executable started by a test, its standard error kept in a file.
final class ChildProcess {
    let process = Process()
    let stderrPath: String
    let stdoutPath: String

    /// `product`: a product's name, or an absolute path for a program from the system.
    /// `journalStream`: standard error is announced as the journal's stream, as systemd
    /// does (JOURNAL_STREAM, the file's "device:inode").
    init(product: String, arguments: [String], directory: String, environment: [String: String]? = nil, stdin: FileHandle? = nil,
         journalStream: Bool = false) throws {
        let name = (product.split(separator: "/").last.map(String.init) ?? product) + "-" + UUID().uuidString.prefix(8)
        stderrPath = directory + "/" + name + ".stderr"
        stdoutPath = directory + "/" + name + ".stdout"
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: SanitizerRun.executable(for: product))
        process.arguments = arguments
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        process.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
        process.standardInput = stdin ?? FileHandle.nullDevice
        if let environment { process.environment = environment }
        if journalStream {
            var info = stat()
            guard stat(stderrPath, &info) == 0 else { throw TestFailure("cannot stat \(stderrPath)") }
            var environment = process.environment ?? ProcessInfo.processInfo.environment
            environment["JOURNAL_STREAM"] = "\(info.st_dev):\(info.st_ino)"
            process.environment = environment
        }
        try process.run()
    }

    deinit {
        // Under `make asan`, a daemon still running is stopped with SIGTERM (LeakSanitizer
        // reports only at a normal exit) and its standard error checked for reports.
        if SanitizerRun.isActive, SanitizerRun.isInstrumented(process.executableURL?.path ?? "") {
            if process.isRunning {
                kill(process.processIdentifier, SIGTERM)
                _ = waitUntil(seconds: 30) { !process.isRunning }
            }
            SanitizerRun.check(self)
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    var pid: Int32 { process.processIdentifier }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    var isRunning: Bool { process.isRunning }

    /// Waits for the process to exit and returns its status, or nil at the deadline.
    func waitForExit(seconds: Double = 10) -> Int32? {
        guard waitUntil(seconds: seconds, { !process.isRunning }) else { return nil }
        return process.terminationStatus
    }

    /// Runs a product to completion and returns (status, stdout, stderr).
    static func run(product: String, arguments: [String], directory: String, environment: [String: String]? = nil,
                    seconds: Double = 20) throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try ChildProcess(product: product, arguments: arguments, directory: directory, environment: environment)
        guard let status = child.waitForExit(seconds: seconds) else { throw TestFailure("\(product) \(arguments) did not exit") }
        return (status, child.stdout, child.stderr)
    }
}
