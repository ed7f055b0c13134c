// The workloads of `ObservationSystems` under ordo-one/benchmark, for its percentiles, malloc
// counters and stored baselines:
//
//   swift package --package-path Benchmarks benchmark
//
// Docs/Performance.md is produced by `autokvo-bench-report`, which runs the same workloads in one
// process and computes the ratios; this target is the tool for tracking regressions over time.
import Benchmark
import ObservationSystems

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .mallocCountTotal, .throughput],
    maxDuration: .seconds(1),
    maxIterations: 10_000
  )

  for workload in allWorkloads() {
    switch workload.body {
    case .repeated(let setUp):
      // Each iteration performs the operation 1,000 times; results are reported per operation.
      Benchmark(
        workload.identifier,
        configuration: .init(scalingFactor: .kilo),
        closure: { benchmark, body in body(benchmark.scaledIterations.count) },
        setup: { setUp() }
      )
    case .prepared(let prepare):
      Benchmark(workload.identifier) { benchmark in
        let operation = prepare()
        benchmark.startMeasurement()
        operation()
        benchmark.stopMeasurement()
      }
    }
  }
}
