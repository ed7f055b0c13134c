#if canImport(Observation) && !canImport(ObjectiveC)
  import Foundation
  import Testing

  @testable import AutoKVO

  /// `ModelSentinel` driven through its `ModelChangeTracking` seam by a fake (`FakeModelChanges`),
  /// with no Observation tracking at all: what a registration on an `@Observable` model does with
  /// the calls before and after each change, when it ends, and what a handler may do meanwhile.
  @Suite("ModelSentinel through a fake tracking: delivery, lifetimes and re-entrancy")
  struct ModelSentinelTests {
    typealias Change = KeyValueChange<Int>

    // MARK: Delivery

    @Test("[.old, .new]: one change, with the value read before it and the value after it")
    func oldAndNew() {
      let changes = FakeModelChanges()
      let tracking = changes.makeTracking()
      let model = FakeTrackedModel()
      let observer = FakeModelObserver()
      registerThroughFake(observer, model, options: [.old, .new], tracking: tracking)
      #expect(tracking.installCount == 1)
      #expect(tracking.notifiesBeforeChange == true)
      changes.change { model.value = 5 }
      changes.change { model.value = 7 }
      #expect(
        observer.changes == [
          Change(kind: .setting, oldValue: 0, newValue: 5),
          Change(kind: .setting, oldValue: 5, newValue: 7),
        ])
      #expect(tracking.installCount == 1)
    }

    @Test("[.new] asks for no call before a change, and delivers the new value only")
    func newOnly() {
      let changes = FakeModelChanges()
      let tracking = changes.makeTracking()
      let model = FakeTrackedModel()
      let observer = FakeModelObserver()
      registerThroughFake(observer, model, options: .new, tracking: tracking)
      #expect(tracking.notifiesBeforeChange == false)
      changes.change { model.value = 3 }
      #expect(observer.changes == [Change(kind: .setting, newValue: 3)])
    }

    @Test("[.prior, .old, .new]: the prior call, with the old value, comes before the change")
    func priorCall() {
      let changes = FakeModelChanges()
      let tracking = changes.makeTracking()
      let model = FakeTrackedModel()
      let observer = FakeModelObserver()
      registerThroughFake(observer, model, options: [.prior, .old, .new], tracking: tracking)
      changes.change { model.value = 1 }
      #expect(
        observer.changes == [
          Change(kind: .setting, oldValue: 0, isPrior: true),
          Change(kind: .setting, oldValue: 0, newValue: 1),
        ])
    }

    @Test("[.initial, .new]: the current value during registration, before any change")
    func initialValue() {
      let changes = FakeModelChanges()
      let model = FakeTrackedModel()
      model.value = 4
      let observer = FakeModelObserver()
      registerThroughFake(
        observer, model, options: [.initial, .new], tracking: changes.makeTracking())
      #expect(observer.changes == [Change(kind: .setting, newValue: 4)])
      changes.change { model.value = 6 }
      #expect(observer.changes.last == Change(kind: .setting, newValue: 6))
      #expect(observer.changes.count == 2)
    }

    @Test("A read that tracks nothing: one diagnostic, the registration already cancelled")
    func readTracksNothing() {
      let recorder = DiagnosticsRecorder()
      defer { recorder.restore() }
      let changes = FakeModelChanges()
      let tracking = changes.makeTracking()
      tracking.tracksNothingFromNowOn()
      let model = FakeTrackedModel()
      let observer = FakeModelObserver()
      let observation = registerThroughFake(
        observer, model, options: [.initial, .new], tracking: tracking)
      #expect(observation.isCancelled)
      #expect(recorder.kinds == [.keyPathNeverNotifies])
      #expect(!tracking.isInstalled)
      changes.change { model.value = 1 }
      #expect(observer.changes.isEmpty)
    }

    @Test("Dependencies that move: each change reads the key path again, installing anew")
    func movingDependencies() {
      let recorder = DiagnosticsRecorder()
      defer { recorder.restore() }
      let changes = FakeModelChanges()
      let tracking = changes.makeTracking()
      let model = FakeTrackedModel()
      let observer = FakeModelObserver()
      let observation = registerThroughFake(
        observer, model, options: [.old, .new], tracking: tracking)
      changes.change(dependenciesAreFixed: false) { model.value = 2 }
      #expect(tracking.installCount == 2)
      #expect(observer.changes == [Change(kind: .setting, oldValue: 0, newValue: 2)])
      // The next reading tracks nothing: the registration ends, with a diagnostic, after no
      // delivery of that change.
      tracking.tracksNothingFromNowOn()
      changes.change(dependenciesAreFixed: false) { model.value = 3 }
      #expect(tracking.installCount == 3)
      #expect(observation.isCancelled)
      #expect(recorder.kinds == [.keyPathNeverNotifies])
      #expect(observer.changes.count == 1)
    }

    @Test("Changes on two threads at once: each delivered with the old value its thread read")
    func changesOnTwoThreads() {
      let changes = FakeModelChanges()
      let model = FakeTrackedModel()
      let observer = FakeModelObserver()
      let lock = NSLock()
      registerThroughFake(
        observer, model, options: [.old, .new], tracking: changes.makeTracking()
      ) { observer, _, change in
        lock.withLock { observer.changes.append(change) }
      }
      let firstHasBegun = DispatchSemaphore(value: 0)
      let secondHasEnded = DispatchSemaphore(value: 0)
      let firstHasEnded = DispatchSemaphore(value: 0)
      Thread.detachNewThread {
        changes.willChange()
        lock.withLock { model.value = 1 }
        firstHasBegun.signal()
        secondHasEnded.wait()
        changes.didChange()
        firstHasEnded.signal()
      }
      firstHasBegun.wait()
      Thread.detachNewThread {
        changes.change { lock.withLock { model.value = 2 } }
        secondHasEnded.signal()
      }
      firstHasEnded.wait()
      // The second change completed first, its old value the first change's new one; the first
      // was delivered with the value its own thread read before it. The new value of each is the
      // one read when it is delivered.
      #expect(
        lock.withLock { observer.changes } == [
          Change(kind: .setting, oldValue: 1, newValue: 2),
          Change(kind: .setting, oldValue: 0, newValue: 2),
        ])
    }

    // MARK: Lifetimes

    @Test("Observer freed: the tracking is cancelled once, the handler released, nothing delivered")
    func observerFreed() {
      let lifetimes = LifetimeTracker()
      let changes = FakeModelChanges()
      let tracking = changes.makeTracking()
      let model = FakeTrackedModel()
      var observer: FakeModelObserver? = FakeModelObserver()
      let calls = Counter()
      let token = Token(lifetimes)
      let observation = registerThroughFake(
        observer!, model, options: .new, tracking: tracking
      ) { _, _, _ in
        withExtendedLifetime(token) { calls.increment() }
      }
      changes.change { model.value = 1 }
      observer = nil
      #expect(observation.endReason == .observerDeallocated)
      #expect(tracking.cancelCount == 1)
      #expect(!tracking.isInstalled)
      changes.change { model.value = 2 }
      #expect(calls.value == 1)
      #expect(lifetimes.liveCount == 1)  // `token`, held here only
    }

    @Test(
      "The model's callbacks released: the registration ends once, as the model's; all is freed")
    func modelCallbacksReleased() {
      let lifetimes = LifetimeTracker()
      let changes = FakeModelChanges()
      let tracking = changes.makeTracking()
      let model = FakeTrackedModel()
      let observer = FakeModelObserver()
      let calls = Counter()
      let observation = { () -> KeyValueObservation in
        let token = Token(lifetimes)
        return registerThroughFake(observer, model, options: .new, tracking: tracking) {
          _, _, _ in withExtendedLifetime(token) { calls.increment() }
        }
      }()
      #expect(lifetimes.liveCount == 1)
      // What the model's deallocation does: its registrar lets the callbacks go, and with them
      // the registration's own registry, which nothing else holds.
      changes.releaseCallbacks()
      #expect(observation.endReason == .observedDeallocated)
      #expect(tracking.abandonCount == 1)
      #expect(tracking.cancelCount == 0)
      #expect(lifetimes.liveCount == 0)
      observation.cancel()
      #expect(observation.endReason == .observedDeallocated)
      #expect(tracking.cancelCount == 0)
      changes.change { model.value = 1 }
      #expect(calls.value == 0)
    }

    @Test("cancel(): the tracking is cancelled once; a second cancel does nothing")
    func cancelTwice() {
      let changes = FakeModelChanges()
      let tracking = changes.makeTracking()
      let model = FakeTrackedModel()
      let observer = FakeModelObserver()
      let observation = registerThroughFake(observer, model, options: .new, tracking: tracking)
      observation.cancel()
      observation.cancel()
      #expect(tracking.cancelCount == 1)
      #expect(!tracking.isInstalled)
      changes.change { model.value = 1 }
      #expect(observer.changes.isEmpty)
    }

    // MARK: Re-entrancy

    @Test("A handler that cancels its own registration: this change once, then nothing")
    func handlerCancelsItself() {
      let changes = FakeModelChanges()
      let tracking = changes.makeTracking()
      let model = FakeTrackedModel()
      let observer = FakeModelObserver()
      let handle = Box<KeyValueObservation>()
      handle.value = registerThroughFake(observer, model, options: .new, tracking: tracking) {
        observer, _, change in
        observer.changes.append(change)
        handle.value?.cancel()
      }
      changes.change { model.value = 1 }
      #expect(tracking.cancelCount == 1)
      #expect(!tracking.isInstalled)
      changes.change { model.value = 2 }
      #expect(observer.changes == [Change(kind: .setting, newValue: 1)])
    }

    @Test("A registration made in a prior call does not receive that change, and receives the next")
    func registrationInPriorCall() {
      let changes = FakeModelChanges()
      let model = FakeTrackedModel()
      let first = FakeModelObserver()
      let second = FakeModelObserver()
      let secondTracking = Box<FakeModelTracking>()
      let secondHandle = Box<KeyValueObservation>()
      registerThroughFake(first, model, options: [.prior, .new], tracking: changes.makeTracking()) {
        first, model, change in
        first.changes.append(change)
        guard change.isPrior, secondHandle.value == nil else { return }
        let tracking = changes.makeTracking()
        secondTracking.value = tracking
        secondHandle.value = registerThroughFake(second, model, options: .new, tracking: tracking)
      }
      changes.change { model.value = 1 }
      // Installed during the change's first phase, so called in its second, as Observation does.
      #expect(secondTracking.value?.isInstalled == true)
      #expect(second.changes.isEmpty)
      changes.change { model.value = 2 }
      #expect(second.changes == [Change(kind: .setting, newValue: 2)])
      #expect(
        first.changes == [
          Change(kind: .setting, isPrior: true), Change(kind: .setting, newValue: 1),
          Change(kind: .setting, isPrior: true), Change(kind: .setting, newValue: 2),
        ])
    }
  }
#endif
