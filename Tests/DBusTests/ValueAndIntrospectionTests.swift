import Testing
@_spi(Testing) @testable import DBus
import TestSupport

@Suite struct ValueHelperTests {
    @Test func signatures() {
        #expect(Value.byte(1).signature == "y")
        #expect(Value.unixFD(3).signature == "h")
        #expect(Value.array(elementSignature: "(ii)", []).signature == "a(ii)")
        #expect(Value.dictionary(keySignature: "s", valueSignature: "a{sv}", []).signature == "a{sa{sv}}")
        #expect(Value.structure([.int32(1), .structure([.string("a"), .variant(.bool(true))])]).signature == "(i(sv))")
        #expect(Value.variant(.strings(["x"])).signature == "v")
        #expect(Value.signature(of: []) == "")
        #expect(Value.signature(of: [.string("a"), .vardict([]), .strings([]), .objectPath("/")]) == "sa{sv}aso")
    }

    @Test func stringArray() {
        #expect(Value.strings(["a", "b"]) == .array(elementSignature: "s", [.string("a"), .string("b")]))
        #expect(Value.strings(["a", "b"]).stringArray == ["a", "b"])
        #expect(Value.strings([]).stringArray == [])
        #expect(Value.array(elementSignature: "o", [.objectPath("/a")]).stringArray == ["/a"])
        #expect(Value.array(elementSignature: "i", [.int32(1)]).stringArray == nil)
        #expect(Value.array(elementSignature: "i", []).stringArray == [])
        #expect(Value.string("a").stringArray == nil)
        #expect(Value.vardict([("a", .int32(1))]).stringArray == nil)
    }

    @Test func vardictAndStringKeyedEntries() throws {
        let dict = Value.vardict([("b", .int32(2)), ("a", .string("x")), ("b", .bool(true))])
        #expect(dict == .dictionary(keySignature: "s", valueSignature: "v", [
            DictionaryEntry(.string("b"), .variant(.int32(2))),
            DictionaryEntry(.string("a"), .variant(.string("x"))),
            DictionaryEntry(.string("b"), .variant(.bool(true))),
        ]))
        #expect(dict.signature == "a{sv}")
        let entries = try #require(dict.stringKeyedEntries)
        #expect(entries.map(\.key) == ["b", "a", "b"])  // order and duplicates kept
        #expect(entries.map(\.value) == [.variant(.int32(2)), .variant(.string("x")), .variant(.bool(true))])
        #expect(Value.vardict([]).stringKeyedEntries?.isEmpty == true)

        let byInt = Value.dictionary(keySignature: "i", valueSignature: "s", [DictionaryEntry(.int32(1), .string("a"))])
        #expect(byInt.stringKeyedEntries == nil)
        let byPath = Value.dictionary(keySignature: "o", valueSignature: "i", [DictionaryEntry(.objectPath("/p"), .int32(1))])
        #expect(byPath.stringKeyedEntries?.map(\.key) == ["/p"])
        #expect(Value.strings(["a"]).stringKeyedEntries == nil)
    }

    @Test func unwrappedVariantAndAccessors() {
        #expect(Value.variant(.int32(5)).unwrappedVariant == .int32(5))
        #expect(Value.int32(5).unwrappedVariant == .int32(5))
        // One level only.
        #expect(Value.variant(.variant(.bool(true))).unwrappedVariant == .variant(.bool(true)))
        #expect(Value.string("s").stringValue == "s")
        #expect(Value.objectPath("/o").stringValue == "/o")
        #expect(Value.signature("g").stringValue == "g")
        #expect(Value.int32(1).stringValue == nil)
        #expect(Value.bool(true).boolValue == true)
        #expect(Value.int32(1).boolValue == nil)
        #expect(Value.uint32(7).uint32Value == 7)
        #expect(Value.int32(7).uint32Value == nil)
        #expect(Value.int32(-7).int32Value == -7)
        #expect(Value.double(0.5).doubleValue == 0.5)
        #expect(Value.variant(.double(0.5)).doubleValue == nil)
    }
}

@Suite struct BusErrorTests {
    @Test func description() {
        #expect(BusError("org.example.Error.X", "it broke").description == "org.example.Error.X: it broke")
        #expect(BusError("org.example.Error.X", "").description == "org.example.Error.X")
        #expect(BusError.invalidArgs("bad").description == "org.freedesktop.DBus.Error.InvalidArgs: bad")
        #expect("\(BusError.noMemory())" == "org.freedesktop.DBus.Error.NoMemory: out of memory")
    }

    @Test func standardNames() {
        #expect(BusError.invalidArgs("m") == BusError("org.freedesktop.DBus.Error.InvalidArgs", "m"))
        #expect(BusError.accessDenied("m").name == "org.freedesktop.DBus.Error.AccessDenied")
        #expect(BusError.unknownMethod("m").name == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect(BusError.unknownObject("m").name == "org.freedesktop.DBus.Error.UnknownObject")
        #expect(BusError.unknownInterface("m").name == "org.freedesktop.DBus.Error.UnknownInterface")
        #expect(BusError.unknownProperty("m").name == "org.freedesktop.DBus.Error.UnknownProperty")
        #expect(BusError.propertyReadOnly("m").name == "org.freedesktop.DBus.Error.PropertyReadOnly")
        #expect(BusError.failed("m").name == "org.freedesktop.DBus.Error.Failed")
    }
}

/// A small object for interface tables.
final class Lamp {
    var brightness: Int32 = 50
    var mode = "auto"
}

let lampTable = InterfaceTable<Lamp>(
    name: "org.example.Lamp",
    doc: "A lamp -- dimmable & <safe>.",
    methods: [
        .init("SetLevel", in: [Argument("level", "i"), Argument("fade_ms", "u")], out: [Argument("previous", "i")],
              doc: "Sets the level.\nReturns the old one.") { _, _ in .empty },
        .init("Reset", doc: "") { _, _ in .empty },
        .init("Status", out: [Argument("", "a{sv}")], doc: "Everything.") { _, _ in .empty },
    ],
    properties: [
        .init("Brightness", "i", doc: "0 to 100.", get: { .int32($0.brightness) }, set: { _, _, _ in }),
        .init("Mode", "s", flags: .emitsInvalidation, doc: "", get: { .string($0.mode) }),
        .init("Model", "s", flags: .constant, doc: "Never changes.", get: { _ in .string("L1") }),
        .init("Secret", "s", flags: [], doc: "", get: { _ in .string("") }, set: { _, _, _ in }),
    ],
    signals: [
        .init("Changed", [Argument("level", "i"), Argument("why", "s")], doc: "After a change."),
        .init("Pinged", [], doc: ""),
    ])

@Suite struct IntrospectionTests {
    let header = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">

        """

    @Test func tableDescription() {
        let d = lampTable.description
        #expect(d.name == "org.example.Lamp")
        #expect(d.methods.map(\.name) == ["SetLevel", "Reset", "Status"])
        #expect(d.methods[0].inputs == [Argument("level", "i"), Argument("fade_ms", "u")])
        #expect(d.properties.map(\.writable) == [true, false, false, true])
        #expect(d.properties[1].flags == .emitsInvalidation)
        #expect(d.signals[0].arguments.map(\.signature) == ["i", "s"])
    }

    @Test func compactXML() {
        let xml = Introspection.xml(interfaces: [lampTable.description], children: ["child", "10"])
        let expected = header + """
            <node>
             <interface name="org.example.Lamp">
              <method name="SetLevel">
               <arg name="level" type="i" direction="in"/>
               <arg name="fade_ms" type="u" direction="in"/>
               <arg name="previous" type="i" direction="out"/>
              </method>
              <method name="Reset"/>
              <method name="Status">
               <arg type="a{sv}" direction="out"/>
              </method>
              <property name="Brightness" type="i" access="readwrite"/>
              <property name="Mode" type="s" access="read">
               <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="invalidates"/>
              </property>
              <property name="Model" type="s" access="read">
               <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="const"/>
              </property>
              <property name="Secret" type="s" access="readwrite">
               <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="false"/>
              </property>
              <signal name="Changed">
               <arg name="level" type="i"/>
               <arg name="why" type="s"/>
              </signal>
              <signal name="Pinged"/>
             </interface>
             <node name="child"/>
             <node name="10"/>
            </node>

            """
        #expect(xml == expected)
    }

    /// The documented copy: gtk-doc comments (name, arguments, description) that
    /// gdbus-codegen reads, and Qt type annotations for a{sv}.
    @Test func documentedXML() {
        let xml = Introspection.xml(interfaces: [lampTable.description], includeDocs: true)
        let expected = header + """
            <node>
             <!--
               org.example.Lamp:
               @short_description: A lamp - - dimmable & <safe>.

               A lamp - - dimmable & <safe>.
             -->
             <interface name="org.example.Lamp">
              <!--
                SetLevel:

                Sets the level.
                Returns the old one.
              -->
              <method name="SetLevel">
               <arg name="level" type="i" direction="in"/>
               <arg name="fade_ms" type="u" direction="in"/>
               <arg name="previous" type="i" direction="out"/>
              </method>
              <method name="Reset"/>
              <!--
                Status:

                Everything.
              -->
              <method name="Status">
               <arg type="a{sv}" direction="out"/>
               <annotation name="org.qtproject.QtDBus.QtTypeName.Out0" value="QVariantMap"/>
              </method>
              <!--
                Brightness:

                0 to 100.
              -->
              <property name="Brightness" type="i" access="readwrite"/>
              <property name="Mode" type="s" access="read">
               <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="invalidates"/>
              </property>
              <!--
                Model:

                Never changes.
              -->
              <property name="Model" type="s" access="read">
               <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="const"/>
              </property>
              <property name="Secret" type="s" access="readwrite">
               <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="false"/>
              </property>
              <!--
                Changed:

                After a change.
              -->
              <signal name="Changed">
               <arg name="level" type="i"/>
               <arg name="why" type="s"/>
              </signal>
              <signal name="Pinged"/>
             </interface>
            </node>

            """
        #expect(xml == expected)
    }

    @Test func argumentDocsBecomeGtkDocParameters() {
        let description = InterfaceDescription(
            name: "org.example.I", doc: "An interface. More.", methods: [.init(name: "M", inputs: [Argument("a", "s", doc: "The a.")],
                                                                          outputs: [], doc: "Does M.")],
            properties: [], signals: [])
        let xml = Introspection.xml(interfaces: [description], includeDocs: true)
        #expect(xml.contains("    M:\n    @a: The a.\n\n    Does M.\n"), "\(xml)")
        #expect(xml.contains("@short_description: An interface."))
    }

    @Test func commentsNeverContainDoubleHyphens() {
        for doc in ["a--b", "---", "--", "x-", "-x", "a\n--\nb", "a- -b--->"] {
            let description = InterfaceDescription(name: "org.example.I", doc: doc, methods: [], properties: [], signals: [])
            let xml = Introspection.xml(interfaces: [description], includeDocs: true)
            let start = xml.firstRange(of: "<!-- ")?.upperBound ?? xml.firstRange(of: "<!--\n")!.upperBound
            let end = xml.firstRange(of: "-->\n <interface")!.lowerBound
            let body = xml[start..<end]
            #expect(!body.contains("--"), "comment body '\(body)' from doc '\(doc)'")
            // Nor may the text end in '-' right before '-->'.
            #expect(!body.hasSuffix("-"), "comment body '\(body)' ends with '-'")
        }
    }

    @Test func attributesAreEscaped() {
        let description = InterfaceDescription(
            name: "org.example.I", doc: "",
            methods: [.init(name: "M", inputs: [Argument("a<b>&\"c\"", "s")], outputs: [], doc: "")],
            properties: [], signals: [])
        let xml = Introspection.xml(interfaces: [description], children: ["x&y"])
        #expect(xml.contains("<arg name=\"a&lt;b&gt;&amp;&quot;c&quot;\" type=\"s\" direction=\"in\"/>"))
        #expect(xml.contains("<node name=\"x&amp;y\"/>"))
        #expect(Introspection.escape("<'&'>") == "&lt;'&amp;'&gt;")
    }

    @Test func emptyDocument() {
        #expect(Introspection.xml(interfaces: []) == header + "<node>\n</node>\n")
    }
}
