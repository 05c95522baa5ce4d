// swift-tools-version:6.0
// orientation-demo: the four behaviours of the API, visible, in a GTK 4 app on
// OrientationClient. A package of its own (depending on orientationd by path, ../..) so
// that building the daemon never needs GTK.
import PackageDescription

let package = Package(
    name: "gtk-demo",
    dependencies: [.package(name: "orientationd", path: "../..")],
    targets: [
        .systemLibrary(name: "CGtk4", path: "Sources/CGtk4", pkgConfig: "gtk4", providers: [.apt(["libgtk-4-dev"])]),
        .executableTarget(
            name: "orientation-demo",
            dependencies: ["CGtk4", .product(name: "OrientationClient", package: "orientationd")],
            path: "Sources/OrientationDemo",
            swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
