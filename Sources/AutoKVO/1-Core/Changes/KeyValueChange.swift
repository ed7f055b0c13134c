import Foundation

/// One notification: what changed, and the values the observation asked for.
///
/// ```swift
/// observer.autoObserve(person, keyPath: \.age, options: [.old, .new]) { _, _, change in
///     print("age \(change.oldValue!) -> \(change.newValue!)")
/// }
/// ```
///
/// For a set of an ``Observed`` property observed by its own key path, the old and new values are
/// the ones that set replaced and stored, as KVO's change dictionary carries the values of the
/// change it reports: a handler that sets the property again does not change what observers
/// notified after it receive for the first set. A key path that is more than one stored property
/// (a computed property, a chain) is evaluated before and after the change instead.
///
/// `KeyValueChange` is `Sendable` when its `Value` is, and `Equatable` when its `Value` is.
public struct KeyValueChange<Value> {
  /// The kind of mutation.
  public var kind: ChangeKind

  /// The value before the change, present only when ``ObservationOptions/old`` was requested.
  ///
  /// Always `nil` in the call made for ``ObservationOptions/initial``.
  public var oldValue: Value?

  /// The value after the change, present only when ``ObservationOptions/new`` was requested.
  ///
  /// Always `nil` in a prior call (``isPrior``).
  public var newValue: Value?

  /// The affected positions of a collection mutation; `nil` for ``ChangeKind/setting``.
  public var indexes: IndexSet?

  /// Whether this call comes before the change (requested with ``ObservationOptions/prior``).
  public var isPrior: Bool

  /// Creates a change description.
  public init(
    kind: ChangeKind,
    oldValue: Value? = nil,
    newValue: Value? = nil,
    indexes: IndexSet? = nil,
    isPrior: Bool = false
  ) {
    self.kind = kind
    self.oldValue = oldValue
    self.newValue = newValue
    self.indexes = indexes
    self.isPrior = isPrior
  }
}

extension KeyValueChange {
  /// A change of `kind` with nothing else set yet. Assigning the fields one by one lets the
  /// engine's unspecialized code build a change without optional temporaries, each of which would
  /// cost a run-time metadata look-up.
  init(kind: ChangeKind) {
    self.kind = kind
    oldValue = nil
    newValue = nil
    indexes = nil
    isPrior = false
  }
}

extension KeyValueChange: Sendable where Value: Sendable {}
extension KeyValueChange: Equatable where Value: Equatable {}
