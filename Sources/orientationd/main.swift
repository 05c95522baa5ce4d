import DBus
import Glibc
import OrientationEngine
import Posix
import Sensors
import Service
import OrientationAPI

let version = OrientationAPI.version

func run() -> Int32 {
    let options: DaemonOptions
    do {
        options = try DaemonOptions.parse(Array(CommandLine.arguments.dropFirst()))
    } catch {
        Logger(program: "orientationd").error(error.message)
        writeStandardError("Try 'orientationd --help' for more information.\n")
        return 2
    }
    if options.help { return writeStandardOutput(DaemonOptions.usage + "\n") }
    if options.version { return writeStandardOutput("orientationd \(version)\n") }
    if options.busIntrospect {
        let interfaces = options.sensorProxyCompat ? OrientationService.sensorProxyInterfaces : OrientationService.interfaces
        return writeStandardOutput(Introspection.xml(interfaces: interfaces, includeDocs: true))
    }
    let logger = Logger(program: "orientationd", verbose: options.verbose)
    return Daemon(options: options, logger: logger).run()
}

func writeStandardError(_ text: String) { try? FileDescriptor.standardError.writeAll(text) }

/// 0 once `text` is written; 1, with one line, when it cannot be (a full disk): XML cut
/// short by a failed write must not pass for the whole of it.
func writeStandardOutput(_ text: String) -> Int32 {
    do { try FileDescriptor.standardOutput.writeAll(text) } catch {
        Logger(program: "orientationd").error("cannot write standard output: \(error)")
        return 1
    }
    return 0
}

exit(run())
