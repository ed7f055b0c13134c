import Testing

@testable import AutoKVO

/// The frozen list of registrations a set of a property delivers to is made by the first set and
/// shared by later ones until the list changes; these tests change the list between sets in every
/// way a registration can begin or end, and check each set against the registrations live then.
@Suite("A property's frozen list of registrations: every set reaches exactly the live ones")
struct PropertySnapshotTests {
  /// Registers `watcher` on `person.age`; the handler logs `label` with the old and new values
  /// (and `prior` for a prior call), and holds a token of `handlers` for as long as it lives.
  @discardableResult
  private func observeAge(
    of person: Person,
    by watcher: Watcher,
    _ label: String,
    options: ObservationOptions = [.old, .new],
    handlers: LifetimeTracker
  ) -> KeyValueObservation {
    let token = Token(handlers)
    return watcher.autoObserve(person, keyPath: \.age, options: options) { watcher, _, change in
      withExtendedLifetime(token) {}
      let values =
        "\(change.oldValue.map(String.init) ?? "-")>\(change.newValue.map(String.init) ?? "-")"
      watcher.record(change.isPrior ? "\(label) prior \(values)" : "\(label) \(values)")
    }
  }

  @Test(
    "Registrations added, cancelled, deallocated and added with .prior between sets: each set reaches exactly the registrations live when it began, with exact values, and an ended registration's handler is released at once"
  )
  func listChangesBetweenSets() {
    let handlers = LifetimeTracker()
    let person = Person(age: 0)
    let log = Watcher()
    person.age = 1  // nobody observes: no frozen list is made, nothing is delivered

    let first = observeAge(of: person, by: log, "A", handlers: handlers)
    person.age = 2
    person.age = 3  // the same frozen list, shared by both sets
    #expect(log.log == ["A 1>2", "A 2>3"])

    var second: Watcher? = Watcher()
    observeAge(of: person, by: second!, "B", handlers: handlers)
    person.age = 4
    #expect(log.log == ["A 1>2", "A 2>3", "A 3>4"])
    #expect(second!.log == ["B 3>4"])

    first.cancel()
    #expect(handlers.liveCount == 1, "A's handler is released by cancel(), not kept by the list")
    person.age = 5
    #expect(log.log == ["A 1>2", "A 2>3", "A 3>4"])
    #expect(second!.log == ["B 3>4", "B 4>5"])

    second = nil
    #expect(handlers.liveCount == 0, "B's handler is released with its observer")
    person.age = 6
    #expect(person.observationRegistry.observerCount == 0)

    let third = Watcher()
    observeAge(of: person, by: third, "C", options: [.old, .new, .prior], handlers: handlers)
    person.age = 7
    #expect(third.log == ["C prior 6>-", "C 6>7"])
    observeAge(of: person, by: third, "D", handlers: handlers)
    person.age = 8
    #expect(third.log == ["C prior 6>-", "C 6>7", "C prior 7>-", "C 7>8", "D 7>8"])
    #expect(handlers.liveCount == 2)
  }

  @Test(
    "Each property of one object keeps its own frozen list, whichever order registrations first read them in: a set reaches exactly the live registrations it concerns, a computed property's included, and a property whose registrations all ended notifies nobody until a new one comes"
  )
  func propertiesOfOneObjectKeepTheirOwnLists() {
    let person = Person(name: "Ann", age: 30)
    let watcher = Watcher()
    // First read: `age`, then `name` (through `summary`), so the object's properties are listed
    // in another order than they are declared in.
    let ages = watcher.autoObserve(person, keyPath: \.age) { watcher, _, change in
      watcher.record("A \(change.oldValue!)>\(change.newValue!)")
    }
    let summaries = watcher.autoObserve(person, keyPath: \.summary) { watcher, _, change in
      watcher.record("S \(change.oldValue!)>\(change.newValue!)")
    }
    var names = watcher.autoObserve(person, keyPath: \.name) { watcher, _, change in
      watcher.record("N \(change.oldValue!)>\(change.newValue!)")
    }
    person.age = 31
    person.name = "Bo"
    #expect(
      watcher.log == [
        "A 30>31", "S Ann (30)>Ann (31)", "S Ann (31)>Bo (31)", "N Ann>Bo",
      ])

    summaries.cancel()
    person.name = "Cy"
    person.age = 32
    #expect(watcher.log.dropFirst(4) == ["N Bo>Cy", "A 31>32"])

    names.cancel()
    person.name = "Di"  // `name` concerns no live registration now
    person.age = 33
    #expect(watcher.log.dropFirst(6) == ["A 32>33"])

    names = watcher.autoObserve(person, keyPath: \.name) { watcher, _, change in
      watcher.record("M \(change.oldValue!)>\(change.newValue!)")
    }
    person.name = "Ed"
    person.age = 34
    #expect(watcher.log.dropFirst(7) == ["M Di>Ed", "A 33>34"])
    withExtendedLifetime((ages, names)) {}
  }

  @Test(
    "Frozen lists on two properties of one object, then either side deallocated first: every registration ends once, for the side that died, every handler is freed, and later sets reach nobody",
    arguments: [true, false])
  func twoFrozenListsThenEitherSideDies(observedDiesFirst: Bool) {
    let handlers = LifetimeTracker()
    let objects = LifetimeTracker()
    var person: Person? = Person(name: "Ann", age: 30, tracker: objects)
    var watcher: Watcher? = Watcher(tracker: objects)
    let log = Watcher()
    // `age` is the object's first observed property (inline), `name` its second.
    let handles = [
      observeAge(of: person!, by: watcher!, "A", handlers: handlers),
      watcher!.autoObserve(person!, keyPath: \.name) {
        [token = Token(handlers)] _, _, change in
        withExtendedLifetime(token) {}
        log.record("N \(change.oldValue!)>\(change.newValue!)")
      },
    ]
    person!.age = 31
    person!.name = "Bo"  // both properties now hold a frozen list
    #expect(watcher!.log == ["A 30>31"])
    #expect(log.log == ["N Ann>Bo"])
    #expect(handlers.liveCount == 2)

    if observedDiesFirst {
      person = nil
      #expect(handles.allSatisfy { $0.endReason == .observedDeallocated })
      #expect(handlers.liveCount == 0, "neither frozen list kept a handler alive")
      #expect(watcher!.activeObservations.isEmpty)
      watcher = nil
    } else {
      watcher = nil
      #expect(handles.allSatisfy { $0.endReason == .observerDeallocated })
      #expect(handlers.liveCount == 0, "neither frozen list kept a handler alive")
      #expect(person!.observationRegistry.observerCount == 0)
      person!.age = 32
      person!.name = "Cy"
      #expect(log.log == ["N Ann>Bo"], "an ended registration is not reached by a later set")
      person = nil
    }
    #expect(objects.liveCount == 0)
  }

  @Test(
    "A handler that registers another observer during a set: the new registration is not notified of that set, and is of the next one, once"
  )
  func registrationDuringSet() {
    let handlers = LifetimeTracker()
    let person = Person(age: 0)
    let watcher = Watcher()
    let late = Watcher()
    var lateRegistered = false
    let token = Token(handlers)
    let handle = watcher.autoObserve(person, keyPath: \.age) { watcher, person, change in
      withExtendedLifetime(token) {}
      watcher.record("A \(change.newValue!)")
      if !lateRegistered {
        lateRegistered = true
        late.autoObserve(person, keyPath: \.age) { late, _, change in
          late.record("B \(change.newValue!)")
        }
      }
    }
    person.age = 1
    #expect(watcher.log == ["A 1"])
    #expect(late.log == [])
    person.age = 2
    #expect(watcher.log == ["A 1", "A 2"])
    #expect(late.log == ["B 2"])
    withExtendedLifetime(handle) {}
  }

  @Test(
    "The observed object deallocated after its sets made the frozen list: each registration ends once, as observed-deallocated, and the object, the handlers and the observers are freed"
  )
  func observedDeallocatedAfterSets() {
    let handlers = LifetimeTracker()
    let objects = LifetimeTracker()
    var person: Person? = Person(age: 0, tracker: objects)
    let first = Watcher(tracker: objects)
    let second = Watcher(tracker: objects)
    let handles = [
      observeAge(of: person!, by: first, "A", handlers: handlers),
      observeAge(of: person!, by: second, "B", handlers: handlers),
    ]
    person!.age = 1
    person!.age = 2
    #expect(first.log == ["A 0>1", "A 1>2"])
    #expect(second.log == ["B 0>1", "B 1>2"])
    person = nil
    #expect(objects.liveCount == 2, "the person is freed; the list it made keeps nothing alive")
    #expect(handlers.liveCount == 0)
    #expect(handles.allSatisfy { $0.endReason == .observedDeallocated })
    #expect(first.activeObservations.isEmpty)
    #expect(second.activeObservations.isEmpty)
  }

  @Test(
    "A handler that cancels its own registration and a later one during a set: the later one is not called for that set, neither is called again, and both handlers are freed once the set returns"
  )
  func cancelInsideHandlerDuringSet() {
    let handlers = LifetimeTracker()
    let person = Person(age: 0)
    let watcher = Watcher()
    var own: KeyValueObservation?
    let later = Box<KeyValueObservation>()
    own = watcher.autoObserve(person, keyPath: \.age) {
      [token = Token(handlers)] watcher, _, change in
      withExtendedLifetime(token) {}
      watcher.record("A \(change.newValue!)")
      own?.cancel()
      later.value?.cancel()
    }
    later.value = observeAge(of: person, by: watcher, "B", handlers: handlers)
    #expect(handlers.liveCount == 2)
    person.age = 1
    #expect(watcher.log == ["A 1"])
    #expect(handlers.liveCount == 0, "the set that held the frozen list released it on return")
    person.age = 2
    #expect(watcher.log == ["A 1"])
    #expect(own?.endReason == .cancelled)
    #expect(later.value?.endReason == .cancelled)
  }

  @Test(
    "A frozen list lives exactly as long as its holders: made with its property's hold, it outlives each hold given back but the last, and the last frees it"
  )
  func holdersFreeTheListExactlyOnce() {
    for sets in 0..<3 {
      let snapshot = PropertySnapshot.make(
        keyPath: \Person.age, sentinels: InlineFirstArray(), needsNoticeBeforeChange: false)
      weak let list = snapshot.takeUnretainedValue()
      for _ in 0..<sets {
        snapshot._withUnsafeGuaranteedRef { $0.addHolder() }
      }
      for given in 0..<sets {
        PropertySnapshot.removeHolder(snapshot)
        #expect(list != nil, "freed after \(given + 1) of \(sets + 1) holds were given back")
      }
      PropertySnapshot.removeHolder(snapshot)
      #expect(list == nil, "not freed when the last of \(sets + 1) holds was given back")
    }
  }
}
