#if canImport(Observation) && !canImport(ObjectiveC)
  /// How one registration on an `@Observable` model learns of the changes of what its key path
  /// reads: the seam between ``ModelSentinel``, which delivers, and the mechanism that reports.
  ///
  /// ``ModelTracking`` implements it with Observation's tracking SPI; another mechanism (SE-0506's
  /// public one, on a toolchain that has it) is another conformer, and the tests drive the
  /// sentinel through a fake one, which reports a change when a test says so.
  ///
  /// What every conformer promises:
  /// - ``install(reading:of:notifiesBeforeChange:owner:receiver:)`` reads the key path, records
  ///   what the read accesses, and calls the receiver before (when asked) and after every change
  ///   of any of it, on the mutating thread, until the tracking is cancelled, abandoned or
  ///   installed again. Its callbacks hold the receiver and `owner` strongly, and let them go when
  ///   the receiver answers `false`, when the tracking ends, or when the tracked objects are
  ///   deallocated.
  /// - No callback is made for a change that completes before `install` returns, nor after
  ///   ``cancel()`` or the next `install` returns on the calling thread.
  /// - ``abandon()`` stops the callbacks without calling into the mechanism: it is what ends a
  ///   tracking while the mechanism itself is releasing the callbacks.
  protocol ModelChangeTracking: AnyObject, Sendable {
    /// Reads `keyPath` of `model`, tracking what the read accesses, and installs the callbacks
    /// that call `receiver` for every change of any of it, replacing (and cancelling) the previous
    /// installation. With `notifiesBeforeChange` false, no call is made before a change. The
    /// receiver is told whether what the read accesses is known never to change (the key path is
    /// a tracked property of the model itself). Returns the value read, or `nil` when the read
    /// accessed nothing that can report a change: then nothing stays installed. Called with no
    /// lock held.
    func install<Object, Value>(
      reading keyPath: KeyPath<Object, Value>,
      of model: Object,
      notifiesBeforeChange: Bool,
      owner: any AnyObject & Sendable,
      receiver: any ModelChangeReceiver
    ) -> Value?

    /// Removes the installed callbacks, now: none is made once this returns on the calling
    /// thread, nor for a change that begins after it returns anywhere.
    func cancel()

    /// Stops every callback without calling into the mechanism (see the type's documentation).
    func abandon()
  }

  /// What a tracking's callbacks call: the registration's observed-side sentinel.
  protocol ModelChangeReceiver: AnyObject, Sendable {
    /// Before a change of what the tracking reads; `dependenciesAreFixed` as for
    /// ``modelDidChange(dependenciesAreFixed:owner:)``. Returns whether the callbacks are still
    /// wanted.
    func modelWillChange(dependenciesAreFixed: Bool) -> Bool

    /// After a change. `dependenciesAreFixed`: whether what a read of the key path accesses is
    /// known never to change. `owner` is what the callbacks keep alive, for a new installation.
    /// Returns whether the callbacks are still wanted.
    func modelDidChange(dependenciesAreFixed: Bool, owner: any AnyObject & Sendable) -> Bool
  }
#endif
