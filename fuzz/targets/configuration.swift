// Fuzz target: the configuration file parser (`Configuration.parse`,
// Sources/Sensors/Configuration.swift), with the engine tunables (`[Engine]`,
// EngineTunables.set) and mount matrices (`[Sensor PATTERN]`) it parses.
//
// A rejected file names a line within the file; an accepted one has every value in
// its documented range, and its per-sensor patterns can be matched against devices.
import OrientationEngine
import Sensors

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self)
    switch Configuration.parse(text, source: "fuzz.conf") {
    case .failure(let error):
        // Lines as the parser counts them: LF, CR LF and CR all end one.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).count
        precondition(error.line.map { (1...lines).contains($0) } ?? false, "error line \(String(describing: error.line)) of \(lines)")
        precondition(!error.description.isEmpty, "empty error")
    case .success(let configuration):
        precondition((10...10_000).contains(configuration.pollIntervalMs), "poll \(configuration.pollIntervalMs)")
        precondition((100...60_000).contains(configuration.bufferSilenceMs), "silence \(configuration.bufferSilenceMs)")
        for key in EngineTunables.keys {
            let value = configuration.tunables.value(forKey: key)
            precondition(value?.isFinite ?? false, "\(key) = \(String(describing: value))")
        }
        let device = DeviceDescription(syspath: "/sys/devices/iio:device0", sysname: "iio:device0", subsystem: "iio",
                                       devnode: "/dev/iio:device0", properties: ["MODALIAS": "acpi:BOSC0200:"],
                                       attributes: ["name": "accel_3d"])
        let settings = configuration.settings(for: device)
        precondition(settings.pollIntervalMs == configuration.pollIntervalMs, "settings differ")
        for rule in configuration.sensorRules { _ = rule.matches(device) }
    }
    return 0
}
