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
    /// Whether changes never need a new installation (see ``markDependenciesFixed()``).
    private var fixedDependencies = false

    init() {}

    deinit {
      lock.destroy()
    }

    /// One callback: the change of a tracked property, before or after it is stored.
    struct Change: @unchecked Sendable {  // the handle is Observation's own Sendable value
      fileprivate let handle: ObservationTracking

      /// Whether ``ModelTracking/markDependenciesFixed()`` was called before this change.
      let dependenciesAreFixed: Bool

      /// The key path of the property that changed, as its registrar names it.
      var changedKeyPath: AnyKeyPath? { handle.changed }

      /// Removes this change's installation, whichever it is. A callback whose registration has
      /// ended calls it, so that callbacks left on other objects (those of a chain whose root was
      /// deallocated) go at their next change. Never call it from code that a registrar's
      /// release of its callbacks can run: the registrar holds its lock then.
      func cancelInstallation() {
        handle.cancel()
      }
    }

    /// Evaluates `read` with Observation recording what it accesses, and installs the callbacks
    /// for all of it, replacing (and cancelling) the previous installation. `willSet` may be
    /// `nil`: Observation then makes no call before a change, which halves its own cost.
    ///
    /// Returns what `read` returned, or `nil` when it accessed nothing Observation tracks: then
    /// nothing stays installed, and the previous installation, if any, was cancelled. Neither
    /// callback is called for a change that completes before this returns, nor after
    /// ``cancel()`` or the next installation returns. Call it with no lock held: Observation
    /// takes its own, and the probe calls back.
    func install<Value>(
      reading read: () -> Value,
      willSet: (@Sendable (Change) -> Void)?,
      didSet: @escaping @Sendable (Change) -> Void
    ) -> Value? {
      let thread = autokvo_thread_identity()
      let generation = lock.withLock {
        lastGeneration += 1
        return lastGeneration
      }
      // Captured by the callbacks and by nothing else: still shared once the probe is gone only
      // if a tracked object's registrar holds them.
      var witness = InstallationWitness()
      var probe: HandleProbe? = HandleProbe()
      let relayDidSet: @Sendable (ObservationTracking) -> Void = { [self, witness] handle in
        withExtendedLifetime(witness) {}
        if let change = accepted(handle, generation) { didSet(change) }
      }
      let value: Value
      if let willSet {
        let relayWillSet: @Sendable (ObservationTracking) -> Void = { [self, witness] handle in
          withExtendedLifetime(witness) {}
          if let change = accepted(handle, generation) { willSet(change) }
        }
        value = withObservationTracking(
          { probe!.access(); return read() }, willSet: relayWillSet, didSet: relayDidSet)
      } else {
        value = withObservationTracking(
          { probe!.access(); return read() }, didSet: relayDidSet)
      }
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

    /// The change a callback of `generation`'s installation reports, or `nil` when it is not one
    /// to act on: a probe's callback hands over the handle instead.
    private func accepted(_ handle: ObservationTracking, _ generation: Int) -> Change? {
      let thread = autokvo_thread_identity()
      return lock.withLock {
        if let probing, probing.generation == generation, probing.thread == thread {
          if probedHandle == nil { probedHandle = handle }
          return nil
        }
        guard !isCancelled, generation == self.generation else { return nil }
        return Change(handle: handle, dependenciesAreFixed: fixedDependencies)
      }
    }

    /// Records that the key path is a tracked property of the model itself, whose changes never
    /// change what a read of it accesses: no change needs a new installation then.
    func markDependenciesFixed() {
      lock.withLock { fixedDependencies = true }
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
    /// next change (``Change/cancelInstallation()``).
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
