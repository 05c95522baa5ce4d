// Shared by the fuzz targets that decode their input as a stream of decisions (compiled
// into each of them, see scripts/fuzz.sh); no module of the project's needed.

/// Fuzzer bytes read front to back as small decisions. Reading past the end yields
/// zeros, so every input decodes.
struct ByteStream {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index >= bytes.count }

    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// The next `MemoryLayout<T>.size` bytes, little-endian.
    mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T {
        var value: T = 0
        for i in 0..<MemoryLayout<T>.size { value |= T(truncatingIfNeeded: byte()) << (8 * i) }
        return value
    }

    /// Up to `count` bytes (fewer at the end).
    mutating func bytes(_ count: Int) -> ArraySlice<UInt8> {
        let end = min(index + count, bytes.count)
        defer { index = end }
        return bytes[min(index, end)..<end]
    }
}
