import _AutoKVOShims

/// A collection proxy's request to mutate one `@Observed` property's value where it is stored,
/// so that appending to an array of n elements costs O(1), not a copy of the array.
///
/// Only the property's own accessor reaches its storage directly, so the proxy points this
/// thread's slot at a request on its own stack and reads the property through its key path; the
/// getter finds the request (it looks only while some thread records, which the proxy's request
/// counts as) and, if the request names its property, object and value type, moves the value out
/// of the storage, lets the request mutate it, and moves it back. The value is uniquely referenced
/// while it is mutated, so the mutation does not copy it. Meanwhile the storage holds the
/// request's placeholder (an empty collection): the mutation must not call code that could read
/// the property.
///
/// The request is not generic, so that a getter of any value type can read it before it knows the
/// request is for its own type, and so that the library's unspecialized code looks up no metadata
/// of it. It and what it points to live on the stack of
/// ``mutate(_:at:property:placeholder:context:apply:)`` for the duration of one read, and only the
/// thread that made them reads them: nothing is allocated, and nothing is shared.
///
/// The mutation is a function of the value and a context, so that a caller specialized for the
/// value's type can pass a closure that captures nothing (a function pointer with no context to
/// allocate), its data behind `context`. A closure that captured its data would be allocated on
/// the heap on every mutation.
@usableFromInline
struct InPlaceMutation {
  /// The object whose property is to be mutated.
  @usableFromInline let object: ObjectIdentifier
  /// The key path of the property's declaration. unowned(unsafe): the proxy that makes the
  /// request holds it for longer than the request lives.
  @usableFromInline unowned(unsafe) let keyPath: AnyKeyPath
  /// The property's value type, `Value`.
  @usableFromInline let valueType: ObjectIdentifier
  /// The value that stands in the storage during the mutation: a `Value?` on the same stack,
  /// taken once.
  @usableFromInline let placeholder: UnsafeMutableRawPointer
  /// Applies the mutation to a `Value`, the property's value moved out of its storage, with
  /// `context`.
  @usableFromInline let apply: (UnsafeMutableRawPointer, UnsafeRawPointer?) -> Void
  @usableFromInline let context: UnsafeRawPointer?
  /// Whether a getter performed the mutation; set before it is performed, so that a read of the
  /// property during the mutation does not perform it again.
  @usableFromInline var isPerformed = false

  @usableFromInline
  init(
    object: ObjectIdentifier,
    keyPath: AnyKeyPath,
    valueType: ObjectIdentifier,
    placeholder: UnsafeMutableRawPointer,
    context: UnsafeRawPointer?,
    apply: @escaping (UnsafeMutableRawPointer, UnsafeRawPointer?) -> Void
  ) {
    self.object = object
    self.keyPath = keyPath
    self.valueType = valueType
    self.placeholder = placeholder
    self.context = context
    self.apply = apply
  }

  /// Mutates the value at `keyPath` of `object` with `body`: in place when `propertyKeyPath` names
  /// the `@Observed` property `keyPath` reads, otherwise through the key path (a read, the mutation
  /// of the copy, a write).
  @inlinable
  static func mutate<Root: AnyObject, Value>(
    _ object: Root,
    at keyPath: ReferenceWritableKeyPath<Root, Value>,
    property propertyKeyPath: AnyKeyPath?,
    placeholder: Value,
    _ body: (inout Value) -> Void
  ) {
    withoutActuallyEscaping(body) { body in
      mutate(
        object, at: keyPath, property: propertyKeyPath, placeholder: placeholder, context: nil
      ) { value, _ in body(&value.assumingMemoryBound(to: Value.self).pointee) }
    }
  }

  /// Mutates the value at `keyPath` of `object` by calling `apply` with its address (of a `Value`)
  /// and `context`: in place when `propertyKeyPath` names the `@Observed` property `keyPath`
  /// reads, otherwise through the key path (a read, the mutation of the copy, a write). Inlinable,
  /// so that a caller specialized for `Value` and `Root` looks up no generic metadata at run time;
  /// `apply` should capture nothing (see the type's documentation).
  @inlinable
  static func mutate<Root: AnyObject, Value>(
    _ object: Root,
    at keyPath: ReferenceWritableKeyPath<Root, Value>,
    property propertyKeyPath: AnyKeyPath?,
    placeholder: Value,
    context: UnsafeRawPointer?,
    apply: @escaping (UnsafeMutableRawPointer, UnsafeRawPointer?) -> Void
  ) {
    if let propertyKeyPath {
      var placeholder = Optional(placeholder)
      let isPerformed = withUnsafeMutablePointer(to: &placeholder) { placeholder in
        var mutation = InPlaceMutation(
          object: ObjectIdentifier(object), keyPath: propertyKeyPath,
          valueType: ObjectIdentifier(Value.self), placeholder: placeholder, context: context,
          apply: apply)
        return perform(&mutation) { _ = object[keyPath: keyPath] }
      }
      if isPerformed { return }
    }
    withUnsafeMutablePointer(to: &object[keyPath: keyPath]) { apply($0, context) }
  }

  /// Points this thread's slot at `mutation` while `read` runs, which must read the property it
  /// names. Returns whether that property's getter performed it.
  @inlinable
  static func perform(_ mutation: inout InPlaceMutation, by read: () -> Void) -> Bool {
    withUnsafeMutablePointer(to: &mutation) { mutation in
      let outer = autokvo_thread_mutation()
      autokvo_set_thread_mutation(mutation)
      autokvo_recording_began()
      defer {
        autokvo_recording_ended()
        autokvo_set_thread_mutation(outer)
      }
      read()
      return mutation.pointee.isPerformed
    }
  }

  /// The mutation this thread's getter of the property declared at `keyPath`, of `object`, must
  /// perform, if there is one; this marks it performed.
  @inlinable
  static func take<Value>(
    on object: AnyObject,
    property keyPath: AnyKeyPath,
    _: Value.Type
  ) -> UnsafeMutablePointer<InPlaceMutation>? {
    guard let raw = autokvo_thread_mutation() else { return nil }
    let mutation = raw.assumingMemoryBound(to: InPlaceMutation.self)
    guard !mutation.pointee.isPerformed,
      mutation.pointee.object == ObjectIdentifier(object),
      mutation.pointee.valueType == ObjectIdentifier(Value.self),
      mutation.pointee.keyPath === keyPath || mutation.pointee.keyPath == keyPath
    else { return nil }
    mutation.pointee.isPerformed = true
    return mutation
  }

  /// Hands over the value that stands in the storage during `mutation`.
  @inlinable
  static func takePlaceholder<Value>(
    of mutation: UnsafeMutablePointer<InPlaceMutation>,
    _: Value.Type
  ) -> Value {
    // Moved out and replaced by `nil` (`Optional.take()` is not available on every Apple
    // deployment target the package declares).
    let slot = mutation.pointee.placeholder.assumingMemoryBound(to: Value?.self)
    let placeholder = slot.move()
    slot.initialize(to: nil)
    guard let placeholder else {
      preconditionFailure("an in-place mutation's placeholder taken twice")
    }
    return placeholder
  }

  /// Applies `mutation` to `value`, the property's value moved out of its storage, and returns
  /// the result. Out of the getter it is called from, and taking and returning the value rather
  /// than an `inout` one: a function that takes the address of a local, or passes one `inout` to
  /// a function that takes its address, gets a stack protector, which every get would pay for.
  @inlinable
  @inline(never)
  static func perform<Value>(
    _ mutation: UnsafeMutablePointer<InPlaceMutation>,
    on value: consuming Value
  ) -> Value {
    var value = consume value
    withUnsafeMutablePointer(to: &value) {
      mutation.pointee.apply(UnsafeMutableRawPointer($0), mutation.pointee.context)
    }
    return value
  }
}
