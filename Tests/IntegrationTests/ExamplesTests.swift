import Foundation
import Glibc
import Testing
import TestSupport

/// The four "camera app" examples (examples/), each written the way its ecosystem writes
/// them, built here and run against the real daemon on a private bus with a replay
/// sensor: normal → left-up → bottom-up → right-up → normal gives content rotations
/// 90, 180, 270, 0, each will-change printed before its change.
@Suite(.serialized) struct ExamplesTests {
    static let examples = repositoryRoot + "/examples"

    /// The first of `names` found on PATH (or in the toolchain's directory).
    static func tool(_ names: [String]) throws -> String {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "") + ":/opt/swift/usr/bin:/usr/bin"
        for name in names {
            for directory in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
                return "\(directory)/\(name)"
            }
        }
        throw TestFailure("none of \(names) found on PATH")
    }

    /// Runs `command` (the example, given the bus address last) and turns the device.
    func check(_ command: [String], directory: String) throws {
        let (fixture, _) = try DaemonFixture.upright()
        let process = try SpawnedProcess(command[0], Array(command.dropFirst()) + [fixture.bus.address], directory: directory)
        func output() -> String { process.stdout }
        func errors() -> String { process.stderr }
        #expect(waitUntil(seconds: 30) { output().contains("state interface=normal content-rotation=0\n") },
                "\(command[0]): \(output())\n\(errors())")
        for (pose, rotation) in [(DaemonFixture.Pose.leftUp, 90), (.bottomUp, 180), (.rightUp, 270), (.normal, 0)] {
            fixture.hold(pose, durationMs: 1000)
            #expect(waitUntil(seconds: 10) { output().contains("content-rotation \(rotation)\n") },
                    "\(command[0]): no content rotation \(rotation):\n\(output())\n\(errors())")
        }
        process.signal(SIGTERM)
        #expect(waitUntil(seconds: 10) { !process.isRunning }, "\(command[0]) did not stop on SIGTERM: \(errors())\n\(output())")
        #expect(process.exitStatus == 0, "\(command[0]) exited \(process.exitStatus.map(String.init) ?? "-"): \(errors())")
        let lines = output().split(separator: "\n").map(String.init)
        for rotation in [90, 180, 270, 0] {
            let will = lines.firstIndex(of: "will-change normal -> normal content-rotation=\(rotation)")
            let changed = lines.firstIndex(of: "content-rotation \(rotation)")
            #expect(will != nil && changed != nil && will! < changed!, "\(command[0]): order for \(rotation):\n\(lines)")
        }
        // Nothing else turned: the interface stayed normal.
        #expect(!lines.contains { $0.hasPrefix("will-change") && !$0.hasPrefix("will-change normal -> normal") }, "\(lines)")
    }

    @Test func pythonWithGio() throws {
        try check(["/usr/bin/python3", Self.examples + "/python-gio/camera.py"], directory: try makeTemporaryDirectory(prefix: "example-py"))
    }

    /// Builds an example with its Makefile into a fresh directory; the program's path.
    func make(_ example: String, compiler variable: String, _ compilers: [String]) throws -> String {
        let out = try makeTemporaryDirectory(prefix: "example-" + example)
        let build = try ExternalCommand.run("/usr/bin/make", ["--no-print-directory", "-C", Self.examples + "/" + example, "OUT=" + out,
                                                              variable + "=" + (try Self.tool(compilers))],
                                            directory: out, environment: ["MAKEFLAGS": "", "MFLAGS": ""], seconds: 300)
        #expect(build.status == 0, "\(build.output)")
        return out + "/camera"
    }

    @Test func cWithGDBusCodegen() throws {
        let camera = try make("c-gdbus", compiler: "CC", ["cc", "clang"])
        try check([camera], directory: (camera as NSString).deletingLastPathComponent)
    }

    @Test func cppWithQtDBus() throws {
        let camera = try make("cpp-qt", compiler: "CXX", ["c++", "clang++"])
        try check([camera], directory: (camera as NSString).deletingLastPathComponent)
    }

    @Test func swiftWithAsyncAwait() throws {
        let binary = try Self.buildSwiftPackage("swift-async", product: "camera")
        try check([binary], directory: try makeTemporaryDirectory(prefix: "example-swift"))
    }

    /// One `swift build` of an example package at a time: two at once (this suite and
    /// GtkDemoTests run in parallel) contend for SwiftPM's shared caches and fail.
    private static let buildLock = NSLock()

    /// Builds examples/NAME into .build/examples-NAME; the product's path.
    static func buildSwiftPackage(_ name: String, product: String) throws -> String {
        buildLock.lock()
        defer { buildLock.unlock() }
        let scratch = repositoryRoot + "/.build/examples-" + name
        let swift = try tool(["swift"])
        // The command's output files go to a directory of their own, not the repository.
        let build = try ExternalCommand.run(swift, ["build", "--package-path", examples + "/" + name, "--scratch-path", scratch],
                                            directory: try makeTemporaryDirectory(prefix: "example-\(name)-build"), seconds: 900)
        guard build.status == 0 else { throw TestFailure("examples/\(name) does not build:\n\(build.output)") }
        return scratch + "/debug/" + product
    }
}
