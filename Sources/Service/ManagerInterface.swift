import DBus
import OrientationEngine
import OrientationAPI

extension OrientationService {
    /// org.orientationd.Orientation1, declared once.
    static let table = InterfaceTable<OrientationService>(
        name: OrientationAPI.managerInterface,
        doc: """
            The device orientation service. The accelerometer is read only while at least \
            one client is started; Orientation and Tilt are updated only then, and keep \
            their last values otherwise and while the device lies flat.
            """,
        methods: [
            .init("CreateClient", in: [Argument("options", "a{sv}", doc: "SupportedOrientations (as), PreferredOrientation (s), FollowsLock (b); all optional.")],
                  out: [Argument("client", "o", doc: "The new client object's path, /org/orientationd/Orientation1/Client/N.")], doc: """
                Creates a client object owned by the calling connection. Options, all \
                optional: SupportedOrientations (as, a non-empty list of distinct \
                orientations, default all four), PreferredOrientation (s, one of them; "" \
                or absent means the first supported in the order normal, left-up, \
                bottom-up, right-up), FollowsLock (b, default true; false ignores \
                RotationLocked). Bad options give InvalidArgs; more than 64 clients per \
                connection or 4096 in all give LimitExceeded.
                """) { service, call throws(BusError) in
                let options = try ClientOptions.decode(call.arguments[0])
                let path = try service.createClient(owner: call.sender, options: options)
                return .values([.objectPath(path)])
            },
            .init("ClientsForProcess", in: [Argument("pid", "u", doc: "A process ID.")],
                  out: [Argument("clients", "ao", doc: "Its started client objects, in creation order; empty when there are none.")],
                  doc: """
                The started client objects whose owning connection belongs to process pid \
                (as the bus knows it: GetConnectionUnixProcessID), in creation order. Anyone \
                may call it; compositor helpers use it to honour the focused app's \
                supported orientations.
                """) { service, call throws(BusError) in
                guard let pid = call.arguments[0].uint32Value else { throw .invalidArgs("pid must be a uint32") }
                return service.requestClientsForProcess(pid, call)
            },
        ],
        properties: [
            property(.hasSensor, "b", doc: "Whether a display accelerometer is present and usable."),
            property(.sensorName, "s", doc: "Human-readable name of the sensor in use; \"\" when there is none."),
            property(.sensorBackend, "s", doc: "How the sensor is read: iio-buffer, iio-poll, input, simulated, replay; \"\" when there is none."),
            property(.sensorDevice, "s", doc: """
                The kernel name of the sensor's device as udev knows it (iio:device0, \
                event3; udevadm info /sys/class/…/NAME tells more); "" for the simulated \
                and replayed sensors, and when there is none.
                """),
            property(.gyroscopeName, "s", doc: """
                Human-readable name of the gyroscope fused with the accelerometer; "" when \
                none is used (no gyroscope, Gyroscope = off in the configuration, or it was \
                found unusable: stuck, or disagreeing with the accelerometer).
                """),
            property(.orientation, "s", doc: """
                The confirmed device orientation: undefined, normal, left-up (left edge on \
                top), bottom-up or right-up. undefined before the first reading and while \
                no sensor is present.
                """),
            property(.tilt, "s", doc: """
                Elevation of the screen normal: vertical (within 20 degrees of upright), \
                tilted-up, tilted-down (20 to 70 degrees), face-up, face-down (beyond 70 \
                degrees), or undefined before the first reading.
                """),
            .init(ManagerProperty.rotationLocked.rawValue, "b", doc: """
                Read-write. While true, Orientation does not change (nor the \
                DeviceOrientation of clients that follow the lock). Setting it to false \
                applies the current orientation at once. Kept across restarts, with the \
                orientation it holds, where the daemon has a state directory (systemd's \
                StateDirectory=: /var/lib/orientationd/state).
                """, get: { $0.core.manager[.rotationLocked] }, deferrableSet: { service, value, call throws(BusError) in
                    service.requestRotationLocked(value.boolValue ?? false, call)
                }),
            property(.activeClients, "u", doc: "Number of started clients."),
        ],
        signals: [
            .init("OrientationWillChange", [Argument("from", "s", doc: "The orientation before the change."),
                                            Argument("to", "s", doc: "The orientation after it.")], doc: """
                Emitted immediately before Orientation changes; the PropertiesChanged \
                carrying the new value follows it.
                """),
        ])
}

extension OrientationService {
    /// A read-only manager property: its value is the core's `ManagerState`'s.
    fileprivate static func property(_ name: ManagerProperty, _ signature: String, doc: String) -> InterfaceTable<OrientationService>.Property {
        .init(name.rawValue, signature, doc: doc) { $0.core.manager[name] }
    }
}
