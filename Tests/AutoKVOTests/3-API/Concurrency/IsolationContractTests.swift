import Dispatch
import Foundation
import Testing

@testable import AutoKVO

// The isolation contract: a handler runs only where its registration says (the caller's actor,
// or its delivery queue), every main-actor handler runs during a set made on the main actor, and
// nothing that other registrations did before can route a handler elsewhere.

/// A main-actor badge, as UI code writes one: records, in main-actor state, each name it receives
/// and whether it received it on the main actor.
@MainActor
final class MainBadge: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  let label: String
  let journal: MainJournal

  init(_ label: String, journal: MainJournal) {
    self.label = label
    self.journal = journal
  }

  /// Observes through the registration's isolation, captured automatically.
  func bind(to person: Person) {
    autoObserve(person, keyPath: \.name, options: .new) { badge, _, change in
      MainActor.preconditionIsolated()
      badge.journal.append("\(badge.label):\(change.newValue!)")
    }
  }

  /// Observes through the main queue, whose handler is `@Sendable` and asserts the main actor.
  func bindThroughMainQueue(to person: Person) {
    autoObserve(person, keyPath: \.name, options: .new, deliveryQueue: .main) {
      badge, _, change in
      dispatchPrecondition(condition: .onQueue(.main))
      MainActor.assumeIsolated {
        badge.journal.append("\(badge.label):\(change.newValue!)")
      }
    }
  }
}

/// What main-actor handlers received, in order.
@MainActor
final class MainJournal {
  private(set) var entries: [String] = []

  func append(_ entry: String) {
    entries.append(entry)
  }
}

/// Records, from any thread, whether each handler ran where it had to.
final class PlacementLog: @unchecked Sendable {  // `entries` is guarded by `lock`
  private let lock = NSLock()
  private var entries: [String] = []

  var all: [String] { lock.withLock { entries } }

  func record(_ entry: String) {
    lock.withLock { entries.append(entry) }
  }
}

/// Registers and ends registrations delivered on `.main`, `.global()` and private queues, and
/// lets every queue-held wrapper go: what made stale queue marks before queues had identities.
func churnDeliveryQueues(rounds: Int = 20) {
  let person = Person()
  for round in 0..<rounds {
    let watcher = Watcher()
    let queues = [
      DispatchQueue.main, DispatchQueue.global(), DispatchQueue.global(qos: .utility),
      DispatchQueue(label: "autokvo.tests.churn.\(round)"),
    ]
    let observations = queues.map { queue in
      watcher.autoObserve(person, keyPath: \.age, options: .new, deliveryQueue: queue) { _, _, _ in
      }
    }
    if round.isMultiple(of: 2) {
      for observation in observations { observation.cancel() }
    }
  }
}

@Suite("Main-actor delivery: every main-actor handler runs during a set made on the main actor")
struct MainActorDeliveryTests {
  @MainActor
  @Test(
    "Ten main-actor observers of one property all run during a set on the main actor, in registration order"
  )
  func tenMainActorObservers() {
    let person = Person()
    let journal = MainJournal()
    let badges = (0..<10).map { MainBadge("b\($0)", journal: journal) }
    for badge in badges { badge.bind(to: person) }
    person.name = "Bob"
    #expect(journal.entries == (0..<10).map { "b\($0):Bob" })
    person.name = "Cid"
    #expect(journal.entries.suffix(10) == (0..<10).map { "b\($0):Cid" })
    // Observers live until here: an optimized build may otherwise free them after their last use.
    withExtendedLifetime(badges) {}
  }

  @MainActor
  @Test(
    "Main-actor and main-queue registrations, mixed, all run synchronously during the set, in registration order"
  )
  func mixedMainActorAndMainQueue() {
    let person = Person()
    let journal = MainJournal()
    let badges = (0..<12).map { MainBadge("b\($0)", journal: journal) }
    for (index, badge) in badges.enumerated() {
      if index.isMultiple(of: 3) {
        badge.bindThroughMainQueue(to: person)
      } else {
        badge.bind(to: person)
      }
    }
    person.name = "Bob"
    #expect(journal.entries == (0..<12).map { "b\($0):Bob" })
    // Observers live until here: an optimized build may otherwise free them after their last use.
    withExtendedLifetime(badges) {}
  }

  @MainActor
  @Test(
    "A single main-actor observer still runs during the set after others were registered and freed")
  func survivesFreedRegistrations() {
    let person = Person()
    let journal = MainJournal()
    for index in 0..<5 {
      let transient = MainBadge("t\(index)", journal: journal)
      transient.bind(to: person)
    }
    let badge = MainBadge("kept", journal: journal)
    badge.bind(to: person)
    person.name = "Bob"
    #expect(journal.entries == ["kept:Bob"])
    // Observers live until here: an optimized build may otherwise free them after their last use.
    withExtendedLifetime(badge) {}
  }

  @MainActor
  @Test(
    "A set made off the main actor reaches every main-actor observer later, on the main actor, in order"
  )
  func offMainSetHops() async {
    let person = Person()
    let journal = MainJournal()
    let badges = (0..<4).map { MainBadge("b\($0)", journal: journal) }
    for (index, badge) in badges.enumerated() {
      if index.isMultiple(of: 2) {
        badge.bind(to: person)
      } else {
        badge.bindThroughMainQueue(to: person)
      }
    }
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      person.name = "Bob"
      person.name = "Cid"
      done.signal()
    }
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        done.wait()
        continuation.resume()
      }
    }
    // The changes wait in the main queue: this test yields the main actor to let them run.
    #expect(await eventually { journal.entries.count == 8 })
    #expect(
      journal.entries == (0..<4).map { "b\($0):Bob" } + (0..<4).map { "b\($0):Cid" })
    // Observers live until here: an optimized build may otherwise free them after their last use.
    withExtendedLifetime(badges) {}
  }
}

@Suite("No misrouting: a handler runs only on its actor or its queue, whatever came before")
struct DeliveryRoutingTests {
  @MainActor
  @Test(
    "After delivery-queue registrations on .main, .global() and private queues come and go, a main-actor handler runs only on the main actor"
  )
  func mainActorHandlerAfterChurn() async {
    churnDeliveryQueues()
    let person = Person()
    // Sets from several threads, each ordered after the one before in a way ThreadSanitizer sees
    // (it does not see the order a continuation's resumption gives).
    let writes = NSLock()
    let log = PlacementLog()
    let watcher = Watcher()
    watcher.autoObserve(person, keyPath: \.age, options: .new) { _, _, change in
      MainActor.preconditionIsolated()
      dispatchPrecondition(condition: .onQueue(.main))
      log.record("main:\(change.newValue!)")
    }
    churnDeliveryQueues()
    // From a global queue, from a plain thread and from a detached task: none is the main actor.
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        writes.withLock { person.age = 1 }
        continuation.resume()
      }
    }
    await withCheckedContinuation { continuation in
      Thread.detachNewThread {
        writes.withLock { person.age = 2 }
        continuation.resume()
      }
    }
    await Task.detached { writes.withLock { person.age = 3 } }.value
    #expect(await eventually { log.all.count == 3 })
    writes.withLock { person.age = 4 }
    #expect(log.all == ["main:1", "main:2", "main:3", "main:4"])
    // Observers live until here: an optimized build may otherwise free them after their last use.
    withExtendedLifetime(watcher) {}
  }

  @MainActor
  @Test(
    "Right after a .global() registration ended, a new main-actor handler still runs only on the main actor"
  )
  func mainActorHandlerAfterGlobalRegistrationEnded() async {
    let person = Person()
    // Sets from several threads, each ordered after the one before in a way ThreadSanitizer sees
    // (it does not see the order a continuation's resumption gives).
    let writes = NSLock()
    let log = PlacementLog()
    for round in 0..<10 {
      do {
        let transient = Watcher()
        transient.autoObserve(
          person, keyPath: \.name, options: .new, deliveryQueue: .global()
        ) { _, _, _ in }
      }
      let watcher = Watcher()
      watcher.autoObserve(person, keyPath: \.age, options: .new) { _, _, change in
        MainActor.preconditionIsolated()
        log.record("main:\(change.newValue!)")
      }
      await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
          writes.withLock { person.age = round }
          continuation.resume()
        }
      }
      #expect(await eventually { log.all.count == round + 1 })
      withExtendedLifetime(watcher) {}
    }
    #expect(log.all == (0..<10).map { "main:\($0)" })
  }

  @Test(
    "After main-actor and main-queue registrations come and go, a serial queue's handler runs only on that queue, never on the main queue"
  )
  func serialQueueHandlerAfterChurn() async {
    churnDeliveryQueues()
    let queue = DispatchQueue(label: "autokvo.tests.routing.serial")
    let person = Person()
    // Sets from several threads, each ordered after the one before in a way ThreadSanitizer sees
    // (it does not see the order a continuation's resumption gives).
    let writes = NSLock()
    let log = PlacementLog()
    let watcher = Watcher()
    watcher.autoObserve(person, keyPath: \.age, options: .new, deliveryQueue: queue) {
      _, _, change in
      dispatchPrecondition(condition: .onQueue(queue))
      dispatchPrecondition(condition: .notOnQueue(.main))
      log.record("queue:\(change.newValue!)")
    }
    churnDeliveryQueues()
    await MainActor.run { writes.withLock { person.age = 1 } }
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        writes.withLock { person.age = 2 }
        continuation.resume()
      }
    }
    queue.sync { writes.withLock { person.age = 3 } }
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(log.all == ["queue:1", "queue:2", "queue:3"])
    // Observers live until here: an optimized build may otherwise free them after their last use.
    withExtendedLifetime(watcher) {}
  }

  @Test(
    "A change made on the delivery queue is delivered there synchronously, before the set returns")
  func onQueueIsSynchronous() {
    let queue = DispatchQueue(label: "autokvo.tests.routing.sync")
    let person = Person()
    // Sets from several threads, each ordered after the one before in a way ThreadSanitizer sees
    // (it does not see the order a continuation's resumption gives).
    let writes = NSLock()
    let log = PlacementLog()
    let watcher = Watcher()
    watcher.autoObserve(person, keyPath: \.age, options: .new, deliveryQueue: queue) {
      _, _, change in
      dispatchPrecondition(condition: .onQueue(queue))
      log.record("queue:\(change.newValue!)")
    }
    // Another wrapper of the same queue is the same queue.
    queue.sync {
      writes.withLock { person.age = 7 }
      #expect(log.all == ["queue:7"])
    }
    // Observers live until here: an optimized build may otherwise free them after their last use.
    withExtendedLifetime(watcher) {}
  }

  @Test("Two delivery queues each receive only their own handlers' calls, from wrappers made anew")
  func twoQueuesKeepTheirOwn() async {
    let first = DispatchQueue(label: "autokvo.tests.routing.first")
    let second = DispatchQueue(label: "autokvo.tests.routing.second")
    let person = Person()
    // Sets from several threads, each ordered after the one before in a way ThreadSanitizer sees
    // (it does not see the order a continuation's resumption gives).
    let writes = NSLock()
    let log = PlacementLog()
    let watcher = Watcher()
    watcher.autoObserve(person, keyPath: \.age, options: .new, deliveryQueue: first) { _, _, c in
      dispatchPrecondition(condition: .onQueue(first))
      dispatchPrecondition(condition: .notOnQueue(second))
      log.record("first:\(c.newValue!)")
    }
    watcher.autoObserve(person, keyPath: \.age, options: .new, deliveryQueue: second) { _, _, c in
      dispatchPrecondition(condition: .onQueue(second))
      dispatchPrecondition(condition: .notOnQueue(first))
      log.record("second:\(c.newValue!)")
    }
    // `second` is held until the set has returned, so its handler can only run after it.
    let hold = DispatchSemaphore(value: 0)
    second.async { hold.wait() }
    // On `first`: its handler runs now, `second`'s later on its own queue.
    first.sync { writes.withLock { person.age = 1 } }
    #expect(log.all == ["first:1"])
    hold.signal()
    await withCheckedContinuation { continuation in second.async { continuation.resume() } }
    #expect(log.all == ["first:1", "second:1"])
    // Observers live until here: an optimized build may otherwise free them after their last use.
    withExtendedLifetime(watcher) {}
  }
}

/// A model whose computed property reads through a weak reference that it notifies by hand, and
/// records where its getter ran.
final class Spotlight: KeyValueObservable, @unchecked Sendable {  // `getterThreads` is locked
  let observationRegistry = ObservationRegistry()
  weak var star: Person? {
    willSet { willChangeValue(for: \.star) }
    didSet { didChangeValue(for: \.star) }
  }
  private let lock = NSLock()
  private var getterPlacements: [Bool] = []

  /// Read through the weak reference; records whether each read ran on the main queue.
  var starName: String {
    lock.withLock { getterPlacements.append(NameLabel.isOnMainQueue) }
    return star?.name ?? "nobody"
  }

  var getterRanOnMainQueue: [Bool] { lock.withLock { getterPlacements } }
}

@Suite("Key paths are evaluated where the registration lives")
struct KeyPathPlacementTests {
  @MainActor
  @Test(
    "A main-actor registration's computed key path is evaluated again on the main actor when the hand-notified weak hop it reads through is replaced on another thread"
  )
  func reevaluatedOnMainActor() async {
    let spotlight = Spotlight()
    let star = Person(name: "Ann")
    spotlight.star = star
    let journal = MainJournal()
    let badge = MainBadge("b", journal: journal)
    badge.autoObserve(spotlight, keyPath: \.starName, options: [.old, .new]) { badge, _, change in
      MainActor.preconditionIsolated()
      badge.journal.append("\(change.oldValue!)->\(change.newValue!)")
    }
    #expect(spotlight.getterRanOnMainQueue == [true])
    await withCheckedContinuation { continuation in
      Thread.detachNewThread {
        spotlight.star = nil
        continuation.resume()
      }
    }
    #expect(await eventually { journal.entries.count == 1 })
    #expect(journal.entries == ["Ann->nobody"])
    #expect(spotlight.getterRanOnMainQueue.allSatisfy { $0 })
    // Observers live until here: an optimized build may otherwise free them after their last use.
    withExtendedLifetime(badge) {}
  }

  @MainActor
  @Test(
    "A main-actor registration's computed key path changed from another thread is evaluated on the main actor, with the old value its last evaluation read"
  )
  func computedChangeEvaluatedOnMainActor() async {
    let star = Person(name: "Ann")
    let spotlight = Spotlight()
    spotlight.star = star
    let journal = MainJournal()
    let badge = MainBadge("b", journal: journal)
    badge.autoObserve(spotlight, keyPath: \.starName, options: [.old, .new, .prior]) {
      badge, _, change in
      MainActor.preconditionIsolated()
      badge.journal.append(
        change.isPrior ? "prior \(change.oldValue!)" : "\(change.oldValue!)->\(change.newValue!)")
    }
    // Each rename waits for its delivery: the key path is read when the main actor runs it.
    for (index, name) in ["Bob", "Cid"].enumerated() {
      await withCheckedContinuation { continuation in
        Thread.detachNewThread {
          star.name = name
          continuation.resume()
        }
      }
      #expect(await eventually { journal.entries.count == 2 * (index + 1) })
    }
    #expect(journal.entries == ["prior Ann", "Ann->Bob", "prior Bob", "Bob->Cid"])
    #expect(spotlight.getterRanOnMainQueue == [true, true, true])
    // Observers live until here: an optimized build may otherwise free them after their last use.
    withExtendedLifetime(badge) {}
  }

  @Test(
    "A re-evaluation waiting on a queue when the observer is freed, or the registration cancelled, evaluates nothing and calls no handler"
  )
  func pendingReevaluationAfterTheRegistrationEnds() async {
    let queue = DispatchQueue(label: "autokvo.tests.placement.pending")
    let star = Person(name: "Ann")
    let spotlight = Spotlight()
    spotlight.star = star
    let log = PlacementLog()
    let tracker = LifetimeTracker()
    var freed: Watcher? = Watcher(tracker: tracker)
    freed!.autoObserve(spotlight, keyPath: \.starName, options: .new, deliveryQueue: queue) {
      _, _, change in log.record("freed \(change.newValue!)")
    }
    let kept = Watcher()
    let cancelled = kept.autoObserve(
      spotlight, keyPath: \.starName, options: .new, deliveryQueue: queue
    ) { _, _, change in log.record("cancelled \(change.newValue!)") }
    let readsAtRegistration = spotlight.getterRanOnMainQueue.count
    // The queue is held while the change is made and both registrations end.
    let hold = DispatchSemaphore(value: 0)
    queue.async { hold.wait() }
    star.name = "Bob"
    freed = nil
    cancelled.cancel()
    hold.signal()
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(tracker.liveCount == 0)
    #expect(log.all.isEmpty)
    #expect(spotlight.getterRanOnMainQueue.count == readsAtRegistration)
    #expect(spotlight.observationRegistry.observerCount == 0)
    #expect(star.observationRegistry.observerCount == 0)
  }

  @MainActor
  @Test(
    "Two changes made before the main actor runs are two deliveries, each reading the key path when it runs"
  )
  func laterEvaluationReadsTheCurrentValue() async {
    let star = Person(name: "Ann")
    let spotlight = Spotlight()
    spotlight.star = star
    let journal = MainJournal()
    let badge = MainBadge("b", journal: journal)
    badge.autoObserve(spotlight, keyPath: \.starName, options: [.old, .new]) { badge, _, change in
      badge.journal.append("\(change.oldValue!)->\(change.newValue!)")
    }
    // The main actor waits, blocked, while another thread makes both changes: neither delivery
    // can run before both are made.
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      star.name = "Bob"
      star.name = "Cid"
      done.signal()
    }
    done.wait()
    #expect(await eventually { journal.entries.count == 2 })
    #expect(journal.entries == ["Ann->Cid", "Cid->Cid"])
    #expect(spotlight.getterRanOnMainQueue == [true, true, true])
    // Observers live until here: an optimized build may otherwise free them after their last use.
    withExtendedLifetime(badge) {}
  }
}

/// An actor that observes a person without capturing itself: its handler gets the actor as its
/// first argument.
actor Recorder: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  private let tracker: LifetimeTracker
  private(set) var ages: [Int] = []

  init(tracker: LifetimeTracker) {
    self.tracker = tracker
    tracker.instanceCreated()
  }

  deinit {
    tracker.instanceDestroyed()
  }

  func watch(_ person: Person) {
    autoObserve(person, keyPath: \.age, options: .new) { recorder, _, change in
      // The handler runs isolated to this actor; the argument is that actor.
      recorder.assumeIsolated { $0.ages.append(change.newValue!) }
    }
  }

  /// Registers a class observer from this actor's method: the handler runs on this actor.
  func watch(_ person: Person, by watcher: Watcher) {
    watcher.autoObserve(person, keyPath: \.age, options: .new) { watcher, _, change in
      watcher.record("\(change.newValue!)")
    }
  }
}

@Suite("Actors observe without being kept alive")
struct ActorLifetimeTests {
  @Test(
    "An actor observer is freed when its last outside reference goes, and its registration ends")
  func actorObserverIsFreed() async {
    let tracker = LifetimeTracker()
    let person = Person()
    var recorder: Recorder? = Recorder(tracker: tracker)
    await recorder!.watch(person)
    #expect(person.observationRegistry.observerCount == 1)
    person.age = 1
    #expect(await eventually { await recorder!.ages == [1] })
    recorder = nil
    #expect(await eventually { tracker.liveCount == 0 })
    #expect(person.observationRegistry.observerCount == 0)
    person.age = 2
  }

  @Test(
    "An actor from whose method a class observer registers is freed when its last reference goes; what waited for it is dropped"
  )
  func registeringActorIsFreed() async {
    let tracker = LifetimeTracker()
    let person = Person()
    let watcher = Watcher()
    var recorder: Recorder? = Recorder(tracker: tracker)
    await recorder!.watch(person, by: watcher)
    person.age = 1
    #expect(await eventually { watcher.log == ["1"] })
    recorder = nil
    #expect(await eventually { tracker.liveCount == 0 })
    // The registration lives with the watcher; its actor is gone, so nothing runs any more.
    person.age = 2
    try? await Task.sleep(nanoseconds: 20_000_000)
    #expect(watcher.log == ["1"])
  }
}

@Suite("Sequences honour cancellation, one consumer, and a buffering policy")
struct ChangeSequenceContractTests {
  @Test(
    "Cancelling the consuming task makes next() return nil at once: buffered changes are dropped")
  func cancellationDropsBuffered() async {
    let person = Person(age: 0)
    let changes = person.changes(for: \.age)
    for age in 1...1000 { person.age = age }
    let task = Task {
      var received: [Int] = []
      for await change in changes {
        received.append(change.newValue!)
        if received.count == 1 { withUnsafeCurrentTask { $0?.cancel() } }
      }
      return received
    }
    #expect(await task.value == [1])
    #expect(person.observationRegistry.observerCount == 0)
  }

  @Test("A task cancelled before it iterates receives nothing, and the registration ends")
  func cancelledBeforeIterating() async {
    let person = Person(age: 0)
    let changes = person.changes(for: \.age)
    person.age = 1
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      var count = 0
      for await _ in changes { count += 1 }
      return count
    }
    #expect(await task.value == 0)
    #expect(person.observationRegistry.observerCount == 0)
  }

  @Test(
    "A second iterator of one sequence is reported and finishes at once; the first keeps every change"
  )
  func secondIteratorIsDiagnosed() async {
    let recorder = DiagnosticsRecorder()
    var person: Person? = Person(age: 0)
    let changes = person!.changes(for: \.age)
    var first = changes.makeAsyncIterator()
    var second = changes.makeAsyncIterator()
    recorder.restore()
    #expect(recorder.kinds == [.sequenceIteratedAgain])
    #expect(recorder.messages.first?.contains("iterated a second time") == true)
    person!.age = 1
    person!.age = 2
    person = nil
    #expect(await second.next() == nil)
    var received: [Int] = []
    while let change = await first.next() { received.append(change.newValue!) }
    #expect(received == [1, 2])
  }

  @Test("Two sequences of one property each receive every change")
  func twoSequences() async {
    var person: Person? = Person(age: 0)
    let first = person!.changes(for: \.age)
    let second = person!.changes(for: \.age)
    for age in 1...3 { person!.age = age }
    person = nil
    var firstAges: [Int] = []
    for await change in first { firstAges.append(change.newValue!) }
    var secondAges: [Int] = []
    for await change in second { secondAges.append(change.newValue!) }
    #expect(firstAges == [1, 2, 3])
    #expect(secondAges == [1, 2, 3])
  }

  @Test("bufferingNewest(1) keeps only the latest change for a slow consumer")
  func bufferingNewest() async {
    var person: Person? = Person(age: 0)
    let changes = person!.changes(
      for: \.age, options: [.old, .new], bufferingPolicy: .bufferingNewest(1))
    for age in 1...100 { person!.age = age }
    person = nil
    var received: [String] = []
    for await change in changes { received.append(describe(change)) }
    #expect(received == ["setting 99->100"])
  }

  @Test("bufferingOldest(2) keeps the first two changes and drops the rest")
  func bufferingOldest() async {
    var person: Person? = Person(age: 0)
    let changes = person!.changes(for: \.age, bufferingPolicy: .bufferingOldest(2))
    for age in 1...100 { person!.age = age }
    person = nil
    var received: [Int] = []
    for await change in changes { received.append(change.newValue!) }
    #expect(received == [1, 2])
  }
}
