import Foundation
import Testing

@testable import AutoKVO

@Suite("Async sequences: every change, in order, finishing with the object")
struct AsyncChangesTests {
  @Test(
    "Every change is delivered in order, none coalesced, and the sequence finishes when the object goes"
  )
  func everyChangeInOrder() async {
    var person: Person? = Person(age: 0)
    let changes = person!.changes(for: \.age, options: [.old, .new])
    for age in 1...100 { person!.age = age }
    person = nil
    var received: [String] = []
    for await change in changes { received.append(describe(change)) }
    #expect(received == (1...100).map { "setting \($0 - 1)->\($0)" })
  }

  @Test(".initial makes the current value the first element")
  func initialElement() async {
    var person: Person? = Person(name: "Ann")
    let changes = person!.changes(for: \.name, options: [.initial, .new])
    person!.name = "Bob"
    person = nil
    var names: [String?] = []
    for await change in changes { names.append(change.newValue) }
    #expect(names == ["Ann", "Bob"])
  }

  @Test("Ending the iteration removes the registration")
  func breakRemovesRegistration() async {
    let person = Person()
    let changes = person.changes(for: \.age)
    #expect(person.observationRegistry.observerCount == 1)
    person.age = 1
    person.age = 2
    for await _ in changes { break }
    #expect(person.observationRegistry.observerCount == 0)
  }

  @Test("Cancelling the consuming task removes the registration")
  func cancellationRemovesRegistration() async {
    let person = Person()
    let started = AsyncStream<Void>.makeStream()
    let task = Task {
      var count = 0
      started.continuation.yield()
      for await _ in person.changes(for: \.age) { count += 1 }
      return count
    }
    for await _ in started.stream { break }
    #expect(await eventually { person.observationRegistry.observerCount == 1 })
    task.cancel()
    _ = await task.value
    #expect(person.observationRegistry.observerCount == 0)
  }

  @Test("A sequence that is dropped without being iterated removes its registration")
  func droppedSequence() {
    let person = Person()
    var changes: KeyValueChanges<String>? = person.changes(for: \.name)
    #expect(person.observationRegistry.observerCount == 1)
    changes = nil
    #expect(person.observationRegistry.observerCount == 0)
    _ = changes
  }

  @Test("A for-await loop keeps the registration while it runs, though the sequence is a temporary")
  func temporarySequence() async {
    var person: Person? = Person(age: 0)
    let ready = AsyncStream<Void>.makeStream()
    let weakPerson = WeakBox(person!)
    let task = Task {
      var received: [Int] = []
      // The sequence is a temporary, and the task keeps no strong reference to the person.
      guard var iterator = weakPerson.object?.changes(for: \.age).makeAsyncIterator() else {
        return received
      }
      ready.continuation.yield()
      while let change = await iterator.next() { received.append(change.newValue!) }
      return received
    }
    for await _ in ready.stream { break }
    person!.age = 1
    person!.age = 2
    person = nil
    #expect(await task.value == [1, 2])
  }

  @Test("The sequence does not retain its object")
  func doesNotRetain() {
    let tracker = LifetimeTracker()
    var person: Person? = Person(tracker: tracker)
    let changes = person!.changes(for: \.name)
    person = nil
    #expect(tracker.liveCount == 0)
    _ = changes
  }
}

/// A weak reference that can be handed to a task.
final class WeakBox<Object: AnyObject>: @unchecked Sendable {  // immutable
  weak var object: Object?
  init(_ object: Object) { self.object = object }
}

/// A main-actor view model, as UI code writes one.
@MainActor
final class NameLabel: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  var text = ""
  var deliveredOnMainThread: [Bool] = []

  /// Binds through the registration's isolation, captured automatically.
  func bind(to person: Person) {
    autoObserve(person, keyPath: \.name, options: .new) { label, _, change in
      label.receive(change)
    }
  }

  func receive(_ change: KeyValueChange<String>) {
    text = change.newValue ?? ""
    deliveredOnMainThread.append(Self.isOnMainQueue)
  }

  /// The main actor runs wherever the main queue runs (not always the process's main thread).
  nonisolated static var isOnMainQueue: Bool {
    DispatchQueue.getSpecific(key: mainQueueKey.key) != nil
  }

  private struct Key: @unchecked Sendable {  // immutable once set
    let key = DispatchSpecificKey<Void>()
  }

  private nonisolated static let mainQueueKey: Key = {
    let key = Key()
    DispatchQueue.main.setSpecific(key: key.key, value: ())
    return key
  }()
}

/// An actor that observes a model; its handler touches actor state.
actor Tally: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  private(set) var count = 0

  func watch(_ person: Person) {
    // The closure captures the isolated `self`, so it is isolated to this actor.
    autoObserve(person, keyPath: \.age) { [self] _, _, _ in
      self.assertIsolated()
      self.count += 1
    }
  }
}

/// An actor that records, in its own state, every age it is told about.
actor AgeLog: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  private(set) var ages: [Int] = []

  func watch(_ person: Person, options: ObservationOptions = .new) {
    autoObserve(person, keyPath: \.age, options: options) { [self] _, _, change in
      self.assertIsolated()
      self.ages.append(change.newValue!)
    }
  }

  /// Registers with `.initial`, and returns what had arrived when `autoObserve` returned.
  func watchWithInitial(_ person: Person) -> [Int] {
    watch(person, options: [.initial, .new])
    return ages
  }
}

@Suite("Actors: a handler never runs off the actor it was registered from")
struct ActorDeliveryTests {
  @MainActor
  @Test(
    "A @MainActor observer's handler runs on the main thread when the model changes on another thread"
  )
  func mainActorHop() async {
    let person = Person()
    let label = NameLabel()
    label.bind(to: person)
    Thread.detachNewThread { person.name = "Bob" }
    #expect(await eventually { label.deliveredOnMainThread.count == 1 })
    #expect(label.text == "Bob")
    #expect(label.deliveredOnMainThread == [true])
  }

  @MainActor
  @Test(
    "A @MainActor observer's handler runs synchronously when the change happens on the main thread")
  func mainActorSynchronous() {
    let person = Person()
    let label = NameLabel()
    label.bind(to: person)
    person.name = "Cid"
    #expect(label.text == "Cid")
    #expect(label.deliveredOnMainThread == [true])
  }

  @Test("An actor's handler runs isolated to the actor when the model changes elsewhere")
  func customActor() async {
    let person = Person()
    let tally = Tally()
    await tally.watch(person)
    person.age = 1
    person.age = 2
    #expect(await eventually { await tally.count >= 2 })
    #expect(await tally.count == 2)
  }

  @Test(
    "An actor's .initial call arrives before autoObserve returns, on the actor; later changes from elsewhere hop to it"
  )
  func customActorInitialIsSynchronous() async {
    let person = Person(age: 7)
    let log = AgeLog()
    #expect(await log.watchWithInitial(person) == [7])
    person.age = 8
    #expect(await eventually { await log.ages.count == 2 })
    #expect(await log.ages == [7, 8])
  }

  @Test(
    "An actor's handler receives changes made in quick succession on another thread in the order they were made"
  )
  func customActorOrder() async {
    let person = Person(age: 0)
    let log = AgeLog()
    await log.watch(person)
    let count = 500
    Thread.detachNewThread {
      for age in 1...count { person.age = age }
    }
    #expect(await eventually { await log.ages.count >= count })
    #expect(await log.ages == Array(1...count))
  }

  @Test("A delivery queue receives every change in order, and nothing after cancel() on that queue")
  func deliveryQueueOrder() async {
    let queue = DispatchQueue(label: "autokvo.tests.delivery")
    let person = Person(age: 0)
    let watcher = Watcher()
    let observation = watcher.autoObserve(
      person, keyPath: \.age, options: .new, deliveryQueue: queue
    ) {
      w, _, c in w.record("\(c.newValue!)")
    }
    for age in 1...50 { person.age = age }
    queue.sync { observation.cancel() }
    person.age = 99
    await withCheckedContinuation { done in queue.async { done.resume() } }
    #expect(watcher.log == (1...50).map { "\($0)" })
  }

  @Test("A delivery queue receives each set's own old and new values, even after later sets")
  func deliveryQueueValues() async {
    let queue = DispatchQueue(label: "autokvo.tests.delivery.values")
    let person = Person(age: 0)
    let watcher = Watcher()
    // The queue is held until every set is made, so each delivery runs after all of them.
    let gate = DispatchSemaphore(value: 0)
    queue.async { gate.wait() }
    watcher.autoObserve(person, keyPath: \.age, options: [.old, .new], deliveryQueue: queue) {
      w, _, c in w.record(describe(c))
    }
    for age in 1...3 { person.age = age }
    gate.signal()
    await withCheckedContinuation { done in queue.async { done.resume() } }
    #expect(watcher.log == ["setting 0->1", "setting 1->2", "setting 2->3"])
  }

  @Test("A handler registered from nonisolated code runs synchronously on the mutating thread")
  func nonisolatedIsSynchronous() {
    let person = Person()
    let watcher = Watcher()
    watcher.autoObserve(person, keyPath: \.age) { w, _, _ in w.record("sync") }
    person.age = 5
    #expect(watcher.log == ["sync"])
  }
}

/// A main-actor inspector ported from `observeValue(forKeyPath:of:change:context:)`, whose
/// conformance is isolated to the main actor, so its callback assumes the main actor.
@MainActor
final class MainActorInspector: @MainActor KeyValueObserving {
  let observationRegistry = ObservationRegistry()
  var names: [String] = []
  var deliveredOnMainThread: [Bool] = []

  func watch(_ person: Person) {
    autoObserve(person, keyPath: \.name, options: .new, context: nil)
  }

  func observeValue(
    forKeyPath keyPath: AnyKeyPath, of object: AnyObject, change: AnyKeyValueChange,
    context: UnsafeMutableRawPointer?
  ) {
    names.append(change.newValue(as: String.self) ?? "")
    deliveredOnMainThread.append(NameLabel.isOnMainQueue)
  }
}

@Suite("Classic callbacks and actors")
struct ClassicCallbackActorTests {
  @MainActor
  @Test(
    "A classic callback registered on the main actor runs there when the object changes on another thread"
  )
  func classicMainActorHop() async {
    let person = Person()
    let inspector = MainActorInspector()
    inspector.watch(person)
    Thread.detachNewThread { person.name = "Eve" }
    #expect(await eventually { inspector.names.count == 1 })
    #expect(inspector.names == ["Eve"])
    #expect(inspector.deliveredOnMainThread == [true])
  }
}
