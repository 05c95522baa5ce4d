import OrientationEngine
import Sensors
import OrientationAPI

/// The service without a bus: the client registry, per-owner limits, the sensor claim,
/// the engine, the lock, compatibility claims and the processes behind owners. It takes
/// events and returns what must be announced, in the contract's order, with the values
/// and destinations; `OrientationService` is the thin adapter that sends them, as
/// `InterfacePolicy` and iio-sensor-proxy's `orientation_calc` are pure cores of their
/// own. Nothing here talks to D-Bus, reads a clock or blocks; time comes in with the
/// events (`deadlineReached(nowMs:)`).
public final class ServiceCore {
    public static let maxClientsPerConnection = 64
    public static let maxClients = 4096

    /// Where announcements caused by the sensor go (its samples arrive on their own,
    /// not as answers to a call): the adapter sends them. Called after every sample, with
    /// nothing to say too, since `engineDeadlineMs` may have moved.
    public var onSensorEmissions: (([Emission]) -> Void)?

    /// Whether the sensor's samples are held back now (laptop-mode suppression: a
    /// convertible used as a laptop keeps its orientation). Asked at each sample; the
    /// adapter answers from the tablet-mode switch. The sensor itself is not wrapped, so
    /// what it is (its identity, its gyroscope) is always its own.
    public var samplesHeld: () -> Bool = { false }

    private var sensor: SensorBackend?
    private var engine: OrientationEngine
    private var sensorRunning = false
    /// Whether the current sensor's wrong scale was reported (once per sensor).
    private var scaleWarned = false
    /// Whether the sensor's failure to start was said: once until it starts (an app that
    /// starts and stops its client at every focus change would repeat it each time).
    private var startFailureSaid = false
    /// Whether the engine gave the current sensor's gyroscope up (stuck, disagreeing with
    /// the accelerometer, only unusable readings). It is then neither read nor fused at
    /// later claims: a broken gyroscope is said once, and is not trusted again for the
    /// seconds it would take a fresh engine to find it out. A new sensor (hotplug, a
    /// reload that reopens it) or new tunables try it afresh.
    private var gyroscopeGivenUp = false

    /// What the manager's properties say; changed only through `update` (or between
    /// a copy and `announce(since:)`), so that what changed is found by comparing.
    public private(set) var manager = ManagerState()
    /// The engine's confirmed orientation, lock or not: what clients with
    /// FollowsLock=false see.
    private var sensorOrientation: Orientation = .undefined

    // Clients by number; numbers only grow, so ascending order is creation order.
    private var clients: [UInt64: ClientRecord] = [:]
    private var clientCountByOwner: [String: Int] = [:]
    private var nextClientID: UInt64 = 1

    /// iio-sensor-proxy's claims (`--sensor-proxy-compat`): nil when the facade is off.
    public private(set) var compatClaimers: Set<String>?
    /// The process behind each owner asked about so far; an entry goes with its owner.
    private var processByOwner: [String: UInt32] = [:]

    public init(sensor: SensorBackend?, tunables: EngineTunables, sensorProxyCompat: Bool = false) {
        self.sensor = sensor
        engine = OrientationEngine(tunables: tunables)
        compatClaimers = sensorProxyCompat ? [] : nil
        refreshSensorProperties(&manager)
    }

    // MARK: What the properties say

    public var orientation: Orientation { manager.orientation }
    public var tilt: Tilt { manager.tilt }
    public var rotationLocked: Bool { manager.rotationLocked }
    public var activeClients: Int { manager.activeClients }
    public var hasSensor: Bool { manager.hasSensor }
    public var tunables: EngineTunables { engine.tunables }

    /// The sensor's properties, from its identity (set once when it was opened) and the
    /// gyroscope fused with it: the sensor's, unless the engine found it unusable (stuck,
    /// or disagreeing with the accelerometer); "" when none is used.
    private func refreshSensorProperties(_ state: inout ManagerState) {
        state.hasSensor = sensor != nil
        state.sensorName = sensor?.identity.name ?? ""
        state.sensorBackend = sensor?.identity.backend.rawValue ?? ""
        state.sensorDevice = sensor?.identity.device ?? ""
        state.gyroscopeName = gyroscopeName
    }

    public func client(_ id: UInt64) -> ClientRecord? { clients[id] }

    /// Every client, in creation order.
    public var allClients: [ClientRecord] { clients.keys.sorted().compactMap { clients[$0] } }

    /// When the engine's pending decision completes without another sample (monotonic
    /// ms); nil while nothing is pending or the sensor is not read. The adapter arms a
    /// timer for it and calls `deadlineReached(nowMs:)`.
    public var engineDeadlineMs: Int64? { sensorRunning ? engine.nextDeadlineMs : nil }

    /// The sensor is being read but has given nothing yet (an IIO buffer without raw
    /// attributes, before its first frame): the adapter holds Start's reply for it.
    public var awaitingFirstReading: Bool { sensorRunning && currentSample() == nil }

    /// The sensor is open and read (a client is started or a claim held).
    public var readingSensor: Bool { sensorRunning }

    /// The sensor is read while a client is started or a compatibility claim is held.
    private var sensorWanted: Bool { activeClients > 0 || !(compatClaimers?.isEmpty ?? true) }

    // MARK: Clients

    public struct LimitExceeded: Error, Equatable { public var message: String }

    /// A new client owned by `owner`, stopped, its interface orientation evaluated.
    public func createClient(owner: String, options: ClientOptions) throws(LimitExceeded) -> ClientRecord {
        guard clients.count < Self.maxClients else {
            throw LimitExceeded(message: "the daemon already has \(Self.maxClients) clients")
        }
        let owned = clientCountByOwner[owner, default: 0]
        guard owned < Self.maxClientsPerConnection else {
            throw LimitExceeded(message: "a connection may own at most \(Self.maxClientsPerConnection) clients; close one first")
        }
        let client = ClientRecord(id: nextClientID, owner: owner, options: options, device: view(for: options.followsLock))
        nextClientID += 1
        clients[client.id] = client
        clientCountByOwner[owner] = owned + 1
        return client
    }

    public func start(_ id: UInt64) -> [Emission] {
        guard let client = clients[id], !client.active else { return [] }
        var out: [Emission] = []
        if !sensorWanted { out += claimSensor() }
        clients[id]?.active = true
        let before = manager
        manager.activeClients += 1
        let device = view(for: client.options.followsLock)
        let interface = InterfacePolicy.reevaluated(device: device, current: client.interface,
                                                    supported: client.options.supported, preferred: client.options.preferred)
        out += move(id, device: device, interface: interface, extra: [.active])
        out += announce(since: before)
        return out
    }

    public func stop(_ id: UInt64) -> [Emission] {
        guard var client = clients[id], client.active else { return [] }
        client.active = false
        clients[id] = client
        let before = manager
        manager.activeClients -= 1
        if !sensorWanted { releaseSensor() }
        return [.clientChanged(client.address, [.active], client)] + announce(since: before)
    }

    /// SetSupportedOrientations, validated by the caller.
    public func setSupported(_ id: UInt64, _ supported: [Orientation], preferred: Orientation) -> [Emission] {
        guard let client = clients[id] else { return [] }
        var names: [ClientProperty] = []
        if supported != client.options.supported { names.append(.supportedOrientations) }
        if preferred != client.options.preferred { names.append(.preferredOrientation) }
        clients[id]?.options.supported = supported
        clients[id]?.options.preferred = preferred
        // A stopped client keeps its last device orientation; a started one sees the current.
        let device = client.active ? view(for: client.options.followsLock) : client.device
        let interface = InterfacePolicy.reevaluated(device: device, current: client.interface, supported: supported, preferred: preferred)
        return move(id, device: device, interface: interface, extra: names)
    }

    /// Close (or the owner gone): the client stops and is removed.
    public func close(_ id: UInt64) -> [Emission] {
        guard let client = clients[id] else { return [] }
        var out: [Emission] = []
        if client.active {
            clients[id]?.active = false
            out += update { $0.activeClients -= 1 }
            if !sensorWanted { releaseSensor() }
        }
        clients[id] = nil
        let remaining = clientCountByOwner[client.owner, default: 1] - 1
        clientCountByOwner[client.owner] = remaining > 0 ? remaining : nil
        return out
    }

    /// An owner left the bus: its clients (returned, in creation order) are closed and
    /// its compatibility claim released.
    public func ownerVanished(_ owner: String) -> (closed: [ClientRecord], emissions: [Emission]) {
        processByOwner[owner] = nil
        var out = releaseCompatClaim(owner)
        guard clientCountByOwner[owner] != nil else { return ([], out) }
        let owned = allClients.filter { $0.owner == owner }
        for client in owned { out += close(client.id) }
        return (owned, out)
    }

    // MARK: Processes

    /// The owners of started clients whose process is not known yet.
    public var ownersWithoutProcess: Set<String> {
        Set(clients.values.filter(\.active).map(\.owner)).filter { processByOwner[$0] == nil }
    }

    /// What the bus said about an owner's process (GetConnectionUnixProcessID).
    public func recordProcess(_ pid: UInt32, of owner: String) {
        guard clientCountByOwner[owner] != nil || compatClaimers?.contains(owner) == true else { return }
        processByOwner[owner] = pid
    }

    /// ClientsForProcess: the started clients of `pid`, in creation order.
    public func startedClients(ofProcess pid: UInt32) -> [ClientRecord] {
        allClients.filter { $0.active && processByOwner[$0.owner] == pid }
    }

    // MARK: Lock and compatibility claims

    /// The lock as it was when the daemon last stopped, holding `orientation`: set before
    /// anyone listens (nothing is announced), so the screen comes back as it was locked.
    public func restoreRotationLock(orientation: Orientation) {
        manager.rotationLocked = true
        manager.orientation = orientation
    }

    public func setRotationLocked(_ locked: Bool) -> [Emission] {
        guard locked != rotationLocked else { return [] }
        var out = update { $0.rotationLocked = locked }
        if !locked { out += applyEngineState() }
        return out
    }

    /// ClaimAccelerometer: readings are current when it returns.
    public func addCompatClaim(_ owner: String) -> [Emission] {
        guard compatClaimers != nil else { return [] }
        let wasWanted = sensorWanted
        guard compatClaimers?.insert(owner).inserted == true else { return [] }
        return wasWanted ? [] : claimSensor()
    }

    public func releaseCompatClaim(_ owner: String) -> [Emission] {
        guard compatClaimers?.remove(owner) != nil else { return [] }
        if !sensorWanted { releaseSensor() }
        return []
    }

    // MARK: Sensor

    /// Puts `newSensor` in place of the current one (nil: none). Losing the sensor makes
    /// Orientation (and every client's device orientation) undefined; a new sensor is
    /// claimed at once while someone wants readings, and its first reading applies.
    public func replaceSensor(_ newSensor: SensorBackend?) -> [Emission] {
        if let sensor, let newSensor, sensor === newSensor { return [] }
        releaseSensor()
        let hadSensor = hasSensor
        sensor = newSensor
        scaleWarned = false
        startFailureSaid = false
        gyroscopeGivenUp = false
        var out = update(refreshSensorProperties)
        if hadSensor != hasSensor, compatClaimers != nil { out.append(.compatChanged([.hasAccelerometer], destination: nil)) }
        if newSensor == nil {
            engine.reset()
            sensorOrientation = .undefined
            out += publish(orientation: .undefined, tilt: .undefined)
        }
        if sensorWanted { out += claimSensor() }
        return out
    }

    /// A fresh start of the same sensor while someone wants readings (resume, reload).
    public func rearmSensor() -> [Emission] {
        guard sensorWanted else { return [] }
        releaseSensor()
        return claimSensor()
    }

    /// New engine tunables: a fresh engine, fed at once from a fresh reading. Clients stay.
    public func setTunables(_ tunables: EngineTunables) -> [Emission] {
        guard tunables != engine.tunables else { return [] }
        engine = OrientationEngine(tunables: tunables)
        gyroscopeGivenUp = false
        return rearmSensor()
    }

    /// Stops reading the sensor (at exit: an IIO buffer left enabled keeps streaming).
    public func shutdown() { releaseSensor() }

    /// A sample from the sensor.
    public func sample(_ sample: Sample) -> [Emission] {
        guard sensorWanted, sensorRunning, !samplesHeld() else { return [] }
        var out = engine.feed(sample) ? applyEngineState() : []
        if let wanted = engine.readingWantedMs { sensor?.requestReading(atMs: wanted) }
        out += gyroscopeNews()
        if !scaleWarned, let warning = engine.scaleWarning {
            scaleWarned = true
            out.append(.warning("\(sensor?.name ?? "sensor"): \(warning)"))
        }
        return out
    }

    /// The engine's deadline passed without a new sample: the sensor's last reading still
    /// holds (event-driven sensors are silent while nothing changes), at `nowMs` on the
    /// monotonic clock every backend stamps its samples with.
    public func deadlineReached(nowMs: Int64) -> [Emission] {
        guard sensorRunning, sensorWanted else { return [] }
        // No new reading: the engine decides at the time (its deadline at least, the
        // timer having fired for it), with the last reading standing. Feeding that
        // reading again would make a sensor that fell silent look as if it kept sending.
        let due = max(nowMs, engine.nextDeadlineMs ?? nowMs)
        return engine.advance(toMs: due) ? applyEngineState() : []
    }

    private func claimSensor() -> [Emission] {
        guard let sensor, !sensorRunning else { return [] }
        engine.reset(delivery: sensor.delivery)
        do {
            try sensor.start { [weak self] sample in
                guard let self else { return }
                // Even when there is nothing to say: the engine's deadline may have moved.
                self.onSensorEmissions?(self.sample(sample))
            }
            if !gyroscopeGivenUp { sensor.startGyroscope { [weak self] rate in self?.engine.feedGyroscope(rate) } }
            sensorRunning = true
            startFailureSaid = false
        } catch {
            guard !startFailureSaid else { return [] }
            startFailureSaid = true
            return [.warning("cannot start \(sensor.name): \(error) (said once until it starts)")]
        }
        // The fresh reading: Start returns with current properties.
        guard let sample = currentSample() else { return gyroscopeNews() }
        engine.feed(sample)
        return applyEngineState() + gyroscopeNews()
    }

    /// What the engine said of the gyroscope since: its one-line warnings, and a new
    /// GyroscopeName when it gave the gyroscope up (or a new sensor names another).
    /// (Called at every sample: it compares the one name rather than copying and
    /// comparing the whole manager state, a third of a poll tick's own work.)
    private func gyroscopeNews() -> [Emission] {
        var out: [Emission] = []
        while let warning = engine.gyroscopeWarning { out.append(.warning("\(sensor?.name ?? "sensor"): \(warning)")) }
        if engine.gyroscopeRejected, !gyroscopeGivenUp {
            gyroscopeGivenUp = true
            sensor?.stopGyroscope()
        }
        let name = gyroscopeName
        guard name != manager.gyroscopeName else { return out }
        return out + update { $0.gyroscopeName = name }
    }

    /// The gyroscope fused with the accelerometer: the sensor's while it has one and the
    /// engine has not given it up.
    private var gyroscopeName: String { gyroscopeGivenUp ? "" : sensor?.gyroscopeName ?? "" }

    /// The sensor's freshest sample, unless samples are held back.
    private func currentSample() -> Sample? { samplesHeld() ? nil : sensor?.currentSample() }

    private func releaseSensor() {
        guard sensorRunning else { return }
        sensor?.stop()
        sensorRunning = false
    }

    // MARK: Publishing

    /// The device orientation a client sees.
    private func view(for followsLock: Bool) -> Orientation { followsLock ? manager.orientation : sensorOrientation }

    /// The engine's state: the manager first (will-change, then PropertiesChanged), then
    /// each started client (will-change, then PropertiesChanged), in creation order.
    private func applyEngineState() -> [Emission] {
        // Flat or unknown keeps the last orientation.
        if engine.orientation != .undefined { sensorOrientation = engine.orientation }
        let newTilt = engine.tilt == .undefined ? manager.tilt : engine.tilt
        return publish(orientation: manager.rotationLocked ? manager.orientation : sensorOrientation, tilt: newTilt)
    }

    private func publish(orientation newOrientation: Orientation, tilt newTilt: Tilt) -> [Emission] {
        var out: [Emission] = []
        if newOrientation != manager.orientation {
            out.append(.managerWillChange(from: manager.orientation, to: newOrientation))
        }
        let before = manager
        manager.orientation = newOrientation
        manager.tilt = newTilt
        let names = manager.changes(since: before)
        out += announce(since: before)
        if let claimers = compatClaimers, !names.isEmpty {
            let compatNames: [CompatProperty] = names.map { $0 == .orientation ? .accelerometerOrientation : .accelerometerTilt }
            for claimer in claimers.sorted() { out.append(.compatChanged(compatNames, destination: claimer)) }
        }
        for client in allClients where client.active {
            let device = view(for: client.options.followsLock)
            guard device != client.device else { continue }
            let interface = InterfacePolicy.afterDeviceChange(to: device, current: client.interface, supported: client.options.supported)
            out += move(client.id, device: device, interface: interface)
        }
        return out
    }

    /// Moves a client and says it: will-change first, then PropertiesChanged.
    private func move(_ id: UInt64, device: Orientation, interface: Orientation, extra: [ClientProperty] = []) -> [Emission] {
        guard let change = clients[id]?.move(device: device, interface: interface), let record = clients[id] else { return [] }
        var out: [Emission] = []
        if let will = change.willChange {
            out.append(.clientWillChange(record.address, from: will.from, to: will.to, contentRotation: will.contentRotation))
        }
        let names = extra + change.properties
        if !names.isEmpty { out.append(.clientChanged(record.address, names, record)) }
        return out
    }

    /// Changes the manager's properties and says which changed (PropertiesChanged).
    private func update(_ change: (inout ManagerState) -> Void) -> [Emission] {
        let before = manager
        change(&manager)
        return announce(since: before)
    }

    /// PropertiesChanged for what differs from `before` (nothing when nothing does).
    private func announce(since before: ManagerState) -> [Emission] {
        let names = manager.changes(since: before)
        return names.isEmpty ? [] : [.managerChanged(names, manager)]
    }
}
