import Foundation

/// A ``KeyValueChange`` with its value type erased, as the classic
/// ``KeyValueObserving/observeValue(forKeyPath:of:change:context:)`` callback receives it.
///
/// <!-- snippet-glue
/// func show(_ change: AnyKeyValueChange) {
/// <snippet>
/// }
/// -->
/// ```swift
/// if let name = change.newValue(as: String.self) { print(name) }
/// ```
///
/// `AnyKeyValueChange` is not `Sendable`: it holds its values as `Any`, which may be anything.
/// Use the typed ``KeyValueChange`` when a change must cross to another thread or actor.
public struct AnyKeyValueChange {
  /// The kind of mutation.
  public var kind: ChangeKind
  // The optional fields are spelled `Optional<…>`, which gives them no implicit `nil`: an
  // initializer then initializes each field once, where `T?` would assign over a `nil`, through
  // the generic witnesses of a boxed value (Docs/Performance.md, "Several key paths").
  /// The value before the change, when ``ObservationOptions/old`` was requested.
  public var oldValue: Optional<Any>
  /// The value after the change, when ``ObservationOptions/new`` was requested.
  public var newValue: Optional<Any>
  /// The affected positions of a collection mutation; `nil` for ``ChangeKind/setting``.
  public var indexes: Optional<IndexSet>
  /// Whether this call comes before the change.
  public var isPrior: Bool

  /// Erases the value type of `change`.
  public init<Value>(_ change: KeyValueChange<Value>) {
    kind = change.kind
    oldValue = change.oldValue.map { $0 as Any }
    newValue = change.newValue.map { $0 as Any }
    indexes = change.indexes
    isPrior = change.isPrior
  }

  /// A `.setting` change with these values, already erased: what a handler whose value type is
  /// known only at run time builds, without looking up the type of a typed change. The values are
  /// consumed, so that each boxed value moves into the change instead of being copied.
  init(settingOldValue oldValue: consuming Any?, newValue: consuming Any?) {
    kind = .setting
    self.oldValue = oldValue
    self.newValue = newValue
    indexes = nil
    isPrior = false
  }

  /// The old value as `Value`, or `nil` when it is absent or of another type.
  public func oldValue<Value>(as type: Value.Type) -> Value? {
    oldValue as? Value
  }

  /// The new value as `Value`, or `nil` when it is absent or of another type.
  public func newValue<Value>(as type: Value.Type) -> Value? {
    newValue as? Value
  }
}
