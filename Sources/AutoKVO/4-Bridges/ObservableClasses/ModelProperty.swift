#if canImport(Observation) && !canImport(ObjectiveC)
  /// Reads the registered property of a model, and names its key path: one closure, made where
  /// `autoObserve` is inlined into the user's code, so that it is specialized for the property's
  /// type and the engine, which runs unspecialized, handles only addresses.
  ///
  /// Called with an address, it initializes the address with the property's value on the model
  /// and returns `nil`; called without, it returns the key path. One closure for both, so that the
  /// key path literal of the call has no other use: the optimizer then turns the read into a call
  /// of the property's getter, a few instructions where reading through the key path object costs
  /// over a thousand, which it does only for a key path literal used once.
  @usableFromInline
  typealias ModelPropertyAccess<Object> =
    (_ model: Object, _ value: UnsafeMutableRawPointer?) -> AnyKeyPath?

  /// The access to `keyPath`, which it consumes (see ``ModelPropertyAccess``).
  @inlinable
  func modelPropertyAccess<Object, Value>(
    _ keyPath: consuming KeyPath<Object, Value>
  ) -> ModelPropertyAccess<Object> {
    { [keyPath] model, value in
      guard let value else { return keyPath }
      value.assumingMemoryBound(to: Value.self).initialize(to: model[keyPath: keyPath])
      return nil
    }
  }

  /// The registered property of a model, read through its ``ModelPropertyAccess``.
  struct ModelProperty<Object: AnyObject, Value> {
    let access: ModelPropertyAccess<Object>
    let keyPath: KeyPath<Object, Value>

    /// Asks `access` for the key path, on `model`.
    init(_ access: @escaping ModelPropertyAccess<Object>, on model: Object) {
      self.access = access
      keyPath = access(model, nil) as! KeyPath<Object, Value>
    }

    /// Initializes `value` with the property's value on `model`.
    func read(_ model: Object, into value: UnsafeMutablePointer<Value>) {
      _ = access(model, UnsafeMutableRawPointer(value))
    }

    /// The property's value on `model`.
    func read(_ model: Object) -> Value {
      withUnsafeTemporaryAllocation(of: Value.self, capacity: 1) { buffer in
        read(model, into: buffer.baseAddress!)
        return buffer.baseAddress!.move()
      }
    }

    /// Calls `body` with the property's value on `model`, read into a temporary: the engine runs
    /// unspecialized, where this costs no look-up of generic metadata.
    func withValue(of model: Object, _ body: (UnsafePointer<Value>) -> Void) {
      withUnsafeTemporaryAllocation(of: Value.self, capacity: 1) { buffer in
        let value = buffer.baseAddress!
        read(model, into: value)
        body(value)
        value.deinitialize(count: 1)
      }
    }
  }

  /// The old values read before the changes in progress of one registration, each with its
  /// thread, until the change's `didSet` takes it: the last one its thread left. A thread may
  /// have several (a handler that sets the model again), and several threads one each.
  ///
  /// The first change in progress keeps its value in a slot allocated once, typed, so that the
  /// common case, one change at a time, boxes nothing; the others are boxed in a list.
  // @unchecked Sendable: every stored variable is guarded by `lock`; the slot's value is accessed
  // only by the thread that holds the slot.
  final class PendingOldValues<Value>: @unchecked Sendable {
    private let lock = Lock()
    private let slot = UnsafeMutablePointer<Value>.allocate(capacity: 1)
    private var slotState = PendingSlotState.free
    private var others: [(thread: UnsafeRawPointer, oldValue: Any)] = []

    init() {}

    deinit {
      if slotState != .free { slot.deinitialize(count: 1) }
      slot.deallocate()
      lock.destroy()
    }

    /// Keeps the value `read` initializes as this thread's latest. `read` runs with no lock held.
    func push(thread: UnsafeRawPointer, _ read: (UnsafeMutablePointer<Value>) -> Void) {
      let hasSlot = lock.withLock {
        guard slotState == .free else { return false }
        slotState = .held(by: thread)
        return true
      }
      if hasSlot {
        // The slot is this thread's: nobody else reads it until the thread takes it back.
        read(slot)
        return
      }
      let boxed: Any = withUnsafeTemporaryAllocation(of: Value.self, capacity: 1) { buffer in
        read(buffer.baseAddress!)
        return buffer.baseAddress!.move()
      }
      lock.withLock { others.append((thread, boxed)) }
    }

    /// Calls `body` with this thread's latest value, and forgets it; returns `false`, without
    /// calling `body`, when the thread left none.
    func popLatest(thread: UnsafeRawPointer, _ body: (UnsafePointer<Value>) -> Void) -> Bool {
      withUnsafeTemporaryAllocation(of: Value.self, capacity: 1) { buffer in
        let value = buffer.baseAddress!
        // The slot's value is moved out under the lock, which frees the slot at once: a move runs
        // no user code.
        let found = lock.withLock { () -> PendingLookup in
          if let index = others.lastIndex(where: { $0.thread == thread }) {
            return .other(others.remove(at: index).oldValue)
          }
          guard slotState == .held(by: thread) else { return .none }
          value.moveInitialize(from: slot, count: 1)
          slotState = .free
          return .slot
        }
        switch found {
        case .none:
          return false
        case .slot:
          break
        case .other(let boxed):
          value.initialize(to: boxed as! Value)
        }
        body(value)
        value.deinitialize(count: 1)
        return true
      }
    }
  }

  // Outside `PendingOldValues`, so as not to be generic: a generic enum's metadata is looked up at
  // run time by the unspecialized code that uses it.
  private enum PendingLookup {
    case none
    case slot
    case other(Any)
  }

  private enum PendingSlotState: Equatable {
    case free
    /// Holds the value of a change in progress on this thread (it may be being read).
    case held(by: UnsafeRawPointer)
  }
#endif
