import Glibc
import OrientationEngine
import Posix

/// Replays a trace of `t_ms,x,y,z` lines (the format of the orientation traces) as a
/// sensor, for development and tests.
///
/// - A regular file is loaded at open and played at the pace of its timestamps, from the
///   moment it was opened; no timer runs while the sensor is stopped (the position in
///   the trace is worked out from the clock when it starts again).
/// - A FIFO or standard input ("-") is read continuously as lines arrive, so a writer
///   never blocks; samples reach the handler only while started. Standard input that
///   is a regular file (`< trace.csv`) is a recording, played as a file is.
///
/// Either way the latest sample is kept, and at end of input the sensor stays present
/// with its last sample. Samples reach the engine stamped on the daemon's one clock,
/// CLOCK_MONOTONIC, as every other backend's do: a file's line at the time it is played
/// (its `t_ms` translated to when the file was opened), a stream's line at its `t_ms`
/// translated to when the first line arrived (moved later whenever a line arrives after
/// its stamp: a writer that paused). (Stamped with the recording's own `t_ms`, a deadline armed on the monotonic
/// clock fell due at once, and every settle time completed on a single reading.)
/// Malformed lines, and lines whose time does not increase, are skipped: the first of
/// each kind logged with its line number, the rest counted, and the count logged at the
/// end of the file or of the stream (``TraceReader``).
///
/// A file's gyroscope, recorded beside it as `gyro/NAME` (what `orientationctl record
/// --output` writes), is played with it: each reading before the accelerometer reading
/// of the same time.
public final class ReplaySensor: SensorBackend {
    public let identity: SensorIdentity

    private let loop: EventLoop
    private let logger: Logger
    private var handler: ((Sample) -> Void)?
    private var latest: Sample?

    // Regular file, and its gyroscope.
    private var samples: [Sample] = []
    private var gyro: [GyroscopeSample] = []
    private var nextGyro = 0
    private var gyroHandler: ((GyroscopeSample) -> Void)?
    private var gyroName: String?
    private var originMs: Int64 = 0
    private var nextIndex = 0
    private var timer: Posix.Timer?

    // Stream.
    private var stream: FileDescriptor?
    private var pending: [UInt8] = []
    private var reader = TraceReader()
    private var discardingLongLine = false
    static let maxLineLength = 4096

    /// A path's last component ("trace.csv" of "/tmp/x/trace.csv").
    static func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    public init(path: String, loop: EventLoop, logger: Logger) throws(SensorError) {
        self.loop = loop
        self.logger = logger
        // Named after the recording, not where it lies (a temporary directory says nothing).
        identity = SensorIdentity(name: path == "-" ? "Replay of standard input" : "Replay of \(Self.lastComponent(path))",
                                  backend: .replay, device: "")
        if path == "-" {
            let input: FileDescriptor
            let isFile: Bool
            do {
                input = try FileDescriptor.standardInput.duplicate()
                isFile = try input.isRegularFile()
            } catch {
                throw SensorError("cannot read standard input: \(error)")
            }
            if isFile {
                // A file redirected in (`< trace.csv`) holds all it will: a recording, played
                // as a file named on the command line is (epoll cannot watch a file either).
                let bytes: [UInt8]
                do { bytes = try input.readAll(limit: Self.maxRecordingBytes) } catch {
                    throw SensorError("cannot read standard input: \(error)")
                }
                loadRecording(String(decoding: bytes, as: UTF8.self))
            } else {
                try openStream(input, what: "standard input")
            }
        } else if FileSystem.isFIFO(path) {
            // Read and write: with a writer of our own the FIFO never reports end of
            // file or hang-up, so writers may come and go.
            do {
                try openStream(try FileDescriptor.open(path, [.readWrite, .nonBlocking]), what: path)
            } catch let error as Errno {
                throw SensorError("cannot open \(path): \(error)")
            } catch {
                throw SensorError("cannot open \(path): \(error)")
            }
        } else {
            let text: String
            do { text = try FileSystem.readText(path, limit: Self.maxRecordingBytes) } catch {
                throw SensorError("cannot read \(path): \(error)")
            }
            loadRecording(text)
            loadGyroscope(Self.gyroscopePath(beside: path))
        }
        // A recording (not a stream) plays from now on.
        originMs = MonotonicClock.milliseconds()
    }

    /// A stream that never ended (a FIFO is never closed for good): the lines it skipped
    /// unlisted are still counted in the log.
    deinit {
        if stream != nil { logTallies(&reader, "") }
    }

    /// The most of a recording read (256 MiB: hours at 200 Hz).
    static let maxRecordingBytes = 256 << 20

    /// Takes a recording's lines.
    private func loadRecording(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let sample = reader.read(line, warn: { self.warnSkipped($0) }) { samples.append(sample) }
        }
        logTallies(&reader, "")
    }

    /// The first skipped line of its kind (`file`: "PATH: " for the gyroscope beside the trace).
    private func warnSkipped(_ skipped: TraceReader.Skipped, file: String = "") {
        logger.warning("replay: \(file)line \(skipped.line): \(skipped.detail), skipped (more lines like it are counted, not listed)")
    }

    /// The lines skipped without a warning: one line per kind.
    private func logTallies(_ reader: inout TraceReader, _ file: String) {
        for tally in reader.takeTallies() { logger.warning("replay: \(file)\(tally)") }
    }

    public func start(handler: @escaping (Sample) -> Void) throws(SensorError) {
        self.handler = handler
        guard stream == nil else { return }
        if timer == nil {
            do {
                timer = try Posix.Timer(loop: loop) { [weak self] in self?.playDue() }
            } catch {
                throw SensorError("cannot create the replay timer: \(error)")
            }
        }
        catchUp()
        scheduleNext()
    }

    /// gyro/NAME in the directory of the trace NAME: where a trace's gyroscope is kept.
    public static func gyroscopePath(beside trace: String) -> String {
        guard let slash = trace.lastIndex(of: "/") else { return "gyro/" + trace }
        return trace[...slash] + "gyro/" + trace[trace.index(after: slash)...]
    }

    public var gyroscopeName: String? { gyroName }

    public func startGyroscope(handler: @escaping (GyroscopeSample) -> Void) {
        guard gyroName != nil else { return }
        gyroHandler = handler
    }

    /// The recorded readings are then skipped as the trace plays.
    public func stopGyroscope() { gyroHandler = nil }

    /// Loads the gyroscope recorded beside the file, if there is one.
    private func loadGyroscope(_ path: String) {
        guard let text = try? FileSystem.readText(path, limit: 256 << 20) else { return }
        var reader = TraceReader()
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let s = reader.read(line, warn: { warnSkipped($0, file: path + ": ") }) {
                gyro.append(GyroscopeSample(timeMs: s.timeMs, x: s.x, y: s.y, z: s.z))
            }
        }
        logTallies(&reader, path + ": ")
        if !gyro.isEmpty { gyroName = "Replay of gyro/\(Self.lastComponent(path))" }
    }

    /// Plays (or, with no handler, skips) the gyroscope readings up to the trace time `t`.
    private func playGyroscope(through t: Int64) {
        while nextGyro < gyro.count, gyro[nextGyro].timeMs <= t {
            var g = gyro[nextGyro]
            g.timeMs = originMs + (g.timeMs - firstTimeMs)
            nextGyro += 1
            gyroHandler?(g)
        }
    }

    /// The recording's own timing decides when samples come.
    public func requestReading(atMs: Int64) {}
    /// A file is a recording, a stream of readings; a FIFO or standard input is a live
    /// sensor whose writer sends what changes.
    public var delivery: SensorDelivery { stream == nil ? .stream : .onChange }

    public func stop() {
        gyroHandler = nil
        handler = nil
        timer?.disarm()
    }

    public func currentSample() -> Sample? {
        if stream == nil { catchUp() }
        return latest
    }

    /// What is added to a stream line's `t_ms` to put it on the monotonic clock.
    private var streamOffsetMs: Int64?

    // MARK: Regular file

    private var elapsedMs: Int64 { MonotonicClock.milliseconds() - originMs }
    private var firstTimeMs: Int64 { samples.first?.timeMs ?? 0 }

    /// A file's sample on the monotonic clock: when it is due to be played.
    private func onMonotonicClock(_ sample: Sample) -> Sample {
        var s = sample
        s.timeMs = originMs + (sample.timeMs - firstTimeMs)
        return s
    }

    /// Moves past every sample already due, keeping the last as the latest.
    private func catchUp() {
        let now = elapsedMs
        while nextIndex < samples.count, samples[nextIndex].timeMs - firstTimeMs <= now {
            latest = onMonotonicClock(samples[nextIndex])
            nextIndex += 1
        }
        let saved = gyroHandler
        gyroHandler = nil
        playGyroscope(through: firstTimeMs + now)
        gyroHandler = saved
    }

    private func playDue() {
        let now = elapsedMs
        while nextIndex < samples.count, samples[nextIndex].timeMs - firstTimeMs <= now {
            playGyroscope(through: samples[nextIndex].timeMs)
            let sample = onMonotonicClock(samples[nextIndex])
            latest = sample
            nextIndex += 1
            handler?(sample)
        }
        scheduleNext()
    }

    private func scheduleNext() {
        guard handler != nil, nextIndex < samples.count else {
            timer?.disarm()
            return
        }
        let due = samples[nextIndex].timeMs - firstTimeMs - elapsedMs
        timer?.arm(afterMs: max(due, 0))
    }

    // MARK: Stream

    private func openStream(_ fd: FileDescriptor, what: String) throws(SensorError) {
        guard fd.isOpen else { throw SensorError("cannot open \(what)") }
        do {
            try fd.setNonBlocking()
            try loop.add(fd: fd.rawValue, events: .readable) { [weak self] _ in self?.readStream() }
        } catch where error == .notPermitted {
            // epoll takes pipes, FIFOs, sockets and terminals, not every device (/dev/null).
            throw SensorError("cannot watch \(what) for lines: it is not a pipe, a FIFO, a terminal or a file")
        } catch {
            throw SensorError("cannot watch \(what): \(error)")
        }
        stream = fd
    }

    private func readStream() {
        guard let stream else { return }
        let (end, _) = stream.drain(chunkSize: 4096) { chunk in
            consume(chunk)
            return true
        }
        switch end {
        case .wouldBlock, .stopped:
            return
        case .endOfFile:
            // End of input (standard input closed): keep the last sample, stop watching.
            if !pending.isEmpty {
                acceptStreamLine(pending[...])
                pending.removeAll()
            }
            logTallies(&reader, "")
            logger.debug("replay: end of input after \(reader.lineNumber) lines")
        case .failed(let error):
            logger.warning("replay: read failed: \(error); keeping the last sample")
        }
        loop.remove(fd: stream.rawValue)
        stream.close()
        self.stream = nil
    }

    private func consume(_ bytes: ArraySlice<UInt8>) {
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if discardingLongLine {
                    discardingLongLine = false
                    reader.skipLine(.tooLong, "longer than \(Self.maxLineLength) bytes", warn: { self.warnSkipped($0) })
                } else {
                    acceptStreamLine(pending[...])
                }
                pending.removeAll(keepingCapacity: true)
            } else if !discardingLongLine {
                pending.append(byte)
                if pending.count > Self.maxLineLength {
                    discardingLongLine = true
                    pending.removeAll(keepingCapacity: true)
                }
            }
        }
    }

    private func acceptStreamLine(_ bytes: ArraySlice<UInt8>) {
        if var sample = reader.read(Substring(String(decoding: bytes, as: UTF8.self)), warn: { self.warnSkipped($0) }) {
            // On the monotonic clock, keeping the lines' spacing: a burst of a second's
            // lines written at once is a second of readings, not one instant. Never
            // before the line arrived: a writer slower than its stamps moves the offset.
            let now = MonotonicClock.milliseconds()
            streamOffsetMs = max(streamOffsetMs ?? (now - sample.timeMs), now - sample.timeMs)
            sample.timeMs += streamOffsetMs ?? 0
            latest = sample
            handler?(sample)
        }
    }
}

extension BackendKind {
    public static let replay = BackendKind(rawValue: "replay")
}
