/// One exported D-Bus interface, declared once: its methods with named arguments, its
/// properties with flags, its signals, and a line of documentation for each.
///
/// From this one table come method dispatch with signature checks, the Properties
/// interface (Get, GetAll, Set, PropertiesChanged) and the introspection XML, so the
/// three can never disagree. Tables are static values; `bind(to:)` ties one to an
/// object when the object is exported.
public struct InterfaceTable<Object: AnyObject>: Sendable {
    public typealias MethodHandler = @Sendable (Object, MethodCall) throws(BusError) -> MethodCall.Reply
    public typealias Getter = @Sendable (Object) -> Value
    public typealias Setter = @Sendable (Object, Value, MethodCall) throws(BusError) -> Void
    /// A setter that may answer later (after an authorization check, say).
    public typealias DeferrableSetter = @Sendable (Object, Value, MethodCall) throws(BusError) -> MethodCall.Reply

    public struct Method: Sendable {
        public var name: String
        public var inputs: [Argument]
        public var outputs: [Argument]
        public var doc: String
        public var handler: MethodHandler

        public init(_ name: String, in inputs: [Argument] = [], out outputs: [Argument] = [], doc: String, handler: @escaping MethodHandler) {
            self.name = name
            self.inputs = inputs
            self.outputs = outputs
            self.doc = doc
            self.handler = handler
        }
    }

    public struct Property: Sendable {
        public var name: String
        public var signature: String
        public var flags: PropertyFlags
        public var doc: String
        public var get: Getter
        public var set: DeferrableSetter?

        public init(_ name: String, _ signature: String, flags: PropertyFlags = .emitsChange, doc: String, get: @escaping Getter, set: Setter? = nil) {
            self.name = name
            self.signature = signature
            self.flags = flags
            self.doc = doc
            self.get = get
            if let set {
                self.set = { @Sendable (object: Object, value: Value, call: MethodCall) throws(BusError) -> MethodCall.Reply in
                    try set(object, value, call)
                    return .empty
                }
            } else {
                self.set = nil
            }
        }

        /// A read-write property whose setter may reply later.
        public init(_ name: String, _ signature: String, flags: PropertyFlags = .emitsChange, doc: String, get: @escaping Getter,
                    deferrableSet: @escaping DeferrableSetter) {
            self.name = name
            self.signature = signature
            self.flags = flags
            self.doc = doc
            self.get = get
            self.set = deferrableSet
        }
    }

    public struct Signal: Sendable {
        public var name: String
        public var arguments: [Argument]
        public var doc: String

        public init(_ name: String, _ arguments: [Argument], doc: String) {
            self.name = name
            self.arguments = arguments
            self.doc = doc
        }
    }

    public var name: String
    public var doc: String
    public var methods: [Method]
    public var properties: [Property]
    public var signals: [Signal]

    public init(name: String, doc: String, methods: [Method] = [], properties: [Property] = [], signals: [Signal] = []) {
        self.name = name
        self.doc = doc
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }

    /// The table's shape, without handlers, for introspection.
    public var description: InterfaceDescription {
        InterfaceDescription(
            name: name, doc: doc,
            methods: methods.map { .init(name: $0.name, inputs: $0.inputs, outputs: $0.outputs, doc: $0.doc) },
            properties: properties.map {
                .init(name: $0.name, signature: $0.signature, writable: $0.set != nil, flags: $0.flags, doc: $0.doc)
            },
            signals: signals.map { .init(name: $0.name, arguments: $0.arguments, doc: $0.doc) })
    }

    /// Ties the table to `object`. The binding holds the object weakly: whoever exports
    /// it keeps it alive, and unexports it before letting it go.
    public func bind(to object: Object) -> BoundInterface {
        let table = self
        return BoundInterface(
            description: description,
            call: { [weak object] member, call throws(BusError) -> MethodCall.Reply? in
                guard let object else { throw .unknownObject("object no longer exists") }
                guard let method = table.methods.first(where: { $0.name == member }) else { return nil }
                let expected = method.inputs.map(\.signature).joined()
                guard call.message.signature == expected else {
                    throw .invalidArgs("\(table.name).\(member) takes arguments of type '\(expected)', not '\(call.message.signature)'")
                }
                return try method.handler(object, call)
            },
            get: { [weak object] name in
                guard let object, let property = table.properties.first(where: { $0.name == name }) else { return nil }
                return property.get(object)
            },
            set: { [weak object] name, value, call throws(BusError) -> MethodCall.Reply in
                guard let object else { throw .unknownObject("object no longer exists") }
                guard let property = table.properties.first(where: { $0.name == name }) else {
                    throw .unknownProperty("\(table.name) has no property \(name)")
                }
                guard let setter = property.set else { throw .propertyReadOnly("\(table.name).\(name) is read-only") }
                guard value.signature == property.signature else {
                    throw .invalidArgs("\(table.name).\(name) has type '\(property.signature)', not '\(value.signature)'")
                }
                return try setter(object, value, call)
            })
    }
}

/// A named, typed argument of a method or signal, with its documentation.
public struct Argument: Sendable, Equatable {
    public var name: String
    public var signature: String
    public var doc: String
    public init(_ name: String, _ signature: String, doc: String = "") {
        self.name = name
        self.signature = signature
        self.doc = doc
    }
}

/// How a property behaves towards PropertiesChanged.
public struct PropertyFlags: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Changes are announced with the new value (the D-Bus default).
    public static let emitsChange = PropertyFlags(rawValue: 1)
    /// Changes are announced by name only.
    public static let emitsInvalidation = PropertyFlags(rawValue: 2)
    /// Never changes during the object's life.
    public static let constant = PropertyFlags(rawValue: 4)
}

/// A table bound to an object: type-erased closures the object tree calls.
public struct BoundInterface {
    public let description: InterfaceDescription
    /// Runs a method; nil when the interface has no such method.
    let call: (String, MethodCall) throws(BusError) -> MethodCall.Reply?
    let get: (String) -> Value?
    let set: (String, Value, MethodCall) throws(BusError) -> MethodCall.Reply
}
