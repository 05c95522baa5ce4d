import DBus
import OrientationEngine
import OrientationAPI

/// `net.hadess.SensorProxy`, iio-sensor-proxy's interface, served from the same sensor
/// and engine as the native API (`--sensor-proxy-compat`), so GNOME, KDE, phosh and
/// `monitor-sensor` keep working unchanged.
///
/// As iio-sensor-proxy does: claims are per connection and released when the
/// connection leaves the bus; readings are current when ClaimAccelerometer returns;
/// values are updated only while someone holds a claim and their changes are sent to
/// the claimers alone. Availability changes (HasAccelerometer) are broadcast, so that
/// an app can wait for a sensor before claiming it. Light, proximity and compass are
/// present and inert.
final class SensorProxyFacade {
    static let busName = "net.hadess.SensorProxy"
    static let path = "/net/hadess/SensorProxy"
    static let compassPath = "/net/hadess/SensorProxy/Compass"
    static let interface = "net.hadess.SensorProxy"
    static let compassInterface = "net.hadess.SensorProxy.Compass"

    /// The state is the core's; claims go through the closures the adapter gave (they
    /// need polkit). The facade knows neither the adapter nor its type.
    private let core: ServiceCore
    private let claim: (MethodCall) -> MethodCall.Reply
    private let release: (String) -> Void

    init(core: ServiceCore, claim: @escaping (MethodCall) -> MethodCall.Reply, release: @escaping (String) -> Void) {
        self.core = core
        self.claim = claim
        self.release = release
    }

    var hasAccelerometer: Bool { core.hasSensor }
    var orientation: Orientation { core.orientation }
    var tilt: Tilt { core.tilt }

    /// Does nothing, successfully: the sensors this facade does not have.
    private static func inert(_ name: String, doc: String) -> InterfaceTable<SensorProxyFacade>.Method {
        .init(name, doc: doc) { _, _ throws(BusError) in .empty }
    }

    static let table = InterfaceTable<SensorProxyFacade>(
        name: interface,
        doc: "iio-sensor-proxy's interface, served by orientationd (--sensor-proxy-compat) from the same sensor and engine.",
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
            inert("ClaimLight", doc: "Accepted; there is no light sensor."),
            inert("ReleaseLight", doc: "Accepted; there is no light sensor."),
            inert("ClaimProximity", doc: "Accepted; there is no proximity sensor."),
            inert("ReleaseProximity", doc: "Accepted; there is no proximity sensor."),
        ],
        properties: [
            .init("HasAccelerometer", "b", doc: "Whether a display accelerometer is present.") { .bool($0.hasAccelerometer) },
            .init("AccelerometerOrientation", "s", doc: "undefined, normal, bottom-up, left-up or right-up.") {
                .string($0.orientation.rawValue)
            },
            .init("AccelerometerTilt", "s", doc: "undefined, vertical, tilted-up, tilted-down, face-up or face-down.") {
                .string($0.tilt.rawValue)
            },
            .init("HasAmbientLight", "b", doc: "Always false.") { _ in .bool(false) },
            .init("LightLevelUnit", "s", doc: "Always lux.") { _ in .string("lux") },
            .init("LightLevel", "d", doc: "Always 0.") { _ in .double(0) },
            .init("HasProximity", "b", doc: "Always false.") { _ in .bool(false) },
            .init("ProximityNear", "b", doc: "Always false.") { _ in .bool(false) },
        ])

    static let compassTable = InterfaceTable<SensorProxyFacade>(
        name: compassInterface,
        doc: "iio-sensor-proxy's compass interface; there is no compass.",
        methods: [
            inert("ClaimCompass", doc: "Accepted; there is no compass."),
            inert("ReleaseCompass", doc: "Accepted; there is no compass."),
        ],
        properties: [
            .init("HasCompass", "b", doc: "Always false.") { _ in .bool(false) },
            .init("CompassHeading", "d", doc: "Always -1.") { _ in .double(-1) },
        ])
}
