// Fuzz target: the CreateClient options decoder (Sources/Service/ClientOptions.swift).
//
// Input that libdbus accepts as a marshalled message (the seeds are CreateClient
// calls) is decoded as the service does: its first argument goes to
// `ClientOptions.decode`. Any other input builds the options `Value` directly from
// the bytes (FuzzBytes), mostly as an a{sv} with the known keys. A decoded result
// must be consistent: a non-empty list of distinct defined orientations, the
// preferred one among them.
@testable import DBus
import OrientationEngine
import Service

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzClientOptions(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    let options: Value
    if let message = demarshal(input) {
        guard let first = message.arguments.first else { return 0 }
        options = first
    } else {
        var stream = FuzzBytes(Array(input))
        if stream.byte() & 1 == 0 {
            options = stream.value(maxDepth: 8)
        } else {
            var pairs: [(String, Value)] = []
            for _ in 0..<(Int(stream.byte()) % 5) {
                let key = stream.byte() & 1 == 0 ? stream.string() : stream.basicValue(13).stringValue ?? ""
                pairs.append((key, stream.value(maxDepth: 6)))
            }
            options = .vardict(pairs)
        }
    }
    do {
        let decoded = try ClientOptions.decode(options)
        precondition(!decoded.supported.isEmpty, "empty supported list accepted")
        precondition(Set(decoded.supported).count == decoded.supported.count, "duplicate orientations accepted")
        precondition(!decoded.supported.contains(.undefined), "undefined accepted as supported")
        precondition(decoded.supported.contains(decoded.preferred), "preferred \(decoded.preferred) not among \(decoded.supported)")
    } catch {
        precondition(error.name == "org.freedesktop.DBus.Error.InvalidArgs", "unexpected error \(error)")
        precondition(!error.message.isEmpty, "InvalidArgs without a message")
    }
    return 0
}
