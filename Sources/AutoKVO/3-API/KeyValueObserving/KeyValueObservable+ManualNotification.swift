extension KeyValueObservable {
  /// Tells observers that the value at `keyPath` is about to change.
  ///
  /// Pair every call with ``didChangeValue(for:)`` on the same thread, around the mutation:
  ///
  /// <!-- snippet-glue
  /// final class Account: KeyValueObservable {
  ///     let observationRegistry = ObservationRegistry()
  ///     private var storage = (balance: 0, owner: "")
  ///     var balance: Int { storage.balance }
  ///     func deposit(_ amount: Int) {
  /// <snippet>
  ///     }
  /// }
  /// -->
  /// ```swift
  /// willChangeValue(for: \.balance)
  /// storage.balance += amount
  /// didChangeValue(for: \.balance)
  /// ```
  ///
  /// Old values are read and `.prior` calls delivered now. Use it for properties that are not
  /// ``Observed``, or whose automatic notification
  /// ``automaticallyNotifiesObservers(for:)`` turns off. Pairs for different key paths may nest;
  /// each delivers one notification.
  public func willChangeValue<Value>(for keyPath: KeyPath<Self, Value>) {
    let posted = Dependencies.postedKeyPath(of: keyPath, on: self)
    observationRegistry.willChangeValue(of: self, .setting(posted))
  }

  /// Tells observers that the value at `keyPath` has changed, completing the innermost
  /// ``willChangeValue(for:)`` for the same key path on this thread.
  ///
  /// New values are read and notifications delivered now. A call with no matching
  /// ``willChangeValue(for:)`` delivers nothing and reports an ``ObservationDiagnostic``.
  public func didChangeValue<Value>(for keyPath: KeyPath<Self, Value>) {
    observationRegistry.didChangeValue(
      of: self, keyPath: Dependencies.postedKeyPath(of: keyPath, on: self), calledKeyPath: keyPath)
  }
}
