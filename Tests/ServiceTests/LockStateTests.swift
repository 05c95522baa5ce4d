import Foundation
import OrientationAPI
import Posix
import Service
import Testing
import TestSupport

/// RotationLocked kept in the state directory: what is read back, and what is refused.
@Suite struct LockStateTests {
    let directory: String

    init() throws { directory = try makeTemporaryDirectory(prefix: "orientationd-state") }

    @Test func noFileIsUnlockedAndSavesReadBack() throws {
        let state = LockState(directory: directory + "/")
        #expect(state.path == directory + "/state")
        #expect(try state.load().get() == .init(locked: false, orientation: .undefined))
        try state.save(.init(locked: true, orientation: .leftUp)).get()
        #expect(try state.load().get() == .init(locked: true, orientation: .leftUp))
        try state.save(.init(locked: false, orientation: .normal)).get()
        #expect(try state.load().get() == .init(locked: false, orientation: .normal))
        // Replaced whole: no temporary file left beside it.
        #expect(try FileSystem.list(directory) == ["state"])
        #expect(try FileSystem.readText(state.path).contains("RotationLocked=false\nOrientation=normal\n"))
        // A lock saved without its orientation holds none.
        try "RotationLocked=true\n".write(toFile: state.path, atomically: true, encoding: .utf8)
        #expect(try state.load().get() == .init(locked: true, orientation: .undefined))
    }

    @Test(arguments: [
        ("RotationLocked=yes\n", "state:1: expected RotationLocked=true or =false, found \"RotationLocked=yes\""),
        ("# saved\n\nLocked=true\n", "state:3: expected RotationLocked=true or =false"),
        ("RotationLocked=true\nOrientation=sideways\n", "state:2: \"Orientation=sideways\" names no orientation"),
    ])
    func aFileNotWrittenByTheDaemonIsAnError(text: String, expected: String) throws {
        let state = LockState(directory: directory)
        try text.write(toFile: state.path, atomically: true, encoding: .utf8)
        guard case .failure(let error) = state.load() else { Issue.record("\(text) was accepted"); return }
        #expect(error.message.contains(expected), "\(error.message)")
    }

    @Test func aStateThatIsADirectoryCannotBeRead() throws {
        let state = LockState(directory: directory)
        try FileManager.default.createDirectory(atPath: state.path, withIntermediateDirectories: false)
        guard case .failure(let error) = state.load() else { Issue.record("a directory was read"); return }
        #expect(error.message.contains("cannot read"), "\(error.message)")
        guard case .failure(let saving) = state.save(.init(locked: true, orientation: .normal)) else {
            Issue.record("saved over a directory")
            return
        }
        #expect(saving.message.contains("cannot save"), "\(saving.message)")
        #expect(!FileManager.default.fileExists(atPath: state.path + ".new"))
    }

    /// systemd's STATE_DIRECTORY may list several directories, colon-separated.
    @Test func theStateDirectoryIsTheFirstOfTheList() {
        #expect(LockState.directory(environment: nil) == nil)
        #expect(LockState.directory(environment: "") == nil)
        #expect(LockState.directory(environment: "/var/lib/orientationd") == "/var/lib/orientationd")
        #expect(LockState.directory(environment: "/var/lib/a:/var/lib/b") == "/var/lib/a")
    }
}
