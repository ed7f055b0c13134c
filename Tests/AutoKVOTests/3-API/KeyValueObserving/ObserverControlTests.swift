import Testing

@testable import AutoKVO

@Suite("Observer-side control: stop one key path, one object, or everything; list what is live")
struct ObserverControlTests {
  @Test("stopObserving(_:keyPath:) ends only that key path of that object, and is idempotent")
  func stopOneKeyPath() {
    let ann = Person()
    let bob = Person()
    let watcher = Watcher()
    let other = Watcher()
    watcher.autoObserve(ann, keyPath: \.name) { w, _, _ in w.record("ann.name") }
    watcher.autoObserve(ann, keyPath: \.name) { w, _, _ in w.record("ann.name 2") }
    watcher.autoObserve(ann, keyPath: \.age) { w, _, _ in w.record("ann.age") }
    watcher.autoObserve(bob, keyPath: \.name) { w, _, _ in w.record("bob.name") }
    other.autoObserve(ann, keyPath: \.name) { w, _, _ in w.record("other") }
    #expect(watcher.stopObserving(ann, keyPath: \.name) == 2)
    #expect(watcher.stopObserving(ann, keyPath: \.name) == 0)
    ann.name = "x"
    ann.age = 1
    bob.name = "y"
    #expect(watcher.log == ["ann.age", "bob.name"])
    #expect(other.log == ["other"])
  }

  @Test("stopObserving(_:) ends every registration on that object only")
  func stopOneObject() {
    let ann = Person()
    let bob = Person()
    let watcher = Watcher()
    watcher.autoObserve(ann, keyPath: \.name) { _, _, _ in }
    watcher.autoObserve(ann, keyPath: \.age) { _, _, _ in }
    watcher.autoObserve(bob, keyPath: \.age) { _, _, _ in }
    #expect(watcher.stopObserving(ann) == 2)
    #expect(watcher.stopObserving(ann) == 0)
    #expect(ann.observationRegistry.observerCount == 0)
    #expect(bob.observationRegistry.observerCount == 1)
    #expect(watcher.activeObservations.count == 1)
  }

  @Test("stopObservingAll() ends everything the observer made, and nothing of others")
  func stopAll() {
    let ann = Person()
    let watcher = Watcher()
    let other = Watcher()
    let handles = [
      watcher.autoObserve(ann, keyPath: \.name) { _, _, _ in },
      watcher.autoObserve(ann, keyPath: \.age) { _, _, _ in },
    ]
    other.autoObserve(ann, keyPath: \.age) { _, _, _ in }
    #expect(watcher.stopObservingAll() == 2)
    #expect(watcher.stopObservingAll() == 0)
    #expect(handles.allSatisfy { $0.endReason == .cancelled })
    #expect(ann.observationRegistry.observerCount == 1)
  }

  @Test("activeObservations lists the live registrations in registration order")
  func listLive() {
    let ann = Person()
    let watcher = Watcher()
    let first = watcher.autoObserve(ann, keyPath: \.name) { _, _, _ in }
    let second = watcher.autoObserve(ann, keyPath: \.age) { _, _, _ in }
    #expect(
      watcher.activeObservations.map(ObjectIdentifier.init)
        == [first, second].map(ObjectIdentifier.init))
    first.cancel()
    #expect(watcher.activeObservations.map(ObjectIdentifier.init) == [ObjectIdentifier(second)])
  }

  @Test("Stopping inside the .initial callback ends the registration before autoObserve returns")
  func stopInsideInitial() {
    let person = Person()
    let watcher = Watcher()
    let observation = watcher.autoObserve(person, keyPath: \.name, options: [.initial, .new]) {
      w, p, c in
      w.record(describe(c))
      #expect(w.stopObserving(p, keyPath: \.name) == 1)
    }
    #expect(observation.isCancelled)
    person.name = "Bob"
    #expect(watcher.log == ["setting nil->Ann"])
    #expect(person.observationRegistry.observerCount == 0)
  }
}

@Suite("Bad input: diagnostics, never a crash, never a silent no-op", .serialized)
struct BadInputTests {
  @Test("A key path that can never notify is reported at registration, naming the type")
  func neverNotifies() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let person = Person()
    let watcher = Watcher()
    let site = "\(#fileID):\(#line + 1)"
    watcher.autoObserve(person, keyPath: \.observationRegistry.observerCount) { _, _, _ in }
    #expect(diagnostics.kinds == [.keyPathNeverNotifies])
    // No name exists at run time for this computed key path: the registration is named by its
    // object's type, its observer's type, where it was made and the value type.
    let message = diagnostics.messages.first ?? ""
    #expect(message.contains("of Person by Watcher at \(site)"))
    #expect(message.contains("a key path to a Int"))
    #expect(!message.contains("<computed"))
  }

  @Test("A plain stored property that can never notify is reported by its name")
  func neverNotifiesNamesStoredProperty() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let holder = PlainHolder()
    let watcher = Watcher()
    watcher.autoObserve(holder, keyPath: \.plain) { _, _, _ in }
    #expect(diagnostics.kinds == [.keyPathNeverNotifies])
    #expect(
      diagnostics.messages.first?.contains("autoObserve(_:keyPath: PlainHolder.plain)") == true)
  }

  @Test(
    "A computed observationRegistry on the observed object is reported; nothing is registered and every count agrees"
  )
  func computedRegistryOnObservedObject() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let forgetful = ForgetfulPerson()
    let watcher = Watcher()
    var calls = 0
    let observation = watcher.autoObserve(forgetful, keyPath: \.name, options: [.initial, .new]) {
      _, _, _ in calls += 1
    }
    forgetful.name = "Bea"
    #expect(calls == 0)
    #expect(observation.isCancelled)
    #expect(diagnostics.kinds == [.unstableRegistry])
    #expect(diagnostics.messages.first?.contains("ForgetfulPerson.observationRegistry") == true)
    #expect(diagnostics.messages.first?.contains("at \(#fileID):") == true)
    #expect(
      diagnostics.messages.first?.contains("let observationRegistry = ObservationRegistry()")
        == true)
    #expect(watcher.activeObservations.isEmpty)
    #expect(watcher.observationRegistry.observingCount == 0)
    #expect(watcher.stopObservingAll() == 0)
  }

  @Test(
    "A computed observationRegistry on the observer is reported; nothing is registered and every count agrees"
  )
  func computedRegistryOnObserver() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let person = Person()
    let forgetful = ForgetfulWatcher()
    var calls = 0
    let observation = forgetful.autoObserve(person, keyPath: \.name, options: [.initial, .new]) {
      _, _, _ in calls += 1
    }
    person.name = "Bea"
    #expect(calls == 0)
    #expect(observation.isCancelled)
    #expect(diagnostics.kinds == [.unstableRegistry])
    #expect(diagnostics.messages.first?.contains("ForgetfulWatcher.observationRegistry") == true)
    #expect(person.observationRegistry.observerCount == 0)
    #expect(forgetful.activeObservations.isEmpty)
    #expect(forgetful.stopObservingAll() == 0)
  }

  @Test(
    "A computed observationRegistry is reported by the classic callback form and by changes(for:) too"
  )
  func computedRegistryOtherForms() async {
    let diagnostics = DiagnosticsRecorder()
    let forgetful = ForgetfulPerson()
    let inspector = ClassicInspector()
    let observation = inspector.autoObserve(forgetful, keyPath: \.name, options: [.new])
    #expect(observation.isCancelled)
    #expect(inspector.activeObservations.isEmpty)
    var iterator = forgetful.changes(for: \.name).makeAsyncIterator()
    #expect(diagnostics.kinds == [.unstableRegistry, .unstableRegistry])
    diagnostics.restore()
    // The sequence's registration was refused: it finishes at once instead of waiting forever.
    #expect(await iterator.next() == nil)
  }

  @Test("A key path excluded from automatic notification is not reported: it is notified by hand")
  func manualKeyPathIsNotReported() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let account = Account()
    let watcher = Watcher()
    watcher.autoObserve(account, keyPath: \.note) { _, _, _ in }
    watcher.autoObserve(account, keyPath: \.balance) { _, _, _ in }
    #expect(diagnostics.kinds.isEmpty)
  }

  @Test("Out-of-range proxy indexes change nothing and are reported; nothing traps")
  func outOfRangeProxy() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let playlist = Playlist()
    playlist.songs = ["a"]
    let watcher = Watcher()
    watcher.autoObserve(playlist, keyPath: \.songs) { w, _, c in w.record(describe(c)) }
    let songs = playlist.mutableArrayValue(for: \.songs)
    #expect(songs.remove(at: 5) == nil)
    songs.insert("x", at: 3)
    songs.replace(at: [0], with: ["p", "q"])
    #expect(playlist.songs == ["a"])
    #expect(watcher.log.isEmpty)
    #expect(diagnostics.kinds == [.indexesOutOfRange, .indexesOutOfRange, .indexesOutOfRange])
    #expect(diagnostics.messages.allSatisfy { $0.contains("of Playlist.songs") })
  }

  @Test(
    "Single out-of-range or negative proxy indexes, observed or not: nothing changes, each reported"
  )
  func outOfRangeSingleIndexes() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let observed = Playlist()
    observed.songs = ["a", "b"]
    let watcher = Watcher()
    watcher.autoObserve(observed, keyPath: \.songs) { w, _, c in w.record(describe(c)) }
    let unobserved = Playlist()
    unobserved.songs = ["a", "b"]
    for playlist in [observed, unobserved] {
      let songs = playlist.mutableArrayValue(for: \.songs)
      #expect(songs.remove(at: -1) == nil)
      #expect(songs.remove(at: 2) == nil)
      songs.insert("x", at: -1)
      songs.insert("x", at: 3)
      songs.replace(at: 2, with: "r")
      songs.replace(at: -3, with: "r")
      #expect(playlist.songs == ["a", "b"])
      songs.insert("c", at: 2)  // at the end: valid
      #expect(songs.removeLast() == "c")
    }
    #expect(watcher.log == ["insertion nil->[\"c\"]", "removal [\"c\"]->nil"])
    #expect(diagnostics.kinds == Array(repeating: .indexesOutOfRange, count: 12))
    #expect(diagnostics.messages[0].contains("removal at indexes [-1] of Playlist.songs"))
    #expect(diagnostics.messages[3].contains("insertion at indexes [3] of Playlist.songs"))
  }

  @Test("Out-of-range manual indexes are reported and delivered as a .setting of the whole array")
  func outOfRangeManual() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let playlist = Playlist()
    playlist.manualSongs = ["a"]
    let watcher = Watcher()
    var changes: [KeyValueChange<[String]>] = []
    watcher.autoObserve(playlist, keyPath: \.manualSongs) { _, _, c in changes.append(c) }
    playlist.willChange(.removal, valuesAt: [4], for: \.manualSongs)
    playlist.manualSongs = []
    playlist.didChange(.removal, valuesAt: [4], for: \.manualSongs)
    #expect(changes == [KeyValueChange(kind: .setting, oldValue: ["a"], newValue: [])])
    #expect(diagnostics.kinds == [.indexesOutOfRange])
  }

  @Test(
    "Registering from inside the observed object's deinit: the dying object never reaches a handler, and the registration ends with it"
  )
  func registerOnDyingObject() {
    let watcher = Watcher()
    do {
      _ = DyingRegistrar(watcher: watcher)
    }
    #expect(watcher.observationRegistry.observingCount == 0)
    #expect(watcher.log.isEmpty, "even .initial is not delivered with an object being deallocated")
  }
}

/// Registers itself with a watcher from inside its own deinit.
final class DyingRegistrar: KeyValueObservable, @unchecked Sendable {  // single-threaded tests
  let observationRegistry = ObservationRegistry()
  @Observed var value = 0
  private let watcher: Watcher

  init(watcher: Watcher) {
    self.watcher = watcher
  }

  deinit {
    watcher.autoObserve(self, keyPath: \.value, options: .initial) { w, _, _ in
      w.record("initial")
    }
  }
}

/// What the compiler's "add stubs" fix-it leads to: a registry made anew on every read.
private final class ForgetfulPerson: KeyValueObservable {
  var observationRegistry: ObservationRegistry { ObservationRegistry() }
  @Observed var name = "Ann"
}

private final class ForgetfulWatcher: KeyValueObservable {
  var observationRegistry: ObservationRegistry { ObservationRegistry() }
}

private final class ClassicInspector: KeyValueObserving {
  let observationRegistry = ObservationRegistry()
  func observeValue(
    forKeyPath keyPath: AnyKeyPath, of object: AnyObject, change: AnyKeyValueChange,
    context: UnsafeMutableRawPointer?
  ) {}
}

private final class PlainHolder: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  var plain = 0
}
