import _AutoKVOShims

/// A collection proxy's request to mutate one `@Observed` property's value where it is stored,
/// so that appending to an array of n elements costs O(1), not a copy of the array.
///
/// Only the property's own accessor reaches its storage directly, so the proxy leaves the request
/// in a thread-local slot and reads the property through its key path; the getter finds the
/// request (it looks only while some thread records, which the proxy's request counts as) and, if
/// the request names its property and object, moves the value out of the storage, lets the
/// request mutate it, and moves it back. The value is uniquely referenced while it is mutated, so
/// the mutation does not copy it. Meanwhile the storage holds `placeholder` (an empty
/// collection): the mutation must not call code that could read the property.
// @unchecked Sendable: used only on the thread that made it, for the duration of one read.
@usableFromInline
final class InPlaceMutation<Value>: @unchecked Sendable {
  @usableFromInline let object: AnyObject
  @usableFromInline let keyPath: AnyKeyPath
  @usableFromInline var placeholder: Value?
  @usableFromInline let body: (inout Value) -> Void
  @usableFromInline var isPerformed = false

  @usableFromInline
  init(
    object: AnyObject,
    keyPath: AnyKeyPath,
    placeholder: Value,
    body: @escaping (inout Value) -> Void
  ) {
    self.object = object
    self.keyPath = keyPath
    self.placeholder = placeholder
    self.body = body
  }

  /// Mutates the value at `keyPath` of `object` with `body`: in place when `propertyKeyPath` names
  /// the `@Observed` property `keyPath` reads, otherwise through the key path (a read, the mutation
  /// of the copy, a write). Inlinable, with ``perform(on:property:placeholder:_:by:)``, so that a
  /// caller specialized for `Value` and `Root` looks up no generic metadata at run time.
  @inlinable
  static func mutate<Root: AnyObject>(
    _ object: Root,
    at keyPath: ReferenceWritableKeyPath<Root, Value>,
    property propertyKeyPath: AnyKeyPath?,
    placeholder: Value,
    _ body: (inout Value) -> Void
  ) {
    if let propertyKeyPath,
      perform(
        on: object, property: propertyKeyPath, placeholder: placeholder, body,
        by: { _ = object[keyPath: keyPath] })
    {
      return
    }
    body(&object[keyPath: keyPath])
  }

  /// Mutates the `@Observed` property declared at `keyPath` of `object` in place with `body`, by
  /// calling `read`, which must read that property. Returns `false`, having done nothing, when
  /// `read` reached no getter of that property (then the caller mutates some other way).
  @inlinable
  static func perform(
    on object: AnyObject,
    property keyPath: AnyKeyPath,
    placeholder: Value,
    _ body: (inout Value) -> Void,
    by read: () -> Void
  ) -> Bool {
    withoutActuallyEscaping(body) { body in
      let mutation = InPlaceMutation(
        object: object, keyPath: keyPath, placeholder: placeholder, body: body)
      let outer = autokvo_thread_mutation()
      autokvo_set_thread_mutation(Unmanaged.passUnretained(mutation).toOpaque())
      autokvo_recording_began()
      defer {
        autokvo_recording_ended()
        autokvo_set_thread_mutation(outer)
      }
      read()
      return mutation.isPerformed
    }
  }

  /// The request this thread's getter of the property declared at `keyPath`, of `object`, must
  /// perform, if there is one.
  @inlinable
  static func pending(on object: AnyObject, property keyPath: AnyKeyPath) -> InPlaceMutation? {
    guard let raw = autokvo_thread_mutation(),
      let mutation = Unmanaged<AnyObject>.fromOpaque(raw).takeUnretainedValue()
        as? InPlaceMutation<Value>,
      !mutation.isPerformed, mutation.object === object, mutation.keyPath == keyPath
    else { return nil }
    return mutation
  }

  /// Hands over the value that stands in the storage during the mutation.
  @inlinable
  func takePlaceholder() -> Value {
    guard let placeholder else {
      preconditionFailure("in-place mutation of \(keyPath) performed twice")
    }
    self.placeholder = nil
    return placeholder
  }

  /// Mutates `value`, the property's value moved out of its storage.
  @inlinable
  func perform(on value: inout Value) {
    isPerformed = true
    body(&value)
  }
}
