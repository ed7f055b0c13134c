import Foundation
import Testing

@testable import AutoKVO

@Suite("Lifecycle: each registration ends by itself, exactly once, whichever side goes first")
struct LifecycleTests {
  @Test(
    "Observer deallocated first: the handler never runs again and the observed object forgets it")
  func observerDeallocatedFirst() {
    let person = Person()
    var watcher: Watcher? = Watcher()
    let calls = Counter()
    let observation = watcher!.autoObserve(person, keyPath: \.name) { _, _, _ in calls.increment() }
    person.name = "Bob"
    #expect(calls.value == 1)
    #expect(person.observationRegistry.observerCount == 1)

    watcher = nil

    #expect(person.observationRegistry.observerCount == 0)
    #expect(observation.isCancelled)
    #expect(observation.endReason == .observerDeallocated)
    person.name = "Cid"
    #expect(calls.value == 1)
  }

  @Test("Observed object deallocated first: the observer forgets it and the handler is released")
  func observedDeallocatedFirst() {
    let tracker = LifetimeTracker()
    let watcher = Watcher()
    var person: Person? = Person()
    let token = Token(tracker)
    let observation = watcher.autoObserve(person!, keyPath: \.age) { _, _, _ in _ = token }
    #expect(watcher.observationRegistry.observingCount == 1)
    #expect(tracker.liveCount == 1)

    person = nil

    #expect(watcher.observationRegistry.observingCount == 0)
    #expect(observation.isCancelled)
    #expect(observation.endReason == .observedDeallocated)
    _ = consume token
    #expect(tracker.liveCount == 0, "the handler and what it captured are freed")
  }

  @Test("The observation retains neither side")
  func retainsNeitherSide() {
    let tracker = LifetimeTracker()
    weak var weakPerson: Person?
    weak var weakWatcher: Watcher?
    do {
      let person = Person(tracker: tracker)
      let watcher = Watcher(tracker: tracker)
      weakPerson = person
      weakWatcher = watcher
      watcher.autoObserve(person, keyPath: \.name, options: [.initial, .old, .new, .prior]) {
        watcher, person, _ in watcher.record(person.name)
      }
      person.autoObserve(person, keyPath: \.age) { _, _, _ in }
    }
    #expect(weakPerson == nil)
    #expect(weakWatcher == nil)
    #expect(tracker.liveCount == 0)
  }

  @Test("Keeping the handle does not keep the handler alive after the registration ended")
  func handleDoesNotRetainHandler() {
    let tracker = LifetimeTracker()
    let person = Person()
    var watcher: Watcher? = Watcher()
    var token: Token? = Token(tracker)
    let observation = watcher!.autoObserve(person, keyPath: \.name) { [token] _, _, _ in
      _ = token
    }
    token = nil
    #expect(tracker.liveCount == 1)
    watcher = nil
    #expect(tracker.liveCount == 0)
    #expect(observation.isCancelled)
  }

  @Test("Dropping the handle does not end the observation")
  func droppingHandleKeepsObserving() {
    let person = Person()
    let watcher = Watcher()
    do {
      _ = watcher.autoObserve(person, keyPath: \.name) { w, _, c in w.record(describe(c)) }
    }
    person.name = "Bob"
    #expect(watcher.log == ["setting Ann->Bob"])
  }

  @Test("cancel() ends the registration on both sides and is idempotent")
  func cancelIsIdempotent() {
    let tracker = LifetimeTracker()
    let person = Person()
    let watcher = Watcher()
    let token = Token(tracker)
    let observation = watcher.autoObserve(person, keyPath: \.name) { w, _, _ in
      _ = token
      w.record("call")
    }
    _ = consume token
    #expect(!observation.isCancelled)
    observation.cancel()
    observation.cancel()
    #expect(observation.isCancelled)
    #expect(observation.endReason == .cancelled)
    #expect(person.observationRegistry.observerCount == 0)
    #expect(watcher.observationRegistry.observingCount == 0)
    #expect(tracker.liveCount == 0)
    person.name = "Bob"
    #expect(watcher.log.isEmpty)
  }

  @Test("cancel() after either side was deallocated is a no-op")
  func cancelAfterDeallocation() {
    let watcher = Watcher()
    var person: Person? = Person()
    let observation = watcher.autoObserve(person!, keyPath: \.name) { _, _, _ in }
    person = nil
    observation.cancel()
    #expect(observation.endReason == .observedDeallocated)
    #expect(watcher.observationRegistry.observingCount == 0)
  }

  @Test("Self-observation works, creates no cycle and is removed once")
  func selfObservation() {
    let tracker = LifetimeTracker()
    weak var weakPerson: Person?
    var observation: KeyValueObservation?
    do {
      let person = Person(tracker: tracker)
      weakPerson = person
      let seen = Counter()
      observation = person.autoObserve(person, keyPath: \.age) { me, object, change in
        #expect(me === object)
        #expect(change.newValue == 31)
        seen.increment()
      }
      #expect(person.observationRegistry.observerCount == 1)
      #expect(person.observationRegistry.observingCount == 1)
      person.age = 31
      #expect(seen.value == 1)
    }
    #expect(weakPerson == nil)
    #expect(tracker.liveCount == 0)
    #expect(observation?.isCancelled == true)
  }

  @Test("Many registrations between two objects all end when one side goes")
  func manyRegistrationsEnd() {
    let watcher = Watcher()
    var person: Person? = Person()
    let observations = (0..<50).map { _ in
      watcher.autoObserve(person!, keyPath: \.name) { _, _, _ in }
    }
    #expect(watcher.observationRegistry.observingCount == 50)
    person = nil
    #expect(watcher.observationRegistry.observingCount == 0)
    #expect(observations.filter { !$0.isCancelled }.isEmpty)
  }
}

@Suite("Exactly once: teardown in every ordering, including races between threads")
struct ExactlyOnceTests {
  @Test(
    "The lifecycle state machine ends once, for the first reason only",
    arguments: [
      RegistrationLifecycle.EndReason.cancelled, .observerDeallocated, .observedDeallocated,
    ])
  func lifecycleEndsOnce(first: RegistrationLifecycle.EndReason) {
    var lifecycle = RegistrationLifecycle()
    let expected: RegistrationLifecycle.TeardownAction =
      switch first {
      case .cancelled: .detachBothSides
      case .observerDeallocated: .detachObservedSide
      case .observedDeallocated: .detachObserverSide
      }
    #expect(lifecycle.end(first) == expected)
    for later in [
      RegistrationLifecycle.EndReason.cancelled, .observerDeallocated, .observedDeallocated,
    ] {
      #expect(lifecycle.end(later) == .none)
    }
    #expect(lifecycle.state == .ended(first))
  }

  @Test("Both sides deallocated at the same moment on two threads")
  func bothSidesDeallocatedAtOnce() {
    let tracker = LifetimeTracker()
    for _ in 0..<300 {
      let person = Handoff(Person(tracker: tracker))
      let watcher = Handoff(Watcher(tracker: tracker))
      let observation = watcher.object!.autoObserve(person.object!, keyPath: \.name) { _, _, _ in }
      runSimultaneously([person.release, watcher.release])
      #expect(observation.isCancelled)
      #expect(
        observation.endReason == .observedDeallocated
          || observation.endReason == .observerDeallocated)
    }
    #expect(tracker.liveCount == 0)
  }

  @Test("cancel() racing the observer's deallocation")
  func cancelRacingObserverDeallocation() {
    let person = Person()
    for _ in 0..<300 {
      let watcher = Handoff(Watcher())
      let observation = watcher.object!.autoObserve(person, keyPath: \.name) { _, _, _ in }
      runSimultaneously([watcher.release, observation.cancel])
      #expect(observation.isCancelled)
      #expect(person.observationRegistry.observerCount == 0)
    }
  }

  @Test("cancel() racing the observed object's deallocation")
  func cancelRacingObservedDeallocation() {
    let watcher = Watcher()
    for _ in 0..<300 {
      let person = Handoff(Person())
      let observation = watcher.autoObserve(person.object!, keyPath: \.name) { _, _, _ in }
      runSimultaneously([person.release, observation.cancel])
      #expect(observation.isCancelled)
      #expect(watcher.observationRegistry.observingCount == 0)
    }
  }

  @Test("cancel() from two threads at once")
  func cancelFromTwoThreads() {
    let person = Person()
    let watcher = Watcher()
    for _ in 0..<300 {
      let observation = watcher.autoObserve(person, keyPath: \.name) { _, _, _ in }
      runSimultaneously([observation.cancel, observation.cancel])
      #expect(observation.endReason == .cancelled)
    }
    #expect(person.observationRegistry.observerCount == 0)
    #expect(watcher.observationRegistry.observingCount == 0)
  }

  @Test("cancel() before and after deallocation of either side, in sequence")
  func cancelInSequence() {
    let watcher = Watcher()
    var person: Person? = Person()
    let first = watcher.autoObserve(person!, keyPath: \.name) { _, _, _ in }
    let second = watcher.autoObserve(person!, keyPath: \.age) { _, _, _ in }
    first.cancel()
    #expect(person!.observationRegistry.observerCount == 1)
    person = nil
    second.cancel()
    #expect(first.endReason == .cancelled)
    #expect(second.endReason == .observedDeallocated)
    #expect(watcher.observationRegistry.observingCount == 0)
  }
}

/// An observer and an observed object whose reference counts are Objective-C's on Apple platforms:
/// a registration holds them `weak`, where it holds a native object by an unowned count.
private final class FoundationWatcher: NSObject, KeyValueObservable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  let deinitFlag = DeinitFlag()
  var received: [String] = []

  deinit { deinitFlag.raise() }
}

private final class FoundationPerson: NSObject, KeyValueObservable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  @Observed var name = "Ann"
  var onDeinit: (FoundationPerson) -> Void = { _ in }

  deinit { onDeinit(self) }
}

@Suite("Lifecycle with NSObject subclasses: the same promise through weak references")
struct NSObjectLifecycleTests {
  @Test("An NSObject observer of an NSObject gets each set, and nothing once it is deallocated")
  func bothSidesNSObject() {
    let person = FoundationPerson()
    var watcher: FoundationWatcher? = FoundationWatcher()
    let observation = watcher!.autoObserve(person, keyPath: \.name) { watcher, _, change in
      watcher.received.append("\(change.oldValue ?? "")->\(change.newValue ?? "")")
    }
    person.name = "Bob"
    #expect(watcher?.received == ["Ann->Bob"])
    watcher = nil
    #expect(observation.endReason == .observerDeallocated)
    #expect(person.observationRegistry.observerCount == 0)
    person.name = "Cid"
  }

  @Test("A set inside an NSObject's deinit never hands the dying object to a handler")
  func setInsideDeinit() {
    let watcher = Watcher()
    let calls = Counter()
    var person: FoundationPerson? = FoundationPerson()
    person!.onDeinit = { $0.name = "Gone" }
    watcher.autoObserve(person!, keyPath: \.name) { _, _, _ in calls.increment() }
    person!.name = "Bob"
    #expect(calls.value == 1)
    person = nil
    #expect(calls.value == 1)
    #expect(watcher.observationRegistry.observingCount == 0)
  }

  @Test("A native observer deallocated while a set on an NSObject is delivered gets nothing after")
  func nativeObserverOfNSObject() {
    let person = FoundationPerson()
    var watcher: Watcher? = Watcher()
    let calls = Counter()
    watcher!.autoObserve(person, keyPath: \.name) { _, _, _ in calls.increment() }
    person.name = "Bob"
    watcher = nil
    person.name = "Cid"
    #expect(calls.value == 1)
    #expect(person.observationRegistry.observerCount == 0)
  }
}
