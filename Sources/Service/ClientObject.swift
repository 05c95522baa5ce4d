import DBus

/// A client object on the bus: the handle its interface table is bound to. Its state
/// lives in the service core (read through `record`); its methods go to the adapter,
/// which owns authorization. The core never sees it.
final class ClientObject {
    let id: UInt64
    let path: String
    let owner: String
    weak var service: OrientationService?

    init(_ record: ClientRecord, service: OrientationService) {
        id = record.id
        path = record.path
        owner = record.owner
        self.service = service
    }

    /// The client as the core has it; nil once it is closed.
    var record: ClientRecord? { service?.core.client(id) }
}
