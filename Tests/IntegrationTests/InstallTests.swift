import Foundation
import Glibc
import Testing
import TestSupport

/// `make install` / `make uninstall` into a staging directory (DESTDIR), with the
/// debug products standing in for the release build (ORIENTATIOND_PREBUILT), and the
/// installed systemd unit checked by systemd-analyze.
@Suite struct InstallTests {
    /// Every file `make install DESTDIR=… PREFIX=prefix` lays down on an empty tree,
    /// relative to DESTDIR, with its mode.
    static func expectedTree(prefix: String) -> [String: Int] {
        let p = String(prefix.dropFirst())  // relative to DESTDIR
        return [
            "\(p)/bin/orientationctl": 0o755,
            "\(p)/libexec/orientationd": 0o755,
            "\(p)/share/dbus-1/system.d/org.orientationd.Orientation1.conf": 0o644,
            "\(p)/share/dbus-1/system.d/net.hadess.SensorProxy.conf": 0o644,
            "\(p)/share/dbus-1/system-services/org.orientationd.Orientation1.service": 0o644,
            "\(p)/share/polkit-1/actions/org.orientationd.Orientation1.policy": 0o644,
            "\(p)/share/polkit-1/actions/net.hadess.SensorProxy.policy": 0o644,
            "\(p)/lib/udev/rules.d/80-orientationd.rules": 0o644,
            "\(p)/lib/systemd/system/orientationd.service": 0o644,
            "\(p)/share/man/man8/orientationd.8": 0o644,
            "\(p)/share/man/man1/orientationctl.1": 0o644,
            "\(p)/share/dbus-1/interfaces/org.orientationd.Orientation1.xml": 0o644,
            "\(p)/share/doc/orientationd/LICENSE": 0o644,
            "\(p)/share/doc/orientationd/README.md": 0o644,
            "\(p)/share/doc/orientationd/api.md": 0o644,
            "\(p)/share/bash-completion/completions/orientationctl": 0o644,
            "\(p)/share/zsh/vendor-completions/_orientationctl": 0o644,
            "\(p)/share/fish/vendor_completions.d/orientationctl.fish": 0o644,
            "etc/orientationd/orientationd.conf": 0o644,
        ]
    }

    @Test(arguments: ["/usr", "/usr/local"])
    func installLaysDownExactlyTheTreeAndUninstallRemovesIt(prefix: String) throws {
        let work = try makeTemporaryDirectory(prefix: "orientationd-install")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let destdir = work + "/root"

        let install = try Make.run("install", destdir: destdir, prefix: prefix)
        #expect(install.status == 0, "make install failed:\n\(install.output)")
        let tree = try Make.files(under: destdir)
        let expected = Self.expectedTree(prefix: prefix)
        #expect(Set(tree.keys) == Set(expected.keys),
                "unexpected: \(Set(tree.keys).subtracting(expected.keys).sorted()), missing: \(Set(expected.keys).subtracting(tree.keys).sorted())")
        for (path, mode) in expected {
            #expect(tree[path] == mode, "\(path) has mode \(String(tree[path] ?? 0, radix: 8)), expected \(String(mode, radix: 8))")
        }

        // The programs are the built ones, stripped; the copied files are the repository's.
        let p = String(prefix.dropFirst())
        for (installed, built) in [("libexec/orientationd", "orientationd"), ("bin/orientationctl", "orientationctl")] {
            let path = "\(destdir)/\(p)/\(installed)"
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
            let builtSize = try FileManager.default.attributesOfItem(atPath: productsDirectory + "/" + built)[.size] as? Int ?? 0
            #expect(size > 0 && size < builtSize, "\(installed): \(size) bytes, built \(builtSize)")
            let sections = try ExternalCommand.run("/usr/bin/readelf", ["-S", "-W", path], directory: work)
            #expect(!sections.stdout.contains(".debug_info") && !sections.stdout.contains(".symtab"), "\(installed) is not stripped")
            let help = try ExternalCommand.run(path, ["--help"], directory: work)
            #expect(help.status == 0, "the stripped \(installed) does not run")
        }
        for (installed, source) in [("share/dbus-1/system.d/org.orientationd.Orientation1.conf", "dbus/org.orientationd.Orientation1.conf"),
                                    ("share/dbus-1/interfaces/org.orientationd.Orientation1.xml", "dbus/org.orientationd.Orientation1.xml"),
                                    ("share/doc/orientationd/LICENSE", "LICENSE"),
                                    ("share/bash-completion/completions/orientationctl", "completions/orientationctl.bash"),
                                    ("share/polkit-1/actions/org.orientationd.Orientation1.policy", "polkit/org.orientationd.Orientation1.policy"),
                                    ("lib/udev/rules.d/80-orientationd.rules", "udev/80-orientationd.rules"),
                                    ("share/man/man8/orientationd.8", "man/orientationd.8")] {
            #expect(FileManager.default.contentsEqual(atPath: "\(destdir)/\(p)/\(installed)", andPath: repositoryRoot + "/" + source), "\(installed)")
        }

        // Paths are substituted with the final location, without DESTDIR.
        let unit = try String(contentsOfFile: "\(destdir)/\(p)/lib/systemd/system/orientationd.service", encoding: .utf8)
        #expect(unit.contains("\nExecStart=\(prefix)/libexec/orientationd --system\n"))
        let system = try String(contentsOfFile: "\(destdir)/\(p)/share/dbus-1/system-services/org.orientationd.Orientation1.service", encoding: .utf8)
        #expect(system.contains("\nExec=\(prefix)/libexec/orientationd --system\n"))
        for text in [unit, system] {
            #expect(!text.contains("@libexecdir@"))
            #expect(!text.contains(destdir))
        }

        let uninstall = try Make.run("uninstall", destdir: destdir, prefix: prefix)
        #expect(uninstall.status == 0, "make uninstall failed:\n\(uninstall.output)")
        let left = try Make.files(under: destdir)
        #expect(left.isEmpty, "left behind: \(left.keys.sorted())")
        #expect(!FileManager.default.fileExists(atPath: destdir + "/etc/orientationd"))
    }

    /// A configuration the administrator changed, and iio-sensor-proxy's own bus policy
    /// and polkit action, are neither overwritten nor removed.
    @Test func installAndUninstallKeepTheAdministratorsAndIioSensorProxysFiles() throws {
        let work = try makeTemporaryDirectory(prefix: "orientationd-install")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let destdir = work + "/root"
        let theirs = [
            "etc/orientationd/orientationd.conf": "[Sensor]\nPollIntervalMs=50\n",
            "etc/dbus-1/system.d/net.hadess.SensorProxy.conf": "<busconfig/>\n",
            "usr/share/polkit-1/actions/net.hadess.SensorProxy.policy": "<policyconfig/>\n",
        ]
        for (path, text) in theirs {
            try FileManager.default.createDirectory(atPath: destdir + "/" + (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try text.write(toFile: destdir + "/" + path, atomically: true, encoding: .utf8)
        }

        let install = try Make.run("install", destdir: destdir, prefix: "/usr")
        #expect(install.status == 0, "make install failed:\n\(install.output)")
        var expected = Set(Self.expectedTree(prefix: "/usr").keys)
        expected.remove("usr/share/dbus-1/system.d/net.hadess.SensorProxy.conf")  // iio-sensor-proxy's is in /etc
        expected.formUnion(theirs.keys)
        #expect(Set(try Make.files(under: destdir).keys) == expected)
        for (path, text) in theirs {
            #expect(try String(contentsOfFile: destdir + "/" + path, encoding: .utf8) == text, "\(path) was overwritten")
        }

        let uninstall = try Make.run("uninstall", destdir: destdir, prefix: "/usr")
        #expect(uninstall.status == 0, "make uninstall failed:\n\(uninstall.output)")
        #expect(Set(try Make.files(under: destdir).keys) == Set(theirs.keys))
        for (path, text) in theirs {
            #expect(try String(contentsOfFile: destdir + "/" + path, encoding: .utf8) == text, "\(path) was changed")
        }
    }

    /// As root in a tree that belongs to someone else, make install never builds (that
    /// would leave root-owned files in the user's .build): with no release build it says
    /// to build first as the tree's owner.
    @Test func rootDoesNotBuildInAUsersTree() throws {
        guard getuid() == 0 else { return }
        let work = try makeTemporaryDirectory(prefix: "orientationd-install")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let tree = work + "/tree"
        try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
        // Copied by cp(1): make runs the copied scripts, and a file this process held open
        // for writing would be inherited by children other tests fork meanwhile (ETXTBSY).
        let copy = try ExternalCommand.run("/bin/cp", ["-R", repositoryRoot + "/Makefile", repositoryRoot + "/scripts", tree + "/"],
                                           directory: work)
        try #require(copy.status == 0, "\(copy.output)")
        let chown = try ExternalCommand.run("/usr/bin/chown", ["-R", "nobody", tree], directory: work)
        #expect(chown.status == 0)
        let install = try ExternalCommand.run("/usr/bin/make", ["--no-print-directory", "-C", tree, "install", "DESTDIR=" + work + "/root"],
                                              directory: work, environment: ["MAKEFLAGS": "", "MFLAGS": ""],
                                              removing: ["ORIENTATIOND_PREBUILT"], seconds: 60)
        #expect(install.status != 0)
        #expect(install.output.contains("run 'make release' as nobody first"), "\(install.output)")
        #expect(!FileManager.default.fileExists(atPath: tree + "/.build"))
    }

    /// The shell completions parse in their shells and complete commands and options.
    @Test func completionsWorkInTheirShells() throws {
        let work = try makeTemporaryDirectory(prefix: "orientationd-completions")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let dir = repositoryRoot + "/completions"
        let bash = try ExternalCommand.run("/bin/bash", ["-c", """
            source \(dir)/orientationctl.bash
            COMP_WORDS=(orientationctl mon); COMP_CWORD=1; _orientationctl; echo "${COMPREPLY[*]}"
            COMP_WORDS=(orientationctl monitor --supported normal,le); COMP_CWORD=3; _orientationctl; echo "${COMPREPLY[*]}"
            COMP_WORDS=(orientationctl lock --t); COMP_CWORD=2; _orientationctl; echo "${COMPREPLY[*]}"
            """], directory: work)
        #expect(bash.stdout == "monitor\nnormal,left-up\n--toggle\n", "\(bash.output)")
        let zsh = try ExternalCommand.run("/usr/bin/zsh", ["-n", dir + "/_orientationctl"], directory: work)
        #expect(zsh.status == 0, "\(zsh.output)")
        let fish = try ExternalCommand.run("/usr/bin/fish", ["-c", "source \(dir)/orientationctl.fish; complete -C'orientationctl mon'"],
                                           directory: work)
        #expect(fish.stdout.hasPrefix("monitor\t"), "\(fish.output)")
    }

    /// STRIP=no installs the programs exactly as built.
    @Test func stripNoKeepsTheBuild() throws {
        let work = try makeTemporaryDirectory(prefix: "orientationd-install")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let destdir = work + "/root"
        let install = try Make.run("install", destdir: destdir, prefix: "/usr", variables: ["STRIP=no"])
        #expect(install.status == 0, "\(install.output)")
        #expect(FileManager.default.contentsEqual(atPath: destdir + "/usr/libexec/orientationd", andPath: productsDirectory + "/orientationd"))
        #expect(FileManager.default.contentsEqual(atPath: destdir + "/usr/bin/orientationctl", andPath: productsDirectory + "/orientationctl"))
    }

    /// Session-bus activation is for developers: only with INSTALL_SESSION_SERVICE=yes, and
    /// then it asks for the simulated sensor by name; uninstall removes it either way.
    @Test func sessionActivationIsOptIn() throws {
        let work = try makeTemporaryDirectory(prefix: "orientationd-install")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let destdir = work + "/root"
        let file = destdir + "/usr/share/dbus-1/services/org.orientationd.Orientation1.service"
        let plain = try Make.run("install", destdir: destdir, prefix: "/usr")
        #expect(plain.status == 0, "\(plain.output)")
        #expect(!FileManager.default.fileExists(atPath: file))
        let opted = try Make.run("install", destdir: destdir, prefix: "/usr", variables: ["INSTALL_SESSION_SERVICE=yes"])
        #expect(opted.status == 0, "\(opted.output)")
        let session = try String(contentsOfFile: file, encoding: .utf8)
        #expect(session.contains("\nExec=/usr/libexec/orientationd --session --sensor simulated\n"))
        let bad = try Make.run("install", destdir: destdir, prefix: "/usr", variables: ["INSTALL_SESSION_SERVICE=maybe"])
        #expect(bad.status != 0 && bad.output.contains("INSTALL_SESSION_SERVICE must be yes or no"))
        let uninstall = try Make.run("uninstall", destdir: destdir, prefix: "/usr")
        #expect(uninstall.status == 0)
        #expect(try Make.files(under: destdir).isEmpty)
    }

    /// iio-sensor-proxy's place is taken only with REPLACE_SENSOR_PROXY=yes (what the
    /// orientationd-sensor-proxy package holds): a drop-in that starts the daemon with
    /// --sensor-proxy-compat, which systemd-analyze reads with the unit (a drop-in
    /// naming a missing program fails verification), and the name's activation file;
    /// uninstall removes both either way.
    @Test func replacingSensorProxyIsOptIn() throws {
        let work = try makeTemporaryDirectory(prefix: "orientationd-install")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let destdir = work + "/root"
        let dropIn = destdir + "/usr/lib/systemd/system/orientationd.service.d/sensor-proxy.conf"
        let activation = destdir + "/usr/share/dbus-1/system-services/net.hadess.SensorProxy.service"
        let plain = try Make.run("install", destdir: destdir, prefix: "/usr")
        #expect(plain.status == 0, "\(plain.output)")
        #expect(!FileManager.default.fileExists(atPath: dropIn) && !FileManager.default.fileExists(atPath: activation))
        let bad = try Make.run("install", destdir: destdir, prefix: "/usr", variables: ["REPLACE_SENSOR_PROXY=maybe"])
        #expect(bad.status != 0 && bad.output.contains("REPLACE_SENSOR_PROXY must be yes or no"))

        let opted = try Make.run("install", destdir: destdir, prefix: "/usr", variables: ["REPLACE_SENSOR_PROXY=yes"])
        #expect(opted.status == 0, "\(opted.output)")
        let dropInText = try String(contentsOfFile: dropIn, encoding: .utf8)
        #expect(dropInText.contains("\nExecStart=\nExecStart=/usr/libexec/orientationd --system --sensor-proxy-compat\n"))
        let activationText = try String(contentsOfFile: activation, encoding: .utf8)
        #expect(activationText.contains("\nName=net.hadess.SensorProxy\n") && activationText.contains("\nSystemdService=orientationd.service\n"))

        // The unit with its drop-in, both pointed at the staged daemon, verifies; the
        // drop-in is read (pointed at nothing, verification fails).
        let unitDirectory = work + "/verify"
        try FileManager.default.createDirectory(atPath: unitDirectory + "/orientationd.service.d", withIntermediateDirectories: true)
        let staged = "=\(destdir)/usr/libexec/orientationd"
        try String(contentsOfFile: destdir + "/usr/lib/systemd/system/orientationd.service", encoding: .utf8)
            .replacingOccurrences(of: "=/usr/libexec/orientationd", with: staged)
            .write(toFile: unitDirectory + "/orientationd.service", atomically: true, encoding: .utf8)
        func verify(dropInPointingAt target: String) throws -> ExternalCommand.Result {
            try dropInText.replacingOccurrences(of: "=/usr/libexec/orientationd", with: target)
                .write(toFile: unitDirectory + "/orientationd.service.d/sensor-proxy.conf", atomically: true, encoding: .utf8)
            return try ExternalCommand.run("/usr/bin/systemd-analyze", ["verify", "--man=no", unitDirectory + "/orientationd.service"],
                                           directory: work)
        }
        let good = try verify(dropInPointingAt: staged)
        #expect(good.status == 0 && good.stderr.isEmpty, "systemd-analyze verify:\n\(good.output)")
        #expect(try verify(dropInPointingAt: "=\(destdir)/nonexistent/orientationd").status != 0)

        let uninstall = try Make.run("uninstall", destdir: destdir, prefix: "/usr")
        #expect(uninstall.status == 0, "\(uninstall.output)")
        #expect(try Make.files(under: destdir).isEmpty)
    }

    /// The installed unit passes `systemd-analyze verify` (its ExecStart pointed at the
    /// staged daemon, its man pages found in the staged MANDIR), and its exposure score
    /// is low, and lower than iio-sensor-proxy's unit's.
    @Test func installedUnitVerifiesAndIsHardened() throws {
        let work = try makeTemporaryDirectory(prefix: "orientationd-install")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let destdir = work + "/root"
        let install = try Make.run("install", destdir: destdir, prefix: "/usr")
        #expect(install.status == 0, "make install failed:\n\(install.output)")

        // verify resolves ExecStart= on the real root: point it at the staged binary.
        let unitDirectory = work + "/verify"
        try FileManager.default.createDirectory(atPath: unitDirectory, withIntermediateDirectories: true)
        let installed = try String(contentsOfFile: destdir + "/usr/lib/systemd/system/orientationd.service", encoding: .utf8)
        // An invalid configuration exits with EX_CONFIG; restarting would not fix it.
        #expect(installed.contains("\nRestartPreventExitStatus=78\n"))
        let unit = unitDirectory + "/orientationd.service"
        try installed.replacingOccurrences(of: "=/usr/libexec/orientationd", with: "=\(destdir)/usr/libexec/orientationd")
            .write(toFile: unit, atomically: true, encoding: .utf8)
        // Documentation=man:… is checked with man(1) when it is installed (man-db).
        let checkMan = FileManager.default.isExecutableFile(atPath: "/usr/bin/man")
        let verify = try ExternalCommand.run("/usr/bin/systemd-analyze", ["verify", checkMan ? "--man=yes" : "--man=no", unit], directory: work,
                                             environment: ["MANPATH": destdir + "/usr/share/man"])
        #expect(verify.status == 0 && verify.stderr.isEmpty, "systemd-analyze verify:\n\(verify.output)")

        // A missing ExecStart binary would have been caught.
        try installed.replacingOccurrences(of: "=/usr/libexec/orientationd", with: "=\(destdir)/nonexistent/orientationd")
            .write(toFile: unitDirectory + "/broken.service", atomically: true, encoding: .utf8)
        let broken = try ExternalCommand.run("/usr/bin/systemd-analyze", ["verify", "--man=no", unitDirectory + "/broken.service"], directory: work)
        #expect(broken.status != 0)

        // iio-sensor-proxy's unit as Debian 12 ships it (its sandbox settings), for comparison.
        let reference = unitDirectory + "/iio-sensor-proxy.service"
        try """
            [Unit]
            Description=IIO Sensor Proxy service
            [Service]
            Type=dbus
            BusName=net.hadess.SensorProxy
            ExecStart=/bin/true
            ProtectSystem=strict
            ProtectControlGroups=true
            ProtectHome=true
            ProtectKernelModules=true
            PrivateTmp=true
            RestrictAddressFamilies=AF_UNIX AF_LOCAL AF_NETLINK
            MemoryDenyWriteExecute=true
            RestrictRealtime=true

            """.write(toFile: reference, atomically: true, encoding: .utf8)
        let ours = try Self.exposure(of: unit, directory: work)
        let theirs = try Self.exposure(of: reference, directory: work)
        #expect(ours <= 2.0, "exposure of orientationd.service is \(ours)")
        #expect(ours < theirs, "exposure of orientationd.service is \(ours), iio-sensor-proxy's \(theirs)")
    }

    /// The names in the unit, the activation files, the bus policy and the udev rule agree.
    @Test func unitActivationPolicyAndUdevRuleAgree() throws {
        func read(_ path: String) throws -> String { try String(contentsOfFile: repositoryRoot + "/" + path, encoding: .utf8) }
        let unit = try read("systemd/orientationd.service")
        #expect(unit.contains("\nType=dbus\n"))
        #expect(unit.contains("\nBusName=org.orientationd.Orientation1\n"))
        #expect(unit.contains("\nExecStart=@libexecdir@/orientationd --system\n"))
        let activation = try read("dbus/system-services/org.orientationd.Orientation1.service")
        #expect(activation.contains("\nName=org.orientationd.Orientation1\n"))
        #expect(activation.contains("\nSystemdService=orientationd.service\n"))
        #expect(activation.contains("\nUser=root\n"))
        #expect(try read("dbus/session-services/org.orientationd.Orientation1.service").contains("\nName=org.orientationd.Orientation1\n"))
        #expect(try read("dbus/org.orientationd.Orientation1.conf").contains("<allow own=\"org.orientationd.Orientation1\"/>"))
        #expect(try read("dbus/net.hadess.SensorProxy.conf").contains("<allow own=\"net.hadess.SensorProxy\"/>"))
        #expect(try read("udev/80-orientationd.rules").contains("ENV{SYSTEMD_WANTS}+=\"orientationd.service\""))
        let policy = try read("polkit/org.orientationd.Orientation1.policy")
        for action in ["org.orientationd.Orientation1.claim", "org.orientationd.Orientation1.lock"] {
            #expect(policy.contains("<action id=\"\(action)\">"))
        }
        #expect(try read("polkit/net.hadess.SensorProxy.policy").contains("<action id=\"net.hadess.SensorProxy.claim-sensor\">"))
    }

    /// The example configuration, as installed and with every setting uncommented,
    /// is accepted by the daemon.
    @Test func exampleConfigurationIsAccepted() throws {
        let example = try String(contentsOfFile: repositoryRoot + "/conf/orientationd.conf", encoding: .utf8)
        let uncommented = example.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("#") && line.dropFirst().first.map { $0.isUppercase || $0 == "[" } == true ? String(line.dropFirst()) : String(line)
        }.joined(separator: "\n")
        #expect(uncommented.contains("\nMountMatrix=") && uncommented.contains("\nOrientationSettleMs=100\n"))
        for (name, text) in [("example", example), ("uncommented", uncommented)] {
            let bus = try TestBus()
            let path = bus.directory + "/\(name).conf"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let daemon = try ChildProcess(product: "orientationd", arguments: ["--address", bus.address, "--sensor", "simulated", "--config", path],
                                          directory: bus.directory)
            let peer = try Peer(bus: bus)
            #expect(peer.waitForService(), "the \(name) configuration was refused:\n\(daemon.stderr)")
            daemon.signal(SIGTERM)
            #expect(daemon.waitForExit() == 0)
        }
    }

    static func exposure(of unit: String, directory: String) throws -> Double {
        let result = try ExternalCommand.run("/usr/bin/systemd-analyze", ["security", "--offline=yes", "--no-pager", unit], directory: directory)
        guard let line = result.stdout.split(separator: "\n").first(where: { $0.contains("Overall exposure level") }),
              let value = line.split(separator: ":").last?.split(separator: " ").first.flatMap({ Double($0) }) else {
            throw TestFailure("no exposure level for \(unit):\n\(result.output)")
        }
        return value
    }
}

/// `make install` / `make uninstall` run from the repository.
enum Make {
    /// Runs make in the repository; its output is kept next to DESTDIR, not in it.
    static func run(_ target: String, destdir: String, prefix: String, variables: [String] = []) throws -> ExternalCommand.Result {
        // Install variables of the caller's environment must not leak in.
        try ExternalCommand.run("/usr/bin/make", ["--no-print-directory", "-C", repositoryRoot, target, "DESTDIR=" + destdir, "PREFIX=" + prefix] + variables,
                                directory: (destdir as NSString).deletingLastPathComponent,
                                environment: ["ORIENTATIOND_PREBUILT": productsDirectory, "MAKEFLAGS": "", "MFLAGS": ""],
                                removing: ["BINDIR", "LIBEXECDIR", "DATADIR", "MANDIR", "SYSCONFDIR", "DBUSPOLICYDIR", "DBUSSYSTEMSERVICEDIR",
                                           "DBUSSESSIONSERVICEDIR", "POLKITACTIONDIR", "UDEVRULESDIR", "SYSTEMDSYSTEMUNITDIR",
                                           "SENSOR_PROXY_COMPAT_FILES", "INSTALL_SESSION_SERVICE", "REPLACE_SENSOR_PROXY", "STRIP", "DBUSINTERFACESDIR", "DOCDIR",
                                           "BASHCOMPLETIONDIR", "ZSHCOMPLETIONDIR", "FISHCOMPLETIONDIR"],
                                seconds: 60)
    }

    /// Regular files and symlinks under `root` (relative paths) with their permission bits.
    static func files(under root: String) throws -> [String: Int] {
        var result: [String: Int] = [:]
        guard let walker = FileManager.default.enumerator(atPath: root) else { throw TestFailure("cannot list \(root)") }
        while let relative = walker.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: root + "/" + relative)
            guard let type = attributes[.type] as? FileAttributeType, type != .typeDirectory else { continue }
            result[relative] = (attributes[.posixPermissions] as? Int) ?? -1
        }
        return result
    }
}

/// A system program run to completion with a deadline, its output kept in files.
enum ExternalCommand {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var output: String { stdout + stderr }
    }

    /// Starts `path` with `arguments`; `environment` entries are added to (and
    /// `removing` taken out of) this process's environment.
    static func start(_ path: String, _ arguments: [String], directory: String, environment: [String: String] = [:],
                      removing: [String] = []) throws -> (process: Process, stdout: String, stderr: String) {
        let name = directory + "/" + (path as NSString).lastPathComponent + "-" + UUID().uuidString.prefix(8)
        let stdout = name + ".stdout", stderr = name + ".stderr"
        _ = FileManager.default.createFile(atPath: stdout, contents: nil)
        _ = FileManager.default.createFile(atPath: stderr, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var merged = ProcessInfo.processInfo.environment
        for key in removing { merged[key] = nil }
        merged.merge(environment) { $1 }
        process.environment = merged
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: stdout)
        process.standardError = FileHandle(forWritingAtPath: stderr)
        try process.run()
        return (process, stdout, stderr)
    }

    static func run(_ path: String, _ arguments: [String], directory: String, environment: [String: String] = [:],
                    removing: [String] = [], seconds: Double = 20) throws -> Result {
        let (process, stdout, stderr) = try start(path, arguments, directory: directory, environment: environment, removing: removing)
        guard waitUntil(seconds: seconds, { !process.isRunning }) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw TestFailure("\(path) \(arguments) did not finish within \(seconds) s")
        }
        defer {
            try? FileManager.default.removeItem(atPath: stdout)
            try? FileManager.default.removeItem(atPath: stderr)
        }
        return Result(status: process.terminationStatus,
                      stdout: (try? String(contentsOfFile: stdout, encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? "")
    }
}
