import Testing

@testable import AutoKVO

@Suite(
  "Key-path chains: leaf changes and replaced intermediates notify; old intermediates are let go")
struct KeyPathChainTests {
  @Test("A change of the leaf notifies with the whole path's old and new values")
  func leafChange() {
    let owner = Owner(dog: Dog("Rex"))
    let watcher = Watcher()
    watcher.autoObserve(owner, keyPath: \.dog?.name) { w, _, c in w.record(describe(c)) }
    owner.dog?.name = "Max"
    #expect(watcher.log == ["setting Optional(\"Rex\")->Optional(\"Max\")"])
  }

  @Test("Replacing an intermediate notifies; the old one then notifies nothing and is not retained")
  func replacedIntermediate() {
    let tracker = LifetimeTracker()
    var oldDog: Dog? = Dog("Rex", tracker: tracker)
    let owner = Owner(dog: oldDog)
    let watcher = Watcher()
    watcher.autoObserve(owner, keyPath: \.dog?.name, options: .new) { w, _, c in
      w.record("\(c.newValue.flatMap { $0 } ?? "nil")")
    }
    #expect(oldDog!.observationRegistry.observerCount == 1)
    owner.dog = Dog("Max")
    #expect(oldDog!.observationRegistry.observerCount == 0)
    oldDog!.name = "Ghost"
    owner.dog!.name = "Maximus"
    #expect(watcher.log == ["Max", "Maximus"])
    oldDog = nil
    #expect(tracker.liveCount == 0)
  }

  @Test("A nil intermediate yields nil, never a crash, and a later dog is picked up")
  func nilIntermediate() {
    let owner = Owner(dog: nil)
    let watcher = Watcher()
    watcher.autoObserve(owner, keyPath: \.dog?.name, options: [.initial, .new]) { w, _, c in
      w.record("\(c.newValue.flatMap { $0 } ?? "nil")")
    }
    owner.dog = Dog("Rex")
    owner.dog?.name = "Max"
    owner.dog = nil
    #expect(watcher.log == ["nil", "Rex", "Max", "nil"])
  }

  @Test("A non-optional chain of three levels notifies for every level")
  func threeLevels() {
    let dog = Dog("Rex")
    dog.toy = Toy("red")
    let owner = Owner(pet: dog)
    let watcher = Watcher()
    watcher.autoObserve(owner, keyPath: \.pet.toy?.color, options: .new) { w, _, c in
      w.record("\(c.newValue.flatMap { $0 } ?? "nil")")
    }
    dog.toy?.color = "blue"
    dog.toy = Toy("green")
    let spot = Dog("Spot")
    spot.toy = Toy("gold")
    owner.pet = spot
    dog.toy?.color = "ignored"
    #expect(watcher.log == ["blue", "green", "gold"])
  }

  @Test("When the observed root dies, every internal registration on intermediates is removed")
  func rootDeathRemovesChainLinks() {
    let dog = Dog("Rex")
    let toy = Toy("red")
    dog.toy = toy
    var owner: Owner? = Owner(dog: dog)
    let watcher = Watcher()
    let observation = watcher.autoObserve(owner!, keyPath: \.dog?.toy?.color) { _, _, _ in }
    #expect(dog.observationRegistry.observerCount == 1)
    #expect(toy.observationRegistry.observerCount == 1)
    owner = nil
    #expect(observation.isCancelled)
    #expect(dog.observationRegistry.observerCount == 0)
    #expect(toy.observationRegistry.observerCount == 0)
  }

  @Test("When the observer dies or cancels, the internal registrations are removed too")
  func observerDeathRemovesChainLinks() {
    let dog = Dog("Rex")
    let owner = Owner(dog: dog)
    var watcher: Watcher? = Watcher()
    watcher!.autoObserve(owner, keyPath: \.dog?.name) { _, _, _ in }
    let second = Watcher()
    let observation = second.autoObserve(owner, keyPath: \.dog?.name) { _, _, _ in }
    #expect(dog.observationRegistry.observerCount == 2)
    watcher = nil
    #expect(dog.observationRegistry.observerCount == 1)
    observation.cancel()
    #expect(dog.observationRegistry.observerCount == 0)
    #expect(owner.observationRegistry.observerCount == 0)
  }

  @Test(
    "An intermediate held by a plain weak property that dies ends its link and reads nothing; the next change of a declared hop reads the path again"
  )
  func plainWeakIntermediateDies() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let owner = Owner()
    var walker: Dog? = Dog("Walker")
    owner.walker = walker
    let watcher = Watcher()
    var changes: [KeyValueChange<String?>] = []
    watcher.autoObserve(owner, keyPath: \.walker?.name, options: [.new]) { _, _, c in
      changes.append(c)
    }
    #expect(diagnostics.kinds == [.unobservedIntermediate])
    // The registration and its watch of the owner's manual changes (the hop may be notified by
    // hand), and the link on the walker.
    #expect(owner.observationRegistry.observerCount == 2)
    #expect(walker!.observationRegistry.observerCount == 1)
    walker!.name = "Runner"
    walker = nil
    // The plain weak property's zeroing is not a change AutoKVO sees, as KVO does not.
    #expect(changes.map(\.newValue) == [.some("Runner")])
    #expect(owner.observationRegistry.observerCount == 2)
  }

  @Test("A chain through the observed object itself creates no internal registration elsewhere")
  func chainThroughSelf() {
    let person = Person(name: "Ann")
    let watcher = Watcher()
    watcher.autoObserve(person, keyPath: \.name.count) { w, _, c in w.record(describe(c)) }
    person.name = "Anna"
    #expect(watcher.log == ["setting 3->4"])
    #expect(person.observationRegistry.observerCount == 1)
  }
}

@Suite(
  "Dependencies: computed properties and declared dependencies notify without hanging or repeating")
struct DependencyTests {
  @Test("A dependency that appears only in one branch is picked up when the branch changes")
  func branchDependency() {
    let owner = Owner()
    let watcher = Watcher()
    watcher.autoObserve(owner, keyPath: \.displayName, options: .new) { w, _, c in
      w.record(c.newValue ?? "nil")
    }
    owner.nickname = "Buddy"  // not read yet: no notification
    owner.useNickname = true
    owner.nickname = "Pal"
    owner.pet.name = "Fido"  // no longer read
    owner.useNickname = false
    owner.pet.name = "Rover"
    #expect(watcher.log == ["Buddy", "Pal", "Fido", "Rover"])
  }

  @Test("A registration that starts reading a property gets its sets in registration order")
  func registrationOrderAfterRediscovery() {
    let owner = Owner()
    let log = Box<[String]>()
    log.value = []
    let first = Watcher()
    let second = Watcher()
    first.autoObserve(owner, keyPath: \.displayName, options: .new) { _, _, change in
      log.value!.append("displayName \(change.newValue ?? "")")
    }
    second.autoObserve(owner, keyPath: \.nickname, options: .new) { _, _, change in
      log.value!.append("nickname \(change.newValue ?? "")")
    }
    owner.useNickname = true  // `displayName` reads `nickname` from now on
    log.value = []
    owner.nickname = "Pal"
    #expect(log.value == ["displayName Pal", "nickname Pal"])
  }

  @Test("Declared dependencies notify a computed property whose getter reads no @Observed property")
  func declaredDependencies() {
    let document = Document()
    let watcher = Watcher()
    watcher.autoObserve(document, keyPath: \.title) { w, _, _ in w.record("title") }
    document.first = "X"
    document.last = "Y"
    #expect(watcher.log == ["title", "title"])
  }

  @Test("A cycle among declared dependencies neither hangs nor notifies twice for one change")
  func cycleDoesNotRepeat() {
    let document = Document()
    let watcher = Watcher()
    watcher.autoObserve(document, keyPath: \.alias) { w, _, _ in w.record("alias") }
    document.first = "X"
    #expect(watcher.log == ["alias"])
  }

  @Test("A diamond (two paths to one property) notifies once per change")
  func diamondNotifiesOnce() {
    let document = Document()
    let watcher = Watcher()
    watcher.autoObserve(document, keyPath: \.fullName) { w, _, c in w.record(describe(c)) }
    document.first = "Z"
    #expect(watcher.log == ["setting A B->Z B"])
  }

  @Test("Manual notification of a declared dependency notifies the dependent key path")
  func manualDependency() {
    let document = Document()
    let watcher = Watcher()
    watcher.autoObserve(document, keyPath: \.title) { w, _, c in w.record(describe(c)) }
    document.willChangeValue(for: \.alias)
    document.cache = "cached"
    document.didChangeValue(for: \.alias)
    #expect(watcher.log == ["setting ->cached"])
  }
}

@Suite("Chains under races: the root, an intermediate and the observer dying at once")
struct KeyPathChainRaceTests {
  @Test("The root and an intermediate deallocated at the same moment on two threads")
  func rootAndIntermediateAtOnce() {
    let tracker = LifetimeTracker()
    let watcher = Watcher()
    for _ in 0..<300 {
      let dog = Handoff(Dog("Rex", tracker: tracker))
      let owner = Handoff(Owner(dog: dog.object!))
      let observation = watcher.autoObserve(owner.object!, keyPath: \.dog?.name) { _, _, _ in }
      #expect(dog.object!.observationRegistry.observerCount == 1)
      runSimultaneously([owner.release, dog.release])
      #expect(observation.endReason == .observedDeallocated)
    }
    #expect(tracker.liveCount == 0)
    #expect(watcher.observationRegistry.observingCount == 0)
  }

  @Test("The observer and a weakly held intermediate deallocated at the same moment on two threads")
  func observerAndWeakIntermediateAtOnce() {
    let dogs = LifetimeTracker()
    let handlers = LifetimeTracker()
    let owner = Owner()
    for _ in 0..<300 {
      let walker = Handoff(Dog("Walker", tracker: dogs))
      owner.walker = walker.object
      let watcher = Handoff(Watcher())
      let token = Token(handlers)
      let observation = watcher.object!.autoObserve(owner, keyPath: \.walker?.name) { _, _, _ in
        _ = token
      }
      _ = consume token
      runSimultaneously([watcher.release, walker.release])
      #expect(observation.endReason == .observerDeallocated)
      #expect(owner.observationRegistry.observerCount == 0)
    }
    #expect(dogs.liveCount == 0)
    #expect(handlers.liveCount == 0, "every handler, and what it captured, was released")
  }
}
