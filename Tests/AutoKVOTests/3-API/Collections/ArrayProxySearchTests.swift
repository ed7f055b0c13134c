import Foundation
import Testing

@testable import AutoKVO

@Suite("Array proxies: finding, removing by predicate and moving, without copying the array")
struct ArrayProxySearchTests {
  /// The address of the array's storage, to tell an in-place mutation from a copy.
  private func storage(of playlist: Playlist) -> UnsafeRawPointer? {
    playlist.songs.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
  }

  @Test(
    "removeAll(where:) is one removal at every removed index, with the removed elements, in place")
  func removeAllWhere() {
    let playlist = Playlist()
    // Made at run time: an optimized build keeps a literal array in static storage, which the
    // first mutation must copy.
    playlist.songs = ["a", "bb", "c", "dd", "e"].map { $0 }
    let watcher = Watcher()
    watcher.autoObserve(playlist, keyPath: \.songs, options: [.old, .new]) { w, _, change in
      w.record("\(change.kind) \(Array(change.indexes!)) \(describe(change))")
    }
    let before = storage(of: playlist)
    var asked: [String] = []
    playlist.mutableArrayValue(for: \.songs).removeAll { song in
      asked.append(song)
      return song.count == 2
    }
    #expect(asked == ["a", "bb", "c", "dd", "e"])
    #expect(playlist.songs == ["a", "c", "e"])
    #expect(watcher.log == ["removal [1, 3] removal [\"bb\", \"dd\"]->nil"])
    #expect(storage(of: playlist) == before)
  }

  @Test("removeAll(where:) that matches nothing changes and delivers nothing")
  func removeAllWhereNothing() {
    let playlist = Playlist()
    playlist.songs = ["a", "b"]
    let watcher = Watcher()
    watcher.autoObserve(playlist, keyPath: \.songs) { w, _, change in w.record(describe(change)) }
    playlist.mutableArrayValue(for: \.songs).removeAll { $0 == "z" }
    #expect(playlist.songs == ["a", "b"])
    #expect(watcher.log.isEmpty)
  }

  @Test("firstIndex(of:) and firstIndex(where:) find the first match or nil, and change nothing")
  func firstIndex() {
    let playlist = Playlist()
    playlist.songs = ["a", "b", "a"]
    let watcher = Watcher()
    watcher.autoObserve(playlist, keyPath: \.songs) { w, _, change in w.record(describe(change)) }
    let songs = playlist.mutableArrayValue(for: \.songs)
    #expect(songs.firstIndex(of: "a") == 0)
    #expect(songs.firstIndex(of: "z") == nil)
    #expect(songs.firstIndex { $0 > "a" } == 1)
    #expect(songs.firstIndex { $0 > "z" } == nil)
    #expect(watcher.log.isEmpty)
  }

  @Test(
    "move(fromOffsets:toOffset:) is a removal at the sources, then an insertion at the new indexes, as SwiftUI moves"
  )
  func move() {
    let playlist = Playlist()
    playlist.songs = ["a", "b", "c", "d", "e"].map { $0 }  // made at run time, as above
    let watcher = Watcher()
    watcher.autoObserve(playlist, keyPath: \.songs, options: [.old, .new]) { w, _, change in
      w.record("\(change.kind) \(Array(change.indexes!)) \(describe(change))")
    }
    let before = storage(of: playlist)
    playlist.mutableArrayValue(for: \.songs).move(fromOffsets: [0, 2], toOffset: 4)
    #expect(playlist.songs == ["b", "d", "a", "c", "e"])
    #expect(
      watcher.log == [
        "removal [0, 2] removal [\"a\", \"c\"]->nil",
        "insertion [2, 3] insertion nil->[\"a\", \"c\"]",
      ])
    #expect(storage(of: playlist) == before)
    playlist.mutableArrayValue(for: \.songs).move(fromOffsets: [4], toOffset: 0)
    #expect(playlist.songs == ["e", "b", "d", "a", "c"])
    playlist.mutableArrayValue(for: \.songs).move(fromOffsets: [1], toOffset: 5)
    #expect(playlist.songs == ["e", "d", "a", "c", "b"])
  }

  @Test("A move with an offset out of range is reported, and nothing moves or is delivered")
  func moveOutOfRange() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let playlist = Playlist()
    playlist.songs = ["a", "b"]
    let watcher = Watcher()
    watcher.autoObserve(playlist, keyPath: \.songs) { w, _, change in w.record(describe(change)) }
    let songs = playlist.mutableArrayValue(for: \.songs)
    songs.move(fromOffsets: [2], toOffset: 0)
    songs.move(fromOffsets: [0], toOffset: 3)
    songs.move(fromOffsets: [], toOffset: 1)
    #expect(playlist.songs == ["a", "b"])
    #expect(watcher.log.isEmpty)
    #expect(diagnostics.kinds == [.indexesOutOfRange, .indexesOutOfRange])
    #expect(diagnostics.messages[0].hasPrefix("removal at indexes [2] of Playlist.songs"))
    #expect(diagnostics.messages[1].hasPrefix("insertion at indexes [3] of Playlist.songs"))
  }

  @Test("remove(at:) with several indexes removes them in one pass, with the right elements")
  func removeSeveral() {
    let playlist = Playlist()
    playlist.songs = (0..<10).map(String.init)
    playlist.mutableArrayValue(for: \.songs).remove(at: [0, 3, 4, 9])
    #expect(playlist.songs == ["1", "2", "5", "6", "7", "8"])
  }
}
