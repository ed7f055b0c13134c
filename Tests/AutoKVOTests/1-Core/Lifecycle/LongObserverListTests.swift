import Testing

@testable import AutoKVO

/// An observer that knows its place in the order of registration.
private final class NumberedObserver: KeyValueObservable, @unchecked Sendable {  // single-threaded
  let observationRegistry = ObservationRegistry()
  let number: Int

  init(number: Int) {
    self.number = number
  }
}

/// A registration of one ``NumberedObserver`` on the shared person, as the test keeps it.
private struct Registration {
  var observer: NumberedObserver?
  let handle: KeyValueObservation
}

@Suite("Long observer lists: removal keeps counts, order and teardown exact")
struct LongObserverListTests {
  /// Registers `count` observers on `person`, numbered from `first`; each handler appends its
  /// observer's number to `log`.
  private func register(
    _ count: Int,
    from first: Int,
    on person: Person,
    log: Box<[Int]>,
    handlers: LifetimeTracker
  ) -> [Registration] {
    (first..<first + count).map { number in
      let observer = NumberedObserver(number: number)
      let token = Token(handlers)
      let handle = observer.autoObserve(person, keyPath: \.age) { observer, _, _ in
        withExtendedLifetime(token) {}
        log.value!.append(observer.number)
      }
      return Registration(observer: observer, handle: handle)
    }
  }

  @Test(
    "Observers of one object removed in a seeded random order, by cancel() or deallocation: after each removal the count and the handlers alive are exact, and every change reaches exactly the live observers in registration order"
  )
  func removalInRandomOrder() {
    for seed: UInt64 in [1, 2, 3] {
      var random = SeededRandom(seed: seed)
      let person = Person()
      let log = Box<[Int]>()
      log.value = []
      let handlers = LifetimeTracker()
      // Well over the indexing threshold, so that removals leave tombstones and compact.
      var registrations = register(300, from: 0, on: person, log: log, handlers: handlers)
      var live = Array(0..<300)
      var removals = 0

      func checkDelivery() {
        log.value = []
        person.age += 1
        #expect(log.value == live, "seed \(seed), after \(removals) removals")
      }

      while !live.isEmpty {
        let number = live.remove(at: Int.random(in: 0..<live.count, using: &random))
        let index = registrations.firstIndex { $0.observer?.number == number }!
        if Bool.random(using: &random) {
          registrations[index].handle.cancel()
        } else {
          registrations[index].observer = nil
          #expect(registrations[index].handle.isCancelled)
        }
        registrations[index].observer = nil
        removals += 1
        #expect(person.observationRegistry.observerCount == live.count)
        #expect(handlers.liveCount == live.count, "the removed handler is released at once")
        if removals.isMultiple(of: 17) { checkDelivery() }
        // New registrations made between removals come after every older one.
        if removals == 150 {
          registrations += register(40, from: 1000, on: person, log: log, handlers: handlers)
          live += Array(1000..<1040)
          checkDelivery()
        }
      }
      checkDelivery()
      #expect(log.value == [])
      #expect(handlers.createdCount == 340)
    }
  }

  @Test(
    "Observers of one object freed newest first and oldest first: the count is exact throughout and each observer's registry ends its registration"
  )
  func removalNewestAndOldestFirst() {
    for newestFirst in [true, false] {
      let person = Person()
      let log = Box<[Int]>()
      log.value = []
      let handlers = LifetimeTracker()
      var registrations = register(500, from: 0, on: person, log: log, handlers: handlers)
      if !newestFirst { registrations.reverse() }
      var remaining = 500
      while var last = registrations.popLast() {
        last.observer = nil
        remaining -= 1
        #expect(last.handle.isCancelled)
        #expect(person.observationRegistry.observerCount == remaining)
        if remaining == 250 {
          log.value = []
          person.age += 1
          #expect(log.value == (newestFirst ? Array(0..<250) : Array(250..<500)))
        }
      }
      #expect(handlers.liveCount == 0)
    }
  }

  @Test(
    "An object deallocated while its long observer list holds tombstones ends every remaining registration exactly once"
  )
  func deallocationWithTombstones() {
    var person: Person? = Person()
    let log = Box<[Int]>()
    log.value = []
    let handlers = LifetimeTracker()
    let registrations = register(100, from: 0, on: person!, log: log, handlers: handlers)
    // Fewer removals than remaining registrations: the tombstones are not compacted away.
    for registration in registrations.prefix(40) where registration.observer!.number % 2 == 0 {
      registration.handle.cancel()
    }
    #expect(person!.observationRegistry.observerCount == 80)
    person = nil
    #expect(registrations.allSatisfy { $0.handle.isCancelled })
    #expect(
      registrations.filter { $0.handle.endReason == .observedDeallocated }.count == 80,
      "the 80 registrations still live ended because the object was deallocated")
    #expect(registrations.allSatisfy { $0.observer!.observationRegistry.observingCount == 0 })
    #expect(handlers.liveCount == 0)
  }

  @Test(
    "Handlers that cancel later registrations of a long list during one change: the cancelled ones are not called for it, and the next change reaches exactly the rest, in order"
  )
  func cancelInsideCallback() {
    let person = Person()
    let log = Box<[Int]>()
    log.value = []
    let handles = Box<[KeyValueObservation]>()
    handles.value = []
    let handlers = LifetimeTracker()
    // Observer n's handler logs n; every tenth one also cancels the registration five places
    // later, which the same change has not reached yet.
    let observers = (0..<120).map { NumberedObserver(number: $0) }
    for observer in observers {
      let token = Token(handlers)
      handles.value!.append(
        observer.autoObserve(person, keyPath: \.age) { observer, _, _ in
          withExtendedLifetime(token) {}
          log.value!.append(observer.number)
          if observer.number % 10 == 0 { handles.value![observer.number + 5].cancel() }
        })
    }
    let survivors = (0..<120).filter { $0 % 10 != 5 }
    withExtendedLifetime(observers) {
      person.age += 1
      #expect(log.value == survivors)
      #expect(person.observationRegistry.observerCount == survivors.count)
      #expect(handlers.liveCount == survivors.count, "each cancelled handler released at once")
      log.value = []
      person.age += 1
      #expect(log.value == survivors)
    }
  }

  @Test(
    "A long list whose object and observers are all released at the same moment on several threads: every registration ends once and everything is freed"
  )
  func objectAndObserversReleasedTogether() {
    let handlers = LifetimeTracker()
    for round in 0..<20 {
      let person = Handoff(Person())
      let observers = ReleaseQueue((0..<200).map { NumberedObserver(number: $0) })
      var handles: [KeyValueObservation] = []
      for box in observers.weakReferences() {
        let token = Token(handlers)
        handles.append(
          box.object!.autoObserve(person.object!, keyPath: \.name) { _, _, _ in
            withExtendedLifetime(token) {}
          })
      }
      let finished = runSimultaneously(
        [observers.releaseAll, person.release, observers.releaseAll], within: 60)
      guard finished else {
        Issue.record("round \(round): the releases did not finish within 60 s")
        return
      }
      #expect(handles.allSatisfy { $0.isCancelled }, "round \(round)")
      #expect(handlers.liveCount == 0, "round \(round)")
    }
  }
}
