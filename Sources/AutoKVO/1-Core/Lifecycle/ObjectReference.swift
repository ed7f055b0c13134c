import Foundation
import _AutoKVOShims

/// What a registration holds of its observer and of its observed object: a reference that never
/// keeps the object alive and yields it, retained, only until the object's deallocation begins.
///
/// For a native Swift object it is an unowned reference count, which keeps the object's memory
/// allocated (not the object alive) until ``release()``, promoted by the runtime's try-retain,
/// which fails from the moment the object's `deinit` begins. A `weak` reference would do the same,
/// but it moves the object's reference counts to a side table, which makes every retain and
/// release of the object, anywhere in the process, take the runtime's slow path. An object whose
/// reference counts are Objective-C's (an `NSObject` subclass; the same rule on every platform, so
/// that Linux tests exercise both kinds) is held `weak` instead.
///
/// Not generic: the engine's registration code runs unspecialized, where every generic type it
/// touches costs a run-time metadata look-up. A value with an explicit ``release()``: its owner, a
/// sentinel, calls it once, from `deinit`.
struct ObjectReference: @unchecked Sendable {  // immutable; the weak load is atomic
  /// One word, so that a sentinel holding two of these fits a smaller heap block: the address of a
  /// native object, which holds an unowned count on it; or, with the low bit set, the address of a
  /// retained ``WeakObject`` box, for an Objective-C-counted one. Heap addresses are at least
  /// 16-byte aligned, so the low bit of either is free.
  private let bits: UInt

  private static let boxTag: UInt = 1

  /// `object` is borrowed: the reference holds no strong count on it, and an initializer's
  /// argument taken owned, by default, would cost a retain and a release.
  init(_ object: borrowing AnyObject) {
    if Self.isObjectiveCCounted(type(of: object)) {
      let box = Unmanaged.passRetained(WeakObject(copy object)).toOpaque()
      bits = UInt(bitPattern: box) | Self.boxTag
    } else {
      let address = Unmanaged.passUnretained(object).toOpaque()
      autokvo_unowned_retain(address)
      bits = UInt(bitPattern: address)
    }
  }

  /// The `WeakObject` box of an Objective-C-counted object; `nil` for a native one.
  @inline(__always)
  private var box: WeakObject? {
    guard bits & Self.boxTag != 0, let address = UnsafeRawPointer(bitPattern: bits & ~Self.boxTag)
    else { return nil }
    return Unmanaged<WeakObject>.fromOpaque(address).takeUnretainedValue()
  }

  /// The object, retained for the caller, or `nil` once its deallocation has begun on any thread.
  ///
  /// The address is valid until ``release()``: the unowned count keeps the memory allocated even
  /// after the object is deinitialized, and try-retain reads only its reference counts.
  @inline(__always)
  func load<Object: AnyObject>(as type: Object.Type) -> Object? {
    if let box {
      return box.object.map { unsafeDowncast($0, to: Object.self) }
    }
    guard let retained = autokvo_try_retain(UnsafeMutableRawPointer(bitPattern: bits)!) else {
      return nil
    }
    return unsafeDowncast(
      Unmanaged<AnyObject>.fromOpaque(retained).takeRetainedValue(), to: Object.self)
  }

  /// Whether the object's deallocation has begun, asked by a caller that holds `object`, this
  /// reference's object, strongly: the answer ``load(as:)`` would give, without a retain.
  @inline(__always)
  func isDeallocating(_ object: AnyObject) -> Bool {
    if let box {
      return box.object == nil
    }
    return autokvo_is_deallocating(Unmanaged.passUnretained(object).toOpaque())
  }

  /// Calls `body` with the object, not retained, and returns `true`, unless its deallocation has
  /// begun; then returns `false`. For a caller that runs inside a change the object itself is
  /// making (an `@Observable` model's setter calling its registrar): the code making the change
  /// holds the object for the whole call.
  @inline(__always)
  func withObjectMakingChange<Object: AnyObject>(
    as type: Object.Type, _ body: (Object) -> Void
  ) -> Bool {
    if let box {
      guard let object = box.object else { return false }
      body(unsafeDowncast(object, to: Object.self))
      return true
    }
    let address = UnsafeMutableRawPointer(bitPattern: bits)!
    guard !autokvo_is_deallocating(address) else { return false }
    Unmanaged<Object>.fromOpaque(address)._withUnsafeGuaranteedRef(body)
    return true
  }

  /// Whether this is a reference to `object`, which the caller holds. A native object's address
  /// is compared: the unowned count keeps its memory allocated until ``release()``, so no other
  /// object can have it. An Objective-C-counted one is loaded from its box: call it with no
  /// AutoKVO lock held, since the load's temporary retain of another object may be its last.
  func refers(to object: AnyObject) -> Bool {
    if let box {
      return box.object === object
    }
    return bits == UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
  }

  /// Gives back the unowned count, or the box. Called once, by the owner's `deinit`.
  func release() {
    if bits & Self.boxTag != 0 {
      Unmanaged<WeakObject>.fromOpaque(UnsafeRawPointer(bitPattern: bits & ~Self.boxTag)!)
        .release()
    } else {
      autokvo_unowned_release(UnsafeMutableRawPointer(bitPattern: bits)!)
    }
  }
}

extension ObjectReference {
  /// Whether objects of `type` have Objective-C's reference counts: whether it is `NSObject` or
  /// inherits from it. The superclass chain is walked by hand: a metatype cast to
  /// `NSObject.Type` takes the runtime's generic cast, which costs every registration more, twice.
  static func isObjectiveCCounted(_ type: AnyClass) -> Bool {
    var current: AnyClass? = type
    while let candidate = current {
      if candidate == NSObject.self { return true }
      current = _getSuperclass(candidate)
    }
    return false
  }

  /// Whether `object`'s deallocation has begun: its `deinit` is running, or has run. Asked by a
  /// caller that holds `object` strongly. An Objective-C-counted object (an `NSObject` subclass on
  /// Apple platforms) cannot be asked without the Objective-C runtime, and answers `false`.
  static func hasBegunDeallocating(_ object: AnyObject) -> Bool {
    #if canImport(ObjectiveC)
      if Self.isObjectiveCCounted(type(of: object)) { return false }
    #endif
    return autokvo_is_deallocating(Unmanaged.passUnretained(object).toOpaque())
  }
}

/// A weak reference in a box, for an ``ObjectReference`` to an Objective-C-counted object.
final class WeakObject: @unchecked Sendable {  // a weak load is atomic
  weak var object: AnyObject?

  init(_ object: AnyObject) {
    self.object = object
  }
}
