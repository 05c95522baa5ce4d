import Foundation
import Glibc
import Testing
import TestSupport

/// `make asan` (scripts/asan.sh): the integration tests run an orientationd built with
/// AddressSanitizer/LeakSanitizer instead of the product next to the tests.
///
/// - `ORIENTATIOND_DAEMON=PATH` makes `ChildProcess(product: "orientationd", …)` start
///   PATH. Unset (the default), nothing changes.
/// - While it is set, a daemon still running when its `ChildProcess` is released gets
///   SIGTERM and is waited for (not SIGKILLed: LeakSanitizer reports only at a normal
///   exit), then its standard error is searched for sanitizer reports. A report fails
///   the test and is copied to `ORIENTATIOND_SANITIZER_REPORTS` (a directory), where
///   every checked daemon also gets a line in `checked.log` (how it ended), for the
///   script's summary.
enum SanitizerRun {
    static let daemon: String? = ProcessInfo.processInfo.environment["ORIENTATIOND_DAEMON"].flatMap { $0.isEmpty ? nil : $0 }
    static let reportDirectory: String? = ProcessInfo.processInfo.environment["ORIENTATIOND_SANITIZER_REPORTS"]
        .flatMap { $0.isEmpty ? nil : $0 }
    static var isActive: Bool { daemon != nil }

    /// Lines that begin a sanitizer report.
    static let markers = ["ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "SUMMARY: AddressSanitizer",
                          "SUMMARY: LeakSanitizer", "WARNING: AddressSanitizer"]

    static func executable(for product: String) -> String {
        if product.hasPrefix("/") { return product }
        if product == "orientationd", let daemon { return daemon }
        return productsDirectory + "/" + product
    }

    static func isInstrumented(_ path: String) -> Bool { daemon != nil && path == daemon }

    /// Checks a daemon that has exited (or could not be stopped) for reports.
    static func check(_ child: ChildProcess) {
        let process = child.process
        let ending: String
        if process.isRunning {
            ending = "still running after SIGTERM (not leak-checked)"
        } else if process.terminationReason == .uncaughtSignal {
            ending = "killed by signal \(process.terminationStatus) (not leak-checked)"
        } else {
            ending = "exit \(process.terminationStatus)"
        }
        let arguments = (process.arguments ?? []).joined(separator: " ")
        // The script points ASAN_OPTIONS' log_path into the report directory (the daemon's
        // standard error may be gone with its bus directory by now); stderr is checked too.
        var stderr = child.stderr
        if let reportDirectory, let logged = try? String(contentsOfFile: reportDirectory + "/asan.\(child.pid)", encoding: .utf8) {
            stderr += logged
        }
        let reported = markers.contains { stderr.contains($0) }
        if let reportDirectory {
            let line = "\(reported ? "REPORT" : "clean") pid \(child.pid) \(ending): \(arguments)\n"
            append(line, to: reportDirectory + "/checked.log")
            if reported {
                try? stderr.write(toFile: reportDirectory + "/report-\(child.pid).txt", atomically: true, encoding: .utf8)
            }
        }
        if reported {
            Issue.record("sanitizer report from orientationd (\(arguments)), \(ending):\n\(stderr)")
        }
    }

    private static func append(_ text: String, to path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
    }
}
