import Dispatch
import Foundation
import Testing

@testable import AutoKVO

// The order of delivery: one order per actor, across its registrations; and each registration
// receives its changes in the order they were made, whichever thread makes them.

/// An actor that observes two properties of a person and records, in its own state, each change
/// it receives.
actor ChangeJournal: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  private(set) var entries: [String] = []

  func watchNameAndAge(of person: Person) {
    autoObserve(person, keyPath: \.name, options: .new) { journal, _, change in
      journal.assumeIsolated { $0.entries.append("name=\(change.newValue!)") }
    }
    autoObserve(person, keyPath: \.age, options: .new) { journal, _, change in
      journal.assumeIsolated { $0.entries.append("age=\(change.newValue!)") }
    }
  }

  /// Sets the two properties in turn from the actor itself: every delivery then waits until this
  /// method has returned, so all four wait for the actor together.
  func setInTurn(_ person: Person) {
    person.name = "B"
    person.age = 1
    person.name = "C"
    person.age = 2
  }

  /// The mailbox of the registrations made from this actor, as a registration made now uses.
  func mailbox() -> ActorMailbox? {
    guard case .actor(let mailbox) = HandlerDelivery.resolve(isolation: #isolation) else {
      return nil
    }
    return mailbox
  }
}

@Suite("Actor delivery order: one order per actor, across its registrations")
struct ActorDeliveryOrderTests {
  static let inTurn = ["name=B", "age=1", "name=C", "age=2"]

  @Test(
    "Two registrations made from one actor receive changes set from the actor in the order they were made"
  )
  func setOnTheActor() async {
    let person = Person()
    let journal = ChangeJournal()
    await journal.watchNameAndAge(of: person)
    await journal.setInTurn(person)
    #expect(await eventually { await journal.entries.count == 4 })
    #expect(await journal.entries == Self.inTurn)
  }

  @Test(
    "Two registrations made from one actor receive changes set on another thread in the order they were made, round after round"
  )
  func setOnAnotherThread() async {
    for _ in 0..<50 {
      let person = Person()
      let journal = ChangeJournal()
      await journal.watchNameAndAge(of: person)
      let done = DispatchSemaphore(value: 0)
      Thread.detachNewThread {
        person.name = "B"
        person.age = 1
        person.name = "C"
        person.age = 2
        done.signal()
      }
      await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
          done.wait()
          continuation.resume()
        }
      }
      #expect(await eventually { await journal.entries.count == 4 })
      #expect(await journal.entries == Self.inTurn)
    }
  }

  @Test(
    "The registrations made from one actor share one mailbox, another actor has its own, and it goes with the last of them"
  )
  func mailboxLifetime() async {
    let journal = ChangeJournal()
    let other = ChangeJournal()
    let first = await journal.mailbox()
    let second = await journal.mailbox()
    let others = await other.mailbox()
    #expect(first != nil)
    #expect(first === second)
    #expect(others !== first)
    let freed = first.map { WeakBox($0) }
    _ = (consume first, consume second)
    #expect(freed?.object == nil)
    // A mailbox made afresh for the same actor delivers as the first did.
    let person = Person()
    await journal.watchNameAndAge(of: person)
    await journal.setInTurn(person)
    #expect(await eventually { await journal.entries.count == 4 })
    #expect(await journal.entries == Self.inTurn)
    withExtendedLifetime(others) {}
  }

  @Test(
    "An actor's mailbox keeps neither the actor nor itself alive: both go once the actor is released"
  )
  func mailboxKeepsNothingAlive() async {
    let person = Person()
    var journal: ChangeJournal? = ChangeJournal()
    await journal!.watchNameAndAge(of: person)
    let mailbox = await journal!.mailbox().map { WeakBox($0) }
    let actor = WeakBox(journal!)
    person.age = 1
    #expect(await eventually { await journal!.entries == ["age=1"] })
    journal = nil
    #expect(await eventually { actor.object == nil })
    #expect(mailbox?.object == nil)
    #expect(person.observationRegistry.observerCount == 0)
  }
}

@Suite(
  "Delivery queues and the queues that target them: one rule, whatever other registrations did")
struct TargetQueueDeliveryTests {
  @Test(
    "A set made on a queue that targets the delivery queue runs the handler before the setter returns, whether or not another registration delivers on the setting queue",
    arguments: [false, true])
  func setOnATargetingQueue(anotherRegistrationDeliversThere: Bool) {
    let deliveryQueue = DispatchQueue(label: "autokvo.tests.target.delivery")
    let settingQueue = DispatchQueue(label: "autokvo.tests.target.setting", target: deliveryQueue)
    let bystander = Watcher()
    let other = Person()
    if anotherRegistrationDeliversThere {
      bystander.autoObserve(other, keyPath: \.age, options: .new, deliveryQueue: settingQueue) {
        _, _, _ in
      }
    }
    let person = Person(age: 0)
    let watcher = Watcher()
    watcher.autoObserve(person, keyPath: \.age, options: .new, deliveryQueue: deliveryQueue) {
      watcher, _, change in watcher.record("handler \(change.newValue!)")
    }
    settingQueue.sync {
      person.age = 1
      watcher.record("set returned")
    }
    #expect(watcher.log == ["handler 1", "set returned"])
    withExtendedLifetime((bystander, other)) {}
  }

  @Test(
    "A set made on the queue a delivery queue targets runs the handler later, on the delivery queue"
  )
  func setOnTheTargetedQueue() {
    let targetedQueue = DispatchQueue(label: "autokvo.tests.target.targeted")
    let deliveryQueue = DispatchQueue(
      label: "autokvo.tests.target.targeting", target: targetedQueue)
    let person = Person(age: 0)
    let watcher = Watcher()
    watcher.autoObserve(person, keyPath: \.age, options: .new, deliveryQueue: deliveryQueue) {
      watcher, _, change in watcher.record("handler \(change.newValue!)")
    }
    targetedQueue.sync {
      person.age = 1
      watcher.record("set returned")
    }
    deliveryQueue.sync {}
    #expect(watcher.log == ["set returned", "handler 1"])
  }
}

/// A main-actor view of a person's age, as UI code writes one: records each change it receives.
@MainActor
final class AgeLabel: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  private(set) var seen: [String] = []

  func bind(to person: Person) {
    autoObserve(person, keyPath: \.age, options: [.old, .new]) { label, _, change in
      label.seen.append("\(change.oldValue!)→\(change.newValue!)")
    }
  }
}

/// The *Collection mutations* article's table: a copy of the rows, changed only by the changes,
/// in the order they arrive on the table's queue.
final class SongTable: KeyValueObservable, @unchecked Sendable {  // `rows`: on `queue` only
  let observationRegistry = ObservationRegistry()
  let queue = DispatchQueue(label: "autokvo.tests.order.song-table")
  private(set) var rows: [String] = []
  /// Insertions the article's `rows.insert(song, at: row)` would trap on, past the end.
  private(set) var problems: [String] = []

  func show(_ playlist: Playlist) {
    queue.sync { rows = playlist.songs }
    autoObserve(playlist, keyPath: \.songs, options: .new, deliveryQueue: queue) {
      table, _, change in
      guard change.kind == .insertion else { return }
      for (row, song) in zip(change.indexes!, change.newValue!) {
        if row <= table.rows.count {
          table.rows.insert(song, at: row)
        } else {
          table.problems.append("insertion of \(song) at \(row) into \(table.rows.count) rows")
        }
      }
    }
  }
}

/// Runs `onQueue` in a block on `queue` that starts before `elsewhere` runs on this thread and
/// goes on only once `elsewhere` has returned; returns when `onQueue` has returned.
private func run(
  onQueue: @escaping @Sendable () -> Void, of queue: DispatchQueue,
  afterElsewhere elsewhere: () -> Void
) {
  let running = DispatchSemaphore(value: 0)
  let proceed = DispatchSemaphore(value: 0)
  queue.async {
    running.signal()
    proceed.wait()
    onQueue()
  }
  running.wait()
  elsewhere()
  proceed.signal()
  queue.sync {}
}

@Suite("Each registration receives its changes in the order they were made, whichever thread sets")
struct ChangeOrderTests {
  @Test(
    "A set made on the delivery queue while an earlier change waits there is delivered after it",
    arguments: 0..<10)
  func setOnTheQueueAfterAnotherThread(round: Int) {
    let queue = DispatchQueue(label: "autokvo.tests.order.queue")
    let person = Person(age: 0)
    let watcher = Watcher()
    watcher.autoObserve(person, keyPath: \.age, options: [.old, .new], deliveryQueue: queue) {
      watcher, _, change in watcher.record("\(change.oldValue!)→\(change.newValue!)")
    }
    // Set 1 off the queue while a block runs on it, so that its delivery waits behind the block;
    // then set 2 from that block, on the queue.
    run(onQueue: { person.age = 2 }, of: queue, afterElsewhere: { person.age = 1 })
    queue.sync {}
    #expect(watcher.log == ["0→1", "1→2"])
  }

  @Test(
    "The .initial call of a registration made off its queue arrives before a change made on the queue after autoObserve returned",
    arguments: 0..<10)
  func initialBeforeASetOnTheQueue(round: Int) {
    let queue = DispatchQueue(label: "autokvo.tests.order.initial")
    let person = Person(age: 0)
    let watcher = Watcher()
    let options: ObservationOptions = [.initial, .new]
    run(
      onQueue: { person.age = 5 }, of: queue,
      afterElsewhere: {
        watcher.autoObserve(person, keyPath: \.age, options: options, deliveryQueue: queue) {
          watcher, _, change in watcher.record("new \(change.newValue!)")
        }
      })
    queue.sync {}
    #expect(watcher.log == ["new 0", "new 5"])
  }

  @MainActor
  @Test(
    "A main-actor registration receives a set made on the main actor after an earlier change still waiting in the main queue"
  )
  func setOnTheMainActorAfterAnotherThread() async {
    let person = Person(age: 0)
    let label = AgeLabel()
    label.bind(to: person)
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      person.age = 1  // off the main actor: its delivery waits for the main queue
      done.signal()
    }
    done.wait()  // the main actor is held here, so the delivery of 1 still waits
    person.age = 2  // on the main actor, behind it
    #expect(label.seen == [])
    #expect(await eventually { label.seen.count == 2 })
    #expect(label.seen == ["0→1", "1→2"])
    // Observers live until here: an optimized build may otherwise free them after their last use.
    withExtendedLifetime(label) {}
  }

  @Test(
    "The Collection mutations table receives rows added on its queue and elsewhere at the indexes they were added at"
  )
  func tableRowsAddedOnItsQueueAndElsewhere() {
    let playlist = Playlist()
    let table = SongTable()
    table.show(playlist)
    run(
      onQueue: { playlist.mutableArrayValue(for: \.songs).append("b") }, of: table.queue,
      afterElsewhere: { playlist.mutableArrayValue(for: \.songs).append("a") })
    table.queue.sync {}
    #expect(playlist.songs == ["a", "b"])
    #expect(table.queue.sync { table.rows } == ["a", "b"])
    #expect(table.queue.sync { table.problems } == [])
  }

  @Test(
    "A set made on the delivery queue with nothing of its registration waiting runs the handler at once"
  )
  func setOnTheQueueWithNothingWaiting() {
    let queue = DispatchQueue(label: "autokvo.tests.order.idle")
    let person = Person(age: 0)
    let watcher = Watcher()
    watcher.autoObserve(person, keyPath: \.age, options: [.old, .new], deliveryQueue: queue) {
      watcher, _, change in watcher.record("\(change.oldValue!)→\(change.newValue!)")
    }
    person.age = 1
    queue.sync {
      person.age = 2
      watcher.record("set returned")
    }
    #expect(watcher.log == ["0→1", "1→2", "set returned"])
  }
}
