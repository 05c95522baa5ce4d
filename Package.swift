// swift-tools-version:6.0
//
// orientationd: accelerometer orientation as a freedesktop D-Bus service.
//
// Layers point down only:
//   CDBus, CUdev, CLinux          system library shims (pkg-config)
//   Posix, DBus, Udev             thin typed wrappers, one owner per C handle
//   OrientationAPI                the contract's names, Orientation and Tilt (stdlib only):
//                                 all a client needs (OrientationClient re-exports it)
//   OrientationEngine             pure Swift, standard library only
//   Sensors                       sensor backends behind one protocol
//   Service                       manager and client objects
//   orientationd, orientationctl  thin executables
import PackageDescription

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "orientationd",
    products: [
        .executable(name: "orientationd", targets: ["orientationd"]),
        .executable(name: "orientationctl", targets: ["orientationctl"]),
        .library(name: "OrientationClient", targets: ["OrientationClient"]),
    ],
    targets: [
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        .systemLibrary(name: "CLinux"),

        .target(name: "Posix", dependencies: ["CLinux"], swiftSettings: strict),
        .target(name: "Arguments", swiftSettings: strict),
        .target(name: "DBus", dependencies: ["CDBus", "Posix"], swiftSettings: strict),
        .target(name: "Udev", dependencies: ["CUdev", "Posix"], swiftSettings: strict),
        // The contract's names and vocabulary; standard library only.
        .target(name: "OrientationAPI", swiftSettings: strict),
        .target(name: "OrientationEngine", dependencies: ["OrientationAPI"], swiftSettings: strict),
        .target(name: "Sensors", dependencies: ["Posix", "Udev", "OrientationEngine"], swiftSettings: strict),
        .target(name: "Service", dependencies: ["DBus", "Posix", "Sensors", "OrientationAPI", "OrientationEngine"], swiftSettings: strict),
        // Clients need the contract, not the engine.
        .target(name: "OrientationClient", dependencies: ["DBus", "Posix", "OrientationAPI"], swiftSettings: strict),

        .executableTarget(name: "orientationd", dependencies: ["Service", "OrientationAPI", "Arguments"], swiftSettings: strict),
        .executableTarget(
            name: "orientationctl",
            dependencies: ["OrientationClient", "OrientationAPI", "OrientationEngine", "Posix", "DBus", "Sensors", "Arguments"],
            swiftSettings: strict),

        // Measurements with many bus peers (make bench); prints figures, asserts nothing.
        .executableTarget(name: "orientationd-bench", dependencies: ["DBus", "Posix", "OrientationAPI"], swiftSettings: strict),

        // What the test targets share: the private bus, temporary directories, spawning,
        // SplitMix.
        .target(name: "TestSupport", dependencies: ["Posix"], path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "OrientationEngineTests", dependencies: ["OrientationAPI", "OrientationEngine", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "PosixTests", dependencies: ["Posix", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "ArgumentsTests", dependencies: ["Arguments"], swiftSettings: strict),
        // The programs' own code: orientationctl's JSON reader, both programs' command lines
        // against their man pages.
        .testTarget(name: "OrientationctlTests", dependencies: ["orientationctl", "orientationd"], swiftSettings: strict),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "Posix", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "ServiceTests", dependencies: ["Service", "DBus", "OrientationAPI", "OrientationEngine", "Sensors", "Posix", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["DBus", "Posix", "OrientationEngine", "OrientationClient", "TestSupport"],
            swiftSettings: strict),
        .testTarget(name: "SensorsTests", dependencies: ["Sensors", "OrientationEngine", "Posix", "TestSupport"], swiftSettings: strict),
    ]
)
