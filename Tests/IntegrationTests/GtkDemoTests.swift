import Foundation
import Glibc
import Testing
import TestSupport

/// A real X server for GUI tests: Debian's Xvfb on a display number it picks itself
/// (-displayfd), stopped when released.
final class VirtualDisplay {
    let display: String
    private let process: SpawnedProcess

    init() throws {
        let directory = try makeTemporaryDirectory(prefix: "orientationd-xvfb")
        let process = try SpawnedProcess("/usr/bin/Xvfb", ["-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                                         directory: directory)
        self.process = process
        _ = waitUntil(seconds: 20) { !process.stdout.isEmpty || !process.isRunning }
        let number = process.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !number.isEmpty else { throw TestFailure("Xvfb did not start: \(process.stderr)") }
        display = ":" + number
    }

    deinit {
        process.signal(SIGTERM)
        _ = waitUntil(seconds: 10) { !process.isRunning }
    }

    /// The environment of a GTK app on this display, software-rendered.
    var environment: [String] {
        ["DISPLAY=" + display, "GDK_BACKEND=x11", "GSK_RENDERER=cairo", "GTK_A11Y=none", "GSETTINGS_BACKEND=memory"]
    }
}

/// The GTK 4 demo (examples/gtk-demo), built here and run under Xvfb against the real
/// daemon with a replay sensor; what it shows is read back from its --state-log.
@Suite(.serialized) struct GtkDemoTests {
    /// Builds the demo package once per test run (its own scratch directory).
    static let binary: Result<String, TestFailure> = {
        do { return .success(try ExamplesTests.buildSwiftPackage("gtk-demo", product: "orientation-demo")) } catch let error as TestFailure {
            return .failure(error)
        } catch {
            return .failure(TestFailure("cannot build examples/gtk-demo: \(error)"))
        }
    }()

    /// One --state-log line: its time and key=value fields.
    struct Line {
        var ms: Int
        var fields: [String: String]
        subscript(key: String) -> String? { fields[key] }
        var event: String { fields["event"] ?? "" }
    }

    static func lines(_ path: String) -> [Line] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { text in
            let parts = text.split(separator: " ")
            guard let first = parts.first, let ms = Int(first) else { return nil }
            var fields: [String: String] = [:]
            for part in parts.dropFirst() {
                guard let equals = part.firstIndex(of: "=") else { continue }
                fields[String(part[..<equals])] = String(part[part.index(after: equals)...])
            }
            return Line(ms: ms, fields: fields)
        }
    }

    func app(_ arguments: [String], display: VirtualDisplay, directory: String) throws -> SpawnedProcess {
        let binary = try Self.binary.get()
        return try SpawnedProcess("/usr/bin/env", display.environment + [binary] + arguments, directory: directory)
    }

    /// The tour (--screenshots) through the four orientations: each page's behaviour, the
    /// forwarding of each page's set, will-change before change, the refused set, and
    /// PNGs that exist, are not blank and differ between orientations.
    @Test func everyPageBehavesAndTheScreenshotsShowIt() throws {
        let display = try VirtualDisplay()
        let (fixture, _) = try DaemonFixture.upright()
        let directory = fixture.bus.directory
        let log = directory + "/state.log"
        let shots = directory + "/shots"
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        let demo = try app(["--address", fixture.bus.address, "--state-log", log, "--screenshots", shots], display: display, directory: directory)
        for orientation in ["normal", "left-up", "bottom-up", "right-up"] {
            if orientation != "normal" { fixture.hold(DaemonFixture.pose(of: orientation), durationMs: 1000) }
            #expect(waitUntil(seconds: 60) { Self.lines(log).contains { $0.event == "captured" && $0["orientation"] == orientation } },
                    "no tour at \(orientation): \(demo.stderr)\n\(Self.lines(log).map(\.fields))")
        }
        // The Relay page's normal picture needs a turn back to normal seen on it.
        fixture.hold(.normal, durationMs: 1000)
        #expect(waitUntil(seconds: 20) { !demo.isRunning })
        #expect(demo.exitStatus == 0, "\(demo.stderr)")
        let lines = Self.lines(log)

        // What each page showed when it was saved.
        func shot(_ page: String, _ orientation: String) -> Line? {
            lines.last { $0.event == "screenshot" && $0["path"] == "\(shots)/\(page)-\(orientation).png" }
        }
        let angle = ["normal": "0", "left-up": "90", "bottom-up": "180", "right-up": "270"]
        for (orientation, degrees) in angle {
            // Camera: the interface stays normal, the controls turn by ContentRotation.
            let camera = shot("camera", orientation)
            #expect(camera?["device"] == orientation && camera?["interface"] == "normal" && camera?["content"] == degrees
                    && camera?["supported"] == "normal",
                    "\(String(describing: camera?.fields))")
            // Relay and the navigation's detail page (all four): the interface follows.
            for page in ["relay", "navigation"] {
                let line = shot(page, orientation)
                #expect(line?["interface"] == orientation && line?["content"] == "0", "\(page): \(String(describing: line?.fields))")
            }
            // The Relay page is saved right after a turn to this orientation, its log that
            // turn alone: the will-change, whom it went to, the change.
            let relay = shot("relay", orientation)
            #expect(relay?["turn"] == orientation && relay?["log_lines"] == "3", "relay: \(String(describing: relay?.fields))")
            // Matching: portrait interface; the image only into normal and left-up (and
            // keeps its angle otherwise: 90 after left-up).
            let matching = shot("matching", orientation)
            let image = ["normal": "0", "left-up": "90", "bottom-up": "90", "right-up": "90"][orientation]
            #expect(matching?["interface"] == "normal" && matching?["image"] == image && matching?["supported"] == "normal", "\(String(describing: matching?.fields))")
        }
        // The navigation container forwarded each top page's set as it changed.
        let declared = lines.filter { $0.event == "declared" && $0["page"] == "navigation" }.map { $0["supported"] ?? "" }
        // (Presentation page, back to the list, the detail page; the tour reaches the
        // navigation page from the camera page, whose set the list shares.)
        #expect(Array(declared.prefix(3)) == ["left-up,right-up", "normal", "normal,left-up,bottom-up,right-up"], "\(declared)")
        #expect(lines.contains { $0.event == "declared" && $0["page"] == "navigation" && $0["preferred"] == "left-up" })
        #expect(lines.contains { $0.event == "declared" && $0["page"] == "relay" && $0["supported"] == "normal,left-up,bottom-up,right-up" })
        // The refused declaration: its error shown, the previous set kept.
        let refused = lines.firstIndex { $0.event == "refused" }
        #expect(refused != nil && lines[refused!].fields["error"] != nil)
        // The device turns announced before they happened, relayed to every observer.
        for (index, line) in lines.enumerated() where line.event == "changed" && line["page"] == "camera" && line["content"] != "0" {
            let previous = lines[..<index].last { $0.event == "changed" || $0.event == "will-change" }
            #expect(previous?.event == "will-change" && previous?["to_content"] == line["content"]
                    && previous?["relayed_to"] == "relay-page,animation,camera-page",
                    "no will-change before \(line.fields): \(String(describing: previous?.fields))")
        }
        // The screenshots: 16, none blank, different between orientations.
        let files = (try? FileManager.default.contentsOfDirectory(atPath: shots)) ?? []
        #expect(files.count == 16, "\(files)")
        for page in ["camera", "relay", "navigation", "matching"] {
            let images = try ["normal", "left-up", "bottom-up", "right-up"].map { try PNGImage(path: "\(shots)/\(page)-\($0).png") }
            for image in images { #expect(image.distinctPixels > 8, "a blank \(page) screenshot") }
            #expect(Set(images.map(\.pixels)).count == 4, "\(page): screenshots that do not differ between orientations")
        }
    }

    /// Absent daemon at start, daemon gone and back, SIGTERM, no display, no bus.
    @Test func waitsSurvivesTheDaemonAndFailsClearly() throws {
        let display = try VirtualDisplay()
        let bus = try TestBus()
        let directory = bus.directory
        let log = directory + "/state.log"
        let demo = try app(["--address", bus.address, "--state-log", log], display: display, directory: directory)
        #expect(waitUntil(seconds: 30) { Self.lines(log).contains { $0.event == "waiting" } }, "\(demo.stderr)")
        // The daemon appears: the app attaches with fresh state.
        let fifo = directory + "/samples.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = open(fifo, O_RDWR | O_CLOEXEC)
        defer { close(writer) }
        _ = "0,9.81,0,0\n".withCString { write(writer, $0, strlen($0)) }
        let daemon = try ChildProcess(product: "orientationd", arguments: ["--address", bus.address, "--sensor", "replay:" + fifo],
                                      directory: directory)
        #expect(waitUntil(seconds: 20) { Self.lines(log).contains { $0.event == "attached" && $0["device"] == "left-up" } },
                "\(demo.stderr)\n\(daemon.stderr)")
        // Gone: "service lost"; back: attached again, with the new daemon's state.
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        #expect(waitUntil(seconds: 20) { Self.lines(log).contains { $0.event == "service-lost" } }, "\(demo.stderr)")
        let second = try ChildProcess(product: "orientationd", arguments: ["--address", bus.address, "--sensor", "replay:" + fifo],
                                      directory: directory)
        _ = "0,-9.81,0,0\n".withCString { write(writer, $0, strlen($0)) }
        #expect(waitUntil(seconds: 20) {
            let lines = Self.lines(log)
            guard let lost = lines.lastIndex(where: { $0.event == "service-lost" }) else { return false }
            return lines[lost...].contains { $0.event == "attached" && $0["device"] == "right-up" && $0["supported"] == "normal" }
        }, "\(demo.stderr)\n\(second.stderr)\n\(Self.lines(log).map(\.fields))")
        #expect(demo.isRunning)
        // SIGTERM (as Ctrl-C): the window goes, the app exits 0.
        demo.signal(SIGTERM)
        #expect(waitUntil(seconds: 20) { !demo.isRunning })
        #expect(demo.exitStatus == 0, "\(demo.stderr)")
        #expect(Self.lines(log).last?.event == "exit")

        // No display: one clear line, status 1.
        let binary = try Self.binary.get()
        let headless = try SpawnedProcess("/usr/bin/env", ["-u", "DISPLAY", "-u", "WAYLAND_DISPLAY", binary, "--address", bus.address],
                                          directory: directory)
        #expect(waitUntil(seconds: 20) { !headless.isRunning })
        #expect(headless.exitStatus == 1)
        #expect(headless.stderr == "orientation-demo: cannot open a display (set DISPLAY or WAYLAND_DISPLAY)\n", "\(headless.stderr)")
        // No bus: one clear line, status 1; a bad option: status 2.
        let noBus = try app(["--address", "unix:path=" + directory + "/nothing"], display: display, directory: directory)
        #expect(waitUntil(seconds: 20) { !noBus.isRunning })
        #expect(noBus.exitStatus == 1)
        #expect(noBus.stderr.hasPrefix("orientation-demo: cannot reach the bus:"), "\(noBus.stderr)")
        let bad = try app(["--frobnicate"], display: display, directory: directory)
        #expect(waitUntil(seconds: 20) { !bad.isRunning })
        #expect(bad.exitStatus == 2)
        // Output asked for that cannot be written: one line, status 1, nothing started.
        for (option, message) in [("--state-log", "cannot open the state log"), ("--screenshots", "needs a writable directory")] {
            let unwritable = try app(["--address", bus.address, option, directory + "/missing/x"], display: display, directory: directory)
            #expect(waitUntil(seconds: 20) { !unwritable.isRunning })
            #expect(unwritable.exitStatus == 1, "\(option): \(unwritable.stderr)")
            #expect(unwritable.stderr.contains(message), "\(option): \(unwritable.stderr)")
        }
    }
}

/// The pixels of a PNG file, decoded by Debian's python3 (zlib, no imaging library), to
/// tell a blank image from a drawn one and one orientation from another.
struct PNGImage {
    var pixels: String
    var distinctPixels: Int

    init(path: String) throws {
        let script = """
            import sys, zlib, struct, hashlib
            data = open(sys.argv[1], 'rb').read()
            assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n'
            pos, idat, width, height = 8, b'', 0, 0
            while pos < len(data):
                length, kind = struct.unpack('>I4s', data[pos:pos + 8])
                body = data[pos + 8:pos + 8 + length]
                if kind == b'IHDR': width, height, depth, color = struct.unpack('>IIBB', body[:10])
                if kind == b'IDAT': idat += body
                pos += 12 + length
            raw = zlib.decompress(idat)
            stride = len(raw) // height
            rows = [raw[r * stride + 1:(r + 1) * stride] for r in range(height)]
            sample = set(row[i:i + 4] for row in rows[::7] for i in range(0, len(row), 28))
            print(hashlib.sha256(raw).hexdigest(), len(sample))
            """
        let result = try ExternalCommand.run("/usr/bin/python3", ["-c", script, path], directory: "/tmp")
        let words = result.stdout.split(separator: " ")
        guard result.status == 0, words.count == 2, let distinct = Int(words[1].trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestFailure("not a PNG: \(path): \(result.output)")
        }
        pixels = String(words[0])
        distinctPixels = distinct
    }
}
