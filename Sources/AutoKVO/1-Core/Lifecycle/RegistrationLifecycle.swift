/// The exactly-once teardown state machine of one registration.
///
/// A registration ends once, for the first of three reasons; every later attempt is a no-op. The
/// transition is a pure function so that it can be tested on its own: the caller holds the
/// registration's lifecycle lock while calling ``end(_:)`` and performs the returned action.
struct RegistrationLifecycle: Sendable {
  /// Why a registration ended.
  enum EndReason: Int, Sendable, Equatable {
    case cancelled = 1
    case observerDeallocated
    case observedDeallocated
  }

  /// What the caller must do to finish a transition.
  enum TeardownAction: Sendable, Equatable {
    /// Remove the sentinel from the observed object's registry and the one from the observer's.
    case detachBothSides
    /// The observer's registry is dropping its sentinel; remove the observed side only.
    case detachObservedSide
    /// The observed object's registry is dropping its sentinel; remove the observer side only.
    case detachObserverSide
    /// The registration had already ended: nothing to do.
    case none
  }

  enum State: Sendable, Equatable {
    case active
    case ended(EndReason)
  }

  private(set) var state = State.active

  init() {}

  /// The lifecycle stored in one word: ``activeWord`` while active, otherwise the end reason's raw
  /// value. `KeyValueObservation` keeps it in an atomic word so that the "still active?" check
  /// before each delivery needs no lock.
  init(word: Int) {
    state = EndReason(rawValue: word).map { .ended($0) } ?? .active
  }

  /// The word that stands for ``State/active``.
  static let activeWord = 0

  var word: Int {
    switch state {
    case .active: Self.activeWord
    case .ended(let reason): reason.rawValue
    }
  }

  var isActive: Bool { state == .active }

  mutating func end(_ reason: EndReason) -> TeardownAction {
    guard state == .active else { return .none }
    state = .ended(reason)
    switch reason {
    case .cancelled: return .detachBothSides
    case .observerDeallocated: return .detachObservedSide
    case .observedDeallocated: return .detachObserverSide
    }
  }
}
