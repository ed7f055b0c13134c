import Dispatch
import Foundation
import Testing

@testable import AutoKVO

@Suite("Re-entrancy and ordering: the sharp cases of other KVO libraries' bug trackers")
struct ReentrancyOrderingTests {
  @Test("Cancelling an earlier registration from inside an .initial callback takes effect at once")
  func cancelOtherRegistrationInsideInitial() {
    let person = Person()
    let watcher = Watcher()
    let earlier = watcher.autoObserve(person, keyPath: \.name) { w, _, _ in w.record("earlier") }
    let later = watcher.autoObserve(person, keyPath: \.name, options: [.initial]) { w, _, _ in
      w.record("later")
      earlier.cancel()
    }
    #expect(earlier.endReason == .cancelled)
    #expect(person.observationRegistry.observerCount == 1)
    person.name = "Bob"
    #expect(watcher.log == ["later", "later"])
    later.cancel()
  }

  @Test(
    "A registration cannot reach its own handle inside its .initial callback, but releasing its observer there ends it as autoObserve returns"
  )
  func endRegistrationFromInsideItsOwnInitialCall() {
    // `autoObserve` returns the handle only after the `.initial` call, and nothing in the API
    // names a registration before that: a handler cannot cancel itself during `.initial`. It can
    // end its registration by releasing either side, which takes effect once the caller's own
    // reference (kept for the duration of the call) is gone.
    let tracker = LifetimeTracker()
    let person = Person()
    var holder: Watcher? = Watcher(tracker: tracker)
    let calls = Counter()
    let handle = holder!.autoObserve(person, keyPath: \.name, options: [.initial]) { _, _, _ in
      calls.increment()
      holder = nil
    }
    #expect(tracker.liveCount == 0)
    #expect(handle.endReason == .observerDeallocated)
    #expect(person.observationRegistry.observerCount == 0)
    person.name = "Bob"
    #expect(calls.value == 1)
  }

  @Test(
    "A handler that cancels the registration it is delivering while another thread mutates: nothing is delivered after cancel() returned on the same thread, nor for a mutation begun after it returned"
  )
  func cancelInsideHandlerWhileAnotherThreadMutates() {
    let clock = LogicalClock()
    for _ in 0..<200 {
      let counter = SharedCounter()
      let watcher = Watcher()
      let ledger = DeliveryLedger()
      let handle = Box<KeyValueObservation>()
      handle.value = watcher.autoObserve(counter, keyPath: \.count, options: [.prior]) {
        _, _, change in
        ledger.delivered(isPrior: change.isPrior, observerIsDeallocating: false)
        ledger.cancel(handle.value!, clock: clock)
      }
      let mutate: @Sendable () -> Void = {
        for _ in 0..<20 { MutationContext.mutate(on: clock) { counter.increment() } }
      }
      runSimultaneously([mutate, mutate])
      #expect(ledger.late == 0)
      #expect(ledger.duplicated == 0)
      #expect(handle.value!.endReason == .cancelled)
      #expect(counter.observationRegistry.observerCount == 0)
      #expect(watcher.observationRegistry.observingCount == 0)
    }
  }

  @Test("A set made inside the observed object's own deinit is not delivered")
  func setInsideObservedDeinitIsNotDelivered() {
    let watcher = Watcher()
    var dying: SelfMutatingPerson? = SelfMutatingPerson()
    let handle = watcher.autoObserve(dying!, keyPath: \.name, options: [.prior, .new]) {
      w, _, change in w.record(describe(change))
    }
    dying!.name = "Bob"
    dying = nil
    #expect(watcher.log == ["prior setting nil->nil", "setting nil->Bob"])
    #expect(handle.endReason == .observedDeallocated)
    #expect(watcher.observationRegistry.observingCount == 0)
  }

  @Test(
    "A registration made with .initial inside the observed object's deinit delivers nothing and ends with the object"
  )
  func registerOnDyingObjectInsideItsDeinit() {
    let watcher = Watcher()
    let outcome = Box<KeyValueObservation>()
    var dying: DeinitHookPerson? = DeinitHookPerson { dyingPerson in
      outcome.value = watcher.autoObserve(dyingPerson, keyPath: \.name, options: [.initial, .new]) {
        w, _, change in w.record(describe(change))
      }
    }
    withExtendedLifetime(dying) {}
    dying = nil
    #expect(watcher.log == [])
    #expect(outcome.value?.endReason == .observedDeallocated)
    #expect(watcher.observationRegistry.observingCount == 0)
  }

  @Test(
    "A registration made inside the observer's own deinit delivers nothing and ends with the observer"
  )
  func registerAsDyingObserverInsideItsDeinit() {
    let person = Person()
    let calls = Counter()
    let outcome = Box<KeyValueObservation>()
    var dying: DeinitHookPerson? = DeinitHookPerson { dyingPerson in
      outcome.value = dyingPerson.autoObserve(person, keyPath: \.name, options: [.initial]) {
        _, _, _ in calls.increment()
      }
    }
    withExtendedLifetime(dying) {}
    dying = nil
    person.name = "Bob"
    #expect(calls.value == 0)
    #expect(outcome.value?.endReason == .observerDeallocated)
    #expect(person.observationRegistry.observerCount == 0)
  }

  @Test("A registration made inside an unrelated object's deinit is an ordinary registration")
  func registerInsideUnrelatedDeinit() {
    let person = Person()
    let watcher = Watcher()
    let outcome = Box<KeyValueObservation>()
    var unrelated: DeinitHookPerson? = DeinitHookPerson { _ in
      outcome.value = watcher.autoObserve(person, keyPath: \.name, options: [.initial, .new]) {
        w, _, change in w.record(describe(change))
      }
    }
    withExtendedLifetime(unrelated) {}
    unrelated = nil
    person.name = "Bob"
    #expect(watcher.log == ["setting nil->Ann", "setting nil->Bob"])
    #expect(outcome.value?.isCancelled == false)
  }

  @Test(
    "An observer that owns the object it observes: either deallocation order frees both and ends the registration once",
    arguments: [false, true])
  func observerOwnsObserved(ownerDeclaresRegistryFirst: Bool) {
    let tracker = LifetimeTracker()
    let calls = Counter()
    var owner: OwningWatcher? = OwningWatcher(
      owned: Person(tracker: tracker), registryFirst: ownerDeclaresRegistryFirst, tracker: tracker)
    let handle = owner!.autoObserve(owner!.owned, keyPath: \.name) { _, _, _ in calls.increment() }
    owner!.owned.name = "Bob"
    #expect(calls.value == 1)
    owner = nil
    #expect(tracker.liveCount == 0)
    #expect(handle.isCancelled)
    #expect(calls.value == 1)
  }

  @Test(
    "An observed object that owns its observer: dropping it frees both and ends the registration once"
  )
  func observedOwnsObserver() {
    let tracker = LifetimeTracker()
    let calls = Counter()
    var owner: OwningPerson? = OwningPerson(owned: Watcher(tracker: tracker), tracker: tracker)
    let handle = owner!.owned.autoObserve(owner!, keyPath: \.name) { watcher, person, _ in
      #expect(watcher === person.owned)
      calls.increment()
    }
    owner!.name = "Bob"
    owner = nil
    #expect(calls.value == 1)
    #expect(tracker.liveCount == 0)
    #expect(handle.endReason == .observedDeallocated)
  }

  @Test(
    "An object allocated at the address of a deallocated observed object inherits nothing from it")
  func addressReuseOfObservedObject() {
    let watcher = Watcher()
    var reusedAddresses = 0
    for round in 0..<200 {
      var old: Person? = Person(name: "old")
      let oldAddress = ObjectIdentifier(old!)
      let oldHandle = watcher.autoObserve(old!, keyPath: \.name) { w, _, _ in w.record("old") }
      old = nil
      let new = Person(name: "new")
      if ObjectIdentifier(new) == oldAddress { reusedAddresses += 1 }
      #expect(new.observationRegistry.observerCount == 0)
      new.name = "changed"
      oldHandle.cancel()
      let newHandle = watcher.autoObserve(new, keyPath: \.name) { w, _, _ in w.record("new") }
      new.name = "changed again"
      #expect(oldHandle.endReason == .observedDeallocated)
      #expect(newHandle.isCancelled == false)
      #expect(watcher.log.count == round + 1)
    }
    #expect(watcher.log.allSatisfy { $0 == "new" })
    #expect(watcher.observationRegistry.observingCount == 0)
    // The allocator reuses a freed address at once; AddressSanitizer quarantines freed memory
    // instead, so there the scenario runs without reuse.
    #expect(reusedAddresses > 0 || isRunningUnderAddressSanitizer)
  }

  @Test(
    "An observer allocated at the address of a deallocated observer receives nothing meant for it")
  func addressReuseOfObserver() {
    let person = Person()
    let calls = Counter()
    var reusedAddresses = 0
    for _ in 0..<200 {
      var old: Watcher? = Watcher()
      let oldAddress = ObjectIdentifier(old!)
      old!.autoObserve(person, keyPath: \.name) { _, _, _ in calls.increment() }
      old = nil
      let new = Watcher()
      if ObjectIdentifier(new) == oldAddress { reusedAddresses += 1 }
      #expect(new.observationRegistry.observingCount == 0)
      person.name = "changed"
    }
    #expect(calls.value == 0)
    #expect(person.observationRegistry.observerCount == 0)
    #expect(reusedAddresses > 0 || isRunningUnderAddressSanitizer)
  }
}

/// Whether this process runs with AddressSanitizer, whose quarantine delays address reuse.
private let isRunningUnderAddressSanitizer = dlsym(dlopen(nil, RTLD_NOW), "__asan_init") != nil

/// A person that sets its own name in its `deinit`, as models that "reset" themselves do.
private final class SelfMutatingPerson: KeyValueObservable, @unchecked Sendable {  // one thread
  let observationRegistry = ObservationRegistry()
  @Observed var name = "Ann"

  deinit {
    name = "gone"
  }
}

/// A person whose `deinit` runs a hook with the dying instance.
// @unchecked Sendable: single-threaded tests; `hook` is immutable.
private final class DeinitHookPerson: KeyValueObservable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  @Observed var name = "Ann"
  private let hook: (DeinitHookPerson) -> Void

  init(hook: @escaping (DeinitHookPerson) -> Void) {
    self.hook = hook
  }

  deinit {
    hook(self)
  }
}

/// An observer that keeps the object it observes alive, with its registry declared before or
/// after the owning reference (stored properties are destroyed in declaration order).
private final class OwningWatcher: KeyValueObservable, @unchecked Sendable {  // one thread
  private let registryFirst: ObservationRegistry?
  private let ownedFirst: Person?
  private let registryLast: ObservationRegistry?
  private let tracker: LifetimeTracker

  init(owned: Person, registryFirst: Bool, tracker: LifetimeTracker) {
    self.registryFirst = registryFirst ? ObservationRegistry() : nil
    ownedFirst = owned
    registryLast = registryFirst ? nil : ObservationRegistry()
    self.tracker = tracker
    tracker.instanceCreated()
  }

  deinit {
    tracker.instanceDestroyed()
  }

  var observationRegistry: ObservationRegistry { (registryFirst ?? registryLast)! }
  var owned: Person { ownedFirst! }
}

/// An observed object that keeps its own observer alive.
private final class OwningPerson: KeyValueObservable, @unchecked Sendable {  // one thread
  let observationRegistry = ObservationRegistry()
  @Observed var name = "Ann"
  let owned: Watcher
  private let tracker: LifetimeTracker

  init(owned: Watcher, tracker: LifetimeTracker) {
    self.owned = owned
    self.tracker = tracker
    tracker.instanceCreated()
  }

  deinit {
    tracker.instanceDestroyed()
  }
}
