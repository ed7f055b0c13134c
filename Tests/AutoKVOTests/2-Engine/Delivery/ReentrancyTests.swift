import Testing

@testable import AutoKVO

@Suite("Re-entrancy: handlers may mutate, register, cancel and release anything")
struct ReentrancyTests {
  @Test("A handler that mutates the observed object gets the nested notification")
  func nestedMutation() {
    let person = Person(age: 0)
    let watcher = Watcher()
    watcher.autoObserve(person, keyPath: \.age) { w, p, c in
      w.record(describe(c))
      if p.age < 3 { p.age += 1 }
    }
    person.age = 1
    #expect(watcher.log == ["setting 0->1", "setting 1->2", "setting 2->3"])
    #expect(person.age == 3)
  }

  @Test(
    "Observers after a handler that sets again get the values of the set they are told of, as in KVO"
  )
  func laterObserversKeepTheirSetsValues() {
    let person = Person(age: 0)
    let first = Watcher()
    let second = Watcher()
    first.autoObserve(person, keyPath: \.age) { w, p, c in
      w.record(describe(c))
      if p.age == 1 { p.age = 2 }
    }
    second.autoObserve(person, keyPath: \.age) { w, _, c in w.record(describe(c)) }
    person.age = 1
    #expect(first.log == ["setting 0->1", "setting 1->2"])
    // The nested set is delivered in full first; the outer one then reaches `second` with its own
    // old and new values, not with the property's value at that moment.
    #expect(second.log == ["setting 1->2", "setting 0->1"])
    #expect(person.age == 2)
  }

  @Test("A registration made inside a handler is not called for the change in flight")
  func registerInsideHandler() {
    let person = Person()
    let watcher = Watcher()
    let late = Watcher()
    var registered = false
    watcher.autoObserve(person, keyPath: \.name) { _, p, _ in
      guard !registered else { return }
      registered = true
      late.autoObserve(p, keyPath: \.name) { w, _, c in w.record(describe(c)) }
    }
    person.name = "Bob"
    #expect(late.log.isEmpty)
    person.name = "Cid"
    #expect(late.log == ["setting Bob->Cid"])
  }

  @Test("A handler that cancels its own registration gets no after call once it returns")
  func cancelOwnInPrior() {
    let person = Person()
    let watcher = Watcher()
    var observation: KeyValueObservation?
    observation = watcher.autoObserve(person, keyPath: \.name, options: [.prior, .new]) {
      w, _, c in
      w.record(describe(c))
      observation?.cancel()
    }
    person.name = "Bob"
    #expect(watcher.log == ["prior setting nil->nil"])
    #expect(person.observationRegistry.observerCount == 0)
  }

  @Test("A handler that cancels a later registration: the later one is not called")
  func cancelOtherRegistration() {
    let person = Person()
    let watcher = Watcher()
    var second: KeyValueObservation?
    watcher.autoObserve(person, keyPath: \.name) { w, _, _ in
      w.record("first")
      second?.cancel()
    }
    second = watcher.autoObserve(person, keyPath: \.name) { w, _, _ in w.record("second") }
    person.name = "Bob"
    #expect(watcher.log == ["first"])
  }

  @Test(
    "A collection change's handler that cancels a later registration: the later one is not called"
  )
  func cancelOtherRegistrationInCollectionChange() {
    let playlist = Playlist()
    let watcher = Watcher()
    var second: KeyValueObservation?
    watcher.autoObserve(playlist, keyPath: \.songs, options: .new) { w, _, c in
      w.record("first \(c.kind) \(c.newValue ?? [])")
      second?.cancel()
    }
    second = watcher.autoObserve(playlist, keyPath: \.songs) { w, _, _ in w.record("second") }
    let songs = playlist.mutableArrayValue(for: \.songs)
    songs.append("a")
    songs.remove(at: 0)
    #expect(watcher.log == ["first insertion [\"a\"]", "first removal []"])
    #expect(playlist.observationRegistry.observerCount == 1)
  }

  @Test(
    "A collection change's prior handler that drops its observer: the after call is skipped"
  )
  func releaseObserverInCollectionPrior() {
    let tracker = LifetimeTracker()
    let playlist = Playlist()
    var holder: Watcher? = Watcher(tracker: tracker)
    let calls = Counter()
    holder!.autoObserve(playlist, keyPath: \.songs, options: [.prior, .old, .new]) { _, _, c in
      #expect(c.isPrior)
      calls.increment()
      holder = nil
    }
    playlist.mutableArrayValue(for: \.songs).append("a")
    #expect(calls.value == 1, "the prior call ran; the observer died before the after call")
    #expect(tracker.liveCount == 0)
    #expect(playlist.songs == ["a"])
    #expect(playlist.observationRegistry.observerCount == 0)
  }

  @Test(
    "A handler that drops the last reference to its observer: later calls are skipped, no crash")
  func releaseObserverInsideHandler() {
    let tracker = LifetimeTracker()
    let person = Person()
    var holder: Watcher? = Watcher(tracker: tracker)
    let calls = Counter()
    holder!.autoObserve(person, keyPath: \.name, options: [.prior, .new]) { _, _, _ in
      calls.increment()
      holder = nil
    }
    person.name = "Bob"
    #expect(calls.value == 1, "the prior call ran; the observer died before the after call")
    #expect(tracker.liveCount == 0)
    #expect(person.observationRegistry.observerCount == 0)
  }

  @Test("A handler that drops the last reference to the observed object: no crash, teardown once")
  func releaseObservedInsideHandler() {
    let tracker = LifetimeTracker()
    let watcher = Watcher()
    var person: Person? = Person(tracker: tracker)
    let observation = watcher.autoObserve(person!, keyPath: \.name) { w, _, c in
      w.record(describe(c))
      person = nil
    }
    person!.name = "Bob"
    #expect(watcher.log == ["setting Ann->Bob"])
    #expect(tracker.liveCount == 0)
    #expect(observation.endReason == .observedDeallocated)
    #expect(watcher.observationRegistry.observingCount == 0)
  }

  @Test("A handler may register on and observe the object that is notifying it")
  func registerOnSelfInsideHandler() {
    let person = Person()
    var registrations = 0
    person.autoObserve(person, keyPath: \.age) { me, _, _ in
      if registrations < 2 {
        registrations += 1
        me.autoObserve(me, keyPath: \.name) { _, _, _ in }
      }
    }
    person.age = 1
    person.age = 2
    person.age = 3
    #expect(person.observationRegistry.observerCount == 3)
    #expect(person.observationRegistry.observingCount == 3)
  }
}
