import AutoKVO

/// A lifecycle program: a short, seeded sequence of registrations, mutations, cancellations and
/// releases over a few nodes (objects that observe and are observed), run by
/// ``LifecycleProgramRun`` and checked against the lifecycle invariants.
struct LifecycleProgram: CustomStringConvertible {
  /// How many node slots a program uses; a slot holds the test's strong reference to one node.
  static let slotCount = 4

  var steps: [LifecycleStep]

  var description: String {
    steps.enumerated().map { "  \($0.offset): \($0.element)" }.joined(separator: "\n")
  }
}

/// A stored property of a node that steps set.
enum NodeProperty: CaseIterable, Equatable {
  case value
  case label
}

/// A property a registration observes: one stored property, or `summary`, a computed property
/// that reads both.
enum ObservedProperty: CaseIterable, Equatable {
  case value
  case label
  case summary

  func isTriggered(by property: NodeProperty) -> Bool {
    switch (self, property) {
    case (.summary, _), (.value, .value), (.label, .label): true
    default: false
    }
  }
}

/// What a node does in its `deinit`, for the "user code runs inside deinit" cases.
enum DeinitBehavior: Equatable, CustomStringConvertible {
  case nothing
  /// Sets its own `value`, which notifies its observers if nothing stops it.
  case mutateSelf
  /// Makes the node in the slot observe the dying node, with `.initial`.
  case becomeObservedBy(slot: Int)
  /// Makes the dying node observe the node in the slot, with `.initial`.
  case observe(slot: Int)

  var description: String {
    switch self {
    case .nothing: "nothing"
    case .mutateSelf: "self.value = next()"
    case .becomeObservedBy(let slot): "node[\(slot)].autoObserve(self, .initial)"
    case .observe(let slot): "self.autoObserve(node[\(slot)], .initial)"
    }
  }
}

/// What a handler does on its first call (later calls only record), so every program ends.
enum HandlerAction: Equatable, CustomStringConvertible {
  case nothing
  case mutate(slot: Int, NodeProperty)
  /// Cancels the registration being delivered; a no-op in its `.initial` call, whose handle
  /// `autoObserve` has not returned yet.
  case cancelSelf
  case cancel(registration: Int)
  case release(slot: Int)
  case register(observer: Int, observed: Int, ObservedProperty, ObservationOptions)

  var description: String {
    switch self {
    case .nothing: "nothing"
    case .mutate(let slot, let property): "node[\(slot)].\(property) = next()"
    case .cancelSelf: "cancel this registration"
    case .cancel(let registration): "registration[\(registration)].cancel()"
    case .release(let slot): "node[\(slot)] = nil"
    case .register(let observer, let observed, let property, let options):
      "node[\(observer)].autoObserve(node[\(observed)], keyPath: \\.\(property), "
        + "options: \(options.listing))"
    }
  }
}

/// One step of a ``LifecycleProgram``. Steps name nodes by slot and registrations by creation
/// index; a step whose slot is empty or whose registration does not exist is a no-op, so that
/// the shrinker may delete any step and still have a valid program.
enum LifecycleStep: Equatable, CustomStringConvertible {
  case create(slot: Int, DeinitBehavior)
  case register(
    observer: Int, observed: Int, ObservedProperty, ObservationOptions, then: HandlerAction)
  case mutate(slot: Int, NodeProperty)
  case cancel(registration: Int)
  case release(slot: Int)
  /// The node in `owner` keeps a strong reference to the node in `owned`. Generated only with
  /// `owner < owned`, so ownership never forms a cycle and every node can be freed.
  case adopt(owner: Int, owned: Int)

  var description: String {
    switch self {
    case .create(let slot, let behavior):
      "node[\(slot)] = Node()" + (behavior == .nothing ? "" : "  // deinit: \(behavior)")
    case .register(let observer, let observed, let property, let options, let action):
      "node[\(observer)].autoObserve(node[\(observed)], keyPath: \\.\(property), "
        + "options: \(options.listing)) { first call: \(action) }"
    case .mutate(let slot, let property): "node[\(slot)].\(property) = next()"
    case .cancel(let registration): "registration[\(registration)].cancel()"
    case .release(let slot): "node[\(slot)] = nil"
    case .adopt(let owner, let owned): "node[\(owner)].owned.append(node[\(owned)])"
    }
  }

  /// The same step with its handler action and options removed, or `nil` when there is nothing
  /// left to simplify; the shrinker tries it in place of the step.
  var simplified: LifecycleStep? {
    switch self {
    case .register(let observer, let observed, let property, let options, let action)
    where action != .nothing || !options.isEmpty:
      if action != .nothing {
        return .register(observer: observer, observed: observed, property, options, then: .nothing)
      }
      return .register(observer: observer, observed: observed, property, [], then: .nothing)
    case .create(let slot, let behavior) where behavior != .nothing:
      return .create(slot: slot, .nothing)
    default:
      return nil
    }
  }
}

extension ObservationOptions {
  static let allCombinations: [ObservationOptions] = (0..<16).map {
    ObservationOptions(rawValue: UInt($0))
  }

  var listing: String {
    let names = [(Self.initial, ".initial"), (.prior, ".prior"), (.old, ".old"), (.new, ".new")]
    return "[" + names.filter { contains($0.0) }.map(\.1).joined(separator: ", ") + "]"
  }
}

extension LifecycleProgram {
  /// Generates the program of `seed`: every slot starts filled, then 8 to 40 random steps.
  static func generate(seed: UInt64) -> LifecycleProgram {
    var random = SeededRandom(seed: seed)
    var steps = (0..<slotCount).map { LifecycleStep.create(slot: $0, .nothing) }
    var registrations = 0
    for _ in 0..<Int.random(in: 8...40, using: &random) {
      let roll = Int.random(in: 0..<100, using: &random)
      switch roll {
      case 0..<30:
        steps.append(
          .register(
            observer: random.slot(), observed: random.slot(), random.observedProperty(),
            random.options(), then: random.action(registrations: registrations)))
        registrations += 1
      case 30..<60:
        steps.append(.mutate(slot: random.slot(), random.nodeProperty()))
      case 60..<70:
        steps.append(.cancel(registration: Int.random(in: 0...registrations, using: &random)))
      case 70..<80:
        steps.append(.release(slot: random.slot()))
      case 80..<90:
        steps.append(.create(slot: random.slot(), random.deinitBehavior()))
      default:
        let owner = Int.random(in: 0..<slotCount - 1, using: &random)
        steps.append(
          .adopt(owner: owner, owned: Int.random(in: owner + 1..<slotCount, using: &random)))
      }
    }
    return LifecycleProgram(steps: steps)
  }

  /// Returns a smallest program found, by deleting steps and simplifying the rest, that still
  /// makes `fails` return true. `self` must fail.
  func shrunk(while fails: (LifecycleProgram) -> Bool) -> LifecycleProgram {
    var current = self
    var improved = true
    while improved {
      improved = false
      var chunk = max(1, current.steps.count / 2)
      while chunk >= 1 {
        var start = 0
        while start < current.steps.count {
          var candidate = current
          candidate.steps.removeSubrange(start..<min(start + chunk, candidate.steps.count))
          if fails(candidate) {
            current = candidate
            improved = true
          } else {
            start += chunk
          }
        }
        chunk /= 2
      }
      for index in current.steps.indices {
        while let simpler = current.steps[index].simplified {
          var candidate = current
          candidate.steps[index] = simpler
          guard fails(candidate) else { break }
          current = candidate
          improved = true
        }
      }
    }
    return current
  }
}

extension SeededRandom {
  fileprivate mutating func slot() -> Int {
    Int.random(in: 0..<LifecycleProgram.slotCount, using: &self)
  }

  fileprivate mutating func nodeProperty() -> NodeProperty {
    NodeProperty.allCases.randomElement(using: &self)!
  }

  fileprivate mutating func observedProperty() -> ObservedProperty {
    ObservedProperty.allCases.randomElement(using: &self)!
  }

  fileprivate mutating func options() -> ObservationOptions {
    ObservationOptions.allCombinations.randomElement(using: &self)!
  }

  fileprivate mutating func deinitBehavior() -> DeinitBehavior {
    switch Int.random(in: 0..<10, using: &self) {
    case 0: .mutateSelf
    case 1: .becomeObservedBy(slot: slot())
    case 2: .observe(slot: slot())
    default: .nothing
    }
  }

  fileprivate mutating func action(registrations: Int) -> HandlerAction {
    switch Int.random(in: 0..<10, using: &self) {
    case 0: .mutate(slot: slot(), nodeProperty())
    case 1: .cancelSelf
    case 2: .cancel(registration: Int.random(in: 0...registrations, using: &self))
    case 3: .release(slot: slot())
    case 4: .register(observer: slot(), observed: slot(), observedProperty(), options())
    default: .nothing
    }
  }
}
