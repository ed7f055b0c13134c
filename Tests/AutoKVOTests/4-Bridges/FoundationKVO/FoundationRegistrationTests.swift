import Foundation
import Testing

@testable import AutoKVO

/// Stands for an object whose notifications come from outside AutoKVO's engine (an `NSObject`
/// observed with Foundation's KVO): its registry plays the part of the associated stand-in's.
// @unchecked Sendable: immutable.
private final class ForeignObject: @unchecked Sendable {
  let registry = ObservationRegistry()
  private let tracker: LifetimeTracker?

  init(tracker: LifetimeTracker? = nil) {
    self.tracker = tracker
    tracker?.instanceCreated()
  }

  deinit {
    tracker?.instanceDestroyed()
  }
}

/// Stands for Foundation and the shared router: finds a registration by its context and delivers to it.
// @unchecked Sendable: immutable; the table has its own lock.
private final class Notifier: @unchecked Sendable {
  let registrations = RegistrationContextTable<FoundationSentinel<String>>()
  /// How many times a sentinel detached from a live object.
  let detachments = Counter()

  func register(
    _ watcher: Watcher, for object: ForeignObject, delivery: HandlerDelivery = .synchronous,
    handler: @escaping (Watcher, String) -> Void = { watcher, payload in watcher.record(payload) }
  ) -> (KeyValueObservation, UInt) {
    let context = registrations.makeContext()
    let sentinel = FoundationSentinel.register(
      observer: watcher,
      observerRegistry: watcher.observationRegistry,
      object: object,
      objectRegistry: object.registry,
      keyPath: "value",
      delivery: delivery,
      handler: { watcher, _, payload in handler(watcher, payload) },
      detachFromLiveObject: { [detachments] _ in detachments.increment() }
    )
    registrations.setEntry(sentinel, for: context)
    return (sentinel.observation, context)
  }

  func notify(_ context: UInt, _ payload: String) {
    registrations.entry(for: context)?.deliver(payload)
  }
}

@Suite("Foundation registrations: notifications from outside the engine, as on Apple platforms")
struct FoundationRegistrationTests {
  @Test("A notifier's notification reaches the observer while the registration is active")
  func deliversWhileActive() {
    let notifier = Notifier()
    let object = ForeignObject()
    let watcher = Watcher()
    let (observation, context) = notifier.register(watcher, for: object)

    notifier.notify(context, "one")
    notifier.notify(context, "two")

    #expect(watcher.log == ["one", "two"])
    #expect(!observation.isCancelled)
    #expect(object.registry.observerCount == 1)
    #expect(watcher.observationRegistry.observingCount == 1)
  }

  @Test(
    "Observer deallocated first: nothing more is delivered and the live object is detached once")
  func observerDeallocatedFirst() {
    let notifier = Notifier()
    let object = ForeignObject()
    var watcher: Watcher? = Watcher()
    let (observation, context) = notifier.register(watcher!, for: object)

    watcher = nil

    #expect(observation.endReason == .observerDeallocated)
    #expect(object.registry.observerCount == 0)
    #expect(notifier.detachments.value == 1)
    #expect(notifier.registrations.entry(for: context) == nil, "the sentinel was released")
    notifier.notify(context, "late")
  }

  @Test(
    "Observed object deallocated first: the sentinel never detaches from the dying object, and the observer forgets it"
  )
  func observedDeallocatedFirst() {
    let tracker = LifetimeTracker()
    let notifier = Notifier()
    var object: ForeignObject? = ForeignObject(tracker: tracker)
    let watcher = Watcher()
    let (observation, context) = notifier.register(watcher, for: object!)

    object = nil

    #expect(tracker.liveCount == 0)
    #expect(observation.endReason == .observedDeallocated)
    #expect(watcher.observationRegistry.observingCount == 0)
    #expect(
      notifier.detachments.value == 0,
      "a weak load of an object being deallocated fails: its own teardown does the detaching")
    #expect(notifier.registrations.entry(for: context) == nil)
  }

  @Test("Cancel with both sides alive detaches once; cancelling again is a no-op")
  func cancelDetachesOnce() {
    let notifier = Notifier()
    let object = ForeignObject()
    let watcher = Watcher()
    let (observation, context) = notifier.register(watcher, for: object)

    observation.cancel()
    observation.cancel()

    #expect(observation.endReason == .cancelled)
    #expect(notifier.detachments.value == 1)
    #expect(object.registry.observerCount == 0)
    #expect(watcher.observationRegistry.observingCount == 0)
    notifier.notify(context, "late")
    #expect(watcher.log.isEmpty)
  }

  @Test("A notification already in flight when the registration ends is dropped")
  func inFlightNotificationDropped() {
    let notifier = Notifier()
    let object = ForeignObject()
    let watcher = Watcher()
    let (observation, context) = notifier.register(watcher, for: object)
    let inFlight = notifier.registrations.entry(for: context)

    observation.cancel()
    inFlight?.deliver("late")

    #expect(watcher.log.isEmpty)
    #expect(notifier.detachments.value == 0, "the in-flight reference still holds the sentinel")
    _ = consume inFlight
    #expect(notifier.detachments.value == 1)
  }

  @Test("Cancel inside a notifier's notification: nothing is delivered after it")
  func cancelInsideHandler() {
    let notifier = Notifier()
    let object = ForeignObject()
    let watcher = Watcher()
    let handle = Box<KeyValueObservation>()
    let context = notifier.registrations.makeContext()
    let sentinel = FoundationSentinel<String>.register(
      observer: watcher,
      observerRegistry: watcher.observationRegistry,
      object: object,
      objectRegistry: object.registry,
      keyPath: "value",
      delivery: .synchronous,
      handler: { watcher, _, payload in
        watcher.record(payload)
        handle.value?.cancel()
      },
      detachFromLiveObject: { _ in }
    )
    notifier.registrations.setEntry(sentinel, for: context)
    handle.value = sentinel.observation
    _ = consume sentinel

    notifier.notify(context, "first")
    notifier.notify(context, "second")

    #expect(watcher.log == ["first"])
  }

  @Test("Both sides deallocated at once on two threads: one teardown, everything freed")
  func bothSidesAtOnce() {
    for _ in 0..<200 {
      let tracker = LifetimeTracker()
      let notifier = Notifier()
      let object = Handoff(ForeignObject(tracker: tracker))
      let watcher = Handoff(Watcher(tracker: tracker))
      let (observation, context) = notifier.register(watcher.object!, for: object.object!)

      runSimultaneously([{ object.release() }, { watcher.release() }])

      #expect(tracker.liveCount == 0)
      #expect(observation.isCancelled)
      #expect(notifier.detachments.value <= 1)
      #expect(notifier.registrations.entry(for: context) == nil)
    }
  }

  @Test("An @Observed set of the observed object never triggers a Foundation registration")
  func observedSetsDoNotTrigger() {
    let notifier = Notifier()
    let person = Person()
    let watcher = Watcher()
    let context = notifier.registrations.makeContext()
    let sentinel = FoundationSentinel<String>.register(
      observer: watcher,
      observerRegistry: watcher.observationRegistry,
      object: person,
      objectRegistry: person.observationRegistry,
      keyPath: "value",
      delivery: .synchronous,
      handler: { watcher, _, payload in watcher.record(payload) },
      detachFromLiveObject: { _ in }
    )
    notifier.registrations.setEntry(sentinel, for: context)
    _ = consume sentinel

    person.name = "Bob"

    #expect(watcher.log.isEmpty)
    #expect(person.observationRegistry.observerCount == 1)
  }

  @Test(
    "A notifier's notification made off the delivery queue runs there, in order, and nothing after cancel() on that queue"
  )
  func deliversThroughDeliveryQueue() async {
    let queue = DispatchQueue(label: "autokvo.tests.foundation-delivery")
    let probe = DispatchSpecificKey<Void>()
    queue.setSpecific(key: probe, value: ())
    let notifier = Notifier()
    let object = ForeignObject()
    let watcher = Watcher()
    let (observation, context) = notifier.register(
      watcher, for: object, delivery: .resolve(queue: queue)
    ) { watcher, payload in
      watcher.record(DispatchQueue.getSpecific(key: probe) != nil ? payload : "off the queue")
    }

    for payload in ["one", "two", "three"] { notifier.notify(context, payload) }
    queue.sync { observation.cancel() }
    notifier.notify(context, "after cancel")
    await withCheckedContinuation { done in queue.async { done.resume() } }

    #expect(watcher.log == ["one", "two", "three"])
    #expect(object.registry.observerCount == 0)
  }

  @Test("A notifier's notification for a registration made on an actor runs isolated to that actor")
  func deliversToActor() async {
    let notifier = Notifier()
    let object = ForeignObject()
    let tally = NotifierTally()
    let context = await tally.watch(notifier: notifier, object: object)
    Thread.detachNewThread { notifier.notify(context, "from another thread") }
    #expect(await eventually { await !tally.received.isEmpty })
    #expect(await tally.received == ["from another thread"])
  }
}

extension FoundationRegistrationTests {
  @Test(
    "The registration-time call made inside a registration made on an actor runs synchronously, before the registration returns; later ones hop to the actor"
  )
  func initialCallOnActorIsSynchronous() async {
    let notifier = Notifier()
    let object = ForeignObject()
    let tally = NotifierTally()
    let (context, receivedOnReturn) = await tally.watch(
      notifier: notifier, object: object, initialPayload: "initial")
    #expect(receivedOnReturn == ["initial"])
    // Delivered on this thread, but not inside the registration: through the actor's mailbox.
    notifier.notify(context, "later")
    #expect(await eventually { await tally.received.count == 2 })
    #expect(await tally.received == ["initial", "later"])
  }
}

/// An actor whose handler checks that it runs isolated to it.
private actor NotifierTally: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  private(set) var received: [String] = []

  /// Registers as `watch` does, delivering `initialPayload` from inside the registration, as
  /// Foundation makes its `.initial` call inside `addObserver`; returns the context and what had
  /// been received when the registration returned.
  func watch(
    notifier: Notifier, object: ForeignObject, initialPayload: String
  ) -> (context: UInt, receivedOnReturn: [String]) {
    let context = watch(notifier: notifier, object: object) { sentinel, context in
      sentinel.whileRegistering { notifier.notify(context, initialPayload) }
    }
    return (context, received)
  }

  /// Registers on the actor, so that the handler runs isolated to it; `duringRegistration` runs
  /// at the point where Foundation's `addObserver` would.
  func watch(
    notifier: Notifier, object: ForeignObject,
    duringRegistration: (FoundationSentinel<String>, UInt) -> Void = { _, _ in }
  ) -> UInt {
    let context = notifier.registrations.makeContext()
    let sentinel = FoundationSentinel.register(
      observer: self,
      observerRegistry: observationRegistry,
      object: object,
      objectRegistry: object.registry,
      keyPath: "value",
      delivery: .resolve(isolation: self),
      handler: { tally, _, payload in
        tally.assumeIsolated { $0.received.append(payload) }
      },
      detachFromLiveObject: { _ in }
    )
    notifier.registrations.setEntry(sentinel, for: context)
    duringRegistration(sentinel, context)
    return context
  }
}
