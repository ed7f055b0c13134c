import _AutoKVOShims

/// A non-recursive lock whose storage lives on the C heap, so its address is stable.
///
/// Swift gives no address guarantee for a lock stored inline in a class property, so the lock is
/// allocated once and destroyed explicitly by its owner.
@usableFromInline
struct Lock: @unchecked Sendable {  // a pointer to a lock built for cross-thread use
  @usableFromInline
  let pointer: UnsafeMutablePointer<autokvo_lock_t>

  init() {
    pointer = autokvo_lock_create()
  }

  /// Initialises a lock in memory its owner allocated and keeps at a fixed address, as part of a
  /// larger block; the owner calls ``deinitializeInPlace()`` before it frees that block.
  init(initializingAt pointer: UnsafeMutablePointer<autokvo_lock_t>) {
    autokvo_lock_init(pointer)
    self.pointer = pointer
  }

  /// The lock at `pointer`, which ``init(initializingAt:)`` initialised.
  init(at pointer: UnsafeMutablePointer<autokvo_lock_t>) {
    self.pointer = pointer
  }

  /// Frees the lock. Its owner calls this once, from its `deinit`.
  func destroy() {
    autokvo_lock_destroy(pointer)
  }

  /// Undoes ``init(initializingAt:)``; the memory stays the owner's to free.
  func deinitializeInPlace() {
    autokvo_lock_deinit(pointer)
  }

  /// Takes the lock, for a critical section that spans inlined code in another module and so cannot
  /// be a closure here; prefer ``withLock(_:)``. The caller calls ``unlock()`` on every path.
  /// Inlinable, so that an `@Observed` setter takes its registry's lock with one call.
  @inlinable
  func lock() {
    autokvo_lock_lock(pointer)
  }

  /// Releases the lock taken with ``lock()``.
  @inlinable
  func unlock() {
    autokvo_lock_unlock(pointer)
  }

  /// Runs `body` with the lock held. `body` must never call user code.
  func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
    autokvo_lock_lock(pointer)
    defer { autokvo_lock_unlock(pointer) }
    return try body()
  }
}

/// A value behind its own lock, for rarely written process-wide settings.
final class LockedValue<Value>: @unchecked Sendable {  // every access to `value` holds `lock`
  private let lock = Lock()
  private var value: Value

  init(_ value: Value) {
    self.value = value
  }

  deinit {
    lock.destroy()
  }

  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    try lock.withLock { try body(&value) }
  }

  /// Stores `newValue` and returns the value it replaces, which the caller releases after the
  /// lock: the old value may be the last reference to something whose deinit is user code.
  func replace(with newValue: Value) -> Value {
    lock.withLock {
      defer { value = newValue }
      return value
    }
  }
}
