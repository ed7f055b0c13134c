#if canImport(Observation) && !canImport(ObjectiveC)
  // The willSet/didSet form of `withObservationTracking`, whose callbacks stay installed until
  // cancelled, is SPI for SwiftUI. Toolchains for Apple platforms ship no private interface for
  // Observation, so this file, the only one that uses it, is compiled elsewhere only.
  @_spi(SwiftUI) import Observation
  import _AutoKVOShims

  /// How one registration on an `@Observable` model learns of its changes: the only code that
  /// knows Observation's tracking API, so that another mechanism (SE-0506's public one, on a
  /// toolchain that has it) is another file with the same members.
  ///
  /// ``install(reading:willSet:didSet:)`` evaluates a read with Observation recording what it
  /// accesses, and installs callbacks that Observation makes on the mutating thread before
  /// (`willSet`) and after (`didSet`) every change of any of it, until the tracking is cancelled
  /// or replaced by the next installation. The callbacks capture what the caller gives them; when
  /// a tracked object is deallocated, its registrar releases them, and with them what they
  /// captured: the caller learns of the model's death from that release.
  ///
  /// The SPI returns no handle to cancel with, but passes one to every callback. So the read also
  /// accesses a private model made for the purpose, a ``HandleProbe``, which one mutation makes
  /// call back with the handle; the probe is then dropped, and with it its registrar's copy of the
  /// callbacks, so that only the user's objects hold them.
  // @unchecked Sendable: every stored variable is guarded by `lock`.
  final class ModelTracking: @unchecked Sendable {
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
    /// Whether changes never need a new installation (see ``install(reading:willSet:didSet:)``).
    private var fixedDependencies = false

    deinit {
      lock.destroy()
    }

    /// The key path registered: a change reported under it shows that it is a tracked property
    /// of the model itself (see ``install(reading:willSet:didSet:)``).
    private let keyPath: AnyKeyPath

    init(keyPath: AnyKeyPath) {
      self.keyPath = keyPath
    }

    /// Evaluates `read` with Observation recording what it accesses, and installs the callbacks
    /// for all of it, replacing (and cancelling) the previous installation. `willSet` may be
    /// `nil`: Observation then makes no call before a change, which halves its own cost.
    ///
    /// `didSet` is told whether what a read of the key path accesses is known never to change:
    /// once a change is reported under the registered key path itself, it is a tracked property of
    /// the model, and no change needs a new installation. A key path through other objects or
    /// computed from other properties never is. Each callback returns whether it is still
    /// wanted: one whose registration has ended returns `false`, and its installation is removed
    /// then (so that callbacks left on other objects, those of a chain whose root was
    /// deallocated, go at their next change).
    ///
    /// Returns what `read` returned, or `nil` when it accessed nothing Observation tracks: then
    /// nothing stays installed, and the previous installation, if any, was cancelled. Neither
    /// callback is called for a change that completes before this returns, nor after
    /// ``cancel()`` or the next installation returns. Call it with no lock held: Observation
    /// takes its own, and the probe calls back.
    func install<Value>(
      reading read: () -> Value,
      willSet: (@Sendable (_ dependenciesAreFixed: Bool) -> Bool)?,
      didSet: @escaping @Sendable (_ dependenciesAreFixed: Bool) -> Bool
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
          return read()
        }, generation: generation, witness: witness,
        willSet: willSet, didSet: didSet)
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
    /// relay to `willSet` and `didSet` and capture `witness`.
    private func track<Value>(
      _ read: () -> Value,
      generation: Int,
      witness: InstallationWitness,
      willSet: (@Sendable (_ dependenciesAreFixed: Bool) -> Bool)?,
      didSet: @escaping @Sendable (_ dependenciesAreFixed: Bool) -> Bool
    ) -> Value {
      let relayDidSet: @Sendable (ObservationTracking) -> Void = { [self] handle in
        withExtendedLifetime(witness) {}
        guard let dependenciesAreFixed = accepted(handle, generation) else { return }
        if !didSet(dependenciesAreFixed) { handle.cancel() }
      }
      guard let willSet else {
        return withObservationTracking(read, didSet: relayDidSet)
      }
      let relayWillSet: @Sendable (ObservationTracking) -> Void = { [self] handle in
        withExtendedLifetime(witness) {}
        guard let dependenciesAreFixed = accepted(handle, generation) else { return }
        if !willSet(dependenciesAreFixed) { handle.cancel() }
      }
      return withObservationTracking(read, willSet: relayWillSet, didSet: relayDidSet)
    }

    /// Whether the key path's accesses are known never to change, for a callback of
    /// `generation`'s installation that reports a change; `nil` for one that is not a change to
    /// act on (a probe's callback hands over the handle instead).
    private func accepted(_ handle: ObservationTracking, _ generation: Int) -> Bool? {
      let thread = autokvo_thread_identity()
      let fixed = lock.withLock { () -> Bool? in
        if let probing, probing.generation == generation, probing.thread == thread {
          if probedHandle == nil { probedHandle = handle }
          return nil
        }
        guard !isCancelled, generation == self.generation else { return nil }
        return fixedDependencies
      }
      guard fixed == false else { return fixed }
      guard let changed = handle.changed, changed.matches(keyPath) else { return false }
      lock.withLock { fixedDependencies = true }
      return true
    }

    /// Removes the installed callbacks from every registrar that holds them, now. No callback is
    /// made once this returns on the calling thread, nor for a change that begins after it
    /// returns anywhere; one already running on another thread may complete. Never call it from
    /// code that a registrar's release of its callbacks can run (see ``abandon()``).
    func cancel() {
      let installed = lock.withLock { () -> ObservationTracking? in
        isCancelled = true
        defer { current = nil }
        return current
      }
      installed?.cancel()
    }

    /// Stops every callback without calling into Observation: what ends a tracking while the
    /// model's registrar is releasing the callbacks, under its own lock, because the model is
    /// being deallocated. A callback left on another object (a chain's) removes itself at its
    /// next change, when it finds its registration ended.
    func abandon() {
      let installed = lock.withLock { () -> ObservationTracking? in
        isCancelled = true
        defer { current = nil }
        return current
      }
      withExtendedLifetime(installed) {}
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
