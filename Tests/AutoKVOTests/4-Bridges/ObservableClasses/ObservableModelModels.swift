#if canImport(Observation) && !canImport(ObjectiveC)
  import AutoKVO
  import Foundation
  import Observation

  /// An `@Observable` model that AutoKVO did not write: no `KeyValueObservable` conformance.
  // @unchecked Sendable: tests hand instances between threads in sequence, or lock their sets.
  @Observable final class Scoreboard: @unchecked Sendable {
    var count = 0
    var label = "zero"
    var items: [Int] = []
    var friend: Scoreboard?
    @ObservationIgnored var ignored = 0
    let constant = 7
    @ObservationIgnored private let tracker: LifetimeTracker?

    /// Computed from two tracked properties.
    var summary: String { "\(label):\(count)" }

    init(count: Int = 0, tracker: LifetimeTracker? = nil) {
      self.count = count
      self.tracker = tracker
      tracker?.instanceCreated()
    }

    deinit {
      tracker?.instanceDestroyed()
    }
  }

  /// A base `@Observable` class, and a subclass that declares nothing tracked of its own.
  @Observable class Machine: @unchecked Sendable {
    var speed = 0
  }

  final class Crane: Machine, @unchecked Sendable {
    var load = "empty"
  }

  /// A model with a hand-written registrar, and a property it reports by hand.
  final class Dial: Observable, @unchecked Sendable {
    private let registrar = ObservationRegistrar()
    private var storedTarget = 20

    var target: Int {
      get {
        registrar.access(self, keyPath: \.target)
        return storedTarget
      }
      set {
        registrar.withMutation(of: self, keyPath: \.target) { storedTarget = newValue }
      }
    }

    /// Reports a change of `target` without changing it.
    func touch() {
      registrar.withMutation(of: self, keyPath: \.target) {}
    }
  }

  /// A model isolated to the main actor, as a view model is.
  @MainActor @Observable final class MainScreen {
    var title = "Home"
  }

  /// An observer isolated to the main actor.
  @MainActor final class MainScreenLabel: KeyValueObservable {
    let observationRegistry = ObservationRegistry()
    var texts: [String] = []
  }

  /// `old→new`, `prior old`, or `initial new`, with nil as `-`.
  func modelChangeText<Value>(_ change: KeyValueChange<Value>) -> String {
    let old = change.oldValue.map { "\($0)" } ?? "-"
    let new = change.newValue.map { "\($0)" } ?? "-"
    if change.isPrior { return "prior \(old)" }
    return "\(old)→\(new)"
  }
#endif
