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

@Suite("Delivery queues and the queues that target them: one rule, whatever other registrations did")
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
    "A set made on the queue a delivery queue targets runs the handler later, on the delivery queue")
  func setOnTheTargetedQueue() {
    let targetedQueue = DispatchQueue(label: "autokvo.tests.target.targeted")
    let deliveryQueue = DispatchQueue(label: "autokvo.tests.target.targeting", target: targetedQueue)
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
