import DBus
import Glibc
import OrientationEngine
import Posix
import Sensors
import Service
import OrientationAPI

/// Wires the event loop, the bus connection, the sensor and the service together.
struct Daemon {
    var options: DaemonOptions
    var logger: Logger

    /// sysexits.h EX_CONFIG: the configuration file is invalid.
    static let exitConfigurationError: Int32 = 78

    func run() -> Int32 {
        let configPath = options.configPath ?? Configuration.defaultPath
        var configuration: Configuration
        switch Configuration.load(path: configPath, optional: options.configPath == nil) {
        case .success(let loaded): configuration = loaded
        case .failure(let error):
            logger.error("invalid configuration: \(error)")
            // EX_CONFIG: the unit's RestartPreventExitStatus keeps systemd from restarting
            // a daemon that cannot start until the file is fixed.
            return Daemon.exitConfigurationError
        }
        let reloader = Reloader()
        let loop: EventLoop
        do {
            loop = try EventLoop()
            // The loop keeps this handler: a strong capture of the loop would be a cycle
            // that outlives run() (LeakSanitizer reports it, and nothing the loop holds
            // would ever be released).
            try loop.handleSignals([SIGTERM, SIGINT, SIGHUP]) { [weak loop] signal in
                if signal == SIGHUP {
                    reloader.reload()
                } else {
                    logger.debug("signal \(signal): stopping")
                    loop?.quit(0)
                }
            }
        } catch {
            logger.error("cannot set up the event loop: \(error)")
            return 1
        }

        let connection: Connection
        do {
            connection = try Connection.open(options.bus)
        } catch {
            logger.error("cannot connect to the \(options.bus): \(error.message)")
            return 1
        }

        // Opt-in laptop-mode suppression holds back the samples of whatever sensor is in use.
        let suppression = Suppression(loop: loop, logger: logger)
        suppression.configure(enabled: configuration.laptopModeSuppression)

        let sensor: SensorBackend?
        var monitor: SensorMonitor?
        switch options.effectiveSensor {
        case .simulated:
            sensor = SimulatedSensor(loop: loop)
            logger.info("using the simulated sensor (--sensor simulated): not a real device")
        case .replay(let path):
            do {
                sensor = try ReplaySensor(path: path, loop: loop, logger: logger)
                logger.info("using \(path == "-" ? "a replay of standard input" : "a replay of \(path)") (--sensor replay:): not a real device")
            } catch {
                logger.error(error.message)
                return 1
            }
        case .auto:
            if let found = SensorMonitor(loop: loop, logger: logger, settings: { [configuration] in configuration.settings(for: $0) }) {
                monitor = found
                sensor = found.start()
                if sensor == nil {
                    logger.info("no display accelerometer found; waiting for one to appear "
                        + "(to try the service without one: orientationd --session --sensor simulated)")
                }
            } else {
                logger.warning("cannot use udev: running without a sensor")
                sensor = nil
            }
        }

        let authorizer = Authorizer(connection: connection, mode: options.usesPolkit ? .polkit : .allowAll, logger: logger)
        // systemd's StateDirectory= says where state survives a restart.
        let lockState = LockState.directory(environment: getenv("STATE_DIRECTORY").map { String(cString: $0) }).map(LockState.init)
        let service = OrientationService(connection: connection, loop: loop, sensor: sensor, tunables: configuration.tunables,
                                         authorizer: authorizer, sensorProxyCompat: options.sensorProxyCompat,
                                         lockState: lockState, logger: logger)
        service.core.samplesHeld = { [weak suppression] in suppression?.laptopMode ?? false }
        do {
            try service.export()
        } catch {
            logger.error("cannot export the service on the \(options.bus): \(error.message)")
            return 1
        }
        for name in service.busNames {
            do {
                switch try connection.requestName(name) {
                case .primaryOwner, .alreadyOwner: break
                case .exists, .inQueue:
                    logger.error("\(name) is already owned on the \(options.bus): is another orientationd (or iio-sensor-proxy) running?")
                    return 1
                }
            } catch {
                logger.error("cannot own \(name) on the \(options.bus): \(error.message)")
                return 1
            }
        }
        var lostBus = false
        connection.onDisconnect = { [weak loop] in
            logger.error("lost the connection to the \(options.bus)")
            lostBus = true
            loop?.quit(1)
        }
        monitor?.onChange = { [weak service] sensor in service?.replaceSensor(sensor) }
        // The facade's light, proximity and compass, found and followed through udev
        // whatever the accelerometer's source (only what the facade serves needs them).
        var auxiliary: AuxiliarySensorMonitor?
        if options.sensorProxyCompat {
            if let found = AuxiliarySensorMonitor(loop: loop, logger: logger) {
                found.start()
                for (kind, sensor) in found.current { service.replaceAuxiliarySensor(kind, sensor) }
                found.onChange = { [weak service] kind, sensor in service?.replaceAuxiliarySensor(kind, sensor) }
                service.onAuxiliarySensorVanished = { [weak found] kind in found?.vanished(kind) }
                auxiliary = found
            } else {
                logger.warning("cannot use udev: no ambient light, proximity or compass for net.hadess.SensorProxy")
            }
        }
        // A tablet-mode switch plugged in or out: read the sensor afresh under the new rule.
        suppression.onChange = { [weak service] in service?.rearmSensor() }
        reloader.reload = { [weak service, weak monitor] in
            switch Configuration.load(path: configPath, optional: options.configPath == nil) {
            case .failure(let error):
                logger.error("SIGHUP: invalid configuration, keeping the previous one: \(error)")
            case .success(let loaded):
                // The default file is optional: without it, say so rather than name it.
                let absent = options.configPath == nil && !FileSystem.exists(configPath)
                logger.info("SIGHUP: configuration reloaded " + (absent ? "(no \(configPath): the defaults)" : "from \(configPath)"))
                configuration = loaded
                service?.setTunables(loaded.tunables)
                let suppressionChanged = suppression.configure(enabled: loaded.laptopModeSuppression)
                if let monitor {
                    monitor.settings = { loaded.settings(for: $0) }
                    monitor.reload()
                }
                // Suppression switched on or off: read the sensor afresh under the new rule.
                if suppressionChanged { service?.rearmSensor() }
            }
        }
        connection.attach(to: loop)
        logger.debug("serving \(OrientationAPI.busName) on the \(options.bus) as \(connection.uniqueName) with sensor \(sensor?.name ?? "none")")
        // When the daemon falls quiet — after start-up, after a call, after the last
        // client stops — it hands back the code pages that work touched (CodePages,
        // paced by CodePageRelease): until the next event nothing runs, and what that
        // event needs faults back in from the page cache. While a sensor is read, seldom.
        let codePages = CodePageRelease(loop: loop, logger: logger)
        loop.whenQuiet = { [weak service] in
            codePages.quiet(readingSensor: service?.readingSensor == true)
        }

        let code = loop.run()
        // SIGTERM, SIGINT or a lost bus: disable an enabled IIO buffer before exiting.
        service.shutdown()
        // The SIGHUP closure holds the sensor and the suppression, which hold the loop,
        // which holds the signal handler, which holds the reloader: break that cycle so
        // that everything is released when run() returns.
        reloader.reload = {}
        if !lostBus { connection.flush() }
        withExtendedLifetime((service, monitor, auxiliary, suppression)) {}
        return code
    }
}

/// What SIGHUP does, filled in once the service exists (the signal handler is set up
/// first).
final class Reloader {
    var reload: () -> Void = {}
}

/// Laptop-mode suppression, while enabled: the gate that follows tablet-mode switches.
final class Suppression {
    private let loop: EventLoop
    private let logger: Logger
    private var gate: LaptopModeGate?
    /// Called when a switch was picked up or let go (the sensor is then re-read).
    var onChange: () -> Void = {}

    init(loop: EventLoop, logger: Logger) {
        self.loop = loop
        self.logger = logger
    }

    /// Enables or disables suppression; returns whether that changed anything.
    @discardableResult
    func configure(enabled: Bool) -> Bool {
        guard enabled != (gate != nil) else { return false }
        gate = enabled ? LaptopModeGate(loop: loop, logger: logger) : nil
        gate?.onChange = { [weak self] in self?.onChange() }
        return true
    }

    /// While true, the sensor's samples are held back.
    var laptopMode: Bool { gate?.laptopMode ?? false }
}
