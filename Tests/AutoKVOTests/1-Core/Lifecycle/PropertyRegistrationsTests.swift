import Testing

@testable import AutoKVO

/// A model with 20 observed properties: more than the number from which a registry finds a
/// property's record by a look-up rather than a scan.
private final class Dashboard: KeyValueObservable, @unchecked Sendable {  // single-threaded tests
  let observationRegistry = ObservationRegistry()
  @Observed var g0 = 0
  @Observed var g1 = 0
  @Observed var g2 = 0
  @Observed var g3 = 0
  @Observed var g4 = 0
  @Observed var g5 = 0
  @Observed var g6 = 0
  @Observed var g7 = 0
  @Observed var g8 = 0
  @Observed var g9 = 0
  @Observed var g10 = 0
  @Observed var g11 = 0
  @Observed var g12 = 0
  @Observed var g13 = 0
  @Observed var g14 = 0
  @Observed var g15 = 0
  @Observed var g16 = 0
  @Observed var g17 = 0
  @Observed var g18 = 0
  @Observed var g19 = 0

  static var gauges: [ReferenceWritableKeyPath<Dashboard, Int>] {
    [
      \.g0, \.g1, \.g2, \.g3, \.g4, \.g5, \.g6, \.g7, \.g8, \.g9, \.g10, \.g11, \.g12, \.g13,
      \.g14, \.g15, \.g16, \.g17, \.g18, \.g19,
    ]
  }
}

/// Each property keeps which registrations its sets concern as registrations begin and end, so
/// that a set after a change builds its list from that alone. These tests change the registrations
/// of one property among others in every order, and check every set against the registrations
/// live then.
@Suite("Which registrations a property's sets reach, kept as registrations begin and end")
struct PropertyRegistrationsTests {
  @discardableResult
  private func observe(
    _ dashboard: Dashboard, _ keyPath: ReferenceWritableKeyPath<Dashboard, Int>,
    by watcher: Watcher,
    _ label: String, options: ObservationOptions = [.old, .new]
  ) -> KeyValueObservation {
    watcher.autoObserve(dashboard, keyPath: keyPath, options: options) { watcher, _, change in
      watcher.record("\(label) \(describe(change))")
    }
  }

  @Test("A registration on another property never reaches a property every registration concerned")
  func anotherPropertyJoins() {
    let dashboard = Dashboard()
    let log = Watcher()
    let first = observe(dashboard, \.g0, by: log, "A")
    dashboard.g0 = 1  // every registration concerns g0
    first.cancel()
    observe(dashboard, \.g1, by: log, "B")  // concerns g1 only
    dashboard.g0 = 2
    dashboard.g1 = 3
    observe(dashboard, \.g0, by: log, "C")
    dashboard.g0 = 4
    #expect(log.log == ["A setting 0->1", "B setting 0->3", "C setting 2->4"])
  }

  @Test("Among 20 observed properties, each set reaches exactly its property's live registrations")
  func manyProperties() {
    let dashboard = Dashboard()
    let gauges = Dashboard.gauges
    let watchers = gauges.map { _ in Watcher() }
    var observations: [KeyValueObservation] = []
    for (index, gauge) in gauges.enumerated() {
      observations.append(observe(dashboard, gauge, by: watchers[index], "w\(index)"))
    }
    for (index, gauge) in gauges.enumerated() { dashboard[keyPath: gauge] = index + 1 }
    // A second registration on g7, then the first one's end, then one on g3 by another watcher.
    let extra = Watcher()
    let second = observe(dashboard, \.g7, by: extra, "x7")
    observations[7].cancel()
    observe(dashboard, \.g3, by: extra, "x3")
    for gauge in gauges { dashboard[keyPath: gauge] += 100 }
    second.cancel()
    dashboard.g7 = 0
    dashboard.g3 = 0
    for (index, watcher) in watchers.enumerated() {
      var expected = ["w\(index) setting 0->\(index + 1)"]
      if index != 7 { expected.append("w\(index) setting \(index + 1)->\(index + 101)") }
      if index == 3 { expected.append("w3 setting 104->0") }
      #expect(watcher.log == expected, "gauge \(index)")
    }
    #expect(extra.log == ["x3 setting 4->104", "x7 setting 8->108", "x3 setting 104->0"])
    // The watchers are the observers: kept alive to here, or an optimized build frees them after
    // their last use above, and their registrations with them.
    withExtendedLifetime(watchers) {
      #expect(dashboard.observationRegistry.observerCount == 20)
    }
  }

  @Test("Prior calls start when a .prior registration joins and stop when it leaves")
  func priorRegistrationJoinsAndLeaves() {
    let dashboard = Dashboard()
    let log = Watcher()
    observe(dashboard, \.g0, by: log, "A", options: .new)
    dashboard.g0 = 1
    let prior = observe(dashboard, \.g0, by: log, "P", options: [.prior, .old, .new])
    dashboard.g0 = 2
    prior.cancel()
    dashboard.g0 = 3
    #expect(
      log.log == [
        "A setting nil->1", "P prior setting 1->nil", "A setting nil->2", "P setting 1->2",
        "A setting nil->3",
      ])
  }

  @Test("Registrations on many properties of one object, joined and ended in turn, in long lists")
  func longListsPerProperty() {
    let dashboard = Dashboard()
    let watcher = Watcher()
    // 70 registrations on g1 (a long, indexed list) beside 70 on g2, the first of each cancelled
    // in turn: every set reaches the live ones of its own property.
    var onG1: [KeyValueObservation] = []
    var onG2: [KeyValueObservation] = []
    for _ in 0..<70 {
      onG1.append(observe(dashboard, \.g1, by: watcher, "1", options: .new))
      onG2.append(observe(dashboard, \.g2, by: watcher, "2", options: .new))
    }
    dashboard.g1 = 1
    for observation in onG1.prefix(40) { observation.cancel() }
    dashboard.g1 = 2
    dashboard.g2 = 3
    for observation in onG2.prefix(69) { observation.cancel() }
    dashboard.g2 = 4
    let counts = Dictionary(grouping: watcher.log, by: { $0 }).mapValues(\.count)
    #expect(
      counts == [
        "1 setting nil->1": 70, "1 setting nil->2": 30, "2 setting nil->3": 70,
        "2 setting nil->4": 1,
      ])
  }
}
