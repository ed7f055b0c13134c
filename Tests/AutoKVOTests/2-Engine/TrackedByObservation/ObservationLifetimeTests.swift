import AutoKVO
import Foundation
import Observation
import Testing

@testable import AutoKVO

/// Threads and lifetimes: Observation's closures run with no AutoKVO lock held, a set racing a
/// tracking fires it exactly once, and a tracked object deallocates cleanly.
@Suite("Swift Observation: threads and lifetimes")
struct ObservationLifetimeTests {
  @Test("A tracking armed on one thread, a set on another: onChange exactly once, every round")
  func setOnAnotherThread() {
    let rounds = 200
    let log = TrackingLog()
    for round in 0..<rounds {
      let contact = Contact()
      track(log, { _ = contact.firstName }, entry: { "round \(round)" })
      runSimultaneously([
        { contact.firstName = "Bo" },
        { _ = contact.lastName },
      ])
      #expect(log.count == round + 1)
    }
    #expect(log.all == (0..<rounds).map { "round \($0)" })
  }

  @Test("Trackings armed while another thread sets: each fires exactly once, none is lost")
  func armingRacesSets() {
    let contact = Contact()
    let log = TrackingLog()
    let trackings = 100
    // The model is not thread-safe, as `@Observed` adds no synchronization: this lock orders each
    // read with each write of the value. Arming and firing still interleave across the threads.
    let access = NSLock()
    runSimultaneously([
      {
        for index in 0..<trackings {
          access.withLock {
            track(log, { _ = contact.firstName }, entry: { "tracking \(index)" })
          }
        }
      },
      {
        for index in 0..<1000 { access.withLock { contact.firstName = "\(index)" } }
      },
    ])
    // Any tracking that the sets did not reach is reached by this one.
    contact.firstName = "last"
    #expect(log.count == trackings)
    #expect(Set(log.all).count == trackings)
  }

  @Test("The first reads of an object on many threads at once make one registrar")
  func firstReadsRace() {
    for _ in 0..<50 {
      let contact = Contact()
      runSimultaneously((0..<4).map { _ in { _ = contact.firstName } })
      let log = TrackingLog()
      track(log, { _ = contact.firstName }, entry: { "changed" })
      contact.firstName = "Bo"
      #expect(log.count == 1)
    }
  }

  @Test("onChange runs with no AutoKVO lock held: it may register, read counts, set and cancel")
  func noLockHeldInOnChange() {
    let contact = Contact()
    let watcher = Watcher()
    let log = TrackingLog()
    track(
      log, { _ = contact.firstName },
      entry: {
        let observation = watcher.autoObserve(contact, keyPath: \.lastName) { _, _, _ in }
        let counts = "\(contact.observationRegistry.observerCount)"
        contact.lastName = "Kim"
        observation.cancel()
        return "observers \(counts), lastName \(contact.lastName)"
      })
    contact.firstName = "Bo"
    #expect(log.all == ["observers 1, lastName Kim"])
    #expect(contact.observationRegistry.observerCount == 0)
  }

  @Test("An object deallocated while a tracking is armed frees cleanly; nothing fires after")
  func deallocatedWhileTracked() {
    let tracker = LifetimeTracker()
    let log = TrackingLog()
    let other = Contact()
    do {
      let contact = Contact(tracker: tracker)
      contact.friends = [other]
      track(log, { _ = contact.firstName }, entry: { "contact" })
      track(log, { _ = contact.friends.first?.firstName }, entry: { "friend" })
      #expect(tracker.liveCount == 1)
    }
    #expect(tracker.liveCount == 0)
    #expect(log.count == 0)
    other.firstName = "Bo"
    #expect(log.all == ["friend"])
  }

  @Test("An object deallocated on another thread while tracked frees cleanly")
  func deallocatedOnAnotherThread() {
    let tracker = LifetimeTracker()
    let log = TrackingLog()
    for _ in 0..<50 {
      let handoff = Handoff(Contact(tracker: tracker))
      track(log, { _ = handoff.object?.firstName }, entry: { "changed" })
      runSimultaneously([{ handoff.release() }, { _ = log.count }])
    }
    #expect(tracker.liveCount == 0)
    #expect(log.count == 0)
  }
}
