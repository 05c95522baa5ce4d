/// Generates introspection XML from interface descriptions.
public enum Introspection {
    public static let doctype = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        """

    /// A `<node>` document. `includeDocs` adds each member's documentation as an XML
    /// comment (for the documented copy in `dbus/`; live replies stay compact).
    public static func xml(interfaces: [InterfaceDescription], children: [String] = [], includeDocs: Bool = false) -> String {
        var out = doctype + "\n<node>\n"
        for interface in interfaces {
            if includeDocs { out += comment(interface.doc, indent: " ") }
            out += " <interface name=\"\(escape(interface.name))\">\n"
            for method in interface.methods {
                if includeDocs { out += comment(method.doc, indent: "  ") }
                if method.inputs.isEmpty && method.outputs.isEmpty {
                    out += "  <method name=\"\(escape(method.name))\"/>\n"
                    continue
                }
                out += "  <method name=\"\(escape(method.name))\">\n"
                for arg in method.inputs { out += "   " + argument(arg, direction: "in") }
                for arg in method.outputs { out += "   " + argument(arg, direction: "out") }
                out += "  </method>\n"
            }
            for property in interface.properties {
                if includeDocs { out += comment(property.doc, indent: "  ") }
                let access = property.writable ? "readwrite" : "read"
                let open = "  <property name=\"\(escape(property.name))\" type=\"\(escape(property.signature))\" access=\"\(access)\""
                if let annotation = emitsChangedAnnotation(property.flags) {
                    out += open + ">\n"
                    out += "   <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"\(annotation)\"/>\n"
                    out += "  </property>\n"
                } else {
                    out += open + "/>\n"
                }
            }
            for signal in interface.signals {
                if includeDocs { out += comment(signal.doc, indent: "  ") }
                if signal.arguments.isEmpty {
                    out += "  <signal name=\"\(escape(signal.name))\"/>\n"
                    continue
                }
                out += "  <signal name=\"\(escape(signal.name))\">\n"
                for arg in signal.arguments { out += "   " + argument(arg, direction: nil) }
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

    private static func comment(_ text: String, indent: String) -> String {
        guard !text.isEmpty else { return "" }
        // "--" may not appear inside an XML comment: separate every pair of hyphens
        // (a single replacement pass would turn "---" into "- --").
        var safe = ""
        for c in text {
            if c == "-", safe.last == "-" { safe.append(" ") }
            safe.append(c)
        }
        let lines = safe.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.count == 1 { return "\(indent)<!-- \(safe) -->\n" }
        return "\(indent)<!--\n" + lines.map { "\(indent)  \($0)\n" }.joined() + "\(indent)-->\n"
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

extension String {
    /// Standard-library-only replacement (the DBus layer does not import Foundation).
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
