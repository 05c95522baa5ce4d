import OrientationAPI
// orientationd-bench: measurements that need many bus peers in one process.
//
//   orientationd-bench fanout [--connections N] [--clients-per-connection M] [--rotations R]
//   orientationd-bench timer
//
// Starts a private dbus-daemon and the orientationd next to this executable (use a
// release build), fed by a replay FIFO; creates and starts N×M clients over N
// connections; then writes the samples of a rotation into the FIFO R times and
// measures, for each rotation, the time from the write to the arrival of every
// client's OrientationWillChange and PropertiesChanged. Prints figures; asserts nothing.
//
// `timer` is the floor a poll tick is compared with: the same EventLoop and Timer as the
// daemon, a 100 ms repeating timerfd, and nothing done on each wake-up; it runs until
// killed, and the benchmark reads its CPU time from /proc as it does the daemon's.
@_spi(Testing) import DBus
import Foundation
import Glibc
@_spi(Testing) import Posix

struct Options {
    var connections = 50
    var perConnection = 20
    var rotations = 10
}

func parse() -> Options {
    var options = Options()
    var args = CommandLine.arguments.dropFirst()
    guard args.popFirst() == "fanout" else {
        FileHandle.standardError.write(Data("usage: orientationd-bench fanout [--connections N] [--clients-per-connection M] [--rotations R]\n".utf8))
        exit(2)
    }
    while let flag = args.popFirst() {
        guard let value = args.popFirst().flatMap({ Int($0) }), value > 0 else {
            FileHandle.standardError.write(Data("orientationd-bench: \(flag) needs a positive number\n".utf8))
            exit(2)
        }
        switch flag {
        case "--connections": options.connections = value
        case "--clients-per-connection": options.perConnection = min(value, 64)
        case "--rotations": options.rotations = value
        default:
            FileHandle.standardError.write(Data("orientationd-bench: unknown option \(flag)\n".utf8))
            exit(2)
        }
    }
    return options
}

func rssKB(_ pid: Int32) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return -1 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

/// User + system CPU time of a process in milliseconds.
func cpuMs(_ pid: Int32) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = text.lastIndex(of: ")") else { return .nan }
    let fields = text[text.index(after: close)...].split(separator: " ")
    // Fields after the command: state is [0], utime [11], stime [12] (in clock ticks).
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
    return (user + system) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let rank = p * Double(sorted.count - 1)
    let low = Int(rank.rounded(.down)), high = Int(rank.rounded(.up))
    return sorted[low] + (sorted[high] - sorted[low]) * (rank - Double(low))
}

func fanout(_ options: Options) throws {
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
    let directory = NSTemporaryDirectory() + "/orientationd-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }

    // The bus.
    let address = "unix:path=\(directory)/bus"
    try """
    <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
    <busconfig><type>session</type><listen>\(address)</listen>
    <limit name="max_connections_per_user">10000</limit>
    <limit name="max_replies_per_connection">100000</limit>
    <limit name="max_incoming_bytes">1000000000</limit>
    <limit name="max_outgoing_bytes">1000000000</limit>
    <policy context="default"><allow send_destination="*"/><allow receive_sender="*"/><allow own="*"/></policy></busconfig>
    """.write(toFile: directory + "/bus.conf", atomically: true, encoding: .utf8)
    let bus = Process()
    bus.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
    bus.arguments = ["--config-file=\(directory)/bus.conf", "--nofork", "--nopidfile", "--print-address"]
    let ready = Pipe()
    bus.standardOutput = ready
    bus.standardError = FileHandle.nullDevice
    try bus.run()
    _ = ready.fileHandleForReading.availableData
    defer { kill(bus.processIdentifier, SIGKILL) }

    // The daemon, fed by a FIFO.
    let fifo = directory + "/samples"
    mkfifo(fifo, 0o600)
    let writer = try FileDescriptor.open(fifo, [.readWrite])
    let daemon = Process()
    daemon.executableURL = URL(fileURLWithPath: here + "/orientationd")
    daemon.arguments = ["--address", address, "--sensor", "replay:" + fifo] + (ProcessInfo.processInfo.environment["BENCH_VERBOSE"] != nil ? ["-v"] : [])
    try daemon.run()
    defer {
        // SIGTERM first, so that a profiler wrapped around the daemon can write its data.
        kill(daemon.processIdentifier, SIGTERM)
        let stopBy = MonotonicClock.milliseconds() + 5_000
        while daemon.isRunning, MonotonicClock.milliseconds() < stopBy { usleep(10_000) }
        kill(daemon.processIdentifier, SIGKILL)
    }

    var traceMs = 0
    func hold(_ x: Double, _ y: Double, ms: Int) {
        var text = ""
        for _ in stride(from: 0, to: ms, by: 10) {
            text += "\(traceMs),\(x),\(y),0\n"
            traceMs += 10
        }
        try? writer.writeAll(text)
    }

    let loop = try EventLoop()
    let service = OrientationAPI.busName, manager = OrientationAPI.managerPath
    let probe = try Connection.open(.address(address))
    let deadline = MonotonicClock.milliseconds() + 10_000
    while MonotonicClock.milliseconds() < deadline {
        let reply = try? probe.call(try Message.methodCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                                           interface: "org.freedesktop.DBus", member: "NameHasOwner", arguments: [.string(service)]))
        if reply?.arguments.first == .bool(true) { break }
        usleep(1000)
    }
    hold(0, -9.81, ms: 300)
    // The baseline is the daemon with the first client started, the state the measured
    // clients keep it in: reading its sensor, with the code that runs then resident. An
    // idle daemon has handed its code pages back (CodePages); counting their return
    // against the clients would be counting code, not clients.
    var rssBefore = 0

    /// Arrival times (monotonic ns) of the signals of one rotation, per client path.
    final class Recorder {
        var willChange: [String: Int64] = [:]
        var changed: [String: Int64] = [:]
    }
    let recorder = Recorder()
    var connections: [Connection] = []
    var clientPaths: [String] = []
    for _ in 0..<options.connections {
        let connection = try Connection.open(.address(address))
        connection.addHandler { message in
            guard message.kind == .signal, let path = message.path, path.hasPrefix(manager + "/Client/") else { return false }
            let now = MonotonicClock.nanoseconds()
            if message.member == "OrientationWillChange" { recorder.willChange[path] = now }
            if message.member == "PropertiesChanged" { recorder.changed[path] = now }
            return true
        }
        for _ in 0..<options.perConnection {
            let reply = try connection.call(try Message.methodCall(destination: service, path: manager, interface: service,
                                                                   member: "CreateClient", arguments: [.vardict([])]))
            let path = reply.arguments[0].stringValue!
            _ = try connection.call(try Message.methodCall(destination: service, path: path,
                                                           interface: service + ".Client", member: "Start"))
            clientPaths.append(path)
            if clientPaths.count == 1 {
                usleep(50_000)
                rssBefore = rssKB(daemon.processIdentifier)
            }
        }
        connection.attach(to: loop)
        connections.append(connection)
    }
    let total = clientPaths.count
    _ = loop.run(until: MonotonicClock.milliseconds() + 200) { true }  // drain the start-up signals
    let rssAfter = rssKB(daemon.processIdentifier)

    var latencies: [Double] = []
    var daemonCPU: [Double] = []
    var busCPU: [Double] = []
    var firstLatencies: [Double] = []
    let poses: [(Double, Double)] = [(9.81, 0), (0, -9.81)]
    for rotation in 0..<options.rotations {
        recorder.willChange.removeAll(keepingCapacity: true)
        recorder.changed.removeAll(keepingCapacity: true)
        let (x, y) = poses[rotation % 2]
        let cpuBefore = (cpuMs(daemon.processIdentifier), cpuMs(bus.processIdentifier))
        let start = MonotonicClock.nanoseconds()
        hold(x, y, ms: 1000)
        let ok = loop.run(until: MonotonicClock.milliseconds() + 10_000) {
            recorder.changed.count < total || recorder.willChange.count < total
        }
        guard ok else {
            print("rotation \(rotation): only \(recorder.willChange.count)/\(total) will-change and \(recorder.changed.count)/\(total) PropertiesChanged arrived")
            continue
        }
        let last = max(recorder.changed.values.max()!, recorder.willChange.values.max()!)
        let first = recorder.willChange.values.min()!
        latencies.append(Double(last - start) / 1e6)
        daemonCPU.append(cpuMs(daemon.processIdentifier) - cpuBefore.0)
        busCPU.append(cpuMs(bus.processIdentifier) - cpuBefore.1)
        firstLatencies.append(Double(first - start) / 1e6)
        _ = loop.run(until: MonotonicClock.milliseconds() + 50) { true }
    }

    print("fan-out: \(total) started clients over \(options.connections) connections, \(latencies.count) rotations")
    print(String(format: "  write of the rotation samples -> last of %d will-change + PropertiesChanged: median %.1f ms, max %.1f ms", 2 * total,
                 percentile(latencies, 0.5), latencies.max() ?? .nan))
    print(String(format: "  write -> first client will-change: median %.1f ms", percentile(firstLatencies, 0.5)))
    print(String(format: "  CPU per rotation: orientationd median %.0f ms, dbus-daemon median %.0f ms (clock-tick resolution)",
                 percentile(daemonCPU, 0.5), percentile(busCPU, 0.5)))
    print("  (the rotation is decided by the engine's settle time in trace time, not wall time: samples are written at once)")
    print("  daemon RSS: \(rssBefore) KB with one client started, \(rssAfter) KB with \(total): \(String(format: "%.2f", Double(rssAfter - rssBefore) / Double(total - 1))) KB per client")

}

/// A bare 100 ms timerfd wake-up on the daemon's loop, for ever.
func bareTimer() throws {
    let loop = try EventLoop()
    var ticks = 0
    let timer = try Posix.Timer(loop: loop) { ticks &+= 1 }
    timer.arm(afterMs: 100, intervalMs: 100)
    _ = loop.run()
    withExtendedLifetime(timer) {}
}

do {
    if CommandLine.arguments.dropFirst().first == "timer" {
        try bareTimer()
    } else {
        try fanout(parse())
    }
} catch {
    FileHandle.standardError.write(Data("orientationd-bench: \(error)\n".utf8))
    exit(1)
}
