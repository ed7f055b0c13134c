import Foundation

// The adapter between the engine, which runs unspecialized, and the user's handler, which is
// specialized where `autoObserve` is called: the types below are part of the inlinable interface
// between the two modules.

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
  /// `nil` for a `.setting` made of the values below or a collection change.
  @usableFromInline
  let change: UnsafeRawPointer?
  /// A collection change, a ``CollectionInput``, whose elements the adapter casts.
  @usableFromInline
  let collection: UnsafeRawPointer?
  /// The value before the set, when `.old` was requested.
  @usableFromInline
  let oldValue: UnsafeRawPointer?
  /// The value after the set, when `.new` was requested.
  @usableFromInline
  let newValue: UnsafeRawPointer?

  init(change: UnsafeRawPointer) {
    self.change = change
    collection = nil
    oldValue = nil
    newValue = nil
  }

  init(collection: UnsafeRawPointer) {
    change = nil
    self.collection = collection
    oldValue = nil
    newValue = nil
  }

  init(oldValue: UnsafeRawPointer?, newValue: UnsafeRawPointer?) {
    change = nil
    collection = nil
    self.oldValue = oldValue
    self.newValue = newValue
  }

  /// The `.setting` change of a set's values, for a registration whose value type is `Value`:
  /// the input is neither an engine-built change nor a collection change.
  @inlinable
  func settingChange<Value>(as type: Value.Type) -> KeyValueChange<Value> {
    KeyValueChange(
      kind: .setting,
      oldValue: oldValue?.assumingMemoryBound(to: Value.self).pointee,
      newValue: newValue?.assumingMemoryBound(to: Value.self).pointee)
  }
}

extension HandlerInput {
  /// The change a ``CollectionInput`` describes. Out of line: its casts and optional temporaries
  /// would otherwise grow the adapter that every set with an observer calls.
  @inlinable
  @inline(never)
  static func collectionChange<Value>(
    _ collection: UnsafeRawPointer,
    as _: Value.Type
  ) -> KeyValueChange<Value> {
    let collection = collection.assumingMemoryBound(to: CollectionInput.self)
    return KeyValueChange(
      kind: collection.pointee.kind,
      oldValue: elements(at: collection, \.oldElements, as: Value.self),
      newValue: elements(at: collection, \.newElements, as: Value.self),
      indexes: collection.pointee.indexes)
  }

  /// The elements in `field` of `input`, as `Value`. Read through the field's address: reading
  /// the field out of `input.pointee` would copy the optional box first. The address is known
  /// for a stored property of a struct, as the field is; the read through the key path is only
  /// a fallback.
  @inlinable
  @inline(__always)
  static func elements<Value>(
    at input: UnsafePointer<CollectionInput>,
    _ field: KeyPath<CollectionInput, Any?>,
    as _: Value.Type
  ) -> Value? {
    guard let boxed = input.pointer(to: field) else {
      return input.pointee[keyPath: field].flatMap { elements(in: $0, as: Value.self) }
    }
    guard case .some(let elements) = boxed.pointee else { return nil }
    return self.elements(in: elements, as: Value.self)
  }

  /// The elements `boxed` holds, as `Value`, or `nil` when they are of another type. Opens the box
  /// and compares the types, rather than casting it: elements are boxed as the collection's own
  /// type, which is `Value` for every registration that receives them, and `as?` is a costly
  /// run-time cast. Another type takes the cast.
  @inlinable
  static func elements<Value>(in boxed: Any, as _: Value.Type) -> Value? {
    elements(unboxed: boxed, as: Value.self)
  }

  @inlinable
  static func elements<Elements, Value>(unboxed elements: Elements, as _: Value.Type) -> Value? {
    guard Elements.self == Value.self else { return elements as? Value }
    return withUnsafePointer(to: elements) {
      UnsafeRawPointer($0).assumingMemoryBound(to: Value.self).pointee
    }
  }
}

/// A collection change as the engine has it: the kind, the indexes, and the elements removed or
/// replaced and inserted or replacing, each `nil` unless its option was requested, as `Any`: a
/// `Value`, the collection's type, for the adapter to unbox where it is specialized.
@usableFromInline
struct CollectionInput {
  @usableFromInline let kind: ChangeKind
  @usableFromInline let indexes: IndexSet?
  @usableFromInline let oldElements: Any?
  @usableFromInline let newElements: Any?
}

/// A change handler behind its adapter (``adaptHandler(_:)``): called with the observer and the
/// observed object, and the change as the engine has it.
///
@usableFromInline
typealias AdaptedHandler<Observer, Object> = (Observer, Object, HandlerInput) -> Void

/// Wraps a change handler so that it takes a ``HandlerInput``. Inlined into the module that calls
/// `autoObserve`, the wrapper is specialized there.
@inlinable
func adaptHandler<Observer: AnyObject, Object: AnyObject, Value>(
  _ handler: @escaping (Observer, Object, KeyValueChange<Value>) -> Void
) -> AdaptedHandler<Observer, Object> {
  { observer, object, input in
    // One call of the handler per kind of input, each with its own change, so that a set pays
    // for none of the collection case's code; and so that the set's change, whose indexes are
    // known to be `nil`, is not released as if they might not be, and the adapter keeps only
    // the registers of the path it takes.
    if let collection = input.collection {
      return handler(observer, object, HandlerInput.collectionChange(collection, as: Value.self))
    }
    if let change = input.change {
      return handler(
        observer, object, change.assumingMemoryBound(to: KeyValueChange<Value>.self).pointee)
    }
    handler(observer, object, input.settingChange(as: Value.self))
  }
}
