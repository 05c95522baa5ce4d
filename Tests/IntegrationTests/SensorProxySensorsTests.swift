@_spi(Testing) import DBus
import Foundation
import Glibc
import Testing
import TestSupport

/// The facade's sensors besides the accelerometer — ambient light, proximity, compass —
/// on umockdev devices of every kind and source iio-sensor-proxy reads: a claim gives
/// the reading, a change is announced to the claimers, a sensor plugged in later is
/// picked up, a removed one makes Has… false, a claimer that leaves stops the reading.
@Suite struct SensorProxySensorsTests {
    static let name = "net.hadess.SensorProxy"
    static let path = "/net/hadess/SensorProxy"
    static let compassPath = "/net/hadess/SensorProxy/Compass"
    static let compassInterface = "net.hadess.SensorProxy.Compass"

    /// The daemon in compatibility mode on `devices`, and a peer once it owns the
    /// facade's name.
    static func start(_ devices: [String], polkit: Bool = false) throws -> (SensorDaemonFixture, Peer) {
        let fixture = try SensorDaemonFixture()
        for device in devices { try fixture.testbed.add(device) }
        let peer = try fixture.start(extraArguments: ["--sensor-proxy-compat"])
        try peer.connection.addMatch("type='signal',sender='\(name)'")
        let owned = peer.waitUntil {
            (try? peer.call("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", [.string(name)],
                            destination: "org.freedesktop.DBus").first == .bool(true)) ?? false
        }
        guard owned else { throw TestFailure("no \(name); stderr:\n\(fixture.stderr)") }
        return (fixture, peer)
    }

    static func get(_ peer: Peer, _ property: String) throws -> Value {
        let compass = ["HasCompass", "CompassHeading"].contains(property)
        return try peer.call(compass ? compassPath : path, "org.freedesktop.DBus.Properties", "Get",
                             [.string(compass ? compassInterface : name), .string(property)], destination: name)[0].unwrappedVariant
    }

    static func claim(_ peer: Peer, _ member: String) throws {
        let compass = member.hasSuffix("Compass")
        try peer.call(compass ? compassPath : path, compass ? compassInterface : name, member, destination: name)
    }

    /// Waits for a PropertiesChanged that says `entry` ("LightLevel=150.0").
    static func announced(_ peer: Peer, _ entry: String) -> Bool {
        peer.waitUntil { peer.signalSummaries().contains { $0.contains("PropertiesChanged") && $0.split(separator: " ").last?.split(separator: ",").contains(Substring(entry)) == true } }
    }

    // MARK: Ambient light

    @Test func iioPolledLightIsReadWhileClaimedAndChangesGoToItsClaimers() throws {
        let (fixture, peer) = try Self.start([FakeSensor.iioLight(raw: "100", scale: "0.5")])
        let bystander = try Peer(bus: fixture.bus, watchManager: false)
        try bystander.connection.addMatch("type='signal',sender='\(Self.name)'")
        #expect(try Self.get(peer, "HasAmbientLight") == .bool(true))
        #expect(fixture.logContains("ambient light: using als (iio:device1) (iio-poll-als)"))
        // Not read before a claim.
        #expect(try Self.get(peer, "LightLevel") == .double(0))
        try Self.claim(peer, "ClaimLight")
        #expect(try Self.get(peer, "LightLevel") == .double(50))
        #expect(try Self.get(peer, "LightLevelUnit") == .string("lux"))
        try fixture.testbed.setAttribute(FakeSensor.lightSyspath, "in_illuminance_raw", "300")
        #expect(Self.announced(peer, "LightLevel=150.0"), "signals: \(peer.signalSummaries())")
        #expect(try Self.get(peer, "LightLevel") == .double(150))
        // Changes go to claimers only.
        try bystander.call(Self.path, "org.freedesktop.DBus.Peer", "Ping", destination: Self.name)
        bystander.connection.dispatchQueued()
        #expect(!bystander.signalSummaries().contains { $0.contains("LightLevel") })

        // The claimer leaves the bus: the sensor is no longer read.
        peer.connection.close()
        #expect(fixture.logContains("released the ambient light sensor"))
        #expect(fixture.logContains("stopped reading als (iio:device1): no claimer left"))
    }

    /// Lux as the kernel's ABI defines them: (raw + offset) × scale, and `_input` as it
    /// is (docs/facade.md: iio-sensor-proxy departs from both).
    @Test(arguments: [("A: in_illuminance_raw=10\nA: in_illuminance_offset=5\nA: in_illuminance_scale=2\n", 30.0),
                      ("A: in_illuminance_input=10\nA: in_illuminance_scale=2\n", 10.0)])
    func anIioLightLevelIsLuxAsTheKernelDefinesIt(attributes: String, lux: Double) throws {
        let device = "P: /devices/platform/als/iio:device1\nN: iio:device1\nE: SUBSYSTEM=iio\n"
            + "E: IIO_SENSOR_PROXY_TYPE=iio-poll-als\nA: name=als\n" + attributes
        let (fixture, peer) = try Self.start([device])
        try Self.claim(peer, "ClaimLight")
        #expect(try Self.get(peer, "LightLevel") == .double(lux), "stderr:\n\(fixture.stderr)")
    }

    @Test func lightPluggedInLaterIsPickedUpAndItsRemovalSaid() throws {
        let (fixture, peer) = try Self.start([])
        #expect(try Self.get(peer, "HasAmbientLight") == .bool(false))
        // A claim before there is a sensor is accepted, and holds when one appears.
        try Self.claim(peer, "ClaimLight")
        try fixture.testbed.add(FakeSensor.iioLight(raw: "40", scale: "1"))
        #expect(Self.announced(peer, "HasAmbientLight=true"), "signals: \(peer.signalSummaries())")
        #expect(Self.announced(peer, "LightLevel=40.0"), "signals: \(peer.signalSummaries())")
        try fixture.testbed.remove(FakeSensor.lightSyspath)
        #expect(Self.announced(peer, "HasAmbientLight=false"), "signals: \(peer.signalSummaries())")
        #expect(try Self.get(peer, "LightLevel") == .double(0))
    }

    /// Each kind, plugged in after start under a standing claim and then unplugged:
    /// picked up and read for the claim, then said gone.
    @Test(arguments: [
        ("light", "ClaimLight", "HasAmbientLight", "LightLevel=40.0"),
        ("proximity", "ClaimProximity", "HasProximity", "ProximityNear=true"),
        ("compass", "ClaimCompass", "HasCompass", "CompassHeading=180.0"),
    ])
    func eachKindIsFollowedThroughHotplug(kind: String, claim: String, has: String, reading: String) throws {
        let (fixture, peer) = try Self.start([])
        #expect(try Self.get(peer, has) == .bool(false))
        try Self.claim(peer, claim)
        let (device, syspath) = switch kind {
        case "light": (FakeSensor.iioLight(raw: "40", scale: "1"), FakeSensor.lightSyspath)
        case "proximity": (FakeSensor.iioProximity(raw: "500", nearLevel: "100"), FakeSensor.proximitySyspath)
        default: (FakeSensor.bufferCompass(raw: 1800), FakeSensor.compassSyspath)
        }
        try fixture.testbed.add(device)
        #expect(Self.announced(peer, "\(has)=true"), "signals: \(peer.signalSummaries())")
        #expect(Self.announced(peer, reading), "signals: \(peer.signalSummaries())")
        try fixture.testbed.remove(syspath)
        #expect(Self.announced(peer, "\(has)=false"), "signals: \(peer.signalSummaries())")
        #expect(fixture.isRunning)
    }

    @Test func hidSensorHubLightIsReadThroughItsBuffer() throws {
        let (fixture, peer) = try Self.start([FakeSensor.bufferLight(raw: 1200)])
        try Self.claim(peer, "ClaimLight")
        // The raw attribute gives the level at the claim (scale 0.1).
        #expect(try Self.get(peer, "LightLevel") == .double(120))
        #expect(fixture.testbed.attribute(FakeSensor.bufferLightSyspath, "buffer/enable") == "1")
        #expect(fixture.testbed.attribute(FakeSensor.bufferLightSyspath, "scan_elements/in_intensity_both_en") == "1")
        // A batch of frames: the last is the reading.
        try fixture.testbed.writeNode("/dev/iio:device2", FakeSensor.s32(2000) + FakeSensor.s32(3450))
        #expect(Self.announced(peer, "LightLevel=345.0"), "signals: \(peer.signalSummaries())")
        try Self.claim(peer, "ReleaseLight")
        #expect(fixture.logContains("stopped reading"))
        #expect(fixture.testbed.attribute(FakeSensor.bufferLightSyspath, "buffer/enable") == "0")
    }

    /// A HID light unplugged while it is read (its node ends under the reader) is
    /// dropped, said gone, and one plugged in after it is read for the same claim.
    @Test func aBufferSensorUnpluggedWhileReadIsDroppedAndAnotherTakesItsPlace() throws {
        let (fixture, peer) = try Self.start([FakeSensor.bufferLight(raw: 10)])
        try Self.claim(peer, "ClaimLight")
        #expect(try Self.get(peer, "LightLevel") == .double(1))
        try fixture.testbed.remove(FakeSensor.bufferLightSyspath)
        #expect(Self.announced(peer, "HasAmbientLight=false"), "signals: \(peer.signalSummaries())")
        #expect(fixture.isRunning)
        // umockdev cannot re-add a device under the same node: the next one is device 5.
        let replacement = FakeSensor.hubDevice(parent: "hid-als2", number: 5, name: "als", type: "iio-buffer-als",
                                               channel: "in_intensity_both",
                                               attributes: "A: in_intensity_both_raw=70\nA: in_intensity_scale=0.1\n",
                                               scanType: "le:s32/32>>0")
        try fixture.testbed.add(replacement)
        #expect(Self.announced(peer, "HasAmbientLight=true"), "signals: \(peer.signalSummaries())")
        #expect(Self.announced(peer, "LightLevel=7.0"), "signals: \(peer.signalSummaries())")
        // Its buffer is enabled just after that first reading (from its raw attribute).
        #expect(waitUntil(seconds: 10) { fixture.testbed.attribute("/sys/devices/platform/hid-als2/iio:device5", "buffer/enable") == "1" },
                "\(fixture.stderr)")
    }

    /// A claim polkit allows after its caller has left the bus is not recorded: nothing
    /// would ever release it, and the sensor would be read for nobody.
    @Test func aClaimAllowedAfterItsCallerLeftIsNotRecorded() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeSensor.iioLight(raw: "5", scale: "1"))
        let peer = try fixture.start(extraArguments: ["--sensor-proxy-compat", "--polkit"])
        let mock = try MockService(template: "polkitd", name: "org.freedesktop.PolicyKit1", bus: fixture.bus, peer: peer)
        let authority = "/org/freedesktop/PolicyKit1/Authority"
        try peer.call(authority, "org.freedesktop.DBus.Mock", "SetAllowed", [.strings(["net.hadess.SensorProxy.claim-sensor"])],
                      destination: "org.freedesktop.PolicyKit1")
        try peer.call(authority, "org.freedesktop.DBus.Mock", "SimulateHang", [.bool(true)], destination: "org.freedesktop.PolicyKit1")
        #expect(peer.waitUntil {
            (try? peer.call("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", [.string(Self.name)],
                            destination: "org.freedesktop.DBus").first == .bool(true)) ?? false
        })
        // The claim is sent, and its caller gone, while polkit thinks.
        let claimer = try Peer(bus: fixture.bus, watchManager: false)
        claimer.connection.send(try Message.methodCall(destination: Self.name, path: Self.path, interface: Self.name, member: "ClaimLight"))
        claimer.connection.flush()
        claimer.connection.close()
        #expect(fixture.logContains("left the bus while polkit was asked about its claim"), "\(fixture.stderr)")
        // polkit says yes (asked again until the hanging call has reached it).
        #expect(peer.waitUntil {
            _ = try? peer.call(authority, "org.freedesktop.DBus.Mock", "ReleaseHangingCalls", destination: "org.freedesktop.PolicyKit1")
            return fixture.stderr.contains("before polkit answered its ClaimLight: not recorded")
        }, "\(fixture.stderr)")
        #expect(!fixture.stderr.contains("claimed the ambient light"))
        #expect(!fixture.stderr.contains("reading als"))
        withExtendedLifetime(mock) {}
    }

    /// A buffer left enabled would keep the device streaming after the daemon is gone.
    @Test func aClaimedBufferIsDisabledWhenTheDaemonStops() throws {
        let (fixture, peer) = try Self.start([FakeSensor.bufferLight(raw: 10)])
        try Self.claim(peer, "ClaimLight")
        #expect(fixture.testbed.attribute(FakeSensor.bufferLightSyspath, "buffer/enable") == "1")
        fixture.daemon?.signal(SIGTERM)
        #expect(waitUntil(seconds: 10) { !fixture.isRunning })
        #expect(fixture.testbed.attribute(FakeSensor.bufferLightSyspath, "buffer/enable") == "0")
        #expect(!fixture.stderr.contains("HasAmbientLight"))
    }

    /// Claims and releases by clients that come and go cost nothing lasting: no
    /// descriptor (a poll timer, a buffer node) outlives its claim.
    @Test func claimChurnLeavesNoDescriptorsBehind() throws {
        let (fixture, peer) = try Self.start([FakeSensor.iioLight(raw: "7", scale: "1"), FakeSensor.bufferCompass(raw: 10),
                                              FakeSensor.iioProximity(raw: "1", nearLevel: "100")])
        guard let pid = fixture.daemon?.pid else { throw TestFailure("no daemon") }
        func descriptors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1 }
        // One round first, so that what is made once (D-Bus matches, caches) is made.
        func round() throws {
            let client = try Peer(bus: fixture.bus, watchManager: false)
            for member in ["ClaimLight", "ClaimProximity", "ClaimCompass"] { try Self.claim(client, member) }
            try Self.claim(client, "ReleaseLight")
            client.connection.close()
        }
        try round()
        #expect(fixture.logContains("stopped reading magn_3d (iio:device4)"))
        let before = descriptors()
        for _ in 0..<30 { try round() }
        // Every claim of the last client is released once the daemon has seen it leave.
        try peer.call(Self.path, "org.freedesktop.DBus.Peer", "Ping", destination: Self.name)
        #expect(peer.waitUntil { descriptors() == before }, "descriptors \(before) → \(descriptors())")
        #expect(fixture.testbed.attribute(FakeSensor.compassSyspath, "buffer/enable") == "0")
    }

    @Test func hwmonLightIsAVendorPercentage() throws {
        let (fixture, peer) = try Self.start([FakeSensor.hwmonLight("(51,102)")])
        #expect(try Self.get(peer, "HasAmbientLight") == .bool(true))
        try Self.claim(peer, "ClaimLight")
        #expect(try Self.get(peer, "LightLevel") == .double(40))
        #expect(try Self.get(peer, "LightLevelUnit") == .string("vendor"))
        #expect(fixture.isRunning)
    }

    @Test func badLightLevelsAreIgnoredWithOneWarning() throws {
        let (fixture, peer) = try Self.start([FakeSensor.iioLight(raw: "10", scale: "1", integrationTime: "0.02")])
        try Self.claim(peer, "ClaimLight")
        #expect(try Self.get(peer, "LightLevel") == .double(10))
        for bad in ["-5", "nan", "garbage", "-7"] {
            try fixture.testbed.setAttribute(FakeSensor.lightSyspath, "in_illuminance_raw", bad)
            #expect(fixture.logContains("reading ignored"))
        }
        try fixture.testbed.setAttribute(FakeSensor.lightSyspath, "in_illuminance_raw", "25")
        #expect(Self.announced(peer, "LightLevel=25.0"), "signals: \(peer.signalSummaries())")
        // The level never took a bad value, and the bad ones were said once.
        #expect(!peer.signalSummaries().contains { $0.contains("LightLevel=-") || $0.contains("LightLevel=nan") })
        #expect(fixture.stderr.components(separatedBy: "reading ignored").count - 1 == 1, "\(fixture.stderr)")
        #expect(fixture.isRunning)
    }

    // MARK: Proximity

    @Test func iioProximityIsNearAboveItsLevelWithHysteresis() throws {
        let (fixture, peer) = try Self.start([FakeSensor.iioProximity(raw: "10", nearLevel: "100")])
        #expect(try Self.get(peer, "HasProximity") == .bool(true))
        try Self.claim(peer, "ClaimProximity")
        #expect(try Self.get(peer, "ProximityNear") == .bool(false))
        try fixture.testbed.setAttribute(FakeSensor.proximitySyspath, "in_proximity_raw", "200")
        #expect(Self.announced(peer, "ProximityNear=true"), "signals: \(peer.signalSummaries())")
        // 95 is under the level but within the margin: still near; 50 is far.
        peer.clearSignals()
        try fixture.testbed.setAttribute(FakeSensor.proximitySyspath, "in_proximity_raw", "95")
        try fixture.testbed.setAttribute(FakeSensor.proximitySyspath, "in_proximity_raw", "50")
        #expect(Self.announced(peer, "ProximityNear=false"), "signals: \(peer.signalSummaries())")
    }

    @Test func aSteadyProximityJustAboveTheKernelsNearLevelIsNear() throws {
        // The level as a device tree gives it (in_proximity_nearlevel, no udev rule), and
        // iio-sensor-proxy's decision: a value held just above it is near, just below far.
        let (fixture, peer) = try Self.start([FakeSensor.iioProximity(raw: "256", nearLevel: nil, nearLevelAttribute: "128")])
        #expect(try Self.get(peer, "HasProximity") == .bool(true))
        try Self.claim(peer, "ClaimProximity")
        #expect(try Self.get(peer, "ProximityNear") == .bool(true))
        for (raw, near) in [("0", false), ("129", true), ("127", false)] {
            peer.clearSignals()
            try fixture.testbed.setAttribute(FakeSensor.proximitySyspath, "in_proximity_raw", raw)
            #expect(Self.announced(peer, "ProximityNear=\(near)"), "raw \(raw): signals: \(peer.signalSummaries())")
        }
    }

    /// The same steady values through both daemons: each is near or far in both, and
    /// as the test above expects (iio-sensor-proxy needs a second poll after a small
    /// crossing, so each is waited for).
    @Test func proximityDecidesAsIioSensorProxyDoes() throws {
        let devices = [FakeSensor.iioProximity(raw: "256", nearLevel: nil, nearLevelAttribute: "128")]
        let steps = [("0", false), ("129", true), ("127", false), ("141", true), ("116", false)]
        func play(_ peer: Peer, _ testbed: UmockdevTestbed, log: () -> String) throws -> [Bool] {
            try Self.claim(peer, "ClaimProximity")
            var seen: [Bool] = []
            for (raw, near) in [("256", true)] + steps {
                try testbed.setAttribute(FakeSensor.proximitySyspath, "in_proximity_raw", raw)
                #expect(peer.waitUntil(seconds: 10) { (try? Self.get(peer, "ProximityNear")) == .bool(near) }, "raw \(raw)\n\(log())")
                seen.append(try Self.get(peer, "ProximityNear") == .bool(true))
            }
            return seen
        }
        let (fixture, peer) = try Self.start(devices)
        let ours = try play(peer, fixture.testbed) { fixture.stderr }
        let other = try IioSensorProxy(devices)
        let theirs = try play(other.peer, other.testbed) { other.process.stderr }
        #expect(ours == theirs)
    }

    @Test func proximityWithoutANearLevelIsAbsentWithOneWarning() throws {
        let (fixture, peer) = try Self.start([FakeSensor.iioProximity(raw: "500", nearLevel: nil)])
        #expect(try Self.get(peer, "HasProximity") == .bool(false))
        try Self.claim(peer, "ClaimProximity")
        #expect(try Self.get(peer, "ProximityNear") == .bool(false))
        #expect(fixture.logContains("no near level (udev property PROXIMITY_NEAR_LEVEL or in_proximity_nearlevel)"))
        // A uevent for another device does not repeat it.
        try fixture.testbed.add(FakeSensor.iioLight(raw: "1", scale: "1"))
        #expect(Self.announced(peer, "HasAmbientLight=true"))
        #expect(fixture.stderr.components(separatedBy: "no near level").count - 1 == 1, "\(fixture.stderr)")
    }

    @Test func evdevProximitySwitchGivesItsStateAndItsChanges() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeSensor.switchParent)
        try fixture.testbed.add(FakeSensor.switchEvent)
        try fixture.testbed.loadIoctl(FakeSensor.switchNode, recording: FakeSensor.switchRecording(near: true))
        let peer = try fixture.start(extraArguments: ["--sensor-proxy-compat"])
        try peer.connection.addMatch("type='signal',sender='\(Self.name)'")
        #expect(peer.waitUntil { (try? Self.get(peer, "HasProximity")) == .bool(true) })
        try Self.claim(peer, "ClaimProximity")
        #expect(try Self.get(peer, "ProximityNear") == .bool(true))
        try fixture.testbed.writeNode(FakeSensor.switchNode, FakeDevice.inputEvent(5, 0x0b, 0) + FakeDevice.inputEvent(0, 0, 0))
        #expect(Self.announced(peer, "ProximityNear=false"), "signals: \(peer.signalSummaries())")
    }

    @Test func proximityReadingsThatAreNotNumbersNeverSayNear() throws {
        let (fixture, peer) = try Self.start([FakeSensor.iioProximity(raw: "garbage", nearLevel: "100")])
        try Self.claim(peer, "ClaimProximity")
        #expect(try Self.get(peer, "ProximityNear") == .bool(false))
        #expect(fixture.logContains("the proximity \"garbage\" is not a number; reading ignored"))
        try fixture.testbed.setAttribute(FakeSensor.proximitySyspath, "in_proximity_raw", "500")
        #expect(Self.announced(peer, "ProximityNear=true"), "signals: \(peer.signalSummaries())")
        // The good reading ended the run, and said so; bad readings later are news again,
        // said once however they differ.
        #expect(fixture.logContains("readings usable again after"), "stderr:\n\(fixture.stderr)")
        try fixture.testbed.setAttribute(FakeSensor.proximitySyspath, "in_proximity_raw", "junk")
        #expect(fixture.logContains("the proximity \"junk\" is not a number; reading ignored"), "stderr:\n\(fixture.stderr)")
        try fixture.testbed.setAttribute(FakeSensor.proximitySyspath, "in_proximity_raw", "trash")
        try fixture.testbed.setAttribute(FakeSensor.proximitySyspath, "in_proximity_raw", "10")
        #expect(Self.announced(peer, "ProximityNear=false"), "signals: \(peer.signalSummaries())")
        #expect(waitUntil(seconds: 10) { fixture.stderr.components(separatedBy: "readings usable again after").count == 3 },
                "stderr:\n\(fixture.stderr)")
        #expect(!fixture.stderr.contains("\"trash\" is not a number"), "stderr:\n\(fixture.stderr)")
    }

    @Test(arguments: ["abc", "0", "-3"])
    func proximityWithAnUnusableNearLevelIsAbsent(level: String) throws {
        let (fixture, peer) = try Self.start([FakeSensor.iioProximity(raw: "500", nearLevel: level)])
        #expect(try Self.get(peer, "HasProximity") == .bool(false))
        #expect(fixture.logContains("the near level \"\(level)\" (udev property PROXIMITY_NEAR_LEVEL) is not a positive number"), "stderr:\n\(fixture.stderr)")
    }

    @Test func bufferWithAnUnusableScanTypeIsAbsentWithOneWarning() throws {
        let (fixture, peer) = try Self.start([FakeSensor.bufferLight(raw: 5, scanType: "xx:bogus")])
        #expect(try Self.get(peer, "HasAmbientLight") == .bool(false))
        #expect(fixture.logContains("scan_elements/in_intensity_both_type is missing or not a scan type; ambient light sensor not used"))
        try Self.claim(peer, "ClaimLight")
        #expect(try Self.get(peer, "LightLevel") == .double(0))
        #expect(fixture.isRunning)
    }

    // MARK: Compass

    @Test func compassHeadingComesFromItsBuffer() throws {
        let (fixture, peer) = try Self.start([FakeSensor.bufferCompass(raw: 900)])
        #expect(try Self.get(peer, "HasCompass") == .bool(true))
        #expect(try Self.get(peer, "CompassHeading") == .double(-1))
        try Self.claim(peer, "ClaimCompass")
        #expect(try Self.get(peer, "CompassHeading") == .double(90))
        try fixture.testbed.writeNode("/dev/iio:device4", FakeSensor.s32(2705))
        #expect(Self.announced(peer, "CompassHeading=270.5"), "signals: \(peer.signalSummaries())")
        #expect(peer.signals.contains { $0.path == Self.compassPath && $0.member == "PropertiesChanged" })
        try fixture.testbed.remove(FakeSensor.compassSyspath)
        #expect(Self.announced(peer, "HasCompass=false"), "signals: \(peer.signalSummaries())")
    }

    @Test func headingsOutOfRangeAreIgnoredWithOneWarning() throws {
        let (fixture, peer) = try Self.start([FakeSensor.bufferCompass(raw: 900)])
        try Self.claim(peer, "ClaimCompass")
        #expect(try Self.get(peer, "CompassHeading") == .double(90))
        // 5000° and -4000° are no headings; 12.5° is.
        try fixture.testbed.writeNode("/dev/iio:device4", FakeSensor.s32(50000))
        #expect(fixture.logContains("is not one; reading ignored"))
        #expect(try Self.get(peer, "CompassHeading") == .double(90))
        try fixture.testbed.writeNode("/dev/iio:device4", FakeSensor.s32(-40000))
        try fixture.testbed.writeNode("/dev/iio:device4", FakeSensor.s32(125))
        #expect(Self.announced(peer, "CompassHeading=12.5"), "signals: \(peer.signalSummaries())")
        #expect(!peer.signalSummaries().contains { $0.contains("CompassHeading=5000") || $0.contains("CompassHeading=-4000") })
        #expect(fixture.stderr.components(separatedBy: "is not one; reading ignored").count - 1 == 1, "\(fixture.stderr)")
    }

    // MARK: Clients

    /// Debian's monitor-sensor shows light and proximity.
    @Test func monitorSensorShowsLightProximityAndHeading() throws {
        let (fixture, _) = try Self.start([FakeSensor.iioLight(raw: "80", scale: "0.5"),
                                          FakeSensor.iioProximity(raw: "300", nearLevel: "100"),
                                          FakeSensor.bufferCompass(raw: 1800)])
        let monitor = try MonitorSensor(bus: fixture.bus)
        let output = monitor.output
        // What it prints first, then the readings its claims bring.
        // (It reads the compass only when run as the geoclue user.)
        for line in ["=== Has ambient light sensor", "=== Has proximity sensor",
                     "Light changed: 40.000000 (lux)", "Proximity value changed: 1"] {
            #expect(waitUntil(seconds: 15) { output().contains(line) }, "monitor-sensor printed:\n\(output())")
        }
        try fixture.testbed.setAttribute(FakeSensor.lightSyspath, "in_illuminance_raw", "100")
        #expect(waitUntil(seconds: 15) { output().contains("Light changed: 50.000000 (lux)") }, "monitor-sensor printed:\n\(output())")
        try fixture.testbed.setAttribute(FakeSensor.proximitySyspath, "in_proximity_raw", "3")
        #expect(waitUntil(seconds: 15) { output().contains("Proximity value changed: 0") }, "monitor-sensor printed:\n\(output())")
    }
}

extension SensorProxySensorsTests {
    /// monitor-sensor reads the compass only as the geoclue user, which alone may call
    /// it under the facade's bus policy: on a bus with that policy, run as geoclue, it
    /// shows the heading and its change.
    @Test func monitorSensorAsGeoclueShowsTheHeading() throws {
        guard let user = getpwnam("geoclue") else {
            Issue.record("no geoclue user (scripts/prerequisites.sh test makes it)")
            return
        }
        let bus = try SystemTypeBus()
        let testbed = try UmockdevTestbed()
        try testbed.add(FakeSensor.bufferCompass(raw: 1800))
        let daemon = try ChildProcess(product: "orientationd", arguments: ["--address", bus.address, "--sensor-proxy-compat", "--no-polkit"],
                                      directory: bus.directory, environment: testbed.environment)
        #expect(try bus.waitForOwner(of: Self.name), "orientationd did not take \(Self.name):\n\(daemon.stderr)")
        let geoclue = ["--reuid=\(user.pointee.pw_uid)", "--regid=\(user.pointee.pw_gid)", "--clear-groups"]
        let (process, stdout, stderr) = try ExternalCommand.start("/usr/bin/setpriv", geoclue + ["/usr/bin/monitor-sensor"],
                                                                  directory: bus.directory,
                                                                  environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        func output() -> String {
            ((try? String(contentsOfFile: stdout, encoding: .utf8)) ?? "") + ((try? String(contentsOfFile: stderr, encoding: .utf8)) ?? "")
        }
        #expect(waitUntil(seconds: 15) { output().contains("Compass heading changed: 180.000000") }, "monitor-sensor printed:\n\(output())")
        try testbed.writeNode("/dev/iio:device4", FakeSensor.s32(455))
        #expect(waitUntil(seconds: 15) { output().contains("Compass heading changed: 45.500000") }, "monitor-sensor printed:\n\(output())")
    }

    static let crossChecked = ["HasAmbientLight", "LightLevel", "LightLevelUnit", "HasProximity", "ProximityNear",
                               "HasCompass", "CompassHeading"]

    /// Debian's iio-sensor-proxy and orientationd on the same umockdev devices, each
    /// claimed by a client that then sees a change of every reading: the same
    /// properties, values and units.
    @Test(arguments: ["iio-poll-als", "iio-buffer-als", "applesmc"])
    func sameReadingsAsIioSensorProxy(light: String) throws {
        let lightDevice = switch light {
        case "iio-poll-als": FakeSensor.iioLight(raw: "80", scale: "0.5")
        case "iio-buffer-als": FakeSensor.bufferLight(raw: 0) + "\n" + FakeSensor.bufferLightTrigger
        default: FakeSensor.applesmcLight("(51,102)")
        }
        let devices = [lightDevice, FakeSensor.iioProximity(raw: "300", nearLevel: "100"),
                       FakeSensor.bufferCompass(raw: 0), FakeSensor.compassTrigger]

        /// Claims everything, changes every reading, and returns the properties once
        /// they hold the new readings.
        func observe(_ peer: Peer, _ testbed: UmockdevTestbed, log: () -> String) throws -> [String: Value] {
            for member in ["ClaimLight", "ClaimProximity", "ClaimCompass"] { try Self.claim(peer, member) }
            switch light {
            case "iio-poll-als": try testbed.setAttribute(FakeSensor.lightSyspath, "in_illuminance_raw", "300")
            case "iio-buffer-als": try testbed.writeNode("/dev/iio:device2", FakeSensor.s32(2345))
            default: try testbed.setAttribute(FakeSensor.applesmcSyspath, "light", "(204,10)")
            }
            try testbed.setAttribute(FakeSensor.proximitySyspath, "in_proximity_raw", "20")
            try testbed.writeNode("/dev/iio:device4", FakeSensor.s32(1234))
            let expectedLight = light == "iio-poll-als" ? 150 : light == "iio-buffer-als" ? 234.5 : 80
            var values: [String: Value] = [:]
            let settled = peer.waitUntil(seconds: 15) {
                values = Dictionary(uniqueKeysWithValues: Self.crossChecked.compactMap { name in (try? Self.get(peer, name)).map { (name, $0) } })
                func near(_ value: Value?, _ expected: Double) -> Bool {
                    if case .double(let v)? = value { abs(v - expected) < 1e-4 } else { false }
                }
                return near(values["LightLevel"], expectedLight) && values["ProximityNear"] == .bool(false)
                    && near(values["CompassHeading"], 123.4)
            }
            #expect(settled, "\(values)\n\(log())")
            return values
        }

        let (fixture, peer) = try Self.start(devices)
        let ours = try observe(peer, fixture.testbed) { fixture.stderr }

        let other = try IioSensorProxy(devices)
        let theirs = try observe(other.peer, other.testbed) { other.process.stderr }
        // iio-sensor-proxy scales in single precision.
        #expect(ours.keys.sorted() == theirs.keys.sorted())
        for (name, value) in ours {
            if case .double(let a) = value, case .double(let b)? = theirs[name] {
                #expect(abs(a - b) <= 1e-6 * max(1, abs(a)), "\(name): \(a) vs \(b)")
            } else {
                #expect(value == theirs[name], "\(name)")
            }
        }
    }
}

/// Debian's iio-sensor-proxy on its own bus and umockdev devices, to compare with.
struct IioSensorProxy {
    let bus: TestBus
    let testbed: UmockdevTestbed
    let process: ChildProcess
    let peer: Peer

    init(_ devices: [String]) throws {
        bus = try TestBus()
        testbed = try UmockdevTestbed()
        for device in devices { try testbed.add(device) }
        var environment = testbed.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        environment["G_MESSAGES_DEBUG"] = "all"
        process = try ChildProcess(product: "/usr/sbin/iio-sensor-proxy", arguments: [], directory: bus.directory, environment: environment)
        let peer = try Peer(bus: bus, watchManager: false)
        self.peer = peer
        let name = SensorProxySensorsTests.name
        #expect(peer.waitUntil {
            (try? peer.call("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", [.string(name)],
                            destination: "org.freedesktop.DBus").first == .bool(true)) ?? false
        }, "\(process.stderr)")
    }
}

/// umockdev descriptions of light, proximity and compass devices, with the udev type
/// iio-sensor-proxy's rules give each (so that it can read them too).
enum FakeSensor {
    static let lightSyspath = "/sys/devices/platform/als/iio:device1"

    static func iioLight(raw: String, scale: String, integrationTime: String? = "0.05") -> String {
        var text = "P: /devices/platform/als/iio:device1\nN: iio:device1\nE: SUBSYSTEM=iio\nE: IIO_SENSOR_PROXY_TYPE=iio-poll-als\n"
        text += "A: name=als\nA: in_illuminance_raw=\(raw)\nA: in_illuminance_scale=\(scale)\n"
        if let integrationTime { text += "A: in_illuminance_integration_time=\(integrationTime)\n" }
        return text
    }

    static let bufferLightSyspath = "/sys/devices/platform/hid-als/iio:device2"

    /// The HID sensor hub's ambient light: one s32 channel, in_intensity_both.
    static func bufferLight(raw: Int, scanType: String = "le:s32/32>>0") -> String {
        hubDevice(parent: "hid-als", number: 2, name: "als", type: "iio-buffer-als", channel: "in_intensity_both",
                  attributes: "A: in_intensity_both_raw=\(raw)\nA: in_intensity_scale=0.1\n", scanType: scanType)
    }

    /// A HID sensor hub device with a buffer of one channel.
    static func hubDevice(parent: String, number: Int, name: String, type: String, channel: String, attributes: String,
                          scanType: String) -> String {
        "P: /devices/platform/\(parent)/iio:device\(number)\nN: iio:device\(number)\nE: SUBSYSTEM=iio\n"
            + "E: DEVNAME=/dev/iio:device\(number)\nE: IIO_SENSOR_PROXY_TYPE=\(type)\nA: name=\(name)\n" + attributes
            + "A: buffer/enable=0\nA: buffer/length=2\nA: scan_elements/\(channel)_en=0\n"
            + "A: scan_elements/\(channel)_index=0\nA: scan_elements/\(channel)_type=\(scanType)\n"
            + "A: trigger/current_trigger=\(name)-dev\(number)\n"
    }

    static let hwmonSyspath = "/sys/devices/platform/applesmc.768/hwmon/hwmon3"
    static let applesmcSyspath = "/sys/devices/platform/applesmc.768"

    /// The Apple SMC with its light attribute on the platform device.
    static func applesmcLight(_ value: String) -> String {
        "P: /devices/platform/applesmc.768\nE: SUBSYSTEM=platform\nE: MODALIAS=platform:applesmc\nE: IIO_SENSOR_PROXY_TYPE=hwmon-als\nA: name=applesmc\nA: light=\(value)\n"
    }

    static func hwmonLight(_ value: String) -> String {
        "P: /devices/platform/applesmc.768/hwmon/hwmon3\nN: hwmon3\nE: SUBSYSTEM=hwmon\nE: IIO_SENSOR_PROXY_TYPE=hwmon-als\n"
            + "A: name=applesmc\nA: light=\(value)\n"
    }

    static let proximitySyspath = "/sys/devices/platform/prox/iio:device3"

    /// `nearLevel` in udev's property; `nearLevelAttribute` in the kernel's attribute.
    static func iioProximity(raw: String, nearLevel: String?, nearLevelAttribute: String? = nil) -> String {
        var text = "P: /devices/platform/prox/iio:device3\nN: iio:device3\nE: SUBSYSTEM=iio\nE: IIO_SENSOR_PROXY_TYPE=iio-poll-proximity\n"
        if let nearLevel { text += "E: PROXIMITY_NEAR_LEVEL=\(nearLevel)\n" }
        text += "A: name=stk3310\nA: in_proximity_raw=\(raw)\n"
        if let nearLevelAttribute { text += "A: in_proximity_nearlevel=\(nearLevelAttribute)\n" }
        return text
    }

    static let compassSyspath = "/sys/devices/platform/hid-magn/iio:device4"

    /// The HID sensor hub's compass: in_rot_from_north_magnetic_tilt_comp, s32, 0.1°.
    static func bufferCompass(raw: Int) -> String {
        hubDevice(parent: "hid-magn", number: 4, name: "magn_3d", type: "iio-buffer-compass",
                  channel: "in_rot_from_north_magnetic_tilt_comp",
                  attributes: "A: in_rot_from_north_magnetic_tilt_comp_raw=\(raw)\nA: in_rot_from_north_magnetic_tilt_comp_scale=0.1\n",
                  scanType: "le:s32/32>>0")
    }

    /// The data-ready triggers iio-sensor-proxy's buffer drivers look for ("<name>-dev<N>").
    static let bufferLightTrigger = "P: /devices/platform/hid-als/trigger2\nE: SUBSYSTEM=iio\nA: name=als-dev2\n"
    static let compassTrigger = "P: /devices/platform/hid-magn/trigger4\nE: SUBSYSTEM=iio\nA: name=magn_3d-dev4\n"

    static func s32(_ value: Int32) -> [UInt8] {
        let v = UInt32(bitPattern: value)
        return [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24)]
    }

    static let switchNode = "/dev/input/event7"
    static let switchParent = "P: /devices/platform/prox-switch/input/input7\nE: SUBSYSTEM=input\nE: NAME=\"Proximity Switch\"\n"
        + "A: name=Proximity Switch\nA: capabilities/sw=800\n"
    static let switchEvent = "P: /devices/platform/prox-switch/input/input7/event7\nN: input/event7\nE: SUBSYSTEM=input\n"
        + "E: DEVNAME=/dev/input/event7\n"

    /// EVIOCGSW answering SW_FRONT_PROXIMITY (bit 11) on or off.
    static func switchRecording(near: Bool) -> String {
        "@DEV \(switchNode)\nEVIOCGSW(0) 8 \(near ? "0008" : "0000")000000000000\n"
    }
}
