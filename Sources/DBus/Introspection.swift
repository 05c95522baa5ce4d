/// Generates introspection XML from interface descriptions.
public enum Introspection {
    public static let doctype = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        """

    /// A `<node>` document. `includeDocs` makes the documented copy in `dbus/`: each
    /// member's documentation as a gtk-doc comment (the form gdbus-codegen turns into
    /// DocBook and reStructuredText: "Name:", then "@arg: text" for every argument, then
    /// the description), and `org.qtproject.QtDBus.QtTypeName` annotations where a type
    /// has no Qt type of its own, so that qdbusxml2cpp accepts the file. Live replies stay
    /// compact.
    public static func xml(interfaces: [InterfaceDescription], children: [String] = [], includeDocs: Bool = false) -> String {
        var out = doctype + "\n<node>\n"
        for interface in interfaces {
            if includeDocs { out += gtkDoc(interface.name, interface.doc, arguments: [], short: true, indent: " ") }
            out += " <interface name=\"\(escape(interface.name))\">\n"
            for method in interface.methods {
                if includeDocs { out += gtkDoc(method.name, method.doc, arguments: method.inputs + method.outputs, indent: "  ") }
                let annotations = includeDocs
                    ? qtAnnotations(method.inputs, prefix: "In") + qtAnnotations(method.outputs, prefix: "Out") : []
                if method.inputs.isEmpty && method.outputs.isEmpty && annotations.isEmpty {
                    out += "  <method name=\"\(escape(method.name))\"/>\n"
                    continue
                }
                out += "  <method name=\"\(escape(method.name))\">\n"
                for arg in method.inputs { out += "   " + argument(arg, direction: "in") }
                for arg in method.outputs { out += "   " + argument(arg, direction: "out") }
                out += annotations.joined()
                out += "  </method>\n"
            }
            for property in interface.properties {
                if includeDocs { out += gtkDoc(property.name, property.doc, arguments: [], indent: "  ") }
                let access = property.writable ? "readwrite" : "read"
                let open = "  <property name=\"\(escape(property.name))\" type=\"\(escape(property.signature))\" access=\"\(access)\""
                var annotations: [String] = []
                if let annotation = emitsChangedAnnotation(property.flags) {
                    annotations.append("   <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"\(annotation)\"/>\n")
                }
                if includeDocs, let qt = qtType(property.signature) {
                    annotations.append("   <annotation name=\"org.qtproject.QtDBus.QtTypeName\" value=\"\(qt)\"/>\n")
                }
                out += annotations.isEmpty ? open + "/>\n" : open + ">\n" + annotations.joined() + "  </property>\n"
            }
            for signal in interface.signals {
                if includeDocs { out += gtkDoc(signal.name, signal.doc, arguments: signal.arguments, indent: "  ") }
                let annotations = includeDocs ? qtAnnotations(signal.arguments, prefix: "Out") : []
                if signal.arguments.isEmpty && annotations.isEmpty {
                    out += "  <signal name=\"\(escape(signal.name))\"/>\n"
                    continue
                }
                out += "  <signal name=\"\(escape(signal.name))\">\n"
                for arg in signal.arguments { out += "   " + argument(arg, direction: nil) }
                out += annotations.joined()
                out += "  </signal>\n"
            }
            out += " </interface>\n"
        }
        for child in children { out += " <node name=\"\(escape(child))\"/>\n" }
        out += "</node>\n"
        return out
    }

    private static func emitsChangedAnnotation(_ flags: PropertyFlags) -> String? {
        if flags.contains(.constant) { return "const" }
        if flags.contains(.emitsInvalidation) { return "invalidates" }
        if flags.contains(.emitsChange) { return nil }
        return "false"
    }

    private static func argument(_ arg: Argument, direction: String?) -> String {
        var s = "<arg"
        if !arg.name.isEmpty { s += " name=\"\(escape(arg.name))\"" }
        s += " type=\"\(escape(arg.signature))\""
        if let direction { s += " direction=\"\(direction)\"" }
        return s + "/>\n"
    }

    /// Qt types for D-Bus types qdbusxml2cpp does not map by itself.
    static func qtType(_ signature: String) -> String? {
        switch signature {
        case "a{sv}": "QVariantMap"
        case "a{ss}": "QMap<QString,QString>"
        default: nil
        }
    }

    private static func qtAnnotations(_ arguments: [Argument], prefix: String) -> [String] {
        arguments.enumerated().compactMap { index, arg in
            qtType(arg.signature).map {
                "   <annotation name=\"org.qtproject.QtDBus.QtTypeName.\(prefix)\(index)\" value=\"\(escape($0))\"/>\n"
            }
        }
    }

    /// A gtk-doc comment: "Name:" (with "@short_description:" for interfaces), one
    /// "@arg: text" line per argument, a blank line, the description.
    private static func gtkDoc(_ name: String, _ text: String, arguments: [Argument], short: Bool = false, indent: String) -> String {
        guard !text.isEmpty else { return "" }
        var lines = ["\(name):"]
        if short { lines.append("@short_description: " + firstSentence(text)) }
        for arg in arguments where !arg.name.isEmpty && !arg.doc.isEmpty { lines.append("@\(arg.name): \(arg.doc)") }
        lines.append("")
        lines += text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // "--" may not appear inside an XML comment: separate every pair of hyphens
        // (a single replacement pass would turn "---" into "- --").
        let body = lines.map { line -> String in
            var safe = ""
            for c in line {
                if c == "-", safe.last == "-" { safe.append(" ") }
                safe.append(c)
            }
            return safe.isEmpty ? "\n" : "\(indent)  \(safe)\n"
        }
        return "\(indent)<!--\n" + body.joined() + "\(indent)-->\n"
    }

    private static func firstSentence(_ text: String) -> String {
        guard let end = text.firstRange(of: ". ") else { return text }
        return String(text[..<end.lowerBound]) + "."
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}

