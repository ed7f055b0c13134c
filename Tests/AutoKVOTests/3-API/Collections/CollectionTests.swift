import Foundation
import Testing

@testable import AutoKVO

@Suite("Array proxies: mutations notify with exact kinds, indexes and elements")
struct ArrayProxyTests {
  private func observe(
    _ playlist: Playlist,
    options: ObservationOptions = [.old, .new]
  ) -> (Watcher, Box<[KeyValueChange<[String]>]>) {
    let watcher = Watcher()
    let changes = Box<[KeyValueChange<[String]>]>()
    changes.value = []
    watcher.autoObserve(playlist, keyPath: \.songs, options: options) { _, _, c in
      changes.value!.append(c)
    }
    return (watcher, changes)
  }

  @Test("append and insert notify .insertion with the new indexes and the inserted elements")
  func insertion() {
    let playlist = Playlist()
    playlist.songs = ["a", "b"]
    let (watcher, changes) = observe(playlist)
    let songs = playlist.mutableArrayValue(for: \.songs)
    songs.append("c")
    songs.insert("z", at: 0)
    songs.insert(["x", "y"], at: [1, 3])
    #expect(
      changes.value == [
        KeyValueChange(kind: .insertion, newValue: ["c"], indexes: [2]),
        KeyValueChange(kind: .insertion, newValue: ["z"], indexes: [0]),
        KeyValueChange(kind: .insertion, newValue: ["x", "y"], indexes: [1, 3]),
      ])
    #expect(playlist.songs == ["z", "x", "a", "y", "b", "c"])
    _ = watcher
  }

  @Test("remove notifies .removal with the former indexes and the removed elements")
  func removal() {
    let playlist = Playlist()
    playlist.songs = ["a", "b", "c", "d"]
    let (watcher, changes) = observe(playlist)
    let songs = playlist.mutableArrayValue(for: \.songs)
    #expect(songs.remove(at: 1) == "b")
    songs.remove(at: [0, 2])
    #expect(
      changes.value == [
        KeyValueChange(kind: .removal, oldValue: ["b"], indexes: [1]),
        KeyValueChange(kind: .removal, oldValue: ["a", "d"], indexes: [0, 2]),
      ])
    #expect(playlist.songs == ["c"])
    _ = watcher
  }

  @Test("replace notifies .replacement with old and new elements at one index or an IndexSet")
  func replacement() {
    let playlist = Playlist()
    playlist.songs = ["a", "b", "c"]
    let (watcher, changes) = observe(playlist)
    let songs = playlist.mutableArrayValue(for: \.songs)
    songs.replace(at: 1, with: "B")
    songs.replace(at: [0, 2], with: ["A", "C"])
    #expect(
      changes.value == [
        KeyValueChange(kind: .replacement, oldValue: ["b"], newValue: ["B"], indexes: [1]),
        KeyValueChange(
          kind: .replacement, oldValue: ["a", "c"], newValue: ["A", "C"], indexes: [0, 2]),
      ])
    _ = watcher
  }

  @Test("Old and new elements are present only when requested")
  func valuesOnlyWhenRequested() {
    let playlist = Playlist()
    playlist.songs = ["a"]
    let (watcher, changes) = observe(playlist, options: [])
    playlist.mutableArrayValue(for: \.songs).replace(at: 0, with: "b")
    #expect(changes.value == [KeyValueChange(kind: .replacement, indexes: [0])])
    _ = watcher
  }

  @Test(".prior works for collection mutations: kind, indexes and old elements before the change")
  func priorForCollections() {
    let playlist = Playlist()
    playlist.songs = ["a", "b"]
    let (watcher, changes) = observe(playlist, options: [.old, .new, .prior])
    playlist.mutableArrayValue(for: \.songs).remove(at: 0)
    #expect(
      changes.value == [
        KeyValueChange(kind: .removal, oldValue: ["a"], indexes: [0], isPrior: true),
        KeyValueChange(kind: .removal, oldValue: ["a"], indexes: [0]),
      ])
    _ = watcher
  }

  @Test("Assigning the whole array stays a .setting change")
  func assignmentIsSetting() {
    let playlist = Playlist()
    let (watcher, changes) = observe(playlist)
    playlist.songs = ["x"]
    #expect(changes.value == [KeyValueChange(kind: .setting, oldValue: [], newValue: ["x"])])
    _ = watcher
  }

  @Test("Mutating the array through the property itself is one .setting change of whole arrays")
  func mutationThroughPropertyIsSetting() {
    let playlist = Playlist()
    playlist.songs = ["a"]
    let (watcher, changes) = observe(playlist)
    playlist.songs.append("b")
    playlist.songs[0] = "z"
    #expect(
      changes.value == [
        KeyValueChange(kind: .setting, oldValue: ["a"], newValue: ["a", "b"]),
        KeyValueChange(kind: .setting, oldValue: ["a", "b"], newValue: ["z", "b"]),
      ])
    _ = watcher
  }

  @Test("A computed property depending on the array receives .setting with whole values")
  func dependentKeyGetsSetting() {
    let playlist = Playlist()
    let watcher = Watcher()
    watcher.autoObserve(playlist, keyPath: \.songCount) { w, _, c in w.record(describe(c)) }
    playlist.mutableArrayValue(for: \.songs).append("a")
    playlist.mutableArrayValue(for: \.songs).append("b")
    #expect(watcher.log == ["setting 0->1", "setting 1->2"])
  }

  @Test("A proxy mutation on an unobserved object just mutates")
  func unobservedProxy() {
    let playlist = Playlist()
    let songs = playlist.mutableArrayValue(for: \.songs)
    songs.append(contentsOf: ["a", "b", "c"])
    songs.removeLast()
    #expect(playlist.songs == ["a", "b"])
    #expect(songs.count == 2)
    #expect(songs[5] == nil)
  }

  @Test("removeAll notifies one .removal at every former index")
  func removeAll() {
    let playlist = Playlist()
    playlist.songs = ["a", "b", "c"]
    let (watcher, changes) = observe(playlist, options: .old)
    playlist.mutableArrayValue(for: \.songs).removeAll()
    #expect(
      changes.value == [
        KeyValueChange(kind: .removal, oldValue: ["a", "b", "c"], indexes: [0, 1, 2])
      ])
    _ = watcher
  }
}

@Suite("Set proxies: mutations notify as KVO maps set mutations")
struct SetProxyTests {
  private func observe(_ playlist: Playlist) -> (Watcher, Box<[KeyValueChange<Set<String>>]>) {
    let watcher = Watcher()
    let changes = Box<[KeyValueChange<Set<String>>]>()
    changes.value = []
    watcher.autoObserve(playlist, keyPath: \.tags) { _, _, c in changes.value!.append(c) }
    return (watcher, changes)
  }

  @Test(
    "union → insertion, minus and intersect → removal, set → replacement, with the affected members"
  )
  func mutations() {
    let playlist = Playlist()
    playlist.tags = ["a", "b"]
    let (watcher, changes) = observe(playlist)
    let tags = playlist.mutableSetValue(for: \.tags)
    tags.formUnion(["b", "c"])
    tags.subtract(["a", "z"])
    tags.formIntersection(["c"])
    tags.replaceAll(with: ["c", "d"])
    tags.insert("e")
    tags.remove("d")
    #expect(
      changes.value == [
        KeyValueChange(kind: .insertion, newValue: ["c"]),
        KeyValueChange(kind: .removal, oldValue: ["a"]),
        KeyValueChange(kind: .removal, oldValue: ["b"]),
        KeyValueChange(kind: .replacement, oldValue: [], newValue: ["d"]),
        KeyValueChange(kind: .insertion, newValue: ["e"]),
        KeyValueChange(kind: .removal, oldValue: ["d"]),
      ])
    #expect(playlist.tags == ["c", "e"])
    #expect(changes.value!.allSatisfy { $0.indexes == nil })
    _ = watcher
  }
}

@Suite("Manual collection notification: willChange/didChange with indexes and set mutations")
struct ManualCollectionTests {
  @Test("willChange/didChange(_:valuesAt:for:) notify once with the kind, indexes and elements")
  func manualArray() {
    let playlist = Playlist()
    playlist.manualSongs = ["a", "b"]
    let watcher = Watcher()
    var changes: [KeyValueChange<[String]>] = []
    watcher.autoObserve(playlist, keyPath: \.manualSongs) { _, _, c in changes.append(c) }
    playlist.willChange(.replacement, valuesAt: [1], for: \.manualSongs)
    playlist.manualSongs[1] = "B"
    playlist.didChange(.replacement, valuesAt: [1], for: \.manualSongs)
    playlist.willChange(.insertion, valuesAt: [2], for: \.manualSongs)
    playlist.manualSongs.append("c")
    playlist.didChange(.insertion, valuesAt: [2], for: \.manualSongs)
    #expect(
      changes == [
        KeyValueChange(kind: .replacement, oldValue: ["b"], newValue: ["B"], indexes: [1]),
        KeyValueChange(kind: .insertion, newValue: ["c"], indexes: [2]),
      ])
  }

  @Test("The set-mutation pair notifies with the members the mutation affects")
  func manualSet() {
    let playlist = Playlist()
    playlist.manualTags = ["a"]
    let watcher = Watcher()
    var changes: [KeyValueChange<Set<String>>] = []
    watcher.autoObserve(playlist, keyPath: \.manualTags) { _, _, c in changes.append(c) }
    playlist.willChangeValue(for: \.manualTags, withSetMutation: .union, using: ["a", "b"])
    playlist.manualTags.formUnion(["a", "b"])
    playlist.didChangeValue(for: \.manualTags, withSetMutation: .union, using: ["a", "b"])
    #expect(changes == [KeyValueChange(kind: .insertion, newValue: ["b"])])
  }
}

@Suite("Observing every element: one call, one self-removing registration per object")
struct EveryElementTests {
  @Test("Each element notifies with itself as the object; each registration ends with its element")
  func everyElement() {
    var people: [Person] = [Person(name: "A"), Person(name: "B"), Person(name: "C")]
    let watcher = Watcher()
    let observations = watcher.autoObserve(each: people, keyPath: \.name, options: .new) {
      w, p, c in
      w.record("\(p === people.first ? "first" : "other") \(c.newValue!)")
    }
    #expect(observations.count == 3)
    people[0].name = "A2"
    people[2].name = "C2"
    people.removeFirst()
    #expect(observations[0].endReason == .observedDeallocated)
    #expect(watcher.observationRegistry.observingCount == 2)
    #expect(watcher.log == ["first A2", "other C2"])
  }
}

/// An `@Observed` array of objects that say when they are released.
private final class Shelf: KeyValueObservable, @unchecked Sendable {  // single-threaded tests
  let observationRegistry = ObservationRegistry()
  @Observed var books: [Book] = []
}

private final class Book: @unchecked Sendable {  // single-threaded tests
  let onRelease: () -> Void

  init(onRelease: @escaping () -> Void = {}) {
    self.onRelease = onRelease
  }

  deinit { onRelease() }
}

@Suite("Proxies mutate in place: no copy of the collection per mutation")
struct InPlaceProxyTests {
  private func bufferAddress(_ playlist: Playlist) -> UnsafeRawPointer? {
    playlist.songs.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
  }

  @Test("Appending through the proxy keeps the stored array's buffer, with nobody observing")
  func unobservedAppendKeepsBuffer() {
    let playlist = Playlist()
    playlist.songs.reserveCapacity(64)
    let before = bufferAddress(playlist)
    let songs = playlist.mutableArrayValue(for: \.songs)
    for number in 0..<50 { songs.append("song \(number)") }
    #expect(bufferAddress(playlist) == before)
    #expect(playlist.songs == (0..<50).map { "song \($0)" })
  }

  @Test("Appending through the proxy keeps the buffer when observed, and notifies each append")
  func observedAppendKeepsBuffer() {
    let playlist = Playlist()
    playlist.songs.reserveCapacity(64)
    let before = bufferAddress(playlist)
    let watcher = Watcher()
    var indexes: [IndexSet] = []
    watcher.autoObserve(playlist, keyPath: \.songs, options: .new) { _, _, change in
      indexes.append(change.indexes ?? [])
    }
    let songs = playlist.mutableArrayValue(for: \.songs)
    for number in 0..<50 { songs.append("song \(number)") }
    #expect(bufferAddress(playlist) == before)
    #expect(indexes == (0..<50).map { IndexSet(integer: $0) })
  }

  @Test("A proxy of a property that is not @Observed reads and writes it through its key path")
  func proxyOfPlainPropertyGoesThroughKeyPath() {
    let playlist = Playlist()
    let songs = playlist.mutableArrayValue(for: \.manualSongs)
    songs.append("b")
    songs.insert("a", at: 0)
    songs.append("c")
    #expect(songs.remove(at: 1) == "b")
    #expect(playlist.manualSongs == ["a", "c"])
    #expect(playlist.songs.isEmpty)

    let watcher = Watcher()
    var changes: [String] = []
    watcher.autoObserve(playlist, keyPath: \.manualSongs, options: [.old, .new]) { _, _, change in
      changes.append("\(change.kind) \(Array(change.indexes ?? [])) \(change.newValue ?? [])")
    }
    songs.append("d")
    songs.replace(at: 0, with: "z")
    #expect(playlist.manualSongs == ["z", "c", "d"])
    #expect(changes == ["insertion [2] [\"d\"]", "replacement [0] [\"z\"]"])
  }

  @Test("A removed element is released after the mutation, and then sees the array without it")
  func removedElementReleasedAfterMutation() {
    let shelf = Shelf()
    var countsSeenOnRelease: [Int] = []
    shelf.books = [Book(), Book { countsSeenOnRelease.append(shelf.books.count) }, Book()]
    let books = shelf.mutableArrayValue(for: \.books)
    books.remove(at: 1)
    #expect(countsSeenOnRelease == [2])
    let watcher = Watcher()
    watcher.autoObserve(shelf, keyPath: \.books, options: .old) { _, _, _ in }
    shelf.books.append(Book { countsSeenOnRelease.append(shelf.books.count) })
    books.removeLast()
    #expect(countsSeenOnRelease == [2, 2])
  }
}
