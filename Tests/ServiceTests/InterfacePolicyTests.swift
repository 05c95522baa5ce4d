import OrientationEngine
import Service
import Testing
import OrientationAPI

/// The interface-orientation rules of api.md as tables.
@Suite struct InterfacePolicyTests {
    typealias O = Orientation
    static let all: [O] = O.defined

    /// Every non-empty subset of the four orientations, in canonical order.
    static let subsets: [[O]] = (1..<16).map { mask in all.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element) }

    // Rule 1: created, started, or supported set changed.
    @Test(arguments: [
        // device, current, supported, preferred → expected
        (O.normal, O.undefined, [O.normal, .bottomUp], O.normal, O.normal),           // device supported
        (O.leftUp, O.undefined, [O.normal, .bottomUp], O.normal, O.normal),           // unsupported, no current → preferred
        (O.leftUp, O.bottomUp, [O.normal, .bottomUp], O.normal, O.bottomUp),          // unsupported, current kept
        (O.leftUp, O.leftUp, [O.normal, .bottomUp], O.bottomUp, O.bottomUp),          // current no longer supported → preferred
        (O.undefined, O.undefined, [O.rightUp], O.rightUp, O.rightUp),                // undefined device → preferred
        (O.undefined, O.normal, [O.normal, .leftUp], O.leftUp, O.normal),             // undefined device, current kept
        (O.rightUp, O.normal, O.defined, O.normal, O.rightUp),                        // all supported → device
    ] as [(O, O, [O], O, O)])
    func rule1(device: O, current: O, supported: [O], preferred: O, expected: O) {
        #expect(InterfacePolicy.reevaluated(device: device, current: current, supported: supported, preferred: preferred) == expected)
    }

    /// Rule 1 exhaustively: the result is always supported, and is the device
    /// orientation whenever that is supported.
    @Test func rule1Exhaustive() {
        for supported in Self.subsets {
            for preferred in supported {
                for device in O.allCases {
                    for current in O.allCases {
                        let result = InterfacePolicy.reevaluated(device: device, current: current, supported: supported, preferred: preferred)
                        #expect(supported.contains(result))
                        if supported.contains(device) { #expect(result == device) }
                        else if supported.contains(current) { #expect(result == current) }
                        else { #expect(result == preferred) }
                    }
                }
            }
        }
    }

    // Rules 2 and 3: device changes.
    @Test func rules2And3Exhaustive() {
        for supported in Self.subsets {
            for current in supported {
                for device in O.allCases {
                    let result = InterfacePolicy.afterDeviceChange(to: device, current: current, supported: supported)
                    if device != .undefined && supported.contains(device) {
                        #expect(result == device)
                    } else {
                        #expect(result == current, "device \(device) unsupported or undefined must keep \(current)")
                    }
                }
            }
        }
    }

    // Rule 4: content rotation.
    @Test(arguments: [
        (O.normal, O.normal, UInt32(0)), (O.leftUp, O.normal, 90), (O.bottomUp, O.normal, 180), (O.rightUp, O.normal, 270),
        (O.normal, O.leftUp, 270), (O.normal, O.bottomUp, 180), (O.normal, O.rightUp, 90), (O.rightUp, O.bottomUp, 90),
        (O.leftUp, O.rightUp, 180), (O.undefined, O.normal, 0), (O.undefined, O.bottomUp, 0),
    ] as [(O, O, UInt32)])
    func rule4(device: O, interface: O, expected: UInt32) {
        #expect(InterfacePolicy.contentRotation(device: device, interface: interface) == expected)
    }

    /// The camera app: supports only normal; its icons rotate with the device.
    @Test func cameraAppStaysNormalAndRotatesContent() {
        var interface = InterfacePolicy.reevaluated(device: .normal, current: .undefined, supported: [.normal], preferred: .normal)
        var rotations: [UInt32] = []
        for device in [O.leftUp, .bottomUp, .rightUp, .normal, .undefined] {
            interface = InterfacePolicy.afterDeviceChange(to: device, current: interface, supported: [.normal])
            #expect(interface == .normal)
            rotations.append(InterfacePolicy.contentRotation(device: device, interface: interface))
        }
        #expect(rotations == [90, 180, 270, 0, 0])
    }

    /// The reader: supports normal and bottom-up; left-up/right-up keep the last of those.
    @Test func readerKeepsItsLastSupportedOrientation() {
        var interface = O.normal
        var seen: [O] = []
        for device in [O.bottomUp, .leftUp, .normal, .rightUp, .undefined] {
            interface = InterfacePolicy.afterDeviceChange(to: device, current: interface, supported: [.normal, .bottomUp])
            seen.append(interface)
        }
        #expect(seen == [.bottomUp, .bottomUp, .normal, .normal, .normal])
    }

    @Test func defaultPreferredFollowsTheContractOrder() {
        #expect(InterfacePolicy.defaultPreferred(for: [.rightUp, .bottomUp]) == .bottomUp)
        #expect(InterfacePolicy.defaultPreferred(for: [.rightUp, .leftUp]) == .leftUp)
        #expect(InterfacePolicy.defaultPreferred(for: O.defined) == .normal)
        #expect(InterfacePolicy.defaultPreferred(for: [.rightUp]) == .rightUp)
    }
}
