import Dispatch
import Foundation
import Testing

@testable import AutoKVO

@Suite("Concurrent stress: many threads at once lose, duplicate and delay no notification")
struct ConcurrentStressTests {
  /// Threads and rounds per thread; raise them with `AUTOKVO_STRESS_THREADS` and
  /// `AUTOKVO_STRESS_ROUNDS` for long local runs.
  static let threads = environmentCount("AUTOKVO_STRESS_THREADS", default: 4)
  static let rounds = environmentCount("AUTOKVO_STRESS_ROUNDS", default: 300)

  @Test(
    "Threads mutating, registering, cancelling and deallocating at once: steady registrations get every notification exactly once, none arrives late or to a dying observer"
  )
  func everythingAtOnce() {
    let threads = Self.threads
    let rounds = Self.rounds
    let clock = LogicalClock()
    let observerTracker = LifetimeTracker()
    let handlerTracker = LifetimeTracker()
    let counters = (0..<4).map { _ in SharedCounter() }
    let subjects = (0..<threads).map { _ in SingleWriterSubject() }
    let mailbox = Mailbox()

    // Steady registrations, made before the threads start and kept to the end: each must see
    // every mutation of its object exactly once (twice with `.prior`).
    var steadyObserver: StressObserver? = StressObserver(tracker: observerTracker)
    let steadyOptions: [ObservationOptions] = [[], [.prior], [.old, .new], [.prior, .new]]
    let steadyCounterLedgers = zip(counters, steadyOptions).map { counter, options in
      let ledger = DeliveryLedger()
      steadyObserver!.autoObserve(counter, keyPath: \.count, options: options) { observer, _, c in
        ledger.delivered(isPrior: c.isPrior, observerIsDeallocating: observer.deinitFlag.isRaised)
      }
      return ledger
    }
    let steadySubjectLedgers = subjects.map { subject in
      let ledger = DeliveryLedger()
      steadyObserver!.autoObserve(subject, keyPath: \.level, options: .new) { observer, _, c in
        ledger.delivered(isPrior: c.isPrior, observerIsDeallocating: observer.deinitFlag.isRaised)
      }
      return ledger
    }

    let increments = (0..<counters.count).map { _ in Counter() }
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      var random = SeededRandom(seed: UInt64(thread) + 1)
      let subject = subjects[thread]
      for round in 0..<rounds {
        let target = Int.random(in: 0..<counters.count, using: &random)
        MutationContext.mutate(on: clock) { counters[target].increment() }
        increments[target].increment()
        MutationContext.mutate(on: clock) { subject.level = round }

        // A transient observer, registered on a shared counter (racing other threads' sets)
        // and on this thread's subject, then handed to another thread to cancel or free.
        let observer = StressObserver(tracker: observerTracker)
        for keyPathChoice in 0..<2 {
          let ledger = DeliveryLedger()
          let token = Token(handlerTracker)
          let options = ObservationOptions.allCombinations.randomElement(using: &random)!
          let handler = { (observer: StressObserver, change: KeyValueChange<Int>) in
            withExtendedLifetime(token) {}
            ledger.delivered(
              isPrior: change.isPrior, observerIsDeallocating: observer.deinitFlag.isRaised)
          }
          let handle =
            keyPathChoice == 0
            ? observer.autoObserve(
              counters[Int.random(in: 0..<counters.count, using: &random)], keyPath: \.count,
              options: options
            ) { observer, _, change in handler(observer, change) }
            : observer.autoObserve(subject, keyPath: \.level, options: options) {
              observer, _, change in handler(observer, change)
            }
          mailbox.post(Mailbox.Letter(handle: handle, ledger: ledger))
        }
        mailbox.post(observer)

        // Cancel a registration another thread made, and free an observer another thread made.
        if let letter = mailbox.takeLetter(using: &random) {
          letter.ledger.cancel(letter.handle, clock: clock)
        }
        let released = mailbox.takeObserver(using: &random)
        withExtendedLifetime(released) {}
        MutationContext.mutate(on: clock) { subject.level = -round }
      }
    }

    let transientLedgers = mailbox.drain()
    for (index, counter) in counters.enumerated() {
      let expected = increments[index].value * (steadyOptions[index].contains(.prior) ? 2 : 1)
      #expect(steadyCounterLedgers[index].deliveries == expected)
      #expect(counter.observationRegistry.observerCount == 1)
    }
    for ledger in steadySubjectLedgers {
      #expect(ledger.deliveries == rounds * 2)
    }
    let allLedgers = steadyCounterLedgers + steadySubjectLedgers + transientLedgers
    #expect(allLedgers.map(\.late).reduce(0, +) == 0)
    #expect(allLedgers.map(\.duplicated).reduce(0, +) == 0)
    #expect(allLedgers.map(\.toDeallocatingObserver).reduce(0, +) == 0)
    #expect(steadyObserver!.observationRegistry.observingCount == counters.count + threads)

    steadyObserver = nil
    #expect(observerTracker.liveCount == 0)
    #expect(observerTracker.createdCount == 1 + threads * rounds)
    #expect(handlerTracker.liveCount == 0, "every handler, so every observed-side sentinel, freed")
    #expect(counters.allSatisfy { $0.observationRegistry.observerCount == 0 })
    #expect(subjects.allSatisfy { $0.observationRegistry.observerCount == 0 })
    if Self.rounds != 300 || Self.threads != 4 {
      let deliveries = allLedgers.map(\.deliveries).reduce(0, +)
      print(
        "stress: \(threads) threads x \(rounds) rounds, \(threads * rounds * 3) mutations, "
          + "\(threads * rounds * 2) transient registrations and cancellations attempted, "
          + "\(threads * rounds) observers freed across threads, \(deliveries) deliveries, "
          + "late \(allLedgers.map(\.late).reduce(0, +)), "
          + "duplicated \(allLedgers.map(\.duplicated).reduce(0, +))")
    }
  }

  @Test(
    "Both sides of many registrations deallocated at the same moment on two threads, while a third thread mutates: everything is freed, each registration ends once"
  )
  func bothSidesDeallocatedWhileMutating() {
    let tracker = LifetimeTracker()
    let handlerTracker = LifetimeTracker()
    let observerTracker = LifetimeTracker()
    let clock = LogicalClock()
    var weakHandles: [WeakObservation] = []
    for _ in 0..<Self.rounds {
      let person = Handoff(Person(tracker: tracker))
      let observer = Handoff(StressObserver(tracker: observerTracker))
      let mutatorsPerson = Handoff(person.object!)
      var ledgers: [DeliveryLedger] = []
      for options in [ObservationOptions.new, [.prior, .old]] {
        let ledger = DeliveryLedger()
        ledgers.append(ledger)
        let token = Token(handlerTracker)
        let handle = observer.object!.autoObserve(
          person.object!, keyPath: \.age, options: options
        ) { observer, _, change in
          withExtendedLifetime(token) {}
          ledger.delivered(
            isPrior: change.isPrior, observerIsDeallocating: observer.deinitFlag.isRaised)
        }
        weakHandles.append(WeakObservation(handle))
      }
      // And the reverse direction, so that each object is observer and observed at once.
      let token = Token(handlerTracker)
      weakHandles.append(
        WeakObservation(
          person.object!.autoObserve(observer.object!, keyPath: \.mood) {
            _, _, _ in withExtendedLifetime(token) {}
          }))
      runSimultaneously([
        person.release,
        observer.release,
        {
          for age in 0..<3 {
            MutationContext.mutate(on: clock) { mutatorsPerson.object!.age = age }
          }
          mutatorsPerson.release()
        },
      ])
      #expect(ledgers.map(\.duplicated) == [0, 0])
      #expect(ledgers.map(\.toDeallocatingObserver) == [0, 0])
    }
    #expect(tracker.liveCount == 0)
    #expect(observerTracker.liveCount == 0)
    #expect(handlerTracker.liveCount == 0)
    #expect(weakHandles.filter { $0.handle != nil }.count == 0, "both sentinels of each freed")
  }

  @Test(
    "Two objects with many registrations on each other, deallocated at the same moment on two threads: no teardown deadlocks, everything is freed (regression)"
  )
  func mutualRegistrationsDeallocatedTogether() {
    // The deadlock this guards against: ending a registration under its lifecycle lock used to
    // retain and release the other side's registry; when that side's object died on another thread
    // meanwhile, the release was the last one, and the registry's deinit, run under the lock,
    // waited for the lock stripe of another registration it held. With 64 registrations each way,
    // most registrations share a stripe with one the other registry holds, and each teardown
    // crosses the other thread's many times. Before the fix this hung within a few dozen rounds.
    let tracker = LifetimeTracker()
    let handlerTracker = LifetimeTracker()
    let registrationsEachWay = 64
    let rounds = max(Self.rounds / 3, 20)
    for round in 0..<rounds {
      let first = Handoff(StressObserver(tracker: tracker))
      let second = Handoff(StressObserver(tracker: tracker))
      for _ in 0..<registrationsEachWay {
        let token = Token(handlerTracker)
        first.object!.autoObserve(second.object!, keyPath: \.mood) { _, _, _ in
          withExtendedLifetime(token) {}
        }
        second.object!.autoObserve(first.object!, keyPath: \.mood, options: .initial) { _, _, _ in
          withExtendedLifetime(token) {}
        }
      }
      #expect(first.object!.observationRegistry.observingCount == registrationsEachWay)
      #expect(first.object!.observationRegistry.observerCount == registrationsEachWay)
      let finished = runSimultaneously([first.release, second.release], within: 60)
      guard finished else {
        Issue.record("round \(round): the two deallocations did not finish within 60 s (deadlock)")
        return
      }
    }
    #expect(tracker.liveCount == 0)
    #expect(tracker.createdCount == 2 * rounds)
    #expect(handlerTracker.liveCount == 0, "every handler, so every observed-side sentinel, freed")
  }

  @Test(
    "A key-path chain re-evaluated on one thread while its intermediate objects are released on another: no deadlock, no call to a dying observer, every chain link and object freed"
  )
  func chainTargetsReleasedWhileReevaluating() {
    // Each re-evaluation replaces the chain's links under the registration's lifecycle lock,
    // loading the old links' targets from weak references; a target whose last reference is
    // dropped on another thread meanwhile must not be released (and deinitialised, with its
    // registry) under that lock. The leaves' deaths re-evaluate the chain on the releasing thread
    // at the same time.
    let leafTracker = LifetimeTracker()
    let observerTracker = LifetimeTracker()
    let handlerTracker = LifetimeTracker()
    let root = ChainRoot()
    let toDeallocating = Counter()
    let leavesPerRound = 8
    for round in 0..<Self.rounds {
      // The releaser holds the only strong references to the leaves.
      let releaser = ReleaseQueue(
        (0..<leavesPerRound).map { ChainLeaf(value: $0, tracker: leafTracker) })
      let weakLeaves = releaser.weakReferences()
      root.point(to: weakLeaves[0].object)
      let observer = Handoff(StressObserver(tracker: observerTracker))
      let token = Token(handlerTracker)
      let handle = observer.object!.autoObserve(
        root, keyPath: \.currentValue, options: [.old, .new]
      ) {
        observer, _, _ in
        withExtendedLifetime(token) {}
        if observer.deinitFlag.isRaised { toDeallocating.increment() }
      }
      let finished = runSimultaneously(
        [
          {
            for _ in 0..<2 {
              for leaf in weakLeaves { root.point(to: leaf.object) }
            }
          },
          releaser.releaseAll,
        ], within: 60)
      guard finished else {
        Issue.record("round \(round): re-evaluation and releases did not finish within 60 s")
        return
      }
      #expect(leafTracker.liveCount == 0, "round \(round): every leaf, and its chain link, freed")
      #expect(root.currentValue == nil)
      if round.isMultiple(of: 2) {
        handle.cancel()
        observer.release()
      } else {
        observer.release()
        #expect(handle.isCancelled)
      }
      #expect(root.observationRegistry.observerCount == 0, "round \(round)")
    }
    #expect(observerTracker.liveCount == 0)
    #expect(handlerTracker.liveCount == 0, "every handler, so every observed-side sentinel, freed")
    #expect(leafTracker.createdCount == leavesPerRound * Self.rounds)
    #expect(toDeallocating.value == 0)
  }

  @Test(
    "Hundreds of observers of one object released on several threads while another mutates: removal from the long list leaves every count exact, nothing reaches a dying observer, everything is freed"
  )
  func longObserverListReleasedConcurrently() {
    // Long enough that the list keeps positions and leaves tombstones (IncomingSentinels).
    let observersPerThread = 100
    let releasingThreads = 3
    let observerTracker = LifetimeTracker()
    let handlerTracker = LifetimeTracker()
    let toDeallocating = Counter()
    let rounds = max(Self.rounds / 10, 10)
    for round in 0..<rounds {
      let subject = SharedCounter()
      let queues = (0..<releasingThreads).map { _ in
        ReleaseQueue(
          (0..<observersPerThread).map { _ in StressObserver(tracker: observerTracker) })
      }
      // Registered interleaved across the threads' queues, so each thread frees slots spread
      // over the whole list.
      let weakObservers = queues.map { $0.weakReferences() }
      for index in 0..<observersPerThread {
        for observers in weakObservers {
          let token = Token(handlerTracker)
          observers[index].object!.autoObserve(subject, keyPath: \.count) { observer, _, _ in
            withExtendedLifetime(token) {}
            if observer.deinitFlag.isRaised { toDeallocating.increment() }
          }
        }
      }
      #expect(subject.observationRegistry.observerCount == observersPerThread * releasingThreads)
      let finished = runSimultaneously(
        queues.map { queue in { queue.releaseAll() } } + [
          {
            for _ in 0..<50 { subject.increment() }
          }
        ], within: 60)
      guard finished else {
        Issue.record("round \(round): the releases did not finish within 60 s")
        return
      }
      #expect(subject.observationRegistry.observerCount == 0, "round \(round)")
      #expect(observerTracker.liveCount == 0, "round \(round)")
    }
    #expect(handlerTracker.liveCount == 0, "every handler, so every observed-side sentinel, freed")
    #expect(toDeallocating.value == 0)
  }

  @Test(
    "A handler running on one thread while its observer's last outside reference is dropped on another: the observer stays alive until the handler returns, then the registration ends"
  )
  func handlerOutlivesObserverRelease() {
    let observerTracker = LifetimeTracker()
    let subject = SharedCounter()
    let observer = Handoff(StressObserver(tracker: observerTracker))
    let inHandler = DispatchSemaphore(value: 0)
    let released = DispatchSemaphore(value: 0)
    let seenDuringHandler = Box<(deinitBegan: Bool, live: Int)>()
    let calls = Counter()
    let handle = observer.object!.autoObserve(subject, keyPath: \.count) { observer, _, _ in
      calls.increment()
      inHandler.signal()
      released.wait()
      seenDuringHandler.value = (observer.deinitFlag.isRaised, observerTracker.liveCount)
    }
    runSimultaneously([
      { subject.increment() },
      {
        inHandler.wait()
        observer.release()
        released.signal()
      },
    ])
    #expect(seenDuringHandler.value?.deinitBegan == false)
    #expect(seenDuringHandler.value?.live == 1)
    #expect(observerTracker.liveCount == 0, "freed on the mutating thread as the handler returned")
    #expect(handle.endReason == .observerDeallocated)
    #expect(subject.observationRegistry.observerCount == 0)
    subject.increment()
    #expect(calls.value == 1)
  }

  @Test(
    "Observers deallocated on other threads while their handlers run: no handler ever sees its observer deallocating"
  )
  func observersDeallocatedDuringDelivery() {
    let observerTracker = LifetimeTracker()
    let clock = LogicalClock()
    let subject = SharedCounter()
    var ledgers: [DeliveryLedger] = []
    for _ in 0..<Self.rounds {
      let observers = (0..<4).map { _ in Handoff(StressObserver(tracker: observerTracker)) }
      for observer in observers {
        let ledger = DeliveryLedger()
        ledgers.append(ledger)
        observer.object!.autoObserve(subject, keyPath: \.count, options: [.prior]) {
          observer, _, change in
          ledger.delivered(
            isPrior: change.isPrior, observerIsDeallocating: observer.deinitFlag.isRaised)
        }
      }
      runSimultaneously(
        [{ for _ in 0..<4 { MutationContext.mutate(on: clock) { subject.increment() } } }]
          + observers.map { $0.release })
    }
    #expect(ledgers.map(\.toDeallocatingObserver).reduce(0, +) == 0)
    #expect(ledgers.map(\.duplicated).reduce(0, +) == 0)
    #expect(observerTracker.liveCount == 0)
    #expect(subject.observationRegistry.observerCount == 0)
  }
}

extension ConcurrentStressTests {
  @Test(
    "One property's first registrations made while another property of the same object is set on another thread: every set reaches its observer exactly once, with its own values"
  )
  func firstRegistrationsWhileAnotherPropertyIsSet() {
    let sets = 50
    for _ in 0..<Self.rounds {
      let subject = TwoPropertySubject()
      let steady = Watcher()
      let received = Counter()
      let wrongValues = Counter()
      steady.autoObserve(subject, keyPath: \.written, options: [.old, .new]) { _, _, change in
        received.increment()
        if change.newValue != change.oldValue.map({ $0 + 1 }) { wrongValues.increment() }
      }
      let transient = Counter()
      runSimultaneously([
        { for value in 1...sets { subject.written = value } },
        {
          for _ in 0..<4 {
            let watcher = Watcher()
            watcher.autoObserve(subject, keyPath: \.registered) { _, _, _ in transient.increment() }
          }
        },
      ])
      #expect(received.value == sets)
      #expect(wrongValues.value == 0)
      #expect(transient.value == 0)
      #expect(subject.observationRegistry.observerCount == 1)
      subject.registered = 1
      #expect(transient.value == 0)
      _ = steady
    }
  }
}

/// Where stress threads leave registrations and observers for other threads to cancel and free.
private final class Mailbox: @unchecked Sendable {  // mutable state guarded by `lock`
  struct Letter {
    let handle: KeyValueObservation
    let ledger: DeliveryLedger
  }

  private let lock = NSLock()
  private var letters: [Letter] = []
  private var observers: [StressObserver] = []
  private var ledgers: [DeliveryLedger] = []

  func post(_ letter: Letter) {
    lock.withLock {
      letters.append(letter)
      ledgers.append(letter.ledger)
    }
  }

  func post(_ observer: StressObserver) {
    lock.withLock { observers.append(observer) }
  }

  func takeLetter(using random: inout SeededRandom) -> Letter? {
    let pick = Int(random.next() >> 1)
    return lock.withLock { letters.isEmpty ? nil : letters.remove(at: pick % letters.count) }
  }

  /// Removes an observer and returns it, so that the caller drops it outside the lock.
  func takeObserver(using random: inout SeededRandom) -> StressObserver? {
    let pick = Int(random.next() >> 1)
    return lock.withLock {
      observers.isEmpty ? nil : observers.remove(at: pick % observers.count)
    }
  }

  /// Drops everything still posted, outside the lock, and returns every ledger ever posted.
  func drain() -> [DeliveryLedger] {
    let (remainingLetters, remainingObservers, allLedgers) = lock.withLock {
      defer {
        letters = []
        observers = []
      }
      return (letters, observers, ledgers)
    }
    withExtendedLifetime((remainingLetters, remainingObservers)) {}
    return allLedgers
  }
}

/// A weak reference to a handle: it reads `nil` once both sentinels, which retain the handle,
/// are freed.
struct WeakObservation {
  weak var handle: KeyValueObservation?

  init(_ handle: KeyValueObservation) {
    self.handle = handle
  }
}
