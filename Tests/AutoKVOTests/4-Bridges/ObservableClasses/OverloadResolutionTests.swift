#if canImport(Observation) && !canImport(ObjectiveC)
  import AutoKVO
  import Dispatch
  import Observation
  import Testing

  /// A pure observer that is also an `@Observable` model's kind of class: both conformances.
  // @unchecked Sendable: its one lock guards its log.
  private final class ObservableWatcher: KeyValueObservable, Observable, @unchecked Sendable {
    let observationRegistry = ObservationRegistry()
    let watcher = Watcher()
  }

  /// Which `autoObserve` and `changes(for:)` each observer × object pair resolves to, with no
  /// overload written for a class that conforms to both `KeyValueObservable` and `Observable`
  /// (the `@Observable`-model forms are `@_disfavoredOverload`). Each test compiles only if its
  /// calls resolve, and tells the forms apart by one behaviour: the engine reports a set of an
  /// equal value, which an `@Observable` model's registrar does not.
  @Suite("Overload resolution: every observer × object pair picks one form, with no tie-breaker")
  struct OverloadResolutionTests {
    @Test("A KeyValueObservable object is observed by the engine, with either delivery form")
    func engineObject() {
      let person = Person(name: "Ann")
      let watcher = Watcher()
      let queue = DispatchQueue(label: "OverloadResolutionTests.engineObject")
      watcher.autoObserve(person, keyPath: \.name, options: .new) { watcher, _, change in
        watcher.record("isolation \(change.newValue!)")
      }
      watcher.autoObserve(person, keyPath: \.name, options: .new, deliveryQueue: queue) {
        watcher, _, change in watcher.record("queue \(change.newValue!)")
      }
      person.name = "Ann"
      queue.sync {}
      // The queue form delivers off this thread: the two registrations' order is not fixed.
      #expect(watcher.log.sorted() == ["isolation Ann", "queue Ann"])
    }

    @Test("An @Observable model is observed by the model forms, with either delivery form")
    func observableModel() {
      let board = Scoreboard()
      let watcher = Watcher()
      let queue = DispatchQueue(label: "OverloadResolutionTests.observableModel")
      watcher.autoObserve(board, keyPath: \.count, options: .new) { watcher, _, change in
        watcher.record("isolation \(change.newValue!)")
      }
      watcher.autoObserve(board, keyPath: \.count, options: .new, deliveryQueue: queue) {
        watcher, _, change in watcher.record("queue \(change.newValue!)")
      }
      board.count = 0
      board.count = 1
      queue.sync {}
      // The queue form delivers off this thread: the two registrations' order is not fixed.
      #expect(watcher.log.sorted() == ["isolation 1", "queue 1"])
    }

    @Test("An object that is both is observed by the engine, with either delivery form")
    func objectThatIsBoth() {
      let contact = Contact()
      let watcher = Watcher()
      let queue = DispatchQueue(label: "OverloadResolutionTests.objectThatIsBoth")
      watcher.autoObserve(contact, keyPath: \.firstName, options: .new) { watcher, _, change in
        watcher.record("isolation \(change.newValue!)")
      }
      watcher.autoObserve(contact, keyPath: \.firstName, options: .new, deliveryQueue: queue) {
        watcher, _, change in watcher.record("queue \(change.newValue!)")
      }
      contact.firstName = "Ann"
      queue.sync {}
      // The queue form delivers off this thread: the two registrations' order is not fixed.
      #expect(watcher.log.sorted() == ["isolation Ann", "queue Ann"])
    }

    @Test("An observer that is both observes each kind of object as any KeyValueObservable does")
    func observerThatIsBoth() {
      let observer = ObservableWatcher()
      let person = Person(name: "Ann")
      let board = Scoreboard()
      let contact = Contact()
      observer.autoObserve(person, keyPath: \.name, options: .new) { observer, _, change in
        observer.watcher.record("person \(change.newValue!)")
      }
      observer.autoObserve(board, keyPath: \.count, options: .new) { observer, _, change in
        observer.watcher.record("board \(change.newValue!)")
      }
      observer.autoObserve(contact, keyPath: \.firstName, options: .new) { observer, _, change in
        observer.watcher.record("contact \(change.newValue!)")
      }
      person.name = "Ann"
      board.count = 0
      contact.firstName = "Ann"
      #expect(observer.watcher.log == ["person Ann", "contact Ann"])
    }

    @Test("An observer that is both resolves the queue form for each kind of object too")
    func observerThatIsBothWithAQueue() {
      let observer = ObservableWatcher()
      let person = Person(name: "Ann")
      let board = Scoreboard()
      let contact = Contact()
      let queue = DispatchQueue(label: "OverloadResolutionTests.observerThatIsBothWithAQueue")
      observer.autoObserve(person, keyPath: \.name, options: .new, deliveryQueue: queue) {
        observer, _, change in observer.watcher.record("person \(change.newValue!)")
      }
      observer.autoObserve(board, keyPath: \.count, options: .new, deliveryQueue: queue) {
        observer, _, change in observer.watcher.record("board \(change.newValue!)")
      }
      observer.autoObserve(contact, keyPath: \.firstName, options: .new, deliveryQueue: queue) {
        observer, _, change in observer.watcher.record("contact \(change.newValue!)")
      }
      person.name = "Ann"
      board.count = 0
      board.count = 1
      contact.firstName = "Ann"
      queue.sync {}
      // One queue, changes made in this order: delivered in this order.
      #expect(observer.watcher.log == ["person Ann", "board 1", "contact Ann"])
    }

    @Test("changes(for:) of an object that is both is the engine's; of a model, the model's")
    func changesSequences() async {
      let contact = Contact()
      let board = Scoreboard()
      var contactChanges = contact.changes(for: \.firstName).makeAsyncIterator()
      var boardChanges = board.changes(for: \.count).makeAsyncIterator()
      contact.firstName = "Ann"
      board.count = 0
      board.count = 1
      #expect(await contactChanges.next()?.newValue == "Ann")
      #expect(await boardChanges.next()?.newValue == 1)
    }
  }
#endif
