/// One IIO buffer channel's `scan_elements/*_type`: "le:s12/16>>4", "be:u16/32X2>>0".
public struct IIOScanType: Sendable, Equatable {
    public var bigEndian: Bool
    public var signed: Bool
    /// Meaningful bits (1...64).
    public var bits: Int
    /// Bits of storage per element (8, 16, 32 or 64).
    public var storageBits: Int
    /// Elements per sample (≥ 1).
    public var repeatCount: Int
    public var shift: Int

    public init(bigEndian: Bool, signed: Bool, bits: Int, storageBits: Int, repeatCount: Int = 1, shift: Int = 0) {
        self.bigEndian = bigEndian
        self.signed = signed
        self.bits = bits
        self.storageBits = storageBits
        self.repeatCount = repeatCount
        self.shift = shift
    }

    /// Bytes one element occupies.
    public var elementBytes: Int { storageBits / 8 }
    /// Bytes the channel occupies in a frame (and its alignment, as the kernel computes it).
    public var length: Int { elementBytes * repeatCount }

    /// Parses the kernel's format; nil when malformed or impossible (bits + shift beyond
    /// the storage, storage not 8/16/32/64, repeatCount 0).
    public static func parse(_ text: some StringProtocol) -> IIOScanType? {
        var rest = Substring(String(text)).drop { $0 == " " }
        while let last = rest.last, last == "\n" || last == " " { rest = rest.dropLast() }
        let bigEndian: Bool
        if rest.hasPrefix("le:") { bigEndian = false } else if rest.hasPrefix("be:") { bigEndian = true } else { return nil }
        rest = rest.dropFirst(3)
        guard let signChar = rest.first, signChar == "s" || signChar == "u" else { return nil }
        rest = rest.dropFirst()
        func number() -> Int? {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 4, let value = Int(digits) else { return nil }
            rest = rest.dropFirst(digits.count)
            return value
        }
        guard let bits = number(), rest.first == "/" else { return nil }
        rest = rest.dropFirst()
        guard let storage = number() else { return nil }
        var repeatCount = 1
        if rest.first == "X" {
            rest = rest.dropFirst()
            guard let count = number() else { return nil }
            repeatCount = count
        }
        var shift = 0
        if rest.hasPrefix(">>") {
            rest = rest.dropFirst(2)
            guard let value = number() else { return nil }
            shift = value
        }
        guard rest.isEmpty else { return nil }
        guard [8, 16, 32, 64].contains(storage), bits >= 1, bits + shift <= storage, repeatCount >= 1, repeatCount <= 64 else { return nil }
        return IIOScanType(bigEndian: bigEndian, signed: signChar == "s", bits: bits, storageBits: storage, repeatCount: repeatCount, shift: shift)
    }

    /// Decodes the first element at `offset` of `frame`; nil when the frame is too short.
    public func decode(_ frame: some RandomAccessCollection<UInt8>, at offset: Int) -> Int64? {
        guard offset >= 0, offset + elementBytes <= frame.count else { return nil }
        let start = frame.index(frame.startIndex, offsetBy: offset)
        var raw: UInt64 = 0
        for i in 0..<elementBytes {
            let byte = UInt64(frame[frame.index(start, offsetBy: i)])
            if bigEndian {
                raw = raw << 8 | byte
            } else {
                raw |= byte << (8 * UInt64(i))
            }
        }
        raw >>= UInt64(shift)
        if bits < 64 { raw &= (UInt64(1) << UInt64(bits)) - 1 }
        if signed, bits < 64, raw & (UInt64(1) << UInt64(bits - 1)) != 0 {
            raw |= ~((UInt64(1) << UInt64(bits)) - 1)
        }
        return signed ? Int64(bitPattern: raw) : Int64(clamping: raw)
    }
}

/// A buffer channel: its name ("in_accel_x"), scan index and type.
public struct IIOChannel: Sendable, Equatable {
    public var name: String
    public var index: Int
    public var type: IIOScanType
    public init(name: String, index: Int, type: IIOScanType) {
        self.name = name
        self.index = index
        self.type = type
    }
}

/// Where each enabled channel sits in a frame, worked out as the kernel does: channels
/// in scan-index order, each aligned to its own length, the frame padded to the
/// largest length.
public struct IIOFrameLayout: Sendable, Equatable {
    public var offsets: [String: Int]
    public var types: [String: IIOScanType]
    public var frameBytes: Int

    public init?(channels: [IIOChannel]) {
        guard !channels.isEmpty else { return nil }
        var offsets: [String: Int] = [:]
        var types: [String: IIOScanType] = [:]
        var bytes = 0
        var largest = 1
        for channel in channels.sorted(by: { $0.index < $1.index }) {
            let length = channel.type.length
            bytes = (bytes + length - 1) / length * length
            offsets[channel.name] = bytes
            types[channel.name] = channel.type
            bytes += length
            largest = max(largest, length)
        }
        bytes = (bytes + largest - 1) / largest * largest
        self.offsets = offsets
        self.types = types
        frameBytes = bytes
    }

    public func value(of channel: String, in frame: some RandomAccessCollection<UInt8>) -> Int64? {
        guard let offset = offsets[channel], let type = types[channel] else { return nil }
        return type.decode(frame, at: offset)
    }
}

/// The rate an IIO accelerometer is set to at open.
public enum SamplingFrequency {
    public static let minimumHz = 10.0

    /// The least rate for a sensor read every `pollIntervalMs`: the poll's own (each poll
    /// then reads a sample taken since the one before, not the same sample again, which
    /// would look like a device held still: a rest), and never below `minimumHz`, as
    /// iio-sensor-proxy sets it. A buffer is read at the rate it is set to: the same rule
    /// gives it the same rate as a polled sensor configured alike.
    public static func leastHz(pollIntervalMs: Int) -> Double {
        max(minimumHz, 1000 / Double(max(pollIntervalMs, 1)))
    }

    /// The text to write to `sampling_frequency`: the smallest entry of
    /// `sampling_frequency_available` that is at least `leastHz`, else the fastest entry,
    /// else `leastHz` itself when there is no usable list. Written in the shortest decimal
    /// form ("12.5", not "12.500000"; "10", not "10.0"), as iio-sensor-proxy writes it:
    /// some drivers parse the attribute strictly.
    public static func choose(available: String?, leastHz: Double = minimumHz) -> String {
        let fallback = SysfsNumber.format(leastHz)
        guard let available else { return fallback }
        var best: (value: Double, text: Substring)?
        var fastest: (value: Double, text: Substring)?
        for word in available.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }) {
            guard let value = SysfsNumber.parseDouble(word), value > 0 else { continue }
            if value >= leastHz, best.map({ value < $0.value }) ?? true { best = (value, word) }
            if fastest.map({ value > $0.value }) ?? true { fastest = (value, word) }
        }
        if let best { return SysfsNumber.format(best.value) }
        if let fastest { return SysfsNumber.format(fastest.value) }
        return fallback
    }
}
