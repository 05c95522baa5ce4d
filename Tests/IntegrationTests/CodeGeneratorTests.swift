import Foundation
import Testing
import TestSupport

/// The shipped interface XML, as GLib's and Qt's code generators take it: no error, no
/// warning, and a description for every method, signal, property and argument.
@Suite struct CodeGeneratorTests {
    static let xml = repositoryRoot + "/dbus/org.orientationd.Orientation1.xml"

    @Test func gdbusCodegenDocumentsEveryMember() throws {
        let work = try makeTemporaryDirectory(prefix: "orientationd-codegen")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let generate = try ExternalCommand.run("/usr/bin/gdbus-codegen",
                                               ["--interface-prefix", "org.orientationd.", "--c-namespace", "Orientationd",
                                                "--generate-c-code", work + "/orientationd-generated",
                                                "--generate-docbook", work + "/doc", Self.xml], directory: work)
        #expect(generate.status == 0 && generate.stderr.isEmpty, "gdbus-codegen:\n\(generate.output)")
        let docs = try FileManager.default.contentsOfDirectory(atPath: work).filter { $0.hasPrefix("doc-") }.sorted()
        #expect(docs == ["doc-org.orientationd.Orientation1.Client.xml", "doc-org.orientationd.Orientation1.xml"])
        let check = try ExternalCommand.run("/usr/bin/python3", [repositoryRoot + "/scripts/check-interface-docs.py", Self.xml]
                                            + docs.map { work + "/" + $0 }, directory: work)
        #expect(check.status == 0, "\(check.output)")
        let header = try String(contentsOfFile: work + "/orientationd-generated.h", encoding: .utf8)
        #expect(header.contains("orientationd_orientation1_call_create_client"))
        #expect(header.contains("orientationd_orientation1_client_get_content_rotation"))
    }

    /// qdbusxml2cpp needs a Qt type for a{sv} (the QtTypeName annotation), and -N: the
    /// Client interface's name nests under the manager's, which the contract fixes.
    @Test func qdbusxml2cppMakesProxyAndAdaptor() throws {
        let work = try makeTemporaryDirectory(prefix: "orientationd-qdbus")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let tool = "/usr/lib/qt5/bin/qdbusxml2cpp"
        let proxy = try ExternalCommand.run(tool, ["-N", "-p", "orientationd_proxy", Self.xml], directory: work)
        #expect(proxy.status == 0 && proxy.stderr.isEmpty, "qdbusxml2cpp -p:\n\(proxy.output)")
        let adaptor = try ExternalCommand.run(tool, ["-N", "-a", "orientationd_adaptor", Self.xml], directory: work)
        #expect(adaptor.status == 0 && adaptor.stderr.isEmpty, "qdbusxml2cpp -a:\n\(adaptor.output)")
        let header = try String(contentsOfFile: work + "/orientationd_proxy.h", encoding: .utf8)
        #expect(header.contains("QDBusPendingReply<QDBusObjectPath> CreateClient(const QVariantMap &options)"), "\(header)")
        #expect(header.contains("class OrgOrientationdOrientation1ClientInterface"))
    }
}
