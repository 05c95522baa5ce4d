import Foundation
import Testing
import TestSupport

/// `scripts/release-flags.sh`, the one set of release build flags: what it prints and
/// the one file it writes, run on a copy of the scripts so the tree is left alone.
@Suite struct ReleaseFlagsTests {
    /// A tree holding only `scripts/` (as release-flags.sh sees the repository).
    func copyOfScripts() throws -> String {
        // The path as the script resolves it (no doubled slashes).
        var work = try makeTemporaryDirectory(prefix: "orientationd-release-flags")
        while work.contains("//") { work = work.replacingOccurrences(of: "//", with: "/") }
        try FileManager.default.copyItem(atPath: repositoryRoot + "/scripts", toPath: work + "/scripts")
        return work
    }

    func flags(in tree: String, environment: [String: String] = [:]) throws -> [String] {
        let result = try ExternalCommand.run("/bin/bash", [tree + "/scripts/release-flags.sh"], directory: tree,
                                             environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func printsTheStaticRuntimeLldPackedRelocationsTheOrderAndLibstdcxx() throws {
        let tree = try copyOfScripts()
        defer { try? FileManager.default.removeItem(atPath: tree) }
        let printed = try flags(in: tree)
        let text = printed.joined(separator: " ")
        #expect(text.hasPrefix("-c release -Xswiftc -static-stdlib -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs"
                               + " -Xlinker -z -Xlinker now -Xlinker --build-id"))
        #expect(printed.contains("--symbol-ordering-file=\(tree)/scripts/orientationd.order"), "\(printed)")
        // libstdc++ through a one-line linker script naming an archive that exists.
        let linkDir = try #require(printed.last)
        #expect(linkDir == tree + "/.build/release-link")
        let script = try String(contentsOfFile: linkDir + "/libstdc++.so", encoding: .utf8)
        #expect(script.hasPrefix("INPUT(/") && script.hasSuffix("libstdc++.a)\n"), "\(script)")
        let archive = String(script.dropFirst("INPUT(".count).dropLast(")\n".count))
        #expect(FileManager.default.fileExists(atPath: archive), "\(archive)")
        // Asked again, the same flags and the file left as it was.
        #expect(try flags(in: tree) == printed)
    }

    @Test func withoutTheOrderListItLinksWithoutIt() throws {
        let tree = try copyOfScripts()
        defer { try? FileManager.default.removeItem(atPath: tree) }
        try FileManager.default.removeItem(atPath: tree + "/scripts/orientationd.order")
        let printed = try flags(in: tree)
        #expect(!printed.contains { $0.hasPrefix("--symbol-ordering-file") }, "\(printed)")
        #expect(printed.prefix(2) == ["-c", "release"])
    }
}
