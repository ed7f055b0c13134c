import Testing

@testable import AutoKVO

@Suite("Re-entrancy and ordering: the sharp cases of other KVO libraries' bug trackers")
struct ReentrancyOrderingTests {
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
}

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
