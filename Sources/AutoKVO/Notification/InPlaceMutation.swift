import _AutoKVOShims

/// A collection proxy's request to mutate one `@Observed` property's value where it is stored,
/// so that appending to an array of n elements costs O(1), not a copy of the array.
///
/// Only the property's own accessor reaches its storage directly, so the proxy points this
/// thread's slot at a request on its own stack and reads the property through its key path; the
/// getter finds the request (it looks only while some thread records, which the proxy's request
/// counts as) and, if the request names its property, object and value type, moves the value out
/// of the storage, lets the request's ``InPlaceMutation`` mutate it, and moves it back. The value
/// is uniquely referenced while it is mutated, so the mutation does not copy it. Meanwhile the
/// storage holds the mutation's placeholder (an empty collection): the mutation must not call code
/// that could read the property.
///
/// The request is not generic, so that a getter of any value type can read it before it knows the
/// request is for its own type; it points to the typed part. Both live on the stack of
/// ``InPlaceMutation/perform(on:property:placeholder:_:by:)`` for the duration of one read, and
/// only the thread that made them reads them: nothing is allocated, and nothing is shared.
@usableFromInline
struct InPlaceRequest {
  /// The object whose property is to be mutated.
  @usableFromInline let object: ObjectIdentifier
  /// The key path of the property's declaration. unowned(unsafe): the proxy that makes the
  /// request holds it for longer than the request lives.
  @usableFromInline unowned(unsafe) let keyPath: AnyKeyPath
  /// The property's value type: the typed part is an `InPlaceMutation` of it.
  @usableFromInline let valueType: ObjectIdentifier
  /// The typed part, an `InPlaceMutation<Value>` on the same stack.
  @usableFromInline let mutation: UnsafeMutableRawPointer
  /// Whether a getter performed the mutation; set before it is performed, so that a read of the
  /// property during the mutation does not perform it again.
  @usableFromInline var isPerformed = false

  @usableFromInline
  init(
    object: ObjectIdentifier,
    keyPath: AnyKeyPath,
    valueType: ObjectIdentifier,
    mutation: UnsafeMutableRawPointer
  ) {
    self.object = object
    self.keyPath = keyPath
    self.valueType = valueType
    self.mutation = mutation
  }

  /// The mutation this thread's getter of the property declared at `keyPath`, of `object`, must
  /// perform, if there is one; this marks it performed.
  @inlinable
  static func take<Value>(
    on object: AnyObject,
    property keyPath: AnyKeyPath,
    _: Value.Type
  ) -> UnsafeMutablePointer<InPlaceMutation<Value>>? {
    guard let raw = autokvo_thread_mutation() else { return nil }
    let request = raw.assumingMemoryBound(to: InPlaceRequest.self)
    guard !request.pointee.isPerformed,
      request.pointee.object == ObjectIdentifier(object),
      request.pointee.valueType == ObjectIdentifier(Value.self),
      request.pointee.keyPath == keyPath
    else { return nil }
    request.pointee.isPerformed = true
    return request.pointee.mutation.assumingMemoryBound(to: InPlaceMutation<Value>.self)
  }
}

/// The typed part of an ``InPlaceRequest``: the value that stands in the storage during the
/// mutation, and the mutation.
@usableFromInline
struct InPlaceMutation<Value> {
  @usableFromInline var placeholder: Value?
  @usableFromInline let body: (inout Value) -> Void

  @usableFromInline
  init(placeholder: Value, body: @escaping (inout Value) -> Void) {
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
      var mutation = InPlaceMutation(placeholder: placeholder, body: body)
      return withUnsafeMutablePointer(to: &mutation) { mutation in
        var request = InPlaceRequest(
          object: ObjectIdentifier(object), keyPath: keyPath,
          valueType: ObjectIdentifier(Value.self), mutation: UnsafeMutableRawPointer(mutation))
        return withUnsafeMutablePointer(to: &request) { request in
          let outer = autokvo_thread_mutation()
          autokvo_set_thread_mutation(request)
          autokvo_recording_began()
          defer {
            autokvo_recording_ended()
            autokvo_set_thread_mutation(outer)
          }
          read()
          return request.pointee.isPerformed
        }
      }
    }
  }

  /// Hands over the value that stands in the storage during the mutation.
  @inlinable
  mutating func takePlaceholder() -> Value {
    guard let placeholder else {
      preconditionFailure("an in-place mutation's placeholder taken twice")
    }
    self.placeholder = nil
    return placeholder
  }
}
