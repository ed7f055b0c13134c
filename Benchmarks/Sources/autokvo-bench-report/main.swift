// Runs every workload of every observation system in one process and prints the tables of
// Docs/Performance.md: medians, ratios against the hand-written baselines, the issue's targets,
// measured memory per live registration, and growth from 1 to 100,000 live registrations.
//
//   swift run -c release --package-path Benchmarks autokvo-bench-report
//   autokvo-bench-report --profile set1/autokvo --iterations 100000   # for callgrind
//   autokvo-bench-report --bytes-per-registration                      # for the budget
import CHeapStatistics
import Foundation
import ObservationSystems

// MARK: - Measuring

func nanoseconds() -> UInt64 {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

func elapsed(_ body: () -> Void) -> Double {
  let start = nanoseconds()
  body()
  return Double(nanoseconds() - start)
}

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  let middle = sorted.count / 2
  return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Bytes the C heap has handed out and not taken back (glibc's `mallinfo2()`), chunk headers and
/// rounding included: what the process really pays.
func heapBytesInUse() -> Int? {
  let bytes = cheap_statistics_bytes_in_use()
  return bytes < 0 ? nil : Int(bytes)
}

/// Median nanoseconds per operation of `workload`, over `samples` timed runs.
///
/// A repeated workload is calibrated so that one run lasts about 3 ms, after one warm-up run; a
/// prepared workload times one operation per run, each on fresh state.
func medianNanoseconds(of workload: Workload, samples: Int = 31) -> Double {
  switch workload.body {
  case .repeated(let setUp):
    let body = setUp()
    var n = 1
    while n < 1 << 26, elapsed({ body(n) }) < 3_000_000 { n *= 2 }
    body(n)
    return median((0..<samples).map { _ in elapsed { body(n) } / Double(n) })
  case .prepared(let prepare):
    return median(
      (0..<samples).map { _ in
        let operation = prepare()
        return elapsed(operation)
      })
  }
}

/// The region callgrind is told to count (`--toggle-collect='*profiledRegion*'`).
@inline(never)
func profiledRegion(_ body: () -> Void) {
  body()
}

// MARK: - Formatting

func format(nanoseconds value: Double) -> String {
  switch value {
  case ..<10: String(format: "%.2f ns", value)
  case ..<1000: String(format: "%.1f ns", value)
  case ..<1_000_000: String(format: "%.2f µs", value / 1000)
  default: String(format: "%.2f ms", value / 1_000_000)
  }
}

func format(ratio value: Double) -> String {
  value < 10 ? String(format: "%.2f×", value) : String(format: "%.0f×", value)
}

func row(_ cells: [String]) -> String {
  "| " + cells.joined(separator: " | ") + " |"
}

// MARK: - Profile mode

let arguments = CommandLine.arguments
if let flag = arguments.firstIndex(of: "--profile"), flag + 1 < arguments.count {
  let identifier = arguments[flag + 1]
  let iterations =
    arguments.firstIndex(of: "--iterations").flatMap { Int(arguments[$0 + 1]) } ?? 100_000
  guard let workload = allWorkloads().first(where: { $0.identifier == identifier }) else {
    if identifier != "list" { print("unknown workload \(identifier); known:") }
    for workload in allWorkloads() { print("  \(workload.identifier)") }
    exit(identifier == "list" ? 0 : 2)
  }
  switch workload.body {
  case .repeated(let setUp):
    let body = setUp()
    profiledRegion { body(iterations) }
  case .prepared(let prepare):
    for _ in 0..<iterations {
      let operation = prepare()
      profiledRegion(operation)
    }
  }
  exit(0)
}

// MARK: - Memory mode

/// Heap bytes one AutoKVO registration holds while it lives, each between its own observer and
/// its own object, over `count` registrations: what `--bytes-per-registration` prints for the
/// performance budget, and the AutoKVO row of the memory table.
func autoKVOBytesPerRegistration(count: Int = 10_000) -> Double? {
  let probe = allRegistrationProbes().first { $0.system == .autoKVO }!
  let subjects = probe.makeSubjects(count)
  guard let before = heapBytesInUse() else { return nil }
  let registrations = probe.register(subjects)
  let after = heapBytesInUse()!
  withExtendedLifetime(registrations) {}
  return Double(after - before) / Double(count)
}

if arguments.contains("--bytes-per-registration") {
  guard let bytes = autoKVOBytesPerRegistration() else {
    print("error: this C library reports no heap statistics")
    exit(1)
  }
  print(String(format: "%.0f", bytes))
  exit(0)
}

// MARK: - The report

print("# AutoKVO benchmark report\n")
print("All medians in one process, one run. Ratios are against the hand-written baseline of the")
print(
  "same scenario. Machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, ", terminator: "")
print(
  "\(ProcessInfo.processInfo.operatingSystemVersionString), load average at start ", terminator: "")
print(
  (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
    .joined(separator: " ") ?? "unknown", terminator: ".\n\n")

let workloads = allWorkloads()
var medians: [String: Double] = [:]
for workload in workloads {
  medians[workload.identifier] = medianNanoseconds(of: workload)
}

@MainActor
func baselineMedian(for scenario: Scenario) -> Double {
  medians[workloads.first { $0.scenario == scenario && $0.system == .baseline }!.identifier]!
}

print("## Time per operation (median)\n")
print(row(["scenario", "system", "median", "× hand-written"]))
print(row(["---", "---", "---:", "---:"]))
for scenario in Scenario.allCases {
  for workload in workloads where workload.scenario == scenario {
    let value = medians[workload.identifier]!
    print(
      row([
        scenario.title, workload.displayName, format(nanoseconds: value),
        format(ratio: value / baselineMedian(for: scenario)),
      ]))
  }
}

// MARK: Memory

print("\n## Memory per live registration (measured: glibc mallinfo2 delta over 10,000)\n")
print(row(["system", "bytes per registration", "bytes per observer + object pair (context)"]))
print(row(["---", "---:", "---:"]))
var autoKVOBytesPerRegistration: Double?
for probe in allRegistrationProbes() {
  let count = 10_000
  guard let start = heapBytesInUse() else { break }
  let subjects = probe.makeSubjects(count)
  let afterSubjects = heapBytesInUse()!
  let registrations = probe.register(subjects)
  let afterRegistrations = heapBytesInUse()!
  withExtendedLifetime(registrations) {}
  let perRegistration = Double(afterRegistrations - afterSubjects) / Double(count)
  let perPair = Double(afterSubjects - start) / Double(count)
  if probe.system == .autoKVO { autoKVOBytesPerRegistration = perRegistration }
  print(
    row([
      probe.system.title, String(format: "%.0f", perRegistration), String(format: "%.0f", perPair),
    ]))
}

do {
  // The same registrations, each object then set once: the first observed set of a property makes
  // the frozen list of its registrations that every later set shares, and it stays until the list
  // changes. This row counts it in.
  let count = 10_000
  let pairs = (0..<count).map { _ in (AutoKVOSystem.Model(), AutoKVOSystem.Observer()) }
  if let before = heapBytesInUse() {
    for (model, observer) in pairs { AutoKVOSystem.observe(model, by: observer) }
    for (model, _) in pairs { AutoKVOSystem.setValue(1, on: model) }
    let perRegistration = Double(heapBytesInUse()! - before) / Double(count)
    withExtendedLifetime(pairs) {}
    print(
      row([
        "AutoKVO, each object then set once", String(format: "%.0f", perRegistration), "",
      ]))
  }
}

do {
  // The same registrations made on one object: the registries' arrays are shared, so this is
  // what a registration costs in itself.
  let count = 10_000
  let model = AutoKVOSystem.Model()
  let observers = (0..<count).map { _ in AutoKVOSystem.Observer() }
  if let before = heapBytesInUse() {
    for observer in observers { AutoKVOSystem.observe(model, by: observer) }
    let perRegistration = Double(heapBytesInUse()! - before) / Double(count)
    withExtendedLifetime((model, observers)) {}
    print(
      row(["AutoKVO, 10,000 observers of one object", String(format: "%.0f", perRegistration), ""]))
  }
}

// MARK: Growth

print("\n## AutoKVO with N live registrations across N observer/object pairs\n")
print("Each operation is measured while N other registrations are live; memory is the heap delta")
print("of making the N registrations, divided by N.\n")
let sweep = [1, 10, 100, 1000, 10_000, 100_000]
let sweptScenarios: [String] = [
  "set0/autokvo", "set1/autokvo", "set10/autokvo", "get/autokvo",
  "register/autokvo/observer deallocated", "register/autokvo/cancel()",
]
print(row(["N live"] + sweptScenarios + ["bytes per registration"]))
print(row(["---:"] + sweptScenarios.map { _ in "---:" } + ["---:"]))
let autoKVOProbe = allRegistrationProbes().first { $0.system == .autoKVO }!
var sweptMedians: [[Double]] = []
for count in sweep {
  let subjects = autoKVOProbe.makeSubjects(count)
  let before = heapBytesInUse() ?? 0
  let registrations = autoKVOProbe.register(subjects)
  let bytes = Double((heapBytesInUse() ?? 0) - before) / Double(count)
  let values = sweptScenarios.map { identifier in
    medianNanoseconds(of: workloads.first { $0.identifier == identifier }!)
  }
  sweptMedians.append(values + [bytes])
  withExtendedLifetime(registrations) {}
  print(
    row(["\(count)"] + values.map { format(nanoseconds: $0) } + [String(format: "%.0f", bytes)]))
}
// The N = 1 row runs first and absorbs warm-up effects, so the spread is taken from N = 10 on.
let spreads = (0..<sweptScenarios.count + 1).map { column in
  let values = sweptMedians.dropFirst().map { $0[column] }
  return values.max()! / values.min()!
}
print(
  row(
    ["max ÷ min, N ≥ 10"] + spreads.map { String(format: "%.2f", $0) + ($0 < 2 ? " (flat)" : "") }
  ))

print("\n## Deallocating an object watched by N observers (median per deallocation)\n")
print("A system whose single run exceeds 2 s is not measured at larger N.\n")
print(row(["N observers"] + System.allCases.map(\.title)))
print(row(["---:"] + System.allCases.map { _ in "---:" }))
var tooSlow: Set<System> = []
var autoKVODeallocation: [Int: Double] = [:]
for count in sweep {
  let samples = max(3, min(31, 200_000 / count))
  let catalogue = allWorkloads(deallocatedObservers: count)
  let cells = System.allCases.map { system -> String in
    guard !tooSlow.contains(system) else { return "—" }
    guard
      let workload = catalogue.first(where: {
        $0.system == system && $0.scenario == .deallocationWithThousandObservers
      })
    else { return "n/a" }
    let value = medianNanoseconds(of: workload, samples: samples)
    if value > 2e9 { tooSlow.insert(system) }
    if system == .autoKVO { autoKVODeallocation[count] = value }
    return "\(format(nanoseconds: value)) (\(format(nanoseconds: value / Double(count)))/obs.)"
  }
  print(row(["\(count)"] + cells))
}

// MARK: Observers freed one by one

print("\n## AutoKVO: N observers of one object, deallocated one by one (one run each)\n")
print("Each deallocation removes one registration from the object's list. A long list keeps each")
print("registration's position and leaves a tombstone, compacted later, instead of shifting the")
print("others, so the cost per observer should stay flat. A larger N is skipped once a run")
print("exceeds 0.5 s.\n")
print(
  row(["N observers", "oldest first: total", "per observer", "newest first: total", "per observer"])
)
print(row(["---:", "---:", "---:", "---:", "---:"]))

/// Frees the `count` observers of one model one at a time, oldest or newest first; returns the
/// nanoseconds the frees took, setup excluded.
func freeObserversOneByOne(count: Int, newestFirst: Bool) -> Double {
  let (model, observersInRegistrationOrder) = AutoKVOSystem.model(observedBy: count)
  // Popped from the end: reversed, the oldest comes off first.
  var observers =
    newestFirst ? observersInRegistrationOrder : observersInRegistrationOrder.reversed()
  let time = elapsed {
    while !observers.isEmpty { observers.removeLast() }
  }
  withExtendedLifetime(model) {}
  return time
}

for count in sweep {
  let oldestFirst = freeObserversOneByOne(count: count, newestFirst: false)
  let newestFirst = freeObserversOneByOne(count: count, newestFirst: true)
  print(
    row([
      "\(count)", format(nanoseconds: oldestFirst),
      format(nanoseconds: oldestFirst / Double(count)),
      format(nanoseconds: newestFirst), format(nanoseconds: newestFirst / Double(count)),
    ]))
  if max(oldestFirst, newestFirst) > 5e8 { break }
}

// MARK: Targets

func verdict(_ met: Bool) -> String { met ? "met" : "**missed**" }

print("\n## Targets (issue #12)\n")
/// AutoKVO's median for `scenario` divided by the hand-written baseline's.
@MainActor
func autoKVORatio(_ scenario: Scenario) -> Double {
  medians["\(scenario.rawValue)/autokvo"]! / baselineMedian(for: scenario)
}
for (scenario, bound) in [
  (Scenario.setWithoutObserver, 2.0), (.setStringWithoutObserver, 2),
  (.getOfObservedProperty, 2), (.getOfObservedString, 2),
  (.setWithOneObserver, 5), (.setStringWithOneObserver, 5),
  (.setWithTenObservers, 5), (.setStringWithTenObservers, 5),
] {
  let ratio = autoKVORatio(scenario)
  print(
    "- \(scenario.title) ≤ \(format(ratio: bound)) hand-written: \(format(ratio: ratio)) — "
      + verdict(ratio <= bound))
}
let set1 = medians["set1/autokvo"]!
for workload in workloads
where workload.scenario == .setWithOneObserver && workload.system != .baseline
  && workload.system != .autoKVO && workload.variant == nil
{
  let speedup = medians[workload.identifier]! / set1
  print(
    "- Set, 1 observer ≥ 10× faster than \(workload.displayName): \(format(ratio: speedup)) — "
      + verdict(speedup >= 10))
}
let registration = medians["register/autokvo/observer deallocated"]!
for identifier in [
  "register/opencombine/sink + cancel", "register/notificationcenter/add + remove",
] {
  let share = registration / medians[identifier]!
  print(
    "- Registration + teardown ≤ ½ of \(identifier): \(format(ratio: share)) of it — "
      + verdict(share <= 0.5))
}
for scenario in Scenario.appendScenarios {
  let ratio =
    medians["\(scenario.rawValue)/autokvo/proxy, unobserved"]! / baselineMedian(for: scenario)
  print(
    "- \(scenario.title), through a proxy with nobody observing, ≤ 10× a stored array: "
      + "\(format(ratio: ratio)) — \(verdict(ratio <= 10))")
}
for variant in ["proxy, unobserved", "proxy, 1 observer"] {
  let perAppendSmall = medians["append1000/autokvo/\(variant)"]! / 1000
  let perAppendLarge = medians["append100000/autokvo/\(variant)"]! / 100_000
  let growth = perAppendLarge / perAppendSmall
  print(
    "- Appends through a proxy (\(variant)) linear: \(format(nanoseconds: perAppendSmall)) per append "
      + "at 1,000, \(format(nanoseconds: perAppendLarge)) at 100,000 (×\(String(format: "%.2f", growth))) — "
      + verdict(growth < 3))
}
do {
  let perAppendSmall = medians["append1000/autokvo/property, unobserved"]! / 1000
  let perAppendLarge = medians["append10000/autokvo/property, unobserved"]! / 10_000
  print(
    "- (No target) Appends through the property itself, nobody observing (a get and a set, "
      + "which copy the array): \(format(nanoseconds: perAppendSmall)) per append at 1,000, "
      + "\(format(nanoseconds: perAppendLarge)) at 10,000 "
      + "(×\(String(format: "%.2f", perAppendLarge / perAppendSmall)))")
}
if let bytes = autoKVOBytesPerRegistration {
  print(
    "- ≤ 160 bytes per live registration: \(String(format: "%.0f", bytes)) bytes — "
      + verdict(bytes <= 160))
}
let perObserver = sweep.compactMap { count in autoKVODeallocation[count].map { $0 / Double(count) }
}
if let low = perObserver.dropFirst(2).min(), let high = perObserver.dropFirst(2).max() {
  print(
    "- Deallocation linear in N: per-observer cost from N = 100 to 100,000 spans "
      + "\(format(nanoseconds: low))…\(format(nanoseconds: high)) (×\(String(format: "%.2f", high / low))) — "
      + verdict(high / low < 3))
}

print("\n## Targets (issue #26)\n")
print("An AutoKVO model that also conforms to Observation's `Observable`, tracked by")
print("`withObservationTracking`, against an `@Observable` model tracked the same way.\n")
for scenario in [
  Scenario.getOfObservedProperty, .setWithoutObserver, .setWithOneObserver, .setWithTenObservers,
] {
  let conforming = medians["\(scenario.rawValue)/autokvo/\(AutoKVOSystem.observableVariant)"]!
  let ratio = conforming / medians["\(scenario.rawValue)/observation"]!
  print(
    "- \(scenario.title), conforming class ≤ 1.10× an @Observable class: \(format(ratio: ratio)) — "
      + verdict(ratio <= 1.10))
}

print("\n## Targets (issue #32)\n")
print("AutoKVO observers of an `@Observable` model. An observer's cost is the set's time minus the")
print("time of a set nobody observes; Observation's own didSet tracker, with an empty closure, on")
print("the same class is the unit.\n")
do {
  let unobserved = medians["set0/observation"]!
  let tracker = medians["set1/observation/\(AutoKVOSystem.didSetTrackerVariant)"]! - unobserved
  for (variant, bound) in [
    (AutoKVOSystem.modelNewVariant, 1.5), (AutoKVOSystem.modelOldNewVariant, 2.5),
  ] {
    let cost = medians["set1/autokvo/\(variant)"]! - unobserved
    print(
      "- Observer cost (\(variant)) ≤ \(format(ratio: bound)) the didSet tracker's: "
        + "\(format(nanoseconds: cost)) against \(format(nanoseconds: tracker)), "
        + "\(format(ratio: cost / tracker)) — \(verdict(cost / tracker <= bound))")
  }
  let rearmed = medians["set1/observation"]!
  for variant in [AutoKVOSystem.modelNewVariant, AutoKVOSystem.modelOldNewVariant] {
    let speedup = rearmed / medians["set1/autokvo/\(variant)"]!
    print(
      "- Set, 1 observer (\(variant)) ≥ 2.5× faster than the public re-arm loop: "
        + "\(format(ratio: speedup)) — \(verdict(speedup >= 2.5))")
  }
}
