// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "AutoKVO",
  platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v6)],
  products: [
    .library(name: "AutoKVO", targets: ["AutoKVO"]),
    .executable(name: "autokvo-demo", targets: ["autokvo-demo"]),
  ],
  targets: [
    // Atomics, a lock and a thread-local slot in C: the toolchain's Synchronization module is not
    // available on the Apple deployment targets AutoKVO supports.
    .target(name: "_AutoKVOShims"),
    .target(
      name: "AutoKVO",
      dependencies: ["_AutoKVOShims"],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    .executableTarget(
      name: "autokvo-demo",
      dependencies: ["AutoKVO"],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    .testTarget(
      name: "AutoKVOTests",
      dependencies: ["AutoKVO"],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
  ]
)
