/// One measured situation, expressed by every system that can express it.
public enum Scenario: String, CaseIterable, Sendable {
  case setWithoutObserver = "set0"
  case setWithOneObserver = "set1"
  case setWithTenObservers = "set10"
  case getOfObservedProperty = "get"
  case registrationAndTeardown = "register"
  case deallocationWithThousandObservers = "dealloc1000"
  case setStringWithoutObserver = "set0-string"
  case setStringWithOneObserver = "set1-string"
  case setStringWithTenObservers = "set10-string"
  case getOfObservedString = "get-string"
  case thousandAppends = "append1000"
  case tenThousandAppends = "append10000"
  case hundredThousandAppends = "append100000"

  /// The row title used in reports.
  public var title: String {
    switch self {
    case .setWithoutObserver: "set, no observer"
    case .setWithOneObserver: "set, 1 observer"
    case .setWithTenObservers: "set, 10 observers"
    case .getOfObservedProperty: "get, 1 observer"
    case .registrationAndTeardown: "register + teardown"
    case .deallocationWithThousandObservers: "dealloc, 1,000 observers"
    case .setStringWithoutObserver: "set String, no observer"
    case .setStringWithOneObserver: "set String, 1 observer"
    case .setStringWithTenObservers: "set String, 10 observers"
    case .getOfObservedString: "get String, 1 observer"
    case .thousandAppends: "1,000 appends to an empty array"
    case .tenThousandAppends: "10,000 appends to an empty array"
    case .hundredThousandAppends: "100,000 appends to an empty array"
    }
  }
}

/// An observation mechanism a Swift developer could use instead of AutoKVO.
public enum System: String, CaseIterable, Sendable {
  case baseline
  case autoKVO = "autokvo"
  case swiftObservation = "observation"
  case notificationCenter = "notificationcenter"
  case openCombine = "opencombine"

  /// The column title used in reports.
  public var title: String {
    switch self {
    case .baseline: "hand-written"
    case .autoKVO: "AutoKVO"
    case .swiftObservation: "Swift Observation"
    case .notificationCenter: "NotificationCenter"
    case .openCombine: "OpenCombine"
    }
  }
}

/// A scenario as one system expresses it, ready to be timed by any runner.
///
/// Every operation goes through a function the optimizer cannot see into from the runner (a
/// non-inlinable function of this module), so each iteration really performs the operation; the
/// same call overhead is in every row, baselines included. Getters add the loop index to the value
/// they read, so that the optimizer cannot hoist a read out of its loop.
public struct Workload {
  /// How a runner drives the workload.
  public enum Body {
    /// `setUp` builds the state once, untimed; the closure it returns performs the operation
    /// `n` times. Releasing that closure releases the state.
    case repeated(setUp: () -> (_ n: Int) -> Void)
    /// Every timed operation needs fresh state: `prepare` builds it, untimed, and returns the
    /// closure to time, which performs the operation once.
    case prepared(prepare: () -> () -> Void)
  }

  public let scenario: Scenario
  public let system: System
  /// Distinguishes two ways one system expresses a scenario, such as "cancel()".
  public let variant: String?
  public let body: Body

  public init(_ scenario: Scenario, _ system: System, variant: String? = nil, body: Body) {
    self.scenario = scenario
    self.system = system
    self.variant = variant
    self.body = body
  }

  /// `scenario/system`, or `scenario/system/variant`: the identifier runners select by.
  public var identifier: String {
    [scenario.rawValue, system.rawValue, variant].compactMap { $0 }.joined(separator: "/")
  }

  /// A human-readable name: the system, and the variant in parentheses.
  public var displayName: String {
    variant.map { "\(system.title) (\($0))" } ?? system.title
  }
}

/// A way to create `count` live registrations, each between its own observer and its own
/// object, so that a runner can measure what they cost in memory and what they do to other
/// operations.
public struct RegistrationProbe {
  public let system: System
  /// Creates `count` observers and `count` objects, with no registration yet.
  public let makeSubjects: (_ count: Int) -> Any
  /// Registers each observer with its object; the result keeps whatever a user of the system
  /// must keep for the registrations to stay live (handles, cancellables, tokens).
  public let register: (_ subjects: Any) -> Any
}

/// Every workload of every system, baselines first.
public func allWorkloads(deallocatedObservers: Int = 1000) -> [Workload] {
  Baseline.workloads(deallocatedObservers: deallocatedObservers)
    + Baseline.stringWorkloads()
    + AutoKVOSystem.workloads(deallocatedObservers: deallocatedObservers)
    + AutoKVOSystem.stringWorkloads()
    + AutoKVOSystem.referenceWorkloads()
    + Baseline.floorWorkloads()
    + Baseline.appendWorkloads()
    + AutoKVOSystem.appendWorkloads()
    + AutoKVOSystem.inPlaceWorkloads()
    + AutoKVOSystem.bindingWorkloads()
    + SwiftObservationSystem.workloads(deallocatedObservers: deallocatedObservers)
    + AutoKVOSystem.observableModelWorkloads()
    + AutoKVOSystem.observableModelObserverWorkloads()
    + NotificationCenterSystem.workloads(deallocatedObservers: deallocatedObservers)
    + OpenCombineSystem.workloads(deallocatedObservers: deallocatedObservers)
}

/// One probe per system, baseline first.
public func allRegistrationProbes() -> [RegistrationProbe] {
  [
    Baseline.registrationProbe, AutoKVOSystem.registrationProbe,
    SwiftObservationSystem.registrationProbe, NotificationCenterSystem.registrationProbe,
    OpenCombineSystem.registrationProbe,
  ]
}

/// Keeps a value observable to the optimizer, so the computation producing it is not removed.
@inline(never)
public func blackHole<T>(_ value: T) {
  withExtendedLifetime(value) {}
}

/// Holds a prepared workload's state until the timed operation releases it.
final class Released<Value> {
  private var value: Value?

  init(_ value: Value) {
    self.value = value
  }

  func release() {
    value = nil
  }
}
