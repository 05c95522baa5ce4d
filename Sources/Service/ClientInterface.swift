import DBus
import OrientationEngine
import OrientationAPI

extension ClientObject {
    /// org.orientationd.Orientation1.Client, declared once.
    static let table = InterfaceTable<ClientObject>(
        name: OrientationAPI.clientInterface,
        doc: """
            One app's client object, created by CreateClient and owned by the calling \
            connection. Only the owner may call its methods; its signals and \
            PropertiesChanged are sent to the owner alone. It disappears when closed or \
            when the owner leaves the bus.
            """,
        methods: [
            .init("Start", doc: """
                The app wants readings. The sensor is read while at least one client is \
                started. When Start returns, the properties reflect a fresh reading (if a \
                sensor is present). Idempotent.
                """) { client, call throws(BusError) in
                return try client.service(for: call).requestStart(client, call)
            },
            .init("Stop", doc: "The app no longer wants readings; the properties keep their last values. Idempotent.") { client, call throws(BusError) in
                try client.service(for: call).stop(client)
                return .empty
            },
            .init("SetSupportedOrientations", in: [Argument("orientations", "as", doc: "The new SupportedOrientations: a non-empty list of distinct orientations."),
                  Argument("preferred", "s", doc: "The new PreferredOrientation, one of them; \"\" for the default.")], doc: """
                Replaces SupportedOrientations and PreferredOrientation ("" means the first \
                supported in the order normal, left-up, bottom-up, right-up), with the \
                validation of CreateClient, and re-evaluates InterfaceOrientation at once.
                """) { client, call throws(BusError) in
                let args = call.arguments
                let supported = try ClientOptions.parseSupported(args[0].stringArray ?? [])
                let preferred = try ClientOptions.resolvePreferred(args[1].stringValue ?? "", supported: supported)
                try client.service(for: call).setSupported(client, supported, preferred)
                return .empty
            },
            .init("Close", doc: "Stops the client and removes the object. Its number is never reused.") { client, call throws(BusError) in
                try client.service(for: call).close(client)
                return .empty
            },
        ],
        properties: [
            .init(ClientProperty.supportedOrientations.rawValue, "as", doc: "The orientations the app's interface can be laid out in, in the order given.") {
                .strings(($0.record?.options.supported ?? []).map(\.rawValue))
            },
            .init(ClientProperty.preferredOrientation.rawValue, "s", doc: "The orientation used when the device orientation is not supported and the current one no longer is.") {
                .string(($0.record?.options.preferred ?? .undefined).rawValue)
            },
            .init(ClientProperty.active.rawValue, "b", doc: "Whether the client is started.") { .bool($0.record?.active ?? false) },
            .init(ClientProperty.deviceOrientation.rawValue, "s", doc: """
                The manager's Orientation as this client sees it: frozen by RotationLocked \
                unless the client was created with FollowsLock=false. Not updated while the \
                client is stopped.
                """) { .string(($0.record?.device ?? .undefined).rawValue) },
            .init(ClientProperty.interfaceOrientation.rawValue, "s", doc: """
                The orientation the app's interface should be laid out in; always one of \
                SupportedOrientations.
                """) { .string(($0.record?.interface ?? .undefined).rawValue) },
            .init(ClientProperty.contentRotation.rawValue, "u", doc: """
                Degrees counter-clockwise (0, 90, 180 or 270) to rotate free-standing \
                content (icons, labels, a capture preview) inside the interface so that it \
                stays upright: (angle(DeviceOrientation) - angle(InterfaceOrientation)) mod \
                360, with normal 0, left-up 90, bottom-up 180, right-up 270; 0 while \
                DeviceOrientation is undefined.
                """) { .uint32($0.record?.contentRotation ?? 0) },
        ],
        signals: [
            .init("OrientationWillChange", [Argument("from", "s", doc: "The interface orientation before the change."),
                                            Argument("to", "s", doc: "The interface orientation after it (equal to from when only the content rotation changes)."),
                                            Argument("content_rotation", "u", doc: "The new ContentRotation: 0, 90, 180 or 270.")], doc: """
                Sent to the owner immediately before InterfaceOrientation and/or \
                ContentRotation change: from and to are interface orientations (equal when \
                only the content rotation changes), content_rotation the new \
                ContentRotation. The client's PropertiesChanged follows.
                """),
        ])

    /// The service, after checking that the caller owns this client.
    private func service(for call: MethodCall) throws(BusError) -> OrientationService {
        guard call.sender == owner else {
            throw .accessDenied("client \(path) belongs to another connection")
        }
        guard let service, record != nil else { throw .unknownObject("client \(path) no longer exists") }
        return service
    }
}
