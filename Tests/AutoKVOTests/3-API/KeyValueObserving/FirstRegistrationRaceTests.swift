import Foundation
import Testing

@testable import AutoKVO

/// A media item another thread only reads while it is registered on.
// @unchecked Sendable: `position` is never set while other threads read it; registering reads it.
final class PlayingMedia: KeyValueObservable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  @Observed var position = 0
}

/// The sum of what a reader read, so that its reads are not optimized away.
final class ReadSink: @unchecked Sendable {  // `total` is guarded by `lock`
  private let lock = NSLock()
  private var total = 0

  func add(_ value: Int) {
    lock.withLock { total &+= value }
  }
}

@Suite("A first registration on a property races nothing that a read of it does not race")
struct FirstRegistrationRaceTests {
  /// The reads are the getter inlined here, a direct load of the value in an optimized build,
  /// which ThreadSanitizer sees: it reports the first registration's write of the record's index
  /// if that write is a modifying access to the whole storage (`_position`) rather than to the
  /// index alone. A debug build reads through the key-path runtime, which it does not instrument,
  /// so this test catches a regression in the optimized sanitizer run.
  @Test(
    "Registering with .initial on new objects while another thread reads the property: the registration reads the value and writes only the index"
  )
  func initialRegistrationBesideReads() {
    let sink = ReadSink()
    // The first registration on the property of the class, in the process, finds where its
    // storage keeps the index, an access ThreadSanitizer counts as a write of the storage: made
    // before any reader starts, as Thread safety says.
    Watcher().autoObserve(PlayingMedia(), keyPath: \.position, options: [.initial]) { _, _, _ in }
    for round in 0..<200 {
      // A new object: its property has no record yet, so registering makes one.
      let media = PlayingMedia()
      media.position = round
      let watcher = Watcher()
      runSimultaneously([
        {
          watcher.autoObserve(media, keyPath: \.position, options: [.initial, .new]) {
            watcher, _, change in watcher.record("\(change.newValue!)")
          }
        },
        {
          var total = 0
          for _ in 0..<200 { total &+= media.position }
          sink.add(total)
        },
      ])
      #expect(watcher.log == ["\(round)"])
      #expect(media.observationRegistry.observerCount == 1)
      media.position = round + 1
      #expect(watcher.log == ["\(round)", "\(round + 1)"])
    }
  }
}
