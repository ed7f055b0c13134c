/// One call of a registration's handler, as the engine has it at hand: a ``KeyValueChange`` it
/// built, or the values an `@Observed` setter replaced and stored.
///
/// The engine's registration code is generic and runs unspecialized, where building a
/// `KeyValueChange<Value>` costs run-time metadata look-ups of that type and of `Value?` on every
/// call. A handler adapter (``adaptHandler(_:)``) made in the caller's own module, where
/// `autoObserve` is inlined and so specialized for the concrete types, builds it there instead.
@usableFromInline
struct HandlerInput {
  /// The change, a `KeyValueChange` of the registration's value type, when the engine built one;
  /// `nil` for a `.setting` made of the values below.
  @usableFromInline
  let change: UnsafeRawPointer?
  /// The value before the set, when `.old` was requested.
  @usableFromInline
  let oldValue: UnsafeRawPointer?
  /// The value after the set, when `.new` was requested.
  @usableFromInline
  let newValue: UnsafeRawPointer?

  init(change: UnsafeRawPointer) {
    self.change = change
    oldValue = nil
    newValue = nil
  }

  init(oldValue: UnsafeRawPointer?, newValue: UnsafeRawPointer?) {
    change = nil
    self.oldValue = oldValue
    self.newValue = newValue
  }

  /// The change, for a registration whose value type is `Value`.
  @inlinable
  func change<Value>(as type: Value.Type) -> KeyValueChange<Value> {
    if let change {
      return change.assumingMemoryBound(to: KeyValueChange<Value>.self).pointee
    }
    return KeyValueChange(
      kind: .setting,
      oldValue: oldValue?.assumingMemoryBound(to: Value.self).pointee,
      newValue: newValue?.assumingMemoryBound(to: Value.self).pointee)
  }
}

/// Wraps a change handler so that it takes a ``HandlerInput``. Inlined into the module that calls
/// `autoObserve`, the wrapper is specialized there.
@inlinable
func adaptHandler<Observer, Object, Value>(
  _ handler: @escaping (Observer, Object, KeyValueChange<Value>) -> Void
) -> (Observer, Object, HandlerInput) -> Void {
  { observer, object, input in handler(observer, object, input.change(as: Value.self)) }
}
