import Dispatch
import Foundation
import Testing

@testable import AutoKVO

@Suite("Threads: registration, cancellation and notification are safe from any thread")
struct ConcurrencyTests {
  @Test("Handlers run synchronously on the mutating thread")
  func handlerRunsOnMutatingThread() {
    let person = Person()
    let watcher = Watcher()
    let mutatingThread = Box<String>()
    let handlerThread = Box<String>()
    watcher.autoObserve(person, keyPath: \.name) { _, _, _ in
      handlerThread.value = "\(pthreadID())"
    }
    runSimultaneously([
      {
        mutatingThread.value = "\(pthreadID())"
        person.name = "Bob"
      }
    ])
    #expect(handlerThread.value != nil)
    #expect(handlerThread.value == mutatingThread.value)
  }

  @Test(
    "No library lock is held while a handler runs: a handler may block on another thread that uses AutoKVO"
  )
  func noLockHeldDuringHandler() {
    let person = Person()
    let other = Person()
    let watcher = Watcher()
    let done = Counter()
    watcher.autoObserve(person, keyPath: \.name) { w, _, _ in
      // Another thread registers, mutates and cancels while this handler waits for it.
      let group = DispatchGroup()
      group.enter()
      Thread.detachNewThread {
        let observation = w.autoObserve(other, keyPath: \.age) { _, _, _ in done.increment() }
        other.age += 1
        observation.cancel()
        person.observationRegistry.observerCount == 1 ? done.increment() : ()
        group.leave()
      }
      group.wait()
    }
    person.name = "Bob"
    #expect(done.value == 2)
  }

  @Test("Each thread mutating its own observed object: every notification arrives exactly once")
  func concurrentMutationsOfSeparateObjects() {
    let threads = 4
    let setsPerThread = 2_000
    let calls = Counter()
    let watcher = Watcher()
    let people = (0..<threads).map { _ in Person() }
    for person in people {
      watcher.autoObserve(person, keyPath: \.age) { _, _, _ in calls.increment() }
    }
    DispatchQueue.concurrentPerform(iterations: threads) { index in
      for value in 0..<setsPerThread { people[index].age = value }
    }
    #expect(calls.value == threads * setsPerThread)
  }

  @Test(
    "Registering and cancelling from many threads on one observed object leaves no registration")
  func concurrentRegistrationAndCancellation() {
    let person = Person()
    let watchers = (0..<4).map { _ in Watcher() }
    DispatchQueue.concurrentPerform(iterations: 4) { index in
      for _ in 0..<500 {
        let observation = watchers[index].autoObserve(person, keyPath: \.name) { _, _, _ in }
        observation.cancel()
      }
    }
    #expect(person.observationRegistry.observerCount == 0)
    #expect(watchers.allSatisfy { $0.observationRegistry.observingCount == 0 })
  }
}

private func pthreadID() -> UInt {
  UInt(bitPattern: Int(bitPattern: ObjectIdentifier(Thread.current)))
}
