#if canImport(Observation) && !canImport(ObjectiveC)
  import Foundation
  import Observation

  @testable import AutoKVO

  /// Stands in for Observation's registrars in the tests of `ModelSentinel`: it reports a change
  /// when a test says so, to every tracking it made that is installed, as a registrar calls every
  /// tracking installed on its object.
  ///
  /// A change is told in two phases, which a test may run apart (on one thread each, as
  /// Observation calls on the mutating thread): `willChange()` calls each installation that asked
  /// for calls before a change; `didChange()` calls each installation then installed, so that one
  /// made during the first phase (a registration made in a prior call) is called in the second,
  /// as Observation's does. No lock is held while a receiver runs.
  final class FakeModelChanges: @unchecked Sendable {  // `trackings` is guarded by `lock`
    private let lock = NSLock()
    private var trackings: [FakeModelTracking] = []

    /// A new tracking, reported to by this stand-in.
    func makeTracking() -> FakeModelTracking {
      let tracking = FakeModelTracking()
      lock.withLock { trackings.append(tracking) }
      return tracking
    }

    /// The first phase of a change.
    func willChange(dependenciesAreFixed: Bool = true) {
      for tracking in lock.withLock({ trackings }) {
        tracking.callBeforeChange(dependenciesAreFixed: dependenciesAreFixed)
      }
    }

    /// The second phase of a change.
    func didChange(dependenciesAreFixed: Bool = true) {
      for tracking in lock.withLock({ trackings }) {
        tracking.callAfterChange(dependenciesAreFixed: dependenciesAreFixed)
      }
    }

    /// A whole change, `mutation` between its two phases.
    func change(dependenciesAreFixed: Bool = true, _ mutation: () -> Void) {
      willChange(dependenciesAreFixed: dependenciesAreFixed)
      mutation()
      didChange(dependenciesAreFixed: dependenciesAreFixed)
    }

    /// What a model's deallocation does to the callbacks: its registrar releases every one.
    func releaseCallbacks() {
      for tracking in lock.withLock({ trackings }) {
        tracking.releaseInstallation()
      }
    }
  }

  /// One registration's tracking, made by ``FakeModelChanges``: it records what the sentinel asks
  /// of it, and its installation holds the receiver and the owner strongly, as Observation's
  /// callbacks do.
  final class FakeModelTracking: ModelChangeTracking, @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()

    struct Installation {
      let receiver: any ModelChangeReceiver
      let owner: any AnyObject & Sendable
      let notifiesBeforeChange: Bool
    }

    private var installation: Installation?
    private var installs = 0
    private var cancels = 0
    private var abandons = 0
    private var tracksNothingNextTime = false

    var installCount: Int { lock.withLock { installs } }
    var cancelCount: Int { lock.withLock { cancels } }
    var abandonCount: Int { lock.withLock { abandons } }
    var isInstalled: Bool { lock.withLock { installation != nil } }
    /// Whether the installed callbacks are called before a change; `nil` when none is installed.
    var notifiesBeforeChange: Bool? { lock.withLock { installation?.notifiesBeforeChange } }

    /// Makes the next installation read nothing that can report a change.
    func tracksNothingFromNowOn() {
      lock.withLock { tracksNothingNextTime = true }
    }

    func install<Object, Value>(
      reading keyPath: KeyPath<Object, Value>,
      of model: Object,
      notifiesBeforeChange: Bool,
      owner: any AnyObject & Sendable,
      receiver: any ModelChangeReceiver
    ) -> Value? {
      let value = model[keyPath: keyPath]
      let isTracked = lock.withLock {
        installs += 1
        installation =
          tracksNothingNextTime
          ? nil
          : Installation(
            receiver: receiver, owner: owner, notifiesBeforeChange: notifiesBeforeChange)
        return !tracksNothingNextTime
      }
      return isTracked ? value : nil
    }

    func cancel() {
      releaseInstallation { cancels += 1 }
    }

    func abandon() {
      releaseInstallation { abandons += 1 }
    }

    /// Lets the installation go, after `count` under the lock; released outside it, since the
    /// receiver's deinit may call back.
    fileprivate func releaseInstallation(counting count: () -> Void = {}) {
      let released = lock.withLock {
        count()
        defer { installation = nil }
        return installation
      }
      withExtendedLifetime(released) {}
    }

    fileprivate func callBeforeChange(dependenciesAreFixed: Bool) {
      guard let installation = lock.withLock({ installation }),
        installation.notifiesBeforeChange
      else { return }
      if !installation.receiver.modelWillChange(dependenciesAreFixed: dependenciesAreFixed) {
        remove(installation)
      }
    }

    fileprivate func callAfterChange(dependenciesAreFixed: Bool) {
      guard let installation = lock.withLock({ installation }) else { return }
      let isWanted = installation.receiver.modelDidChange(
        dependenciesAreFixed: dependenciesAreFixed, owner: installation.owner)
      if !isWanted { remove(installation) }
    }

    /// Removes `installation` if it is still the installed one, as a callback that its receiver
    /// no longer wants removes itself.
    private func remove(_ removed: Installation) {
      let released = lock.withLock { () -> Installation? in
        guard let current = installation, current.receiver === removed.receiver,
          current.owner === removed.owner
        else { return nil }
        installation = nil
        return current
      }
      withExtendedLifetime(released) {}
    }
  }

  /// A model for the fake: `Observable` only so that `ModelSentinel` accepts it, with no
  /// registrar; the fake reports its changes.
  final class FakeTrackedModel: Observable, @unchecked Sendable {  // single-threaded but where
    // a test says otherwise, and then ordered by its semaphores
    var value = 0
  }

  final class FakeModelObserver: KeyValueObservable, @unchecked Sendable {  // as above
    let observationRegistry = ObservationRegistry()
    var changes: [KeyValueChange<Int>] = []
  }

  /// Registers `handler` on `model.value` through `ModelSentinel`, its changes reported by
  /// `tracking`.
  @discardableResult
  func registerThroughFake(
    _ observer: FakeModelObserver,
    _ model: FakeTrackedModel,
    options: ObservationOptions,
    tracking: FakeModelTracking,
    handler: @escaping (FakeModelObserver, FakeTrackedModel, KeyValueChange<Int>) -> Void = {
      observer, _, change in observer.changes.append(change)
    }
  ) -> KeyValueObservation {
    ModelSentinel<FakeModelObserver, FakeTrackedModel, Int>.register(
      observer: observer, observerRegistry: observer.observationRegistry, model: model,
      access: modelPropertyAccess(\FakeTrackedModel.value), options: options,
      delivery: .synchronous, handler: adaptHandler(handler), site: nil, tracking: tracking)
  }
#endif
