import OrientationClient

/// The demo's pages: each one of the four behaviours of the API.
enum Page: String, CaseIterable {
    case camera, relay, navigation, matching

    var title: String {
        switch self {
        case .camera: "Camera"
        case .relay: "Relay"
        case .navigation: "Navigation"
        case .matching: "Matching"
        }
    }
}

/// The pages of the navigation page's own stack, each with the orientations it supports
/// (what a view controller's supportedInterfaceOrientations says); the container forwards
/// the top one's with SetSupportedOrientations.
enum NavigationPage: String, CaseIterable {
    case list, detail, presentation

    var title: String {
        switch self {
        case .list: "List (portrait only)"
        case .detail: "Detail (all four)"
        case .presentation: "Presentation (landscape, prefers left-up)"
        }
    }

    var supported: [Orientation] {
        switch self {
        case .list: [.normal]
        case .detail: Orientation.defined
        case .presentation: [.leftUp, .rightUp]
        }
    }

    /// A preferred orientation for presentation (preferredInterfaceOrientationForPresentation).
    var preferred: Orientation? { self == .presentation ? .leftUp : nil }
}

/// Which orientations the app declares for what is on screen: the visible page's, and on
/// the navigation page the top of its stack.
struct Declared: Equatable {
    var supported: [Orientation]
    var preferred: Orientation?

    static func of(_ page: Page, navigationTop: NavigationPage) -> Declared {
        switch page {
        case .camera: Declared(supported: [.normal])  // static main view; controls turn
        case .relay: Declared(supported: Orientation.defined)
        case .navigation: Declared(supported: navigationTop.supported, preferred: navigationTop.preferred)
        case .matching: Declared(supported: [.normal])  // the interface stays portrait
        }
    }
}

/// The matching page's image: it turns with the device only into the orientations it
/// allows, and keeps its last allowed angle otherwise.
struct MatchingImage {
    static let allowed: [Orientation] = [.normal, .leftUp]
    /// Degrees counter-clockwise inside the (portrait) interface.
    private(set) var rotation: UInt32 = 0

    /// Follows a new state: the device's angle when it is in an allowed orientation (the
    /// page's interface is portrait, so that is the angle that keeps the image upright,
    /// whatever page declared what when the device turned), the previous angle otherwise.
    mutating func follow(device: Orientation) {
        guard Self.allowed.contains(device) else { return }
        rotation = UInt32(device.degrees)
    }
}

/// The app-delegate pattern: the app receives OrientationWillChange once and relays it to
/// every page that observes it, in the order they registered.
final class OrientationRelay {
    typealias Observer = (_ from: Orientation, _ to: Orientation, _ contentRotation: UInt32) -> Void
    private var observers: [(name: String, observer: Observer)] = []

    func observe(as name: String, _ observer: @escaping Observer) { observers.append((name, observer)) }

    /// Hands the will-change to every observer; returns their names, in order.
    @discardableResult
    func relay(from: Orientation, to: Orientation, contentRotation: UInt32) -> [String] {
        for (_, observer) in observers { observer(from, to, contentRotation) }
        return observers.map(\.name)
    }
}

/// An angle that turns smoothly to its target, the short way round, over `durationMs`
/// (0: at once, as in screenshots).
struct AnimatedAngle {
    private(set) var target: Double = 0
    private var start: Double = 0
    private var startMs: Int64 = 0
    var durationMs: Int64

    init(durationMs: Int64) { self.durationMs = durationMs }

    /// Starts turning toward `degrees` from wherever the angle is at `nowMs`.
    mutating func turn(to degrees: Double, nowMs: Int64) {
        let current = value(atMs: nowMs)
        var delta = (degrees - current).truncatingRemainder(dividingBy: 360)
        if delta > 180 { delta -= 360 }
        if delta < -180 { delta += 360 }
        start = current
        target = current + delta
        startMs = nowMs
    }

    /// Puts the angle at `degrees` at once.
    mutating func jump(to degrees: Double) {
        let current = target
        var delta = (degrees - current).truncatingRemainder(dividingBy: 360)
        if delta > 180 { delta -= 360 }
        if delta < -180 { delta += 360 }
        target = current + delta
        start = target
        startMs = 0
    }

    func value(atMs nowMs: Int64) -> Double {
        guard durationMs > 0, nowMs < startMs + durationMs else { return target }
        let t = Double(nowMs - startMs) / Double(durationMs)
        let eased = t * t * (3 - 2 * t)
        return start + (target - start) * eased
    }

    func isMoving(atMs nowMs: Int64) -> Bool { durationMs > 0 && nowMs < startMs + durationMs && start != target }
}

extension Orientation {
    /// Degrees counter-clockwise (the API's angles), 0 for undefined.
    var degrees: Double { Double(angle ?? 0) }
}
