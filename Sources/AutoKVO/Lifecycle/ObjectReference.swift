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
  /// The object's address, unowned-retained for a native object.
  private let address: UnsafeMutableRawPointer
  /// The object, for an Objective-C-counted one; `nil` for a native one.
  private let objectiveCObject: WeakObject?

  init(_ object: AnyObject) {
    address = Unmanaged.passUnretained(object).toOpaque()
    if object is NSObject {
      objectiveCObject = WeakObject(object)
    } else {
      objectiveCObject = nil
      autokvo_unowned_retain(address)
    }
  }

  /// The object, retained for the caller, or `nil` once its deallocation has begun on any thread.
  ///
  /// The address is valid until ``release()``: the unowned count keeps the memory allocated even
  /// after the object is deinitialized, and try-retain reads only its reference counts.
  @inline(__always)
  func load<Object: AnyObject>(as type: Object.Type) -> Object? {
    if let objectiveCObject {
      return objectiveCObject.object.map { unsafeDowncast($0, to: Object.self) }
    }
    guard let retained = autokvo_try_retain(address) else { return nil }
    return unsafeDowncast(
      Unmanaged<AnyObject>.fromOpaque(retained).takeRetainedValue(), to: Object.self)
  }

  /// Lets the object's memory go. Called once, by the owner's `deinit`, outside every lock: it may
  /// free the memory of an object deinitialized meanwhile, and runs no other code.
  func release() {
    if objectiveCObject == nil { autokvo_unowned_release(address) }
  }
}

/// A weak reference in a box, for an ``ObjectReference`` to an Objective-C-counted object.
final class WeakObject: @unchecked Sendable {  // a weak load is atomic
  weak var object: AnyObject?

  init(_ object: AnyObject) {
    self.object = object
  }
}
