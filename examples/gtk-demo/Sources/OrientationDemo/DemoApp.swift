import CGtk4
import Glibc
import OrientationClient

/// The demo's window and its one OrientationClient, on GLib's main loop: the client's
/// descriptor is a GLib fd source, and `dispatch()` runs when it is readable.
final class DemoApp {
    struct Options {
        var bus: OrientationClient.Bus = .system
        /// `--state-log`, opened before anything else starts.
        var stateLog: StateLog?
        var screenshots: String?
    }

    private let options: Options
    private let loop = MainLoop()
    private let client: OrientationClient
    private let log: StateLog?
    private let relay = OrientationRelay()

    private var state = OrientationClient.State()
    private var page = Page.camera
    private var navigation: [NavigationPage] = [.list]
    private var matching = MatchingImage()
    private var status = ""
    /// The Relay page's log: the last turn of the device, as the app saw it (the
    /// will-change, whom it was relayed to, the change it announced).
    private var relayLines: [String] = []
    /// The lines of a will-change whose change has not arrived yet.
    private var pendingRelay: [String] = []
    /// The device orientation the last logged turn went to.
    private var lastTurn: Orientation?
    private var error = ""
    private var updatingLock = false

    // What is drawn, animated from the moment OrientationWillChange arrives.
    private var device: AnimatedAngle
    private var interface: AnimatedAngle
    private var content: AnimatedAngle
    private var image: AnimatedAngle

    // Widgets (owned by GTK through the window).
    private var window: Widget!
    private var stack: Widget!
    private var areas: [Page: Widget] = [:]
    private var values: [Page: Widget] = [:]
    private var statusLabel: Widget!
    private var lockToggle: Widget!
    private var relayLog: Widget!
    private var navigationLabel: Widget!
    private var errorLabel: Widget!
    private var matchingLabel: Widget!

    private var screenshotsTaken: Set<Orientation> = []
    /// Relay screenshots are taken only right after a turn seen on the Relay page.
    private var relayTaken: Set<Orientation> = []
    private var capturing = false

    init(options: Options) throws(OrientationClient.Error) {
        self.options = options
        let animationMs: Int64 = options.screenshots == nil ? 300 : 0
        device = AnimatedAngle(durationMs: animationMs)
        interface = AnimatedAngle(durationMs: animationMs)
        content = AnimatedAngle(durationMs: animationMs)
        image = AnimatedAngle(durationMs: animationMs)
        log = options.stateLog
        let declared = Declared.of(.camera, navigationTop: .list)
        client = try OrientationClient(bus: options.bus, configuration: .init(supported: declared.supported, preferred: declared.preferred),
                                       waitForService: true)
    }

    /// Builds the window, starts the client and runs until the window closes or a signal.
    func run() -> Int32 {
        buildWindow()
        client.onEvent = { [unowned self] event in self.handle(event) }
        do { try client.start() } catch { return fail("cannot start the client: \(error)") }
        loop.watch(fd: client.descriptor) { [unowned self] in self.client.dispatch() }
        loop.onTerminationSignal { [unowned self] in Gtk.destroy(self.window) }
        if client.isAttached {
            state = client.state
            status = client.state.hasSensor ? "sensor: \(client.state.sensorName)" : "no accelerometer"
            show(animated: false)
            record("attached")
        } else {
            status = "waiting for orientationd"
            record("waiting")
        }
        updateLabels()
        Gtk.present(window)
        captureIfNeeded()
        loop.run()
        client.close()
        record("exit")
        return 0
    }

    private func fail(_ message: String) -> Int32 {
        printError("orientation-demo: \(message)\n")
        return 1
    }

    // MARK: Events

    private func handle(_ event: OrientationClient.Event) {
        switch event {
        case .willChange(let from, let to, let rotation):
            pendingRelay = []
            let observers = relay.relay(from: from, to: to, contentRotation: rotation)
            pendingRelay.append("\(Self.clock())   relayed to \(observers.joined(separator: ", ")), in that order")
            record("will-change", [("from", from.rawValue), ("to", to.rawValue), ("to_content", String(rotation)),
                                   ("relayed_to", observers.joined(separator: ","))])
        case .changed(let new):
            let before = state
            state = new
            show(animated: true)
            // A turn of the device (not a page declaring other orientations): it becomes
            // the Relay page's log, with the will-change that announced it.
            if new.deviceOrientation != before.deviceOrientation, !pendingRelay.isEmpty {
                relayLines = pendingRelay + [
                    "\(Self.clock()) changed: device \(new.deviceOrientation.rawValue), interface \(new.interfaceOrientation.rawValue), content \(new.contentRotation)°",
                ]
                lastTurn = new.deviceOrientation
            }
            pendingRelay = []
            if new != before { record("changed") }
            captureIfNeeded()
        case .attached(let new):
            state = new
            status = new.hasSensor ? "sensor: \(new.sensorName)" : "no accelerometer"
            error = ""
            // The daemon came (back): what the visible page declares applies again.
            declareVisiblePage()
            show(animated: false)
            record("attached")
            captureIfNeeded()
        case .serviceLost:
            status = "service lost: waiting for orientationd"
            record("service-lost")
        case .sensorChanged(let hasSensor, let name):
            state.hasSensor = hasSensor
            state.sensorName = name
            status = hasSensor ? "sensor: \(name)" : "no accelerometer"
            record("sensor", [("name", name.isEmpty ? "-" : name)])
        case .lockChanged(let locked):
            state.rotationLocked = locked
            updatingLock = true
            Gtk.setActive(lockToggle, locked)
            updatingLock = false
            record("lock", [("locked", String(locked))])
        case .tiltChanged(let tilt):
            state.tilt = tilt
        }
        updateLabels()
    }

    /// Turns the drawing to the state: the device, the interface, the content.
    private func show(animated: Bool) {
        let now = nowMs()
        matching.follow(device: state.deviceOrientation)
        let targets = [(\DemoApp.device, state.deviceOrientation.degrees), (\DemoApp.interface, state.interfaceOrientation.degrees),
                       (\DemoApp.content, Double(state.contentRotation)), (\DemoApp.image, Double(matching.rotation))]
        for (angle, degrees) in targets {
            if animated { self[keyPath: angle].turn(to: degrees, nowMs: now) } else { self[keyPath: angle].jump(to: degrees) }
        }
        animate()
    }

    /// Redraws the visible page every frame while something turns.
    private func animate() {
        guard let area = areas[page] else { return }
        area.queueDraw()
        area.onEveryFrame { [unowned self] in
            area.queueDraw()
            let now = nowMs()
            return [self.device, self.interface, self.content, self.image].contains { $0.isMoving(atMs: now) }
        }
    }

    // MARK: Pages

    private func pageChanged() {
        guard let name = Gtk.visiblePage(of: stack), let new = Page(rawValue: name), new != page else { return }
        page = new
        declareVisiblePage()
        show(animated: false)
        record("page")
        updateLabels()
    }

    /// The navigation-controller pattern: forward the visible page's supported
    /// orientations (on the navigation page, the top of its stack's) to the daemon.
    private func declareVisiblePage() {
        let declared = Declared.of(page, navigationTop: navigation.last ?? .list)
        guard declared.supported != client.configuration.supported || declared.preferred != client.configuration.preferred else { return }
        do {
            try client.setSupported(declared.supported, preferred: declared.preferred)
            if client.isAttached { state = client.state }
            error = ""
            record("declared", [("preferred", declared.preferred?.rawValue ?? "-")])
        } catch {
            self.error = "refused: \(error.message)"
            record("refused", [("error", "\"\(error.message)\"")])
        }
        show(animated: true)
    }

    private func push(_ top: NavigationPage) {
        guard navigation.last != top else { return }
        navigation.append(top)
        declareVisiblePage()
        record("navigation")
        updateLabels()
    }

    private func pop() {
        guard navigation.count > 1 else { return }
        navigation.removeLast()
        declareVisiblePage()
        record("navigation")
        updateLabels()
    }

    /// A programming error a page could make: declaring no orientation. The daemon refuses
    /// it; the app shows the error and keeps its previous set.
    private func declareNothing() {
        do {
            try client.setSupported([])
            error = ""
        } catch {
            self.error = "refused: \(error.message)"
            record("refused", [("error", "\"\(error.message)\"")])
        }
        updateLabels()
    }

    // MARK: Window

    private func buildWindow() {
        stack = Gtk.stack()
        for page in Page.allCases {
            let area = Gtk.drawingArea(width: 380, height: 420) { [unowned self] cairo, width, height in
                self.draw(page, cairo, width, height)
            }
            area.expand()
            areas[page] = area
            let value = Gtk.label("")
            gtk_widget_add_css_class(value.pointer, "monospace")
            values[page] = value
            let explanation = Gtk.label(Self.explanation(page))
            gtk_label_set_wrap(explanation.opaque, 1)
            let side = Gtk.box(vertical: true, [explanation, value])
            gtk_widget_set_size_request(side.pointer, 330, -1)
            switch page {
            case .camera, .matching:
                if page == .matching {
                    matchingLabel = Gtk.label("")
                    Gtk.append(matchingLabel, to: side)
                }
            case .relay:
                relayLog = Gtk.logLabel()
                Gtk.append(relayLog, to: side)
                relay.observe(as: "relay-page") { [unowned self] from, to, rotation in
                    self.pendingRelay.append("\(Self.clock()) will-change \(from.rawValue) → \(to.rawValue), content \(rotation)°, received once")
                }
            case .navigation:
                navigationLabel = Gtk.label("")
                errorLabel = Gtk.label("")
                gtk_label_set_wrap(errorLabel.opaque, 1)
                let buttons = Gtk.box(vertical: false, [
                    Gtk.button("Open detail") { [unowned self] in self.push(.detail) },
                    Gtk.button("Present") { [unowned self] in self.push(.presentation) },
                    Gtk.button("Back") { [unowned self] in self.pop() },
                ])
                Gtk.append(navigationLabel, to: side)
                Gtk.append(buttons, to: side)
                Gtk.append(Gtk.button("Declare no orientation (refused)") { [unowned self] in self.declareNothing() }, to: side)
                Gtk.append(errorLabel, to: side)
            }
            let content = Gtk.box(vertical: false, spacing: 12, [area, side])
            content.setMargins(12)
            Gtk.addPage(content, name: page.rawValue, title: page.title, to: stack)
        }
        // Every page observes the relayed will-change: the drawing starts turning at once.
        relay.observe(as: "animation") { [unowned self] _, to, rotation in
            let now = nowMs()
            self.interface.turn(to: to.degrees, nowMs: now)
            self.content.turn(to: Double(rotation), nowMs: now)
            self.animate()
        }
        relay.observe(as: "camera-page") { [unowned self] _, _, _ in
            // The camera's icons turn with the content rotation: nothing else to do
            // than to have started the animation above; the page notes when it began.
            if self.page == .camera { self.areas[.camera]?.queueDraw() }
        }
        statusLabel = Gtk.label("")
        statusLabel.expand()
        gtk_widget_set_vexpand(statusLabel.pointer, 0)
        lockToggle = Gtk.toggle("Rotation lock")
        lockToggle.on("toggled") { [unowned self] in self.lockToggled() }
        let bar = Gtk.box(vertical: false, spacing: 12, [Gtk.stackSwitcher(for: stack), statusLabel, lockToggle])
        bar.setMargins(8)
        let root = Gtk.box(vertical: true, spacing: 0, [bar, stack])
        window = Gtk.window(title: "orientationd demo", child: root)
        stack.onNotify("visible-child-name") { [unowned self] in self.pageChanged() }
        window.on("destroy") { [unowned self] in self.loop.quit() }
    }

    private func lockToggled() {
        guard !updatingLock else { return }
        let wanted = Gtk.isActive(lockToggle)
        client.setRotationLocked(wanted) { [weak self] error in
            guard let self, let error else { return }
            self.error = "lock refused: \(error.message)"
            self.updatingLock = true
            Gtk.setActive(self.lockToggle, self.state.rotationLocked)
            self.updatingLock = false
            self.record("refused", [("error", "\"\(error.message)\"")])
            self.updateLabels()
        }
    }

    private func draw(_ page: Page, _ cairo: OpaquePointer, _ width: Int32, _ height: Int32) {
        let now = nowMs()
        var pose = PhonePose(device: device.value(atMs: now), interface: interface.value(atMs: now), content: content.value(atMs: now))
        var caption = ""
        switch page {
        case .camera: break
        case .relay: caption = "will-change relayed"
        case .navigation: caption = (navigation.last ?? .list).title.split(separator: " ").first.map(String.init) ?? ""
        case .matching:
            pose.content = image.value(atMs: now)
            caption = "allows normal, left-up"
        }
        PhoneDrawing.draw(cairo, width: width, height: height, page: page, pose: pose, caption: caption)
    }

    private func updateLabels() {
        Gtk.setText(statusLabel, status)
        for (page, label) in values {
            var text = """
                Device:           \(state.deviceOrientation.rawValue)
                Interface:        \(state.interfaceOrientation.rawValue)
                Content rotation: \(state.contentRotation)°
                Supported:        \(state.supported.map(\.rawValue).joined(separator: ", "))
                """
            if page == .matching { text += "\nImage rotation:   \(matching.rotation)°" }
            Gtk.setText(label, text)
        }
        Gtk.setText(relayLog, relayLines.suffix(12).joined(separator: "\n"))
        Gtk.setText(navigationLabel, "Stack: " + navigation.map { $0.rawValue }.joined(separator: " › "))
        Gtk.setText(errorLabel, error)
        Gtk.setText(matchingLabel, "The image turns only into normal and left-up.")
    }

    private static func explanation(_ page: Page) -> String {
        switch page {
        case .camera:
            "Supports only normal: the interface (and its shutter) stays put, while the capture area and the icons turn by ContentRotation, from the moment OrientationWillChange arrives."
        case .relay:
            "The app receives OrientationWillChange once and relays it to every page that observes it, in order. The log shows the last turn: the will-change, whom it was relayed to, then the change it announced."
        case .navigation:
            "Each page of this stack declares its orientations; the container forwards the top page's with SetSupportedOrientations."
        case .matching:
            "The interface stays portrait; the image follows the device only into the orientations it allows."
        }
    }

    private static func clock() -> String {
        let ms = nowMs()
        let seconds = ms / 1000 % 1000
        let millis = ms % 1000
        return "\(seconds).\(millis < 10 ? "00" : millis < 100 ? "0" : "")\(millis)"
    }

    private func record(_ event: String, _ extra: [(String, String)] = []) {
        log?.write([("event", event), ("page", page.rawValue), ("device", state.deviceOrientation.rawValue),
                    ("interface", state.interfaceOrientation.rawValue), ("content", String(state.contentRotation)),
                    ("supported", state.supported.map(\.rawValue).joined(separator: ",")), ("image", String(matching.rotation))] + extra)
    }

    // MARK: Screenshots

    /// `--screenshots DIR`: a tour at each new device orientation. Every page but Relay
    /// is shown in turn and the window saved as DIR/PAGE-ORIENTATION.png (the navigation
    /// page with its detail page on top, pushed and later popped through the same path as
    /// the buttons, and its presentation page pushed and popped in between; at the first
    /// orientation the refused declaration too). The tour ends on the Relay page, so that
    /// the next turn happens there: the Relay page is saved first thing after a turn, its
    /// log showing that turn. The app exits once every page has every orientation (the
    /// Relay page's first orientation needs a turn back to it).
    private func captureIfNeeded() {
        guard let directory = options.screenshots, !capturing, state.deviceOrientation != .undefined else { return }
        let orientation = state.deviceOrientation
        let relayDue = page == .relay && lastTurn == orientation && !relayTaken.contains(orientation)
        let othersDue = !screenshotsTaken.contains(orientation)
        guard relayDue || othersDue else { return }
        capturing = true
        let first = screenshotsTaken.isEmpty
        var steps: [() -> Void] = []
        func save(_ page: Page) {
            steps.append { [unowned self] in
                let path = "\(directory)/\(page.rawValue)-\(orientation.rawValue).png"
                // The Relay page's log as it was saved: the turn it shows and its lines.
                let relay = page == .relay ? [("turn", self.lastTurn?.rawValue ?? "-"), ("log_lines", String(self.relayLines.count))] : []
                self.record(Gtk.savePNG(of: self.window, to: path) ? "screenshot" : "screenshot-failed", [("path", path)] + relay)
            }
        }
        if relayDue {
            save(.relay)
            steps.append { [unowned self] in self.relayTaken.insert(orientation) }
        }
        for page in Page.allCases where othersDue && page != .relay {
            steps.append { [unowned self] in Gtk.showPage(page.rawValue, of: self.stack) }
            if page == .navigation {
                steps.append { [unowned self] in self.push(.presentation) }
                steps.append { [unowned self] in self.pop() }
                steps.append { [unowned self] in self.push(.detail) }
                if first { steps.append { [unowned self] in self.declareNothing() } }
            }
            save(page)
            if page == .navigation { steps.append { [unowned self] in self.pop() } }
        }
        steps.append { [unowned self] in
            Gtk.showPage(Page.relay.rawValue, of: self.stack)
            self.screenshotsTaken.insert(orientation)
            self.capturing = false
            self.record("captured", [("orientation", orientation.rawValue)])
            if self.screenshotsTaken.count == Orientation.defined.count && self.relayTaken.count == Orientation.defined.count {
                self.record("screenshots-done")
                Gtk.destroy(self.window)
            } else {
                self.captureIfNeeded()
            }
        }
        // One step every third frame: the window laid out and drawn with what the
        // previous step declared.
        var frames = 0
        var remaining = steps[...]
        window.onEveryFrame {
            frames += 1
            guard frames % 3 == 0 else { return true }
            guard let step = remaining.popFirst() else { return false }
            step()
            return !remaining.isEmpty
        }
    }
}
