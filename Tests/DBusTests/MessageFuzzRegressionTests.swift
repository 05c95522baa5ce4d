import CDBus
import Testing
@_spi(Testing) @testable import DBus
import TestSupport

/// Inputs that fuzz/targets/dbus_message.swift found (scripts/fuzz.sh dbus_message).
@Suite struct MessageFuzzRegressionTests {
    /// `n` variants around `inner`.
    func variants(_ n: Int, around inner: Value) -> Value {
        (0..<n).reduce(inner) { value, _ in .variant(value) }
    }

    /// Variants hide their contents from the signature check: 65 of them made a message
    /// that libdbus builds and marshals but refuses on receipt (so the bus would drop the
    /// sender). Receivers allow 64 levels of variants, structures, dictionary entries
    /// and non-empty arrays of non-fixed types, together.
    @Test func variantsNestedTooDeeply() throws {
        expectRejected([variants(65, around: .byte(0))], mentioning: "nested too deeply")
        expectRejected([variants(33, around: (0..<32).reduce(Value.byte(0)) { v, _ in .structure([v]) })],
                       mentioning: "nested too deeply")
        expectRejected([variants(64, around: .strings(["x"]))], mentioning: "nested too deeply")
        // a{sv}: the array, its entries and the variant in each.
        expectRejected([variants(62, around: .vardict([("k", .byte(1))]))], mentioning: "nested too deeply")
        expectRejected([.int32(1), variants(64, around: .structure([.byte(0)]))], mentioning: "nested too deeply")
    }

    /// The limit is exactly the receiver's: what it accepts is still written, and reads
    /// back equal through the wire format.
    @Test func deepestAcceptedNestingStillRoundTrips() throws {
        let deepest: [Value] = [
            variants(64, around: .byte(0)),
            variants(63, around: .strings(["x"])),
            variants(61, around: .vardict([("k", .byte(1))])),
            // Empty arrays and arrays of fixed types add no level.
            variants(64, around: .array(elementSignature: "i", [.int32(1), .int32(2)])),
            variants(64, around: .array(elementSignature: "s", [])),
            variants(64, around: .dictionary(keySignature: "s", valueSignature: "v", [])),
        ]
        for value in deepest {
            for message in try messages(with: [value]) {
                let wire = try throughWire(message)
                #expect(wire.arguments == [value])
            }
        }
    }

    /// `make fuzz FUZZ_SECONDS=60` stopped on the round trip: an empty array whose element
    /// signature was "d\0" was written, libdbus read the signature as the C string "d",
    /// and the array came back as `ad`. The writer was wrong: a NUL byte is never part of
    /// a signature, wherever one appears (array element, dictionary value, variant).
    @Test func signaturesWithNULAreRefused() {
        expectRejected([.array(elementSignature: "d\0", [])], mentioning: "not a single complete type")
        expectRejected([.dictionary(keySignature: "s", valueSignature: "v\0", [])], mentioning: "not a single complete type")
        expectRejected([.variant(.array(elementSignature: "y\0y", []))], mentioning: "a variant cannot hold")
        expectRejected([.vardict([("k", .array(elementSignature: "d\0", []))])], mentioning: "a variant cannot hold")
    }
}
