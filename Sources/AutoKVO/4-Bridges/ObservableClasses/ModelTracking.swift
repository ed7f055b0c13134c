#if canImport(Observation) && !canImport(ObjectiveC)
  // The willSet/didSet form of `withObservationTracking`, whose callbacks stay installed until
  // cancelled, is SPI for SwiftUI. Toolchains for Apple platforms ship no private interface for
  // Observation, so this file, the only one that uses it, is compiled elsewhere only.
  @_spi(SwiftUI) import Observation
  import _AutoKVOShims

  /// A registration's ``ModelChangeTracking`` through Observation's own tracking: the only code
  /// that knows Observation's tracking API.
  ///
  /// ``install(reading:of:notifiesBeforeChange:owner:receiver:)`` reads the key path with
  /// Observation recording what it accesses, and installs callbacks that Observation makes on the
  /// mutating thread before and after every change of any of it. When a tracked object is
  /// deallocated, its registrar releases them, and the owner learns of the model's death from its
  /// own release. The receiver, which owns the tracking, must cancel it to be released (a cycle
  /// through Observation's registrars until then).
  ///
  /// The SPI returns no handle to cancel with, but passes one to every callback. So the read also
  /// accesses a private model made for the purpose, a ``HandleProbe``, which one mutation makes
  /// call back with the handle; the probe is then dropped, and with it its registrar's copy of the
  /// callbacks, so that only the user's objects hold them.
  // @unchecked Sendable: every stored variable is guarded by `lock`.
  final class ModelTracking: ModelChangeTracking, @unchecked Sendable {
    private let lock = Lock()
    /// The installed tracking, the one ``cancel()`` ends; `nil` before the first installation,
    /// and once cancelled.
    private var current: ObservationTracking?
    /// The generation of `current`: callbacks of an earlier installation are ignored.
    private var generation = 0
    /// The last generation installed or being installed.
    private var lastGeneration = 0
    /// The thread making the probe call back, and the generation it installs: its callbacks hand
    /// over the handle, and are not changes.
    private var probing: (thread: UnsafeRawPointer, generation: Int)?
    /// The handle the probe's callback handed over.
    private var probedHandle: ObservationTracking?
    private var isCancelled = false
    /// Whether changes never need a new installation (see
    /// ``install(reading:of:notifiesBeforeChange:owner:receiver:)``).
    private var fixedDependencies = false

    /// The key path registered: a change reported under it shows that it is a tracked property
    /// of the model itself.
    private let keyPath: AnyKeyPath

    /// A tracking of `keyPath`.
    init(keyPath: AnyKeyPath) {
      self.keyPath = keyPath
    }

    deinit {
      lock.destroy()
    }

    /// What a callback does with a change it is called for.
    private enum Outcome {
      /// Not a change to act on: a probe's callback, or one of a replaced installation.
      case ignore
      /// The tracking was cancelled: the callbacks are removed.
      case remove
      /// Deliver to the receiver.
      case deliver(dependenciesAreFixed: Bool)
    }

    /// Reads `keyPath` of `model` with Observation recording what it accesses, and installs the
    /// callbacks for all of it (see ``ModelChangeTracking``). With `notifiesBeforeChange` false,
    /// Observation makes no call before a change, which halves its own cost.
    ///
    /// Once a change is reported under the registered key path itself, it is a tracked property
    /// of the model, and the receiver is told that no change needs a new installation. A key path
    /// through other objects or computed from other properties never is. A callback that the
    /// receiver answers `false` (its registration has ended) removes its installation then (so
    /// that callbacks left on other objects, those of a chain whose root was deallocated, go at
    /// their next change). The probe calls back during the installation: call it with no lock
    /// held.
    func install<Object, Value>(
      reading keyPath: KeyPath<Object, Value>,
      of model: Object,
      notifiesBeforeChange: Bool,
      owner: any AnyObject & Sendable,
      receiver: any ModelChangeReceiver
    ) -> Value? {
      let thread = autokvo_thread_identity()
      let generation = lock.withLock {
        lastGeneration += 1
        return lastGeneration
      }
      // Captured by the callbacks and by nothing else once `track` returns: still shared once the
      // probe is gone only if a tracked object's registrar holds them.
      var witness = InstallationWitness()
      var probe: HandleProbe? = HandleProbe()
      let value = track(
        {
          probe!.access()
          return model[keyPath: keyPath]
        }, generation: generation, witness: witness, notifiesBeforeChange: notifiesBeforeChange,
        owner: owner, receiver: receiver)
      lock.withLock { probing = (thread, generation) }
      probe!.mutate()
      // The probe's registrar releases its copy of the callbacks. A registrar that calls a
      // `willSet` at its object's deinit (a Swift 6.2 runtime did) does so while `probing` still
      // says this thread: the call is ignored.
      probe = nil
      let isTracked = !isKnownUniquelyReferenced(&witness)
      let replaced = lock.withLock { () -> ObservationTracking? in
        let handle = probedHandle
        probedHandle = nil
        probing = nil
        guard isTracked, !isCancelled, let handle else { return handle }
        defer {
          current = handle
          self.generation = generation
        }
        return current
      }
      replaced?.cancel()
      return isTracked ? value : nil
    }

    /// Reads `read` under Observation's tracking, and installs callbacks of `generation` that
    /// deliver to `receiver` and capture `witness` and `owner`.
    private func track<Value>(
      _ read: () -> Value,
      generation: Int,
      witness: InstallationWitness,
      notifiesBeforeChange: Bool,
      owner: any AnyObject & Sendable,
      receiver: any ModelChangeReceiver
    ) -> Value {
      let didSet = relay(generation, witness) { dependenciesAreFixed in
        receiver.modelDidChange(dependenciesAreFixed: dependenciesAreFixed, owner: owner)
      }
      guard notifiesBeforeChange else {
        return withObservationTracking(read, didSet: didSet)
      }
      let willSet = relay(generation, witness) { dependenciesAreFixed in
        receiver.modelWillChange(dependenciesAreFixed: dependenciesAreFixed)
      }
      return withObservationTracking(read, willSet: willSet, didSet: didSet)
    }

    /// A callback of `generation`'s installation, which captures `witness`: checks the change
    /// (``outcome(_:_:)``), calls `deliver`, and removes the installation when `deliver` answers
    /// that it is no longer wanted.
    private func relay(
      _ generation: Int,
      _ witness: InstallationWitness,
      _ deliver: @escaping @Sendable (_ dependenciesAreFixed: Bool) -> Bool
    ) -> @Sendable (ObservationTracking) -> Void {
      { [self] handle in
        withExtendedLifetime(witness) {}
        switch outcome(handle, generation) {
        case .ignore:
          return
        case .remove:
          handle.cancel()
        case .deliver(let dependenciesAreFixed):
          if !deliver(dependenciesAreFixed) { handle.cancel() }
        }
      }
    }

    /// What a callback of `generation`'s installation does: one critical section per callback.
    private func outcome(_ handle: ObservationTracking, _ generation: Int) -> Outcome {
      let thread = autokvo_thread_identity()
      let outcome = lock.withLock { () -> Outcome in
        if let probing, probing.generation == generation, probing.thread == thread {
          if probedHandle == nil { probedHandle = handle }
          return .ignore
        }
        if isCancelled { return .remove }
        guard generation == self.generation else { return .ignore }
        return .deliver(dependenciesAreFixed: fixedDependencies)
      }
      guard case .deliver(false) = outcome, let changed = handle.changed, changed.matches(keyPath)
      else { return outcome }
      lock.withLock { fixedDependencies = true }
      return .deliver(dependenciesAreFixed: true)
    }

    /// Removes the installed callbacks from every registrar that holds them, now. No callback is
    /// made once this returns on the calling thread, nor for a change that begins after it
    /// returns anywhere; one already running on another thread may complete. Never call it from
    /// code that a registrar's release of its callbacks can run (see ``abandon()``).
    func cancel() {
      markCancelled()?.cancel()
    }

    /// Stops every callback without calling into Observation: what ends a tracking while the
    /// model's registrar is releasing the callbacks, under its own lock, because the model is
    /// being deallocated. A callback left on another object (a chain's) removes itself at its
    /// next change.
    func abandon() {
      withExtendedLifetime(markCancelled()) {}
    }

    /// Stops every callback and hands back the installed tracking, for the caller to cancel or
    /// to release.
    private func markCancelled() -> ObservationTracking? {
      lock.withLock {
        isCancelled = true
        defer { current = nil }
        return current
      }
    }
  }

  /// Captured by one installation's callbacks only, so that whether anything else holds it tells
  /// whether a tracked object's registrar keeps them.
  private final class InstallationWitness: Sendable {}

  /// A model of the library's own, read alongside the key path and mutated once so that the
  /// tracking's callbacks hand over the tracking's handle (see ``ModelTracking``).
  private final class HandleProbe: Observable {
    private let registrar = ObservationRegistrar()

    /// A property with no storage: only its key path matters.
    var signal: Int { 0 }

    func access() {
      registrar.access(self, keyPath: \.signal)
    }

    func mutate() {
      registrar.withMutation(of: self, keyPath: \.signal) {}
    }
  }
#endif
