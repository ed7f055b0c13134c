/// What an observation delivers: which values, and whether it also fires at registration and
/// before each change.
///
/// The raw values match Foundation's `NSKeyValueObservingOptions`. `ObservationOptions` is
/// `Sendable`.
///
/// ```swift
/// observer.autoObserve(person, keyPath: \.name, options: [.initial, .new]) { _, _, change in
///     print(change.newValue ?? "")
/// }
/// ```
public struct ObservationOptions: OptionSet, Sendable, Hashable {
  /// The options as bits, with Foundation's values.
  public let rawValue: UInt

  /// Creates options from their raw bits.
  public init(rawValue: UInt) {
    self.rawValue = rawValue
  }

  /// Deliver the value after the change in ``KeyValueChange/newValue``.
  public static let new = ObservationOptions(rawValue: 1 << 0)

  /// Deliver the value before the change in ``KeyValueChange/oldValue``.
  public static let old = ObservationOptions(rawValue: 1 << 1)

  /// Call the handler once, at registration, with the current value.
  ///
  /// The call is made before `autoObserve` returns wherever the registering code already runs
  /// where the handler must (nonisolated code, the handler's actor, the delivery queue); a
  /// `deliveryQueue:` registration made off its queue receives it when the queue runs it, before
  /// any change. That call has kind ``ChangeKind/setting``, carries the current value as its new
  /// value when ``new`` is requested, and never carries an old value.
  public static let initial = ObservationOptions(rawValue: 1 << 2)

  /// Also call the handler just before each change, with ``KeyValueChange/isPrior`` set.
  ///
  /// The prior call carries the old value when ``old`` is requested, and never a new value.
  public static let prior = ObservationOptions(rawValue: 1 << 3)
}
