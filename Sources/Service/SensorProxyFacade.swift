import DBus
import OrientationEngine
import OrientationAPI
import Sensors

/// `net.hadess.SensorProxy`, iio-sensor-proxy's interface, served from the same sensor
/// and engine as the native API (`--sensor-proxy-compat`), so GNOME, KDE, phosh, GeoClue
/// and `monitor-sensor` keep working unchanged; and, as iio-sensor-proxy does, the
/// machine's ambient light, proximity and compass sensors (`ClaimedSensor`).
///
/// As iio-sensor-proxy does: claims are per connection and released when the
/// connection leaves the bus; readings are current when a claim returns; values are
/// updated only while someone holds a claim and their changes are sent to the claimers
/// alone. Availability changes (Has…) are broadcast, so that an app can wait for a
/// sensor before claiming it.
final class SensorProxyFacade {
    static let busName = "net.hadess.SensorProxy"
    static let path = "/net/hadess/SensorProxy"
    static let compassPath = "/net/hadess/SensorProxy/Compass"
    static let interface = "net.hadess.SensorProxy"
    static let compassInterface = "net.hadess.SensorProxy.Compass"

    /// The state is the core's and the claimed sensors'; claims go through the closures
    /// the adapter gave (they need polkit). The facade knows neither the adapter nor its
    /// type.
    private let core: ServiceCore
    let sensors: [AuxiliaryKind: ClaimedSensor]
    private let claim: (MethodCall) -> MethodCall.Reply
    private let release: (String) -> Void
    private let claimOther: (AuxiliaryKind, MethodCall) -> MethodCall.Reply

    init(core: ServiceCore, sensors: [AuxiliaryKind: ClaimedSensor], claim: @escaping (MethodCall) -> MethodCall.Reply,
         release: @escaping (String) -> Void, claimOther: @escaping (AuxiliaryKind, MethodCall) -> MethodCall.Reply) {
        self.core = core
        self.sensors = sensors
        self.claim = claim
        self.release = release
        self.claimOther = claimOther
    }

    var hasAccelerometer: Bool { core.hasSensor }
    var orientation: Orientation { core.orientation }
    var tilt: Tilt { core.tilt }

    func has(_ kind: AuxiliaryKind) -> Bool { sensors[kind]?.isPresent ?? false }
    private func reading(_ kind: AuxiliaryKind) -> AuxiliaryReading? { sensors[kind]?.reading }

    /// 0 before the first reading, as iio-sensor-proxy says it.
    var lightLevel: Double { if case .light(let level, _)? = reading(.light) { level } else { 0 } }
    /// The unit of the last reading; else the unit IIO light sensors report.
    var lightLevelUnit: LightUnit { if case .light(_, let unit)? = reading(.light) { unit } else { .lux } }
    var proximityNear: Bool { if case .proximity(let near)? = reading(.proximity) { near } else { false } }
    /// -1 while unknown.
    var compassHeading: Double { if case .heading(let degrees)? = reading(.compass) { degrees } else { -1 } }

    /// The properties a sensor's change touches, on its object (the compass has its own).
    static func changedProperties(_ kind: AuxiliaryKind, presence: Bool) -> (path: String, interface: String, names: [String]) {
        switch kind {
        case .light: (path, interface, (presence ? ["HasAmbientLight"] : []) + ["LightLevelUnit", "LightLevel"])
        case .proximity: (path, interface, (presence ? ["HasProximity"] : []) + ["ProximityNear"])
        case .compass: (compassPath, compassInterface, (presence ? ["HasCompass"] : []) + ["CompassHeading"])
        }
    }

    private static func claimMethod(_ name: String, _ kind: AuxiliaryKind) -> InterfaceTable<SensorProxyFacade>.Method {
        .init(name, doc: """
            Start reading the \(kind.rawValue) sensor for this connection; its reading is \
            current when it returns. Accepted when there is none (it is read when one \
            appears). Released when the connection leaves the bus.
            """) { facade, call throws(BusError) in
            facade.claimOther(kind, call)
        }
    }

    private static func releaseMethod(_ name: String, _ kind: AuxiliaryKind) -> InterfaceTable<SensorProxyFacade>.Method {
        .init(name, doc: "Stop reading the \(kind.rawValue) sensor for this connection.") { facade, call throws(BusError) in
            facade.sensors[kind]?.release(call.sender)
            return .empty
        }
    }

    static let table = InterfaceTable<SensorProxyFacade>(
        name: interface,
        doc: "iio-sensor-proxy's interface, served by orientationd (--sensor-proxy-compat): the accelerometer from the same sensor and engine as the native API, and the ambient light and proximity sensors.",
        methods: [
            .init("ClaimAccelerometer", doc: """
                Start receiving accelerometer updates; readings are current when it \
                returns. Per connection, released when the connection leaves the bus.
                """) { facade, call throws(BusError) in
                facade.claim(call)
            },
            .init("ReleaseAccelerometer", doc: "Stop receiving accelerometer updates.") { facade, call throws(BusError) in
                facade.release(call.sender)
                return .empty
            },
            claimMethod("ClaimLight", .light),
            releaseMethod("ReleaseLight", .light),
            claimMethod("ClaimProximity", .proximity),
            releaseMethod("ReleaseProximity", .proximity),
        ],
        properties: [
            .init("HasAccelerometer", "b", doc: "Whether a display accelerometer is present.") { .bool($0.hasAccelerometer) },
            .init("AccelerometerOrientation", "s", doc: "undefined, normal, bottom-up, left-up or right-up.") {
                .string($0.orientation.rawValue)
            },
            .init("AccelerometerTilt", "s", doc: "undefined, vertical, tilted-up, tilted-down, face-up or face-down.") {
                .string($0.tilt.rawValue)
            },
            .init("HasAmbientLight", "b", doc: "Whether an ambient light sensor is present.") { .bool($0.has(.light)) },
            .init("LightLevelUnit", "s", doc: """
                The unit of LightLevel: lux (IIO light sensors), or vendor (a percentage, \
                hwmon light sensors).
                """) { .string($0.lightLevelUnit.rawValue) },
            .init("LightLevel", "d", doc: "The ambient light level, updated while claimed; 0 before the first reading.") {
                .double($0.lightLevel)
            },
            .init("HasProximity", "b", doc: "Whether a proximity sensor is present.") { .bool($0.has(.proximity)) },
            .init("ProximityNear", "b", doc: """
                Whether something is near the sensor (above the device's near level, \
                udev's PROXIMITY_NEAR_LEVEL or in_proximity_nearlevel, or the proximity \
                switch on); updated while \
                claimed, false before the first reading.
                """) { .bool($0.proximityNear) },
        ])

    static let compassTable = InterfaceTable<SensorProxyFacade>(
        name: compassInterface,
        doc: "iio-sensor-proxy's compass interface. Its bus policy lets only the geoclue user call it.",
        methods: [
            claimMethod("ClaimCompass", .compass),
            releaseMethod("ReleaseCompass", .compass),
        ],
        properties: [
            .init("HasCompass", "b", doc: "Whether a compass is present.") { .bool($0.has(.compass)) },
            .init("CompassHeading", "d", doc: "Degrees from magnetic north, updated while claimed; -1 while unknown.") {
                .double($0.compassHeading)
            },
        ])
}
