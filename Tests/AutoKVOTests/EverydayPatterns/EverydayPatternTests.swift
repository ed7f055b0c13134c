import Foundation
import Testing

@testable import AutoKVO

// Code users write on their first day, one pattern per test, each named as a sentence about what
// it does.

@Suite("Everyday patterns: overrides")
struct OverridePatternTests {
  @Test("Observing an overridden property through the subclass delivers what the override reads")
  func subclassKeyPathThroughOverride() {
    let shape = ScaledShape()
    let watcher = Watcher()
    watcher.autoObserve(shape, keyPath: \.size, options: [.old, .new]) { w, _, change in
      w.record(describe(change))
    }
    shape.size = 50
    shape.size = 70
    #expect(watcher.log == ["setting 10->50", "setting 50->70"])
  }

  @Test(
    "Observing the base class's key path on an instance whose class overrides it delivers what the override reads"
  )
  func baseKeyPathOnOverridingInstance() {
    let shape: Shape = ScaledShape()
    let watcher = Watcher()
    watcher.autoObserve(shape, keyPath: \Shape.size, options: [.old, .new, .prior]) {
      w, _, change in
      w.record(change.isPrior ? "prior \(change.oldValue!)" : describe(change))
    }
    shape.size = 50
    #expect(watcher.log == ["prior 10", "setting 10->50"])
  }

  @Test(
    "A subclass that does not override an inherited @Observed property delivers the stored values")
  func inheritedWithoutOverride() {
    let employee = Employee()
    let watcher = Watcher()
    watcher.autoObserve(employee, keyPath: \.name, options: [.old, .new]) { w, _, change in
      w.record(describe(change))
    }
    employee.name = "Ann"
    #expect(watcher.log == ["setting Base->Ann"])
  }
}

@Suite("Everyday patterns: inherited collections")
struct InheritedCollectionPatternTests {
  @Test(
    "Proxy changes of an inherited @Observed array keep their kind, indexes and elements, synchronously and on a queue"
  )
  func inheritedArrayChanges() async {
    let library = CornerBookshelf()
    let queue = DispatchQueue(label: "autokvo.tests.everyday.library")
    let watcher = Watcher()
    let describeArray: @Sendable (Watcher, KeyValueChange<[String]>, String) -> Void = {
      w, change, label in
      w.record("\(label) \(change.kind) \(Array(change.indexes ?? [])) \(describe(change))")
    }
    watcher.autoObserve(library, keyPath: \.books, options: [.old, .new, .prior]) { w, _, c in
      describeArray(w, c, "sync")
    }
    watcher.autoObserve(
      library, keyPath: \.books, options: [.old, .new, .prior], deliveryQueue: queue
    ) { w, _, c in describeArray(w, c, "queue") }
    let hold = DispatchSemaphore(value: 0)
    queue.async { hold.wait() }
    let books = library.mutableArrayValue(for: \.books)
    books.append("a")
    books.insert("b", at: 0)
    #expect(books.remove(at: 1) == "a")
    hold.signal()
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(
      watcher.log == [
        "sync insertion [0] prior insertion nil->nil", "sync insertion [0] insertion nil->[\"a\"]",
        "sync insertion [0] prior insertion nil->nil", "sync insertion [0] insertion nil->[\"b\"]",
        "sync removal [1] prior removal [\"a\"]->nil", "sync removal [1] removal [\"a\"]->nil",
        "queue insertion [0] prior insertion nil->nil",
        "queue insertion [0] insertion nil->[\"a\"]",
        "queue insertion [0] prior insertion nil->nil",
        "queue insertion [0] insertion nil->[\"b\"]",
        "queue removal [1] prior removal [\"a\"]->nil", "queue removal [1] removal [\"a\"]->nil",
      ])
  }
}

@Suite("Everyday patterns: property observers and handlers that set")
struct PropertyObserverPatternTests {
  @Test("A clamping didSet is a second set: observers hear 0->15, then 15->10")
  func clampingDidSetReportsTwice() {
    let speaker = Speaker()
    let watcher = Watcher()
    watcher.autoObserve(speaker, keyPath: \.volume) { w, _, change in w.record(describe(change)) }
    speaker.volume = 15
    #expect(watcher.log == ["setting 0->15", "setting 15->10"])
    #expect(speaker.volume == 10)
  }

  @Test("A value clamped before it is stored is reported once, with the clamped value")
  func clampBeforeStoringReportsOnce() {
    let speaker = Speaker()
    let watcher = Watcher()
    watcher.autoObserve(speaker, keyPath: \.level) { w, _, change in w.record(describe(change)) }
    speaker.level = 15
    #expect(watcher.log == ["setting 0->10"])
  }

  @Test("A handler that sets the property it observes is called again for its own set, as KVO's is")
  func handlerSettingItsPropertyRecurses() {
    let person = Person(age: 0)
    let watcher = Watcher()
    watcher.autoObserve(person, keyPath: \.age) { w, person, change in
      w.record(describe(change))
      // The guard is the handler's: nothing stops the recursion but it.
      if change.newValue! < 3 { person.age = change.newValue! + 1 }
    }
    person.age = 1
    #expect(watcher.log == ["setting 0->1", "setting 1->2", "setting 2->3"])
  }
}

@Suite("Everyday patterns: a registry serves one object")
struct SharedRegistryPatternTests {
  @Test(
    "Observing a second object that shares the first one's registry is reported and refused; the first keeps its registrations, and no handler gets the wrong object"
  )
  func secondObservedObjectIsRefused() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let shared = ObservationRegistry()
    let ann = InjectedPerson(name: "Ann", registry: shared)
    let bob = InjectedPerson(name: "Bob", registry: shared)
    let watcher = Watcher()
    watcher.autoObserve(ann, keyPath: \.name) { w, person, change in
      w.record("\(person === ann ? "ann" : "other") \(describe(change))")
    }
    let refused = watcher.autoObserve(bob, keyPath: \.name) { w, _, change in
      w.record("bob \(describe(change))")
    }
    #expect(refused.isCancelled)
    #expect(diagnostics.kinds == [.sharedRegistry])
    #expect(
      diagnostics.messages.first?.contains(
        "the observed object's, InjectedPerson, observationRegistry already serves another object")
        == true)
    bob.name = "Bo"
    ann.name = "Anna"
    bob.willChangeValue(for: \.manualScore)
    bob.manualScore = 1
    bob.didChangeValue(for: \.manualScore)
    #expect(watcher.log == ["ann setting Ann->Anna"])
    #expect(shared.observerCount == 1)
    #expect(diagnostics.kinds == [.sharedRegistry, .sharedRegistry])
  }

  @Test("An observer that shares another observer's registry is reported and refused")
  func secondObserverIsRefused() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let shared = ObservationRegistry()
    let first = InjectedWatcher(registry: shared)
    let second = InjectedWatcher(registry: shared)
    let person = Person(name: "Ann")
    let log = Watcher()
    first.autoObserve(person, keyPath: \.name) { _, _, change in
      log.record("first \(describe(change))")
    }
    let refused = second.autoObserve(person, keyPath: \.name) { _, _, change in
      log.record("second \(describe(change))")
    }
    #expect(refused.isCancelled)
    #expect(diagnostics.kinds == [.sharedRegistry])
    #expect(diagnostics.messages.first?.contains("the observer's, InjectedWatcher,") == true)
    person.name = "Bob"
    #expect(log.log == ["first setting Ann->Bob"])
    #expect(shared.observingCount == 1)
    withExtendedLifetime((first, second)) {}
  }
}

@Suite("Everyday patterns: diagnostics say what happens")
struct TruthfulDiagnosticTests {
  @Test(
    "A proxy removal at an index out of range changes nothing, delivers nothing, and its diagnostic says so"
  )
  func proxyOutOfRangeSaysNothingHappens() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let playlist = Playlist()
    playlist.songs = ["a"]
    let watcher = Watcher()
    watcher.autoObserve(playlist, keyPath: \.songs) { w, _, c in w.record(describe(c)) }
    #expect(playlist.mutableArrayValue(for: \.songs).remove(at: 5) == nil)
    #expect(playlist.songs == ["a"])
    #expect(watcher.log.isEmpty)
    #expect(diagnostics.kinds == [.indexesOutOfRange])
    #expect(
      diagnostics.messages.first?.hasSuffix(
        "the indexes are out of range; nothing was changed, and observers receive nothing.")
        == true)
    #expect(diagnostics.messages.first?.contains(".setting") == false)
  }

  @Test(
    "A manual notification at an index out of range is delivered as a .setting change, and its diagnostic says so"
  )
  func manualOutOfRangeSaysSetting() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let playlist = Playlist()
    playlist.manualSongs = ["a"]
    let watcher = Watcher()
    watcher.autoObserve(playlist, keyPath: \.manualSongs) { w, _, c in w.record(describe(c)) }
    playlist.willChange(.removal, valuesAt: [4], for: \.manualSongs)
    playlist.manualSongs = []
    playlist.didChange(.removal, valuesAt: [4], for: \.manualSongs)
    #expect(watcher.log == ["setting [\"a\"]->[]"])
    #expect(diagnostics.kinds == [.indexesOutOfRange])
    #expect(
      diagnostics.messages.first?.hasSuffix(
        "observers receive a .setting change of the whole collection instead.") == true)
  }
}

@Suite("Everyday patterns: registering from a deinit")
struct DeinitRegistrationTests {
  @Test(
    "autoObserve in the observer's deinit is reported and returns an ended observation; nothing is delivered"
  )
  func observerDeinit() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let person = Person(name: "Ann")
    let log = Watcher()
    let outcome = Handoff(KeyValueObservation.refused())
    outcome.object = nil
    do {
      _ = FarewellObserver(observing: person, log: log, outcome: outcome)
    }
    person.name = "Bob"
    #expect(outcome.object?.isCancelled == true)
    #expect(outcome.object?.endReason == .observerDeallocated)
    #expect(log.log.isEmpty)
    #expect(person.observationRegistry.observerCount == 0)
    #expect(diagnostics.kinds == [.registrationWhileDeallocating])
    #expect(
      diagnostics.messages.first?.contains(
        "was called while the observer, FarewellObserver, is being deallocated") == true)
  }

  @Test(
    "autoObserve on an object from inside its own deinit is reported and returns an ended observation; nothing is delivered"
  )
  func observedDeinit() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let watcher = Watcher()
    let outcome = Handoff(KeyValueObservation.refused())
    outcome.object = nil
    do {
      _ = FarewellModel(watcher: watcher, outcome: outcome)
    }
    #expect(outcome.object?.isCancelled == true)
    #expect(outcome.object?.endReason == .observedDeallocated)
    #expect(watcher.log.isEmpty)
    #expect(watcher.observationRegistry.observingCount == 0)
    #expect(diagnostics.kinds == [.registrationWhileDeallocating])
    #expect(
      diagnostics.messages.first?.contains(
        "keyPath: FarewellModel.title) of FarewellModel by Watcher") == true)
    #expect(
      diagnostics.messages.first?.contains(
        "the observed object, FarewellModel, is being deallocated") == true)
  }
}

#if canImport(Observation) && !canImport(ObjectiveC)
  @Suite("Everyday patterns: registering on an @Observable model from its deinit")
  struct ModelDeinitRegistrationTests {
    @Test(
      "autoObserve on an @Observable model from inside its own deinit is reported and returns an ended observation"
    )
    func modelDeinit() {
      let diagnostics = DiagnosticsRecorder()
      defer { diagnostics.restore() }
      let watcher = Watcher()
      let outcome = Handoff(KeyValueObservation.refused())
      outcome.object = nil
      do {
        _ = FarewellBoard(watcher: watcher, outcome: outcome)
      }
      #expect(outcome.object?.endReason == .observedDeallocated)
      #expect(watcher.log.isEmpty)
      #expect(watcher.observationRegistry.observingCount == 0)
      #expect(diagnostics.kinds == [.registrationWhileDeallocating])
    }
  }
#endif

@Suite("Everyday patterns: changes delivered later")
struct LaterDeliveryPatternTests {
  /// A table's own copy of the rows, read and written on its delivery queue only.
  final class TableRows: @unchecked Sendable {  // confined to the delivery queue
    var rows: [String]

    init(_ rows: [String]) {
      self.rows = rows
    }

    /// Applies one change, as a table view applies row updates.
    func apply(_ change: KeyValueChange<[String]>) {
      switch change.kind {
      case .insertion:
        for (index, song) in zip(change.indexes!, change.newValue!) { rows.insert(song, at: index) }
      case .removal:
        for index in change.indexes!.reversed() { rows.remove(at: index) }
      case .replacement:
        for (index, song) in zip(change.indexes!, change.newValue!) { rows[index] = song }
      case .setting:
        rows = change.newValue!
      }
    }
  }

  @Test(
    "Array changes delivered later on a queue carry the indexes and elements of the moment they happened, and replaying them in order rebuilds the array"
  )
  func queuedArrayChangesDescribeTheirMoment() async {
    let queue = DispatchQueue(label: "autokvo.tests.everyday.table")
    let playlist = Playlist()
    playlist.songs = ["x"]
    let watcher = Watcher()
    let table = TableRows(["x"])
    watcher.autoObserve(playlist, keyPath: \.songs, options: [.old, .new], deliveryQueue: queue) {
      w, _, change in
      w.record("\(change.kind) \(Array(change.indexes!)) \(describe(change))")
      table.apply(change)
    }
    // The queue is held until every mutation is made: each delivery runs after all of them.
    let hold = DispatchSemaphore(value: 0)
    queue.async { hold.wait() }
    let songs = playlist.mutableArrayValue(for: \.songs)
    songs.insert("a", at: 0)
    songs.insert("b", at: 0)
    songs.replace(at: 2, with: "y")
    #expect(songs.remove(at: 0) == "b")
    hold.signal()
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(
      watcher.log == [
        "insertion [0] insertion nil->[\"a\"]", "insertion [0] insertion nil->[\"b\"]",
        "replacement [2] replacement [\"x\"]->[\"y\"]", "removal [0] removal [\"b\"]->nil",
      ])
    #expect(queue.sync { table.rows } == ["a", "y"])
    #expect(playlist.songs == ["a", "y"])
  }
}

@Suite("Everyday patterns: a chain through a stored property that is not @Observed")
struct PlainStoredHopTests {
  @Test(
    "Replacing a plain intermediate neither crashes nor is seen; the old one is freed and the registration stays usable"
  )
  func replacingPlainIntermediate() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let tracker = LifetimeTracker()
    let manager = MediaManager(current: MediaItem("first", tracker: tracker))
    let watcher = Watcher()
    let observation = watcher.autoObserve(manager, keyPath: \.current.title, options: [.old, .new])
    {
      w, _, change in w.record(describe(change))
    }
    #expect(diagnostics.kinds == [.unobservedIntermediate])
    let message = diagnostics.messages.first ?? ""
    #expect(message.contains("autoObserve(_:keyPath: \\MediaManager.current."))
    #expect(message.contains("reaches MediaItem through a hop that is not observed"))
    #expect(message.contains("replacing what leads to the MediaItem is not seen"))
    #expect(message.contains("Mark the hop @Observed, or @ObservedWeak for a weak reference"))
    #expect(message.contains("if it is a constant (a let), nothing is missed"))
    manager.current.title = "second"
    manager.current = MediaItem("replacement", tracker: tracker)
    #expect(tracker.liveCount == 1)
    manager.current.title = "unseen"
    #expect(watcher.log == ["setting first->second"])
    #expect(!observation.isCancelled)
    observation.cancel()
    #expect(observation.isCancelled)
    #expect(manager.observationRegistry.observerCount == 0)
    #expect(watcher.observationRegistry.observingCount == 0)
  }

  @Test("Setting a plain optional intermediate to nil neither crashes nor is seen")
  func settingPlainOptionalIntermediateToNil() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let tracker = LifetimeTracker()
    let manager = MediaManager(
      current: MediaItem("first"), upcoming: MediaItem("next", tracker: tracker))
    let watcher = Watcher()
    watcher.autoObserve(manager, keyPath: \.upcoming?.title, options: [.new]) { w, _, change in
      w.record(describe(change))
    }
    #expect(diagnostics.kinds == [.unobservedIntermediate])
    #expect(diagnostics.messages.first?.contains("\\MediaManager.upcoming") == true)
    manager.upcoming?.title = "later"
    manager.upcoming = nil
    #expect(tracker.liveCount == 0)
    #expect(watcher.log == ["setting nil->Optional(\"later\")"])
    // A new registration reads the path as it is now.
    let second = Watcher()
    second.autoObserve(manager, keyPath: \.upcoming?.title, options: [.initial, .new]) {
      w, _, change in w.record(describe(change))
    }
    #expect(second.log == ["setting nil->nil"])
  }

  @Test(
    "A plain hop after an @Observed one is named; replacing it is not seen, replacing the @Observed one is"
  )
  func plainHopAfterObservedHop() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let tracker = LifetimeTracker()
    let player = MediaPlayer(manager: MediaManager(current: MediaItem("first", tracker: tracker)))
    let watcher = Watcher()
    watcher.autoObserve(player, keyPath: \.manager.current.title, options: [.old, .new]) {
      w, _, change in w.record(describe(change))
    }
    #expect(diagnostics.kinds == [.unobservedIntermediate])
    #expect(diagnostics.messages.first?.contains("autoObserve(_:keyPath: \\MediaPlayer.") == true)
    #expect(diagnostics.messages.first?.contains("reaches MediaItem through a hop") == true)
    player.manager.current = MediaItem("unseen", tracker: tracker)
    #expect(tracker.liveCount == 1)
    #expect(watcher.log.isEmpty)
    // Replacing the @Observed manager reads the path again, and follows the new item.
    player.manager = MediaManager(current: MediaItem("other", tracker: tracker))
    player.manager.current.title = "renamed"
    #expect(tracker.liveCount == 1)
    #expect(watcher.log == ["setting unseen->other", "setting other->renamed"])
    // The item the path reached after that change is held by the plain hop too: replacing it
    // neither crashes nor is seen.
    player.manager.current = MediaItem("last", tracker: tracker)
    #expect(tracker.liveCount == 1)
    #expect(watcher.log == ["setting unseen->other", "setting other->renamed"])
  }

  @Test(
    "A chain through @Observed intermediates names no hop; one through a plain weak property names it once"
  )
  func observedHopsAreNotDiagnosedPlainWeakIs() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let dog = Dog("Rex")
    let owner = Owner(dog: dog)
    owner.walker = dog
    let watcher = Watcher()
    watcher.autoObserve(owner, keyPath: \.dog?.name) { _, _, _ in }
    watcher.autoObserve(owner, keyPath: \.pet.name) { _, _, _ in }
    #expect(diagnostics.kinds == [])
    watcher.autoObserve(owner, keyPath: \.walker?.name) { _, _, _ in }
    #expect(diagnostics.kinds == [.unobservedIntermediate])
    #expect(diagnostics.messages.first?.contains("reaches Dog through a hop") == true)
  }
}

@Suite("Everyday patterns: two plain stored intermediates in a row")
struct TwoPlainStoredHopsTests {
  @Test("The second of two plain hops is named, and replacing it neither crashes nor is seen")
  func secondOfTwoPlainHops() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let tracker = LifetimeTracker()
    let shelf = MediaShelf(manager: MediaManager(current: MediaItem("first", tracker: tracker)))
    let watcher = Watcher()
    watcher.autoObserve(shelf, keyPath: \.manager.current.title, options: [.old, .new]) {
      w, _, change in w.record(describe(change))
    }
    #expect(diagnostics.kinds == [.unobservedIntermediate])
    #expect(diagnostics.messages.first?.contains("reaches MediaItem through a hop") == true)
    shelf.manager.current.title = "second"
    shelf.manager.current = MediaItem("unseen", tracker: tracker)
    shelf.manager = MediaManager(current: MediaItem("also unseen", tracker: tracker))
    #expect(tracker.liveCount == 1)
    #expect(watcher.log == ["setting first->second"])
  }
}

@Suite("Everyday patterns: registering while another thread writes the property")
struct RegisteringWhileWritingTests {
  static let registrations = 200_000

  @Test(
    "Registering and cancelling 200,000 times while another thread replaces the String reads nothing of it"
  )
  func registeringWhileAnotherThreadWrites() {
    let item = StreamedItem()
    let watcher = Watcher()
    // The first registration on a property of a class, in the process, may evaluate its key path,
    // a read of the property: made before the writer starts, as the documentation says.
    watcher.autoObserve(item, keyPath: \.title) { _, _, _ in }.cancel()
    let control = WriterControl()
    startReplacingTitles(of: [item], until: control)
    for _ in 0..<Self.registrations {
      watcher.autoObserve(item, keyPath: \.title, options: [.new]) { _, _, _ in }.cancel()
    }
    control.stop()
    #expect(watcher.observationRegistry.observingCount == 0)
    #expect(item.observationRegistry.observerCount == 0)
    withExtendedLifetime(watcher) {}
  }

  @Test(
    "Registering on 2,000 new objects of a class registered on before reads nothing of them while another thread replaces their Strings"
  )
  func registeringOnNewObjectsWhileAnotherThreadWrites() {
    let watcher = Watcher()
    let first = ArrivingItem()
    watcher.autoObserve(first, keyPath: \.title) { _, _, _ in }.cancel()
    let items = (0..<2_000).map { _ in ArrivingItem() }
    let control = WriterControl()
    startReplacingTitles(of: items, until: control)
    for item in items {
      // The first registration on each object, then one on a property it has a record of.
      watcher.autoObserve(item, keyPath: \.title, options: [.new]) { _, _, _ in }.cancel()
      watcher.autoObserve(item, keyPath: \.title, options: [.old, .new]) { _, _, _ in }.cancel()
    }
    control.stop()
    #expect(watcher.observationRegistry.observingCount == 0)
    #expect(items.allSatisfy { $0.observationRegistry.observerCount == 0 })
    withExtendedLifetime((watcher, first)) {}
  }

  @Test(
    "Registering and cancelling 200,000 times while another registration is there and another thread replaces the String reads nothing of it"
  )
  func registeringBesideAnotherRegistrationWhileAnotherThreadWrites() {
    let item = StreamedItem()
    let watcher = Watcher()
    let standing = Watcher()
    let standingChanges = Counter()
    standing.autoObserve(item, keyPath: \.title, options: [.old, .new]) { _, _, change in
      if change.oldValue != nil, change.newValue != nil { standingChanges.increment() }
    }
    let control = WriterControl()
    startReplacingTitles(of: [item], until: control)
    for _ in 0..<Self.registrations {
      watcher.autoObserve(item, keyPath: \.title, options: [.new]) { _, _, _ in }.cancel()
    }
    control.stop()
    #expect(standingChanges.value > 0)
    #expect(watcher.observationRegistry.observingCount == 0)
    #expect(item.observationRegistry.observerCount == 1)
    withExtendedLifetime((watcher, standing)) {}
  }
}

@Suite("Everyday patterns: registrations after the first on a property")
struct LaterRegistrationTests {
  @Test("A second registration on a stored property delivers exactly what the first does")
  func secondRegistrationOnStoredProperty() {
    let person = Person()
    let first = Watcher()
    let second = Watcher()
    first.autoObserve(person, keyPath: \.age, options: [.old, .new]) { w, _, change in
      w.record(describe(change))
    }
    second.autoObserve(person, keyPath: \.age, options: [.old, .new, .prior]) { w, _, change in
      w.record(describe(change))
    }
    person.age = 31
    #expect(first.log == ["setting 30->31"])
    #expect(second.log == ["prior setting 30->nil", "setting 30->31"])
  }

  @Test("A second registration on a stored property that declares dependencies hears them too")
  func secondRegistrationWithDeclaredDependencies() {
    let invoice = Invoice()
    let first = Watcher()
    let second = Watcher()
    for watcher in [first, second] {
      watcher.autoObserve(invoice, keyPath: \.subtotal, options: [.old, .new]) { w, _, change in
        w.record(describe(change))
      }
    }
    invoice.discount = 10
    invoice.subtotal = 90
    #expect(first.log == ["setting 100->100", "setting 100->90"])
    #expect(second.log == ["setting 100->100", "setting 100->90"])
  }

  @Test(
    "A second registration through the base class's key path on an overriding instance reads through the override"
  )
  func secondRegistrationThroughOverride() {
    let shape: Shape = ScaledShape()
    let first = Watcher()
    let second = Watcher()
    for watcher in [first, second] {
      watcher.autoObserve(shape, keyPath: \Shape.size, options: [.old, .new]) { w, _, change in
        w.record(describe(change))
      }
    }
    shape.size = 50
    #expect(first.log == ["setting 10->50"])
    #expect(second.log == ["setting 10->50"])
  }
}

@Suite("Everyday patterns: registering on a new object of a class registered on before")
struct NewObjectRegistrationTests {
  @Test(
    "A registration on a new object of a class registered on before receives its sets, and leaves its other properties as they were"
  )
  func newObjectOfKnownClass() {
    let watcher = Watcher()
    let known = LabeledCounter()
    watcher.autoObserve(known, keyPath: \.count) { _, _, _ in }.cancel()
    watcher.autoObserve(known, keyPath: \.label) { _, _, _ in }.cancel()
    for round in 1...3 {
      let counter = LabeledCounter()
      watcher.autoObserve(counter, keyPath: \.label, options: [.old, .new]) { w, _, change in
        w.record("\(round) label " + describe(change))
      }
      watcher.autoObserve(counter, keyPath: \.count, options: [.old, .new]) { w, _, change in
        w.record("\(round) count " + describe(change))
      }
      counter.count = 2
      counter.label = "b"
      #expect(counter.before == 7)
      #expect(counter.after == 9)
      #expect(counter.observationRegistry.observerCount == 2)
    }
    #expect(
      watcher.log == [
        "1 count setting 1->2", "1 label setting a->b", "2 count setting 1->2",
        "2 label setting a->b", "3 count setting 1->2", "3 label setting a->b",
      ])
  }
}
