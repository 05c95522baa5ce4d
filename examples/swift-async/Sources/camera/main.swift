// A camera app's orientation with Swift concurrency: the interface supports only
// "normal", so it never turns; the icons turn by ContentRotation, and every
// OrientationWillChange is printed before the change it announces.
//
//     camera [BUS_ADDRESS]      (default: the system bus)
import Dispatch
import Glibc
import OrientationClient

@main
struct Camera {
    static func main() async {
        let bus: OrientationClient.Bus = CommandLine.arguments.count > 1 ? .address(CommandLine.arguments[1]) : .system
        let client: AsyncOrientationClient
        do {
            client = try await AsyncOrientationClient.connect(bus: bus, configuration: .init(supported: [.normal]))
            try await client.start()
        } catch {
            write(2, "camera: \(error)\n")
            exit(1)
        }
        let state = await client.state
        say("state interface=\(state.interfaceOrientation.rawValue) content-rotation=\(state.contentRotation)")

        // SIGTERM and SIGINT end the program: the client is closed first.
        for signal in [SIGTERM, SIGINT] {
            Glibc.signal(signal, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .main)
            source.setEventHandler { client.close() }
            source.resume()
            sources.append(source)
        }
        var rotation = state.contentRotation
        for await event in client.events {
            switch event {
            case .willChange(let from, let to, let newRotation):
                say("will-change \(from.rawValue) -> \(to.rawValue) content-rotation=\(newRotation)")
            case .changed(let state), .attached(let state):
                if state.contentRotation != rotation {
                    rotation = state.contentRotation
                    say("content-rotation \(rotation)")
                }
            case .serviceLost, .tiltChanged, .sensorChanged, .lockChanged:
                break
            }
        }
    }

    nonisolated(unsafe) static var sources: [any DispatchSourceSignal] = []

    static func say(_ line: String) { write(1, line + "\n") }

    /// One write(2) per line: unbuffered, so a reader sees each line as it happens.
    static func write(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = Glibc.write(fd, bytes.baseAddress, bytes.count) }
    }
}
