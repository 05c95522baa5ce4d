import OrientationEngine
import Sensors
import Service
import Testing
import OrientationAPI

/// A sensor under the test's control: it counts starts and stops, hands samples to the
/// core when told, and answers `currentSample` with what the test set.
final class FakeSensor: SensorBackend {
    let identity: SensorIdentity
    var current: Sample?
    var gyroscopeName: String?
    var failure: SensorError?
    private(set) var starts = 0
    private(set) var stops = 0
    /// The times the core asked for an early reading at.
    private(set) var readingRequests: [Int64] = []
    private var handler: ((Sample) -> Void)?

    func requestReading(atMs: Int64) { readingRequests.append(atMs) }
    var delivery: SensorDelivery = .onChange

    init(name: String = "Fake accelerometer", device: String = "iio:device0", current: Sample? = nil) {
        identity = SensorIdentity(name: name, backend: BackendKind(rawValue: "fake"), device: device)
        self.current = current
    }

    /// How often the core started and stopped reading the gyroscope.
    private(set) var gyroscopeStarts = 0
    private(set) var gyroscopeStops = 0
    private var gyroscopeHandler: ((GyroscopeSample) -> Void)?

    func startGyroscope(handler: @escaping (GyroscopeSample) -> Void) {
        guard gyroscopeName != nil else { return }
        gyroscopeStarts += 1
        gyroscopeHandler = handler
    }

    func stopGyroscope() {
        gyroscopeStops += 1
        gyroscopeHandler = nil
    }

    func sendGyroscope(_ rate: GyroscopeSample) { gyroscopeHandler?(rate) }

    var running: Bool { handler != nil }

    func start(handler: @escaping (Sample) -> Void) throws(SensorError) {
        if let failure { throw failure }
        starts += 1
        self.handler = handler
    }

    func stop() {
        stops += 1
        handler = nil
        gyroscopeHandler = nil
    }

    func currentSample() -> Sample? { current }

    func send(_ sample: Sample) {
        current = sample
        handler?(sample)
    }
}

/// Rest readings of the IIO frame (m/s²).
enum Pose {
    static let normal = (x: 0.0, y: -9.81, z: 0.0)
    static let leftUp = (x: 9.81, y: 0.0, z: 0.0)
    static let bottomUp = (x: 0.0, y: 9.81, z: 0.0)
    static let rightUp = (x: -9.81, y: 0.0, z: 0.0)
    static let faceUp = (x: 0.0, y: 0.0, z: 9.81)
}

/// A core with a fake sensor, a clock of its own, and what the sensor made it say.
final class Harness {
    let sensor: FakeSensor
    let core: ServiceCore
    var timeMs: Int64 = 1000
    /// What the core said in answer to samples (not to calls).
    var sensorEmissions: [Emission] = []

    init(compat: Bool = false, current: (x: Double, y: Double, z: Double)? = Pose.normal, gyroscope: String? = nil) {
        sensor = FakeSensor(current: current.map { Sample(timeMs: 1000, x: $0.x, y: $0.y, z: $0.z) })
        sensor.gyroscopeName = gyroscope
        core = ServiceCore(sensor: sensor, tunables: EngineTunables(), sensorProxyCompat: compat)
        core.onSensorEmissions = { [unowned self] in self.sensorEmissions += $0 }
    }

    /// `ms` of samples at 50 Hz of the device at rest in `pose`; what they made the core say.
    @discardableResult
    func hold(_ pose: (x: Double, y: Double, z: Double), ms: Int = 1000, scale: Double = 1) -> [Emission] {
        sensorEmissions = []
        for _ in 0..<(ms / 20) {
            timeMs += 20
            sensor.send(Sample(timeMs: timeMs, x: pose.x * scale, y: pose.y * scale, z: pose.z * scale))
        }
        return sensorEmissions
    }

    func create(_ owner: String = ":1.1", supported: [Orientation] = Orientation.defined, preferred: Orientation? = nil,
                followsLock: Bool = true) throws -> ClientRecord {
        var options = ClientOptions()
        options.supported = supported
        options.preferred = preferred ?? InterfacePolicy.defaultPreferred(for: supported)
        options.followsLock = followsLock
        return try core.createClient(owner: owner, options: options)
    }

    /// Creates and starts a client.
    func started(_ owner: String = ":1.1", supported: [Orientation] = Orientation.defined, followsLock: Bool = true) throws -> ClientRecord {
        let client = try create(owner, supported: supported, followsLock: followsLock)
        _ = core.start(client.id)
        return core.client(client.id)!
    }
}

extension Emission {
    /// A short name for order checks.
    var tag: String {
        switch self {
        case .managerWillChange: "manager-will-change"
        case .managerChanged(let names, _): "manager:" + names.map(\.rawValue).joined(separator: ",")
        case .clientWillChange(let client, _, _, _): "will-change:" + client.path.split(separator: "/").last!
        case .clientChanged(let client, let names, _): "client\(client.path.split(separator: "/").last!):" + names.map(\.rawValue).joined(separator: ",")
        case .compatChanged(let names, let destination): "compat:" + names.map(\.rawValue).joined(separator: ",") + "@" + (destination ?? "*")
        case .warning: "warning"
        }
    }
}

@Suite struct ServiceCoreClientTests {
    /// Feeds `sensor`'s gyroscope one reading for 3 s (GyroStuckMs is 2 s) beside a still
    /// accelerometer; what the core said meanwhile.
    func stickGyroscope(_ h: Harness) -> [Emission] {
        var said: [Emission] = []
        for _ in 0..<150 {
            h.timeMs += 20
            h.sensor.sendGyroscope(GyroscopeSample(timeMs: h.timeMs, x: 0.01, y: 0, z: 0))
            h.sensorEmissions = []
            h.sensor.send(Sample(timeMs: h.timeMs, x: Pose.normal.x, y: Pose.normal.y, z: Pose.normal.z))
            said += h.sensorEmissions
        }
        return said
    }

    @Test func aGyroscopeGivenUpIsNotTriedAgainUntilAnotherSensorComes() throws {
        let h = Harness(gyroscope: "Fake gyroscope")
        #expect(h.core.manager.gyroscopeName == "Fake gyroscope")
        let client = try h.started()
        #expect(h.sensor.gyroscopeStarts == 1)
        let said = stickGyroscope(h)
        #expect(h.core.manager.gyroscopeName == "" && h.sensor.gyroscopeStops == 1)
        #expect(said.filter { if case .warning(let text) = $0 { text.contains("stuck") } else { false } }.count == 1, "\(said)")
        // Claimed again: neither read nor named.
        _ = h.core.stop(client.id)
        _ = h.core.start(client.id)
        #expect(h.sensor.gyroscopeStarts == 1 && h.core.manager.gyroscopeName == "")
        // Another sensor (hotplug) is tried afresh.
        let second = FakeSensor(name: "Second accelerometer", current: Sample(timeMs: h.timeMs, x: 0, y: -9.81, z: 0))
        second.gyroscopeName = "Second gyroscope"
        _ = h.core.replaceSensor(second)
        #expect(second.gyroscopeStarts == 1 && h.core.manager.gyroscopeName == "Second gyroscope")
    }

    @Test func anotherSensorNamesItsGyroscopeBeforeAnyoneClaimsIt() throws {
        let h = Harness(gyroscope: "Fake gyroscope")
        let client = try h.started()
        _ = stickGyroscope(h)
        _ = h.core.stop(client.id)
        // Nobody claims the new one: the engine that gave the first gyroscope up is not
        // reset, and must not speak for the second.
        let second = FakeSensor(name: "Second accelerometer")
        second.gyroscopeName = "Second gyroscope"
        _ = h.core.replaceSensor(second)
        #expect(h.core.manager.gyroscopeName == "Second gyroscope")
    }

    @Test func pathsCountUpAndAreNeverReused() throws {
        let h = Harness()
        let a = try h.create(), b = try h.create()
        #expect(a.path == "/org/orientationd/Orientation1/Client/1")
        #expect(b.path == "/org/orientationd/Orientation1/Client/2")
        _ = h.core.close(a.id)
        #expect(try h.create().path == "/org/orientationd/Orientation1/Client/3")
    }

    @Test func aNewClientIsStoppedAndTheSensorUntouched() throws {
        let h = Harness()
        let client = try h.create()
        #expect(!client.active)
        #expect(h.sensor.starts == 0)
        #expect(h.core.activeClients == 0)
        #expect(client.interface == .normal)  // device undefined: the preferred orientation
    }

    @Test func creationFollowsThePreferredOrientationWhileTheDeviceIsUnknown() throws {
        let h = Harness()
        let client = try h.create(supported: [.rightUp, .leftUp], preferred: .leftUp)
        #expect(client.interface == .leftUp)
        #expect(client.device == .undefined)
        #expect(client.contentRotation == 0)
    }

    @Test func aConnectionMayOwn64Clients() throws {
        let h = Harness()
        for _ in 0..<ServiceCore.maxClientsPerConnection { _ = try h.create(":1.7") }
        #expect(throws: ServiceCore.LimitExceeded.self) { try h.create(":1.7") }
        _ = try h.create(":1.8")
    }

    @Test func closingFreesTheOwnersSlot() throws {
        let h = Harness()
        var last: ClientRecord?
        for _ in 0..<ServiceCore.maxClientsPerConnection { last = try h.create(":1.7") }
        _ = h.core.close(last!.id)
        _ = try h.create(":1.7")
    }

    @Test func theDaemonHoldsAtMost4096Clients() throws {
        let h = Harness()
        for owner in 0..<(ServiceCore.maxClients / ServiceCore.maxClientsPerConnection) {
            for _ in 0..<ServiceCore.maxClientsPerConnection { _ = try h.create(":1.\(owner)") }
        }
        let error = #expect(throws: ServiceCore.LimitExceeded.self) { try h.create(":2.1") }
        #expect(error?.message == "the daemon already has 4096 clients")
    }

    @Test func startClaimsTheSensorOnceAndAnswersWithAFreshReading() throws {
        let h = Harness(current: Pose.leftUp)
        let first = try h.started()
        #expect(h.sensor.starts == 1)
        #expect(first.device == .leftUp)
        #expect(first.interface == .leftUp)
        _ = try h.started(":1.2")
        #expect(h.sensor.starts == 1)
        #expect(h.core.activeClients == 2)
    }

    @Test func startSaysTheManagerFirstThenTheClientThenActiveClients() throws {
        let h = Harness(current: Pose.leftUp)
        let client = try h.create(supported: [.normal])
        let said = h.core.start(client.id)
        #expect(said.map(\.tag) == ["manager-will-change", "manager:Orientation,Tilt", "will-change:1",
                                    "client1:Active,DeviceOrientation,ContentRotation", "manager:ActiveClients"])
        guard case .clientWillChange(_, let from, let to, let rotation) = said[2] else { Issue.record("\(said)"); return }
        #expect((from, to, rotation) == (.normal, .normal, 90))
    }

    @Test func startAndStopAreIdempotent() throws {
        let h = Harness()
        let client = try h.started()
        #expect(h.core.start(client.id).isEmpty)
        #expect(!h.core.stop(client.id).isEmpty)
        #expect(h.core.stop(client.id).isEmpty)
    }

    @Test func stoppingTheLastClientReleasesTheSensor() throws {
        let h = Harness()
        let a = try h.started(), b = try h.started(":1.2")
        _ = h.core.stop(a.id)
        #expect(h.sensor.running)
        let said = h.core.stop(b.id)
        #expect(!h.sensor.running && h.sensor.stops == 1)
        #expect(said.map(\.tag) == ["client2:Active", "manager:ActiveClients"])
        guard case .managerChanged(_, let values) = said[1] else { return }
        #expect(values.activeClients == 0)
    }

    @Test func aStoppedClientIsFrozen() throws {
        let h = Harness()
        let client = try h.started()
        _ = h.core.stop(client.id)
        _ = try h.started(":1.2")
        let said = h.hold(Pose.leftUp)
        #expect(!said.contains { if case .clientChanged(let c, _, _) = $0 { c.path == client.path } else { false } })
        #expect(h.core.client(client.id)?.device == .normal)
        #expect(h.core.orientation == .leftUp)
    }

    @Test func aStoppedClientsNewSetUsesItsLastDeviceOrientation() throws {
        let h = Harness()
        let client = try h.started(supported: [.normal])
        _ = h.core.stop(client.id)
        _ = try h.started(":1.2")
        h.hold(Pose.leftUp)
        _ = h.core.setSupported(client.id, Orientation.defined, preferred: .normal)
        #expect(h.core.client(client.id)?.interface == .normal)
        #expect(h.core.client(client.id)?.device == .normal)
    }

    @Test func closingAStartedClientSaysActiveClientsAndReleasesTheSensor() throws {
        let h = Harness()
        let client = try h.started()
        let said = h.core.close(client.id)
        #expect(said.map(\.tag) == ["manager:ActiveClients"])
        #expect(!h.sensor.running)
        #expect(h.core.client(client.id) == nil)
    }

    @Test func closingAStoppedClientSaysNothing() throws {
        let h = Harness()
        let client = try h.create()
        #expect(h.core.close(client.id).isEmpty)
        #expect(h.core.close(client.id).isEmpty)
    }

    @Test func anOwnerLeavingClosesItsClientsInCreationOrder() throws {
        let h = Harness()
        let a = try h.started(":1.5"), other = try h.started(":1.6"), b = try h.create(":1.5")
        let (closed, said) = h.core.ownerVanished(":1.5")
        #expect(closed.map(\.id) == [a.id, b.id])
        #expect(said.map(\.tag) == ["manager:ActiveClients"])
        #expect(h.core.client(other.id) != nil)
        #expect(h.sensor.running)
        #expect(h.core.ownerVanished(":1.5").closed.isEmpty)
    }

    @Test func unknownClientsAreIgnored() {
        let h = Harness()
        #expect(h.core.start(99).isEmpty)
        #expect(h.core.stop(99).isEmpty)
        #expect(h.core.close(99).isEmpty)
        #expect(h.core.setSupported(99, [.normal], preferred: .normal).isEmpty)
    }
}

@Suite struct ServiceCoreOrientationTests {
    @Test func aTurnIsSaidManagerFirstThenEachClientWillChangeFirst() throws {
        let h = Harness()
        _ = try h.started(":1.1")
        _ = try h.started(":1.2", supported: [.normal])
        let said = h.hold(Pose.leftUp)
        #expect(said.map(\.tag) == ["manager-will-change", "manager:Orientation",
                                    "will-change:1", "client1:DeviceOrientation,InterfaceOrientation",
                                    "will-change:2", "client2:DeviceOrientation,ContentRotation"], "\(said.map(\.tag))")
    }

    @Test func clientSignalsGoToTheirOwners() throws {
        let h = Harness()
        _ = try h.started(":1.1")
        _ = try h.started(":1.2")
        let owners = h.hold(Pose.bottomUp).compactMap { emission -> String? in
            switch emission {
            case .clientWillChange(let c, _, _, _), .clientChanged(let c, _, _): c.owner
            default: nil
            }
        }
        #expect(owners == [":1.1", ":1.1", ":1.2", ":1.2"])
    }

    @Test func theValuesSaidAreTheStateAfterTheChange() throws {
        let h = Harness()
        let client = try h.started(supported: [.normal])
        let said = h.hold(Pose.rightUp)
        guard case .clientChanged(_, _, let values)? = said.last else { Issue.record("\(said)"); return }
        #expect(values == h.core.client(client.id))
        #expect(values.contentRotation == 270)
        guard case .managerChanged(_, let manager) = said[1] else { return }
        #expect(manager.orientation == .rightUp)
        #expect(manager == h.core.manager)
    }

    @Test func aPortraitOnlyClientKeepsItsInterfaceAndTurnsItsContent() throws {
        let h = Harness()
        let client = try h.started(supported: [.normal])
        for (pose, rotation) in [(Pose.leftUp, UInt32(90)), (Pose.bottomUp, 180), (Pose.rightUp, 270), (Pose.normal, 0)] {
            let said = h.hold(pose)
            #expect(said.contains(.clientWillChange(client.address, from: .normal, to: .normal, contentRotation: rotation)), "\(said)")
            #expect(h.core.client(client.id)?.interface == .normal)
            #expect(h.core.client(client.id)?.contentRotation == rotation)
        }
    }

    @Test func anUnsupportedTurnKeepsTheInterface() throws {
        let h = Harness()
        let client = try h.started(supported: [.normal, .leftUp])
        h.hold(Pose.leftUp)
        h.hold(Pose.rightUp)
        #expect(h.core.client(client.id)?.interface == .leftUp)
        #expect(h.core.client(client.id)?.contentRotation == 180)
    }

    @Test func lyingFlatKeepsTheOrientationAndChangesTheTilt() throws {
        let h = Harness()
        _ = try h.started()
        h.hold(Pose.leftUp)
        let said = h.hold(Pose.faceUp)
        #expect(h.core.orientation == .leftUp)
        #expect(h.core.tilt == .faceUp)
        #expect(said.map(\.tag) == ["manager:Tilt"], "\(said.map(\.tag))")
    }

    @Test func samplesWhileNobodyWantsThemAreIgnored() throws {
        let h = Harness()
        #expect(h.core.sample(Sample(timeMs: 5000, x: 9.81, y: 0, z: 0)).isEmpty)
        #expect(h.core.orientation == .undefined)
    }

    @Test func aWrongScaleIsReportedOncePerSensor() throws {
        let h = Harness()
        _ = try h.started()
        var warnings = h.hold(Pose.normal, ms: 2000, scale: 26).filter { $0.tag == "warning" }
        warnings += h.hold(Pose.leftUp, ms: 2000, scale: 26).filter { $0.tag == "warning" }
        #expect(warnings.count == 1)
        guard case .warning(let text)? = warnings.first else { return }
        #expect(text.hasPrefix("Fake accelerometer: sensor scale looks wrong"), "\(text)")
        #expect(h.core.orientation == .leftUp)
    }

    @Test func aSensorThatCannotStartIsOneWarning() throws {
        let h = Harness()
        h.sensor.failure = SensorError("permission denied")
        let client = try h.create()
        let said = h.core.start(client.id)
        #expect(said.first == .warning("cannot start Fake accelerometer: permission denied (said once until it starts)"))
        #expect(h.core.engineDeadlineMs == nil)
        #expect(h.core.client(client.id)?.active == true)
        // An app that stops and starts its client again (a focus change): not said again.
        _ = h.core.stop(client.id)
        #expect(!h.core.start(client.id).contains { $0.tag == "warning" })
        // Started once, the next failure is news.
        _ = h.core.stop(client.id)
        h.sensor.failure = nil
        #expect(!h.core.start(client.id).contains { $0.tag == "warning" })
        _ = h.core.stop(client.id)
        h.sensor.failure = SensorError("device busy")
        #expect(h.core.start(client.id).first == .warning("cannot start Fake accelerometer: device busy (said once until it starts)"))
    }
}

@Suite struct ServiceCoreLockTests {
    @Test func theLockIsSaidWithItsValue() {
        let h = Harness()
        let said = h.core.setRotationLocked(true)
        #expect(said.map(\.tag) == ["manager:RotationLocked"])
        guard case .managerChanged(_, let values) = said[0] else { return }
        #expect(values.rotationLocked)
        #expect(h.core.setRotationLocked(true).isEmpty)
    }

    @Test func lockedNothingTurnsForClientsThatFollowTheLock() throws {
        let h = Harness()
        let client = try h.started()
        _ = h.core.setRotationLocked(true)
        let said = h.hold(Pose.leftUp)
        #expect(said.isEmpty, "\(said.map(\.tag))")
        #expect(h.core.orientation == .normal)
        #expect(h.core.client(client.id)?.device == .normal)
    }

    @Test func aClientThatIgnoresTheLockStillTurns() throws {
        let h = Harness()
        let follower = try h.started(":1.1")
        let ignorer = try h.started(":1.2", followsLock: false)
        _ = h.core.setRotationLocked(true)
        let said = h.hold(Pose.leftUp)
        #expect(said.map(\.tag) == ["will-change:2", "client2:DeviceOrientation,InterfaceOrientation"], "\(said.map(\.tag))")
        #expect(h.core.client(ignorer.id)?.interface == .leftUp)
        #expect(h.core.client(follower.id)?.interface == .normal)
    }

    @Test func unlockingAppliesTheCurrentOrientationAtOnce() throws {
        let h = Harness()
        _ = try h.started()
        _ = h.core.setRotationLocked(true)
        h.hold(Pose.bottomUp)
        let said = h.core.setRotationLocked(false)
        #expect(said.map(\.tag) == ["manager:RotationLocked", "manager-will-change", "manager:Orientation",
                                    "will-change:1", "client1:DeviceOrientation,InterfaceOrientation"], "\(said.map(\.tag))")
        #expect(h.core.orientation == .bottomUp)
    }

    @Test func aClientCreatedWhileLockedSeesTheLockedOrientation() throws {
        let h = Harness()
        _ = try h.started()
        _ = h.core.setRotationLocked(true)
        h.hold(Pose.leftUp)
        let follower = try h.started(":1.2")
        let ignorer = try h.started(":1.3", followsLock: false)
        #expect(follower.device == .normal)
        #expect(ignorer.device == .leftUp)
    }
}

@Suite struct ServiceCoreSupportedTests {
    @Test func aNewSetSaysOnlyWhatChanged() throws {
        let h = Harness(current: Pose.leftUp)
        let client = try h.started(supported: [.normal])
        let said = h.core.setSupported(client.id, [.normal, .leftUp], preferred: .normal)
        #expect(said.map(\.tag) == ["will-change:1", "client1:SupportedOrientations,InterfaceOrientation,ContentRotation"], "\(said.map(\.tag))")
        #expect(h.core.client(client.id)?.interface == .leftUp)
    }

    @Test func onlyThePreferredChanging() throws {
        let h = Harness()
        let client = try h.started(supported: [.normal, .leftUp])
        let said = h.core.setSupported(client.id, [.normal, .leftUp], preferred: .leftUp)
        #expect(said.map(\.tag) == ["client1:PreferredOrientation"])
    }

    @Test func theSameSetSaysNothing() throws {
        let h = Harness()
        let client = try h.started(supported: [.normal, .leftUp])
        #expect(h.core.setSupported(client.id, [.normal, .leftUp], preferred: .normal).isEmpty)
    }

    @Test func aSetWithoutTheCurrentFallsToThePreferred() throws {
        let h = Harness(current: Pose.bottomUp)
        let client = try h.started(supported: [.normal, .bottomUp])
        #expect(client.interface == .bottomUp)
        _ = h.core.setSupported(client.id, [.leftUp, .rightUp], preferred: .rightUp)
        #expect(h.core.client(client.id)?.interface == .rightUp)
        #expect(h.core.client(client.id)?.contentRotation == 270)
    }
}

@Suite struct ServiceCoreSensorTests {
    @Test func losingTheSensorMakesEverythingUndefinedButKeepsInterfaces() throws {
        let h = Harness(current: Pose.leftUp)
        let client = try h.started()
        let portrait = try h.started(":1.2", supported: [.normal])
        let said = h.core.replaceSensor(nil)
        // The content rotation of the portrait client goes 90 -> 0: announced first.
        #expect(said.map(\.tag) == ["manager:HasSensor,SensorName,SensorBackend,SensorDevice", "manager-will-change", "manager:Orientation,Tilt",
                                    "client1:DeviceOrientation", "will-change:2", "client2:DeviceOrientation,ContentRotation"],
                "\(said.map(\.tag))")
        #expect(h.core.client(portrait.id)?.interface == .normal)
        #expect(h.core.client(client.id)?.interface == .leftUp)
        #expect(h.core.client(client.id)?.contentRotation == 0)
        #expect(!h.core.hasSensor)
        #expect(h.sensor.stops == 1)
    }

    @Test func aNewSensorIsClaimedAtOnceWhileClientsAreStarted() throws {
        let h = Harness()
        _ = try h.started()
        let second = FakeSensor(name: "Second", current: Sample(timeMs: 5000, x: -9.81, y: 0, z: 0))
        let said = h.core.replaceSensor(second)
        #expect(second.starts == 1)
        #expect(h.core.orientation == .rightUp)
        #expect(said.first?.tag == "manager:SensorName")
        #expect(h.core.manager.sensorName == "Second")
    }

    @Test func aNewSensorWaitsForAClient() {
        let h = Harness()
        let second = FakeSensor(name: "Second")
        _ = h.core.replaceSensor(second)
        #expect(second.starts == 0)
    }

    @Test func theSameSensorAgainIsNothing() throws {
        let h = Harness()
        _ = try h.started()
        #expect(h.core.replaceSensor(h.sensor).isEmpty)
        #expect(h.sensor.starts == 1)
    }

    @Test func rearmingRestartsOnlyWhileWanted() throws {
        let h = Harness()
        #expect(h.core.rearmSensor().isEmpty)
        #expect(h.sensor.starts == 0)
        _ = try h.started()
        _ = h.core.rearmSensor()
        #expect((h.sensor.starts, h.sensor.stops) == (2, 1))
    }

    @Test func newTunablesRestartTheSensorAndTheSameDoNot() throws {
        let h = Harness()
        _ = try h.started()
        #expect(h.core.setTunables(EngineTunables()).isEmpty)
        #expect(h.sensor.starts == 1)
        var tunables = EngineTunables()
        tunables.calmAngleDeg += 5
        _ = h.core.setTunables(tunables)
        #expect(h.sensor.starts == 2)
        #expect(h.core.tunables == tunables)
    }

    @Test(arguments: [SensorDelivery.stream, .onChange])
    func aStepAsksThePolledSensorForItsNextReadingEarly(delivery: SensorDelivery) throws {
        // A poll streams (its gap is no rest), and still asks: the early reading itself
        // completes the rest.
        let h = Harness()
        h.sensor.delivery = delivery
        _ = try h.started()
        h.hold(Pose.normal, ms: 1000)
        // A poll at 10 Hz finds the device turned: the rest it may be needs one more
        // reading, which the core asks for sooner than the next poll (100 ms later).
        h.timeMs += 100
        h.sensor.send(Sample(timeMs: h.timeMs, x: 9.81, y: 0, z: 0))
        let wanted = try #require(h.sensor.readingRequests.last)
        #expect(wanted > h.timeMs && wanted < h.timeMs + 100, "asked for \(wanted - h.timeMs) ms later")
        // That reading, agreeing, completes the change.
        h.sensor.send(Sample(timeMs: wanted, x: 9.81, y: 0, z: 0))
        #expect(h.core.orientation == .leftUp)
    }

    @Test func theDeadlineCompletesADecisionAfterTheSensorFallsSilent() throws {
        let h = Harness()
        _ = try h.started()
        #expect(h.core.engineDeadlineMs == nil)
        // One sample of a new pose, then silence (an event-driven sensor).
        h.timeMs += 20
        h.sensor.send(Sample(timeMs: h.timeMs, x: 9.81, y: 0, z: 0))
        guard let deadline = h.core.engineDeadlineMs else { Issue.record("no deadline pending"); return }
        var said: [Emission] = []
        var now = deadline
        for _ in 0..<10 where h.core.orientation != .leftUp {
            said += h.core.deadlineReached(nowMs: now)
            now = h.core.engineDeadlineMs ?? now + 100
        }
        #expect(h.core.orientation == .leftUp)
        #expect(said.contains { $0.tag == "manager-will-change" })
    }

    @Test func aStreamingSensorsGapSetsNoDeadline() throws {
        // A poll or a recording (SensorDelivery.stream): one sample of a new pose, then a
        // dropout, is no news; the next sample decides.
        let h = Harness()
        h.sensor.delivery = .stream
        _ = try h.started()
        h.timeMs += 20
        h.sensor.send(Sample(timeMs: h.timeMs, x: 9.81, y: 0, z: 0))
        #expect(h.core.engineDeadlineMs == nil)
        #expect(h.core.deadlineReached(nowMs: h.timeMs + 10_000).isEmpty)
        #expect(h.core.orientation == .normal)
    }

    @Test func noDeadlineWhileNobodyReads() throws {
        let h = Harness()
        let client = try h.started()
        h.timeMs += 20
        h.sensor.send(Sample(timeMs: h.timeMs, x: 9.81, y: 0, z: 0))
        _ = h.core.stop(client.id)
        #expect(h.core.engineDeadlineMs == nil)
        #expect(h.core.deadlineReached(nowMs: h.timeMs + 10_000).isEmpty)
    }

    @Test func aDeadlineWithNoReadingGivesNothing() throws {
        let h = Harness(current: nil)
        _ = try h.started()
        h.sensor.current = nil
        #expect(h.core.deadlineReached(nowMs: 99_999).isEmpty)
    }

    @Test func shutdownStopsTheSensor() throws {
        let h = Harness()
        _ = try h.started()
        h.core.shutdown()
        #expect(!h.sensor.running)
    }
}

@Suite struct ServiceCoreCompatTests {
    @Test func aClaimReadsTheSensorAndTheLastReleaseStopsIt() {
        let h = Harness(compat: true, current: Pose.leftUp)
        _ = h.core.addCompatClaim(":1.9")
        #expect(h.sensor.running)
        #expect(h.core.orientation == .leftUp)
        _ = h.core.addCompatClaim(":1.10")
        #expect(h.sensor.starts == 1)
        _ = h.core.releaseCompatClaim(":1.9")
        #expect(h.sensor.running)
        _ = h.core.releaseCompatClaim(":1.10")
        #expect(!h.sensor.running)
    }

    @Test func changesGoToEachClaimerInOrder() {
        let h = Harness(compat: true)
        _ = h.core.addCompatClaim(":1.20")
        _ = h.core.addCompatClaim(":1.10")
        let compat = h.hold(Pose.rightUp).filter { $0.tag.hasPrefix("compat") }.map(\.tag)
        #expect(compat == ["compat:AccelerometerOrientation@:1.10", "compat:AccelerometerOrientation@:1.20"])
    }

    @Test func availabilityIsBroadcast() {
        let h = Harness(compat: true)
        let said = h.core.replaceSensor(nil)
        #expect(said.contains(.compatChanged([.hasAccelerometer], destination: nil)))
    }

    @Test func aSecondClaimByTheSameOwnerIsNothing() {
        let h = Harness(compat: true)
        _ = h.core.addCompatClaim(":1.9")
        #expect(h.core.addCompatClaim(":1.9").isEmpty)
        #expect(h.core.compatClaimers == [":1.9"])
    }

    @Test func withoutTheFacadeClaimsAreIgnored() {
        let h = Harness(compat: false)
        #expect(h.core.addCompatClaim(":1.9").isEmpty)
        #expect(h.core.compatClaimers == nil)
        #expect(!h.sensor.running)
    }

    @Test func aClaimerLeavingReleasesItsClaim() {
        let h = Harness(compat: true)
        _ = h.core.addCompatClaim(":1.9")
        _ = h.core.ownerVanished(":1.9")
        #expect(h.core.compatClaimers == [])
        #expect(!h.sensor.running)
    }
}

@Suite struct ServiceCoreProcessTests {
    @Test func startedClientsOfAProcessInCreationOrder() throws {
        let h = Harness()
        let a = try h.started(":1.1"), _ = try h.started(":1.2"), b = try h.started(":1.1"), stopped = try h.create(":1.1")
        #expect(h.core.ownersWithoutProcess == [":1.1", ":1.2"])
        h.core.recordProcess(100, of: ":1.1")
        h.core.recordProcess(200, of: ":1.2")
        #expect(h.core.ownersWithoutProcess.isEmpty)
        #expect(h.core.startedClients(ofProcess: 100).map(\.id) == [a.id, b.id])
        #expect(!h.core.startedClients(ofProcess: 100).contains { $0.id == stopped.id })
        #expect(h.core.startedClients(ofProcess: 300).isEmpty)
    }

    @Test func aVanishedOwnersProcessIsForgotten() throws {
        let h = Harness()
        _ = try h.started(":1.1")
        h.core.recordProcess(100, of: ":1.1")
        _ = h.core.ownerVanished(":1.1")
        h.core.recordProcess(100, of: ":1.1")  // a late answer about a gone owner
        _ = try h.started(":1.2")
        #expect(h.core.ownersWithoutProcess == [":1.2"])
        #expect(h.core.startedClients(ofProcess: 100).isEmpty)
    }
}

/// The manager's properties are one struct: what changed is found by comparing the old
/// value with the new, property by property, from the values the bus carries.
@Suite struct ManagerStateTests {
    /// Changing any one field is seen as a change of its property, and of no other: a
    /// property whose value did not come from its field would fail here.
    @Test(arguments: ManagerProperty.allCases)
    func eachFieldIsItsPropertysValue(property: ManagerProperty) {
        let old = ManagerState()
        var new = old
        switch property {
        case .hasSensor: new.hasSensor = true
        case .sensorName: new.sensorName = "Accelerometer"
        case .sensorBackend: new.sensorBackend = "iio-poll"
        case .sensorDevice: new.sensorDevice = "iio:device0"
        case .gyroscopeName: new.gyroscopeName = "Gyroscope"
        case .orientation: new.orientation = .leftUp
        case .tilt: new.tilt = .faceUp
        case .rotationLocked: new.rotationLocked = true
        case .activeClients: new.activeClients = 2
        }
        #expect(new.changes(since: old) == [property])
        #expect(old.changes(since: old).isEmpty)
    }

    /// SensorDevice comes from the sensor's identity, set once when it was opened: a
    /// sensor of the same name on another device announces SensorDevice alone.
    @Test func sensorDeviceIsTheIdentitysAndAnnouncedAlone() throws {
        let h = Harness()
        #expect(h.core.manager.sensorDevice == "iio:device0")
        #expect(h.core.manager[.sensorDevice] == .string("iio:device0"))
        let moved = FakeSensor(name: "Fake accelerometer", device: "iio:device3")
        let said = h.core.replaceSensor(moved)
        #expect(said.map(\.tag) == ["manager:SensorDevice"])
        #expect(h.core.manager.sensorDevice == "iio:device3")
        #expect(h.core.replaceSensor(nil).first?.tag == "manager:HasSensor,SensorName,SensorBackend,SensorDevice")
        #expect(h.core.manager.sensorDevice == "")
    }

    /// Laptop-mode suppression holds the sensor's samples back without wrapping it: the
    /// properties still say which sensor it is, and the orientation does not move while
    /// held; once released, the next samples decide again.
    @Test func heldSamplesKeepTheOrientationAndTheSensorsIdentity() throws {
        let h = Harness()
        var held = false
        h.core.samplesHeld = { held }
        _ = try h.started()
        #expect(h.core.orientation == .normal)
        held = true
        h.hold(Pose.leftUp)
        #expect(h.core.orientation == .normal)
        #expect(h.core.manager.sensorName == "Fake accelerometer" && h.core.manager.sensorDevice == "iio:device0")
        #expect(h.core.awaitingFirstReading)
        held = false
        h.hold(Pose.leftUp)
        #expect(h.core.orientation == .leftUp)
    }
}
