// swift-tools-version:6.0
// A camera app in Swift with the async OrientationClient API; depends on the
// orientationd package by path (../..).
import PackageDescription

let package = Package(
    name: "swift-async-camera",
    dependencies: [.package(name: "orientationd", path: "../..")],
    targets: [
        .executableTarget(
            name: "camera",
            dependencies: [.product(name: "OrientationClient", package: "orientationd")],
            swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
