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
    if options.help {
        print(DaemonOptions.usage)
        return 0
    }
    if options.version {
        print("orientationd \(version)")
        return 0
    }
    if options.busIntrospect {
        let interfaces = options.sensorProxyCompat ? OrientationService.sensorProxyInterfaces : OrientationService.interfaces
        print(Introspection.xml(interfaces: interfaces, includeDocs: true), terminator: "")
        return 0
    }
    let logger = Logger(program: "orientationd", verbose: options.verbose)
    return Daemon(options: options, logger: logger).run()
}

func writeStandardError(_ text: String) { try? FileDescriptor.standardError.writeAll(text) }

exit(run())
