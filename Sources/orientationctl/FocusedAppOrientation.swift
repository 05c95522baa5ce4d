import DBus
import OrientationAPI

/// follow --focused-app: the interface orientation of the app in front.
///
/// Given the focused window's process, asks the daemon for that process's started clients
/// (`ClientsForProcess`) and reads the first one's `InterfaceOrientation`; without a
/// process or a client, the answer is nil and follow uses the device orientation. Client
/// signals go to their owner only (the contract), so follow cannot watch another app's
/// PropertiesChanged: it asks again whenever the answer can have changed — the focus
/// moved, its own client saw the device turn or the lock change, the daemon came back.
/// Answers are asynchronous; only the latest question's answer is delivered.
final class FocusedAppOrientation {
    private let connection: Connection
    private var generation = 0

    init(connection: Connection) { self.connection = connection }

    /// Asks about `pid`; `answer` gets the orientation of its first started client, or
    /// nil. An answer overtaken by a later question is dropped.
    func resolve(pid: Int?, answer: @escaping (Orientation?) -> Void) {
        generation += 1
        let asked = generation
        guard let pid, let processID = UInt32(exactly: pid),
              let call = try? Message.methodCall(destination: OrientationAPI.busName, path: OrientationAPI.managerPath,
                                                 interface: OrientationAPI.managerInterface, member: "ClientsForProcess",
                                                 arguments: [.uint32(processID)]) else {
            answer(nil)
            return
        }
        connection.callAsync(call) { [weak self] result in
            guard let self, asked == self.generation else { return }
            guard case .success(let reply) = result, let path = reply.arguments.first?.stringArray?.first,
                  let get = try? Message.methodCall(destination: OrientationAPI.busName, path: path,
                                                    interface: OrientationAPI.propertiesInterface, member: "Get",
                                                    arguments: [.string(OrientationAPI.clientInterface),
                                                                .string(ClientProperty.interfaceOrientation.rawValue)]) else {
                answer(nil)
                return
            }
            self.connection.callAsync(get) { [weak self] result in
                guard let self, asked == self.generation else { return }
                // A client closed between the two calls is no client.
                guard case .success(let reply) = result,
                      let text = reply.arguments.first?.unwrappedVariant.stringValue,
                      let orientation = Orientation(rawValue: text), orientation != .undefined else {
                    answer(nil)
                    return
                }
                answer(orientation)
            }
        }
    }
}
