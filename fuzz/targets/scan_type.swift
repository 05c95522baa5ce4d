// Fuzz target: the IIO scan-element type parser (`IIOScanType.parse`,
// Sources/Sensors/IIOScanType.swift) and what uses a parsed type: element decoding
// and the frame layout.
//
// Input: the text of a `scan_elements/*_type` file; the same bytes serve as frame
// data. A parsed type must respect the documented limits and print back to text
// that parses to the same type; decoding never reads outside the frame and gives a
// value within `bits` bits.
import Sensors

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScanType(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeRawBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    guard let type = IIOScanType.parse(text) else { return 0 }
    precondition((1...64).contains(type.bits), "bits \(type.bits)")
    precondition([8, 16, 32, 64].contains(type.storageBits), "storage \(type.storageBits)")
    precondition(type.shift >= 0 && type.bits + type.shift <= type.storageBits, "bits \(type.bits) shift \(type.shift)")
    precondition((1...64).contains(type.repeatCount), "repeat \(type.repeatCount)")
    precondition(IIOScanType.parse(text[...]) == type, "Substring parse differs")

    let canonical = "\(type.bigEndian ? "be" : "le"):\(type.signed ? "s" : "u")\(type.bits)/\(type.storageBits)"
        + (type.repeatCount == 1 ? "" : "X\(type.repeatCount)") + ">>\(type.shift)"
    precondition(IIOScanType.parse(canonical) == type, "'\(canonical)' does not parse back")

    for offset in [-1, 0, 1, bytes.count - type.elementBytes, bytes.count] {
        let value = type.decode(bytes, at: offset)
        if offset < 0 || offset + type.elementBytes > bytes.count {
            precondition(value == nil, "decoded outside the frame")
            continue
        }
        guard let value else { preconditionFailure("no value inside the frame") }
        // Within `bits` bits: sign-extended when signed, never negative when not.
        let rest = type.signed ? value >> (type.bits - 1) : value >> min(type.bits, 63)
        precondition(rest == 0 || (type.signed && rest == -1), "\(value) beyond \(type.bits) bits")
    }
    let channels = ["in_accel_x", "in_accel_y", "in_accel_z", "in_timestamp"].enumerated().map { index, name in
        IIOChannel(name: name, index: (index * 7 + size) % 5, type: type)
    }
    if let layout = IIOFrameLayout(channels: channels) {
        precondition(layout.frameBytes >= channels.count * type.length, "frame too small")
        for channel in channels { _ = layout.value(of: channel.name, in: bytes[...]) }
    }
    return 0
}
