@testable import orientationctl
import Testing

/// The JSON reader follow uses on sway's IPC output: what sway prints, and what a broken
/// or hostile peer could print instead (never a trap: nil).
@Suite struct JSONTests {
    @Test func readsWhatSwayPrints() throws {
        let text = #"[ { "name": "eDP-1", "transform": "90", "focused": true, "pid": 1234, "rect": { "x": 0 }, "marks": [ ] } ]"#
        let value = try #require(JSON.parse(text.utf8))
        #expect(value.array?.count == 1)
        #expect(value.array?.first?["name"]?.string == "eDP-1")
        #expect(value.array?.first?["pid"]?.int == 1234)
        #expect(value.array?.first?["focused"]?.bool == true)
        #expect(value.array?.first?["marks"]?.array == [])
        #expect(JSON.parse(#""a\"b\\c\n\u00e9""#.utf8) == .string("a\"b\\c\né"))
        #expect(JSON.parse("  null \n".utf8) == .null)
        #expect(JSON.parse("-1.5e3".utf8) == .number(-1500))
    }

    @Test(arguments: ["", "{", "[1,", "[1 2]", #"{"a" 1}"#, #"{"a":}"#, "tru", #""unterminated"#, "[1]x", "01x", #""\u12""#])
    func malformedIsNil(text: String) {
        #expect(JSON.parse(text.utf8) == nil)
    }

    @Test func nestingIsBounded() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(JSON.parse(deep.utf8) == nil)
        let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(JSON.parse(fine.utf8) != nil)
    }

    @Test func nonIntegralNumbersAreNoPid() {
        #expect(JSON.number(12.5).int == nil)
        #expect(JSON.number(1e300).int == nil)
        #expect(JSON.number(42).int == 42)
    }

    /// sway's event stream: the subscribe reply (pretty-printed, several lines), then one
    /// event per line, arriving in arbitrary pieces.
    @Test func streamSplitsTextsHoweverTheBytesArrive() {
        let text = "[\n  {\n    \"success\": true\n  }\n]\n" + #"{ "change": "focus", "container": { "name": "a}]\"", "pid": 7 } }"# + "\n"
        for chunk in [1, 3, 7, 1000] {
            var stream = JSONStream()
            var texts: [JSON?] = []
            let bytes = Array(text.utf8)
            for start in stride(from: 0, to: bytes.count, by: chunk) {
                texts += stream.feed(bytes[start..<min(start + chunk, bytes.count)])
            }
            #expect(texts.count == 2, "chunk \(chunk)")
            #expect(texts.first??.array?.first?["success"]?.bool == true)
            #expect(texts.last??["container"]?["pid"]?.int == 7)
            #expect(texts.last??["container"]?["name"]?.string == "a}]\"")
        }
    }

    @Test func aMalformedTextInTheStreamIsNilAndTheNextStillCounts() {
        var stream = JSONStream()
        let texts = stream.feed(Array(#"{ "a": tru }{ "b": 1 }"#.utf8))
        #expect(texts.count == 2)
        #expect(texts[0] == nil)
        #expect(texts[1]?["b"]?.int == 1)
    }

    @Test func focusedProcessWalksNodesAndFloatingNodes() throws {
        let tree = try #require(JSON.parse(#"""
            { "focused": false, "nodes": [
                { "focused": false, "nodes": [ { "focused": false, "pid": 1 } ],
                  "floating_nodes": [ { "focused": true, "pid": 42 } ] } ] }
            """#.utf8))
        #expect(SwayFocus.focusedProcess(in: tree) == 42)
        let workspace = try #require(JSON.parse(#"{ "focused": true, "type": "workspace" }"#.utf8))
        #expect(SwayFocus.focusedProcess(in: workspace) == nil)
    }

    @Test func swayOutputs() {
        let text = #"[ { "name": "eDP-1", "transform": "normal" }, { "name": "HDMI-A-1", "transform": "270" } ]"#
        #expect(SwayOutputs.names(in: text) == ["eDP-1", "HDMI-A-1"])
        #expect(SwayOutputs.transform(of: "HDMI-A-1", in: text) == "270")
        #expect(SwayOutputs.names(in: "not json") == nil)
    }
}
