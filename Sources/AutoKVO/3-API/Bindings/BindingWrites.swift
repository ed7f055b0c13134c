#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The writes one binding has in progress, by thread: what keeps a binding from writing again
/// while its own write is still in progress on the same thread.
///
/// A change a binding hears on a thread where it is writing can only be its own write coming
/// back, through its own notification, other bindings or handlers, or the written setter's side
/// effects: it is ignored. So a cycle of bindings ends after one lap. A write on another thread
/// is not in progress here, and is not mistaken for an echo.
// @unchecked Sendable: `writer` and `otherWriters` are guarded by `lock`.
@usableFromInline
final class BindingWrites: @unchecked Sendable {
  /// The thread of the write in progress, or 0. One is the common case: a binding is written from
  /// two threads at once only when its source is set from two threads at once.
  private var writer: UInt = 0
  /// The threads of further writes in progress, at the same time as `writer`'s.
  private var otherWriters: [UInt] = []

  // A striped lifecycle lock: nothing else is taken under it, and a binding needs no lock of its
  // own.
  private var lock: Lock { LifecycleLocks.lock(for: self) }

  @usableFromInline
  init() {}

  /// Marks a write of this binding as in progress on this thread, and returns the thread's
  /// identity for ``endWrite(on:)``; `nil`, and marks nothing, when one already is: what the
  /// binding hears then is its own write coming back. The caller writes between the two calls,
  /// with no lock held: a write calls setters, which are user code.
  @usableFromInline
  func beginWrite() -> UInt? {
    let thread = Self.currentThread
    return lock.withLock { () -> UInt? in
      if writer == thread || otherWriters.contains(thread) { return nil }
      if writer == 0 { writer = thread } else { otherWriters.append(thread) }
      return thread
    }
  }

  /// Ends the write ``beginWrite()`` began on `thread`.
  @usableFromInline
  func endWrite(on thread: UInt) {
    lock.withLock {
      if writer == thread {
        writer = 0
      } else if let index = otherWriters.firstIndex(of: thread) {
        otherWriters.remove(at: index)
      }
    }
  }

  /// The calling thread's identity, valid while it runs, which is as long as a write it made can
  /// be in progress.
  private static var currentThread: UInt {
    #if canImport(Darwin)
      UInt(bitPattern: pthread_self())
    #else
      UInt(pthread_self())
    #endif
  }
}

/// Whether two values are equal, when their type is `Equatable`: checked at run time, so that a
/// binding made from generic code that knows nothing of `Equatable` skips equal writes too.
@usableFromInline
struct RuntimeEquality<Value> {
  /// `nil` when `Value` is not `Equatable`: every value is then written.
  @usableFromInline
  let areEqual: ((Value, Value) -> Bool)?

  @usableFromInline
  init() {
    if let equatable = Value.self as? any Equatable.Type {
      areEqual = Self.comparison(as: equatable)
    } else {
      areEqual = nil
    }
  }

  /// Whether `lhs` and `rhs` are known to be equal: `false` when `Value` is not `Equatable`.
  @inlinable
  func areKnownEqual(_ lhs: Value, _ rhs: Value) -> Bool {
    areEqual?(lhs, rhs) ?? false
  }

  /// `==` of `Equatable`, which is `Value` itself, opened from the metatype: read through the
  /// values' addresses, as the same type.
  private static func comparison<Equatable: Swift.Equatable>(
    as _: Equatable.Type
  ) -> (Value, Value) -> Bool {
    { lhs, rhs in
      withUnsafePointer(to: lhs) { lhs in
        withUnsafePointer(to: rhs) { rhs in
          UnsafeRawPointer(lhs).assumingMemoryBound(to: Equatable.self).pointee
            == UnsafeRawPointer(rhs).assumingMemoryBound(to: Equatable.self).pointee
        }
      }
    }
  }
}
