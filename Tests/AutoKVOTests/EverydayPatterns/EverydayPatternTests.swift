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
