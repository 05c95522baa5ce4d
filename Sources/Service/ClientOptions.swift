import DBus
import OrientationEngine
import OrientationAPI

/// What an app says about itself when it creates a client: the CreateClient options,
/// validated.
public struct ClientOptions: Equatable, Sendable {
    public var supported: [Orientation] = Orientation.defined
    public var preferred: Orientation = .normal
    public var followsLock = true

    public init() {}

    /// Decodes and validates CreateClient's `a{sv}`. Every problem is an InvalidArgs
    /// error whose message names it; nothing is partially applied.
    public static func decode(_ options: Value) throws(BusError) -> ClientOptions {
        guard let entries = options.stringKeyedEntries else { throw .invalidArgs("options must be a{sv}") }
        var result = ClientOptions()
        var seen = Set<String>()
        var supported: [Orientation]?
        var preferredName = ""
        for (key, wrapped) in entries {
            guard seen.insert(key).inserted else { throw .invalidArgs("option \(key) is given twice") }
            let value = wrapped.unwrappedVariant
            switch key {
            case "SupportedOrientations":
                guard case .array("s", _) = value, let names = value.stringArray else {
                    throw .invalidArgs("option SupportedOrientations must be of type 'as', not '\(value.signature)'")
                }
                supported = try parseSupported(names)
            case "PreferredOrientation":
                guard case .string(let name) = value else {
                    throw .invalidArgs("option PreferredOrientation must be of type 's', not '\(value.signature)'")
                }
                preferredName = name
            case "FollowsLock":
                guard case .bool(let flag) = value else {
                    throw .invalidArgs("option FollowsLock must be of type 'b', not '\(value.signature)'")
                }
                result.followsLock = flag
            default:
                throw .invalidArgs("unknown option '\(key)' (known: SupportedOrientations, PreferredOrientation, FollowsLock)")
            }
        }
        result.supported = supported ?? Orientation.defined
        result.preferred = try resolvePreferred(preferredName, supported: result.supported)
        return result
    }

    /// Validates an orientation list: non-empty, known names, no duplicates.
    public static func parseSupported(_ names: [String]) throws(BusError) -> [Orientation] {
        guard !names.isEmpty else { throw .invalidArgs("the list of supported orientations is empty") }
        var result: [Orientation] = []
        for name in names {
            guard let orientation = Orientation(rawValue: name), orientation != .undefined else {
                throw .invalidArgs("unknown orientation '\(name)' (expected normal, left-up, bottom-up or right-up)")
            }
            guard !result.contains(orientation) else { throw .invalidArgs("orientation '\(name)' is listed twice") }
            result.append(orientation)
        }
        return result
    }

    /// "" means the default; anything else must be one of `supported`.
    public static func resolvePreferred(_ name: String, supported: [Orientation]) throws(BusError) -> Orientation {
        if name.isEmpty { return InterfacePolicy.defaultPreferred(for: supported) }
        guard let orientation = Orientation(rawValue: name), orientation != .undefined else {
            throw .invalidArgs("unknown preferred orientation '\(name)'")
        }
        guard supported.contains(orientation) else {
            throw .invalidArgs("preferred orientation '\(name)' is not among the supported orientations")
        }
        return orientation
    }
}
