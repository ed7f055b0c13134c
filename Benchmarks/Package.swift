// swift-tools-version:6.1
import PackageDescription

// The benchmarks are their own package so that the AutoKVO library keeps zero dependencies.
//
// - `ObservationSystems`: every scenario written once per observation system that can express it.
// - `autokvo-bench-report`: runs them all in one process and prints the tables of
//   Docs/Performance.md (medians, ratios against the hand-written baselines, measured memory, and
//   growth from 1 to 100,000 live registrations).
// - `AutoKVOBenchmarks`: the same workloads under ordo-one/benchmark (`swift package benchmark`),
//   for its statistics, malloc counters and baselines.
let package = Package(
  name: "AutoKVOBenchmarks",
  platforms: [.macOS(.v14)],
  dependencies: [
    // Named, because a path dependency is otherwise known by its folder name (a clone may be
    // called anything).
    .package(name: "AutoKVO", path: ".."),
    .package(
      url: "https://github.com/ordo-one/benchmark",
      exact: "1.38.1",
      traits: ["MallocInterposer"]
    ),
    .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
  ],
  targets: [
    .target(name: "CHeapStatistics"),
    .target(
      name: "ObservationSystems",
      dependencies: [
        .product(name: "AutoKVO", package: "AutoKVO"),
        .product(name: "OpenCombine", package: "OpenCombine"),
      ],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    .executableTarget(
      name: "autokvo-bench-report",
      dependencies: ["CHeapStatistics", "ObservationSystems"],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    .executableTarget(
      name: "AutoKVOBenchmarks",
      dependencies: [
        "ObservationSystems",
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/AutoKVOBenchmarks",
      swiftSettings: [.swiftLanguageMode(.v6)],
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
  ]
)
