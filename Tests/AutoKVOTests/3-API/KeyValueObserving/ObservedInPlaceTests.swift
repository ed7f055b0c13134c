import Foundation
// The willSet/didSet form of `withObservationTracking` is SPI for SwiftUI, which tracks with it.
@_spi(SwiftUI) import Observation
import Testing

@testable import AutoKVO

/// A copy-on-write value whose mutation records whether it found its storage uniquely referenced:
/// `false` means the mutation copied it.
struct CountedBuffer: CustomStringConvertible {
  final class Storage {
    var count = 0
  }

  private var storage = Storage()
  /// Whether the last mutation found the storage uniquely referenced.
  private(set) var wasUniqueAtLastMutation = true

  var count: Int { storage.count }
  var description: String { "\(count)" }

  mutating func increment() {
    wasUniqueAtLastMutation = isKnownUniquelyReferenced(&storage)
    if !wasUniqueAtLastMutation {
      let copy = Storage()
      copy.count = storage.count
      storage = copy
    }
    storage.count += 1
  }
}

/// The model of these tests: properties mutated in place, a computed property over one, and an
/// object to chain through.
// @unchecked Sendable: single-threaded tests.
final class InPlaceLedger: KeyValueObservable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  @ObservedInPlace var items: [Int] = []
  @ObservedInPlace var count = 0
  @ObservedInPlace var buffer = CountedBuffer()
  @ObservedInPlace var dog: Dog?
  /// Notified by hand only: automatic notification is off for it.
  @ObservedInPlace var audited: [Int] = []

  /// Discovered to depend on `items`.
  var total: Int { items.reduce(0, +) }

  static func automaticallyNotifiesObservers(for keyPath: AnyKeyPath) -> Bool {
    keyPath != \InPlaceLedger.audited
  }
}

/// A ledger that Swift's Observation tracks too.
// @unchecked Sendable: single-threaded tests.
final class TrackedInPlaceLedger: KeyValueObservable, Observable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  @ObservedInPlace var items: [Int] = []
}

/// The address of the array's elements: the same before and after a mutation that did not copy
/// the array.
private func elementsAddress(_ items: [Int]) -> UnsafeRawPointer? {
  items.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
}

/// The addresses of the ledger's elements after each of `appends`, read after each: a copy would
/// move them at once (the allocator may hand the first address back to a later copy).
private func addressesAfterAppending(_ appends: Range<Int>, to ledger: InPlaceLedger) -> Set<
  UnsafeRawPointer?
> {
  var addresses: Set<UnsafeRawPointer?> = []
  for item in appends {
    ledger.items.append(item)
    addresses.insert(elementsAddress(ledger.items))
  }
  return addresses
}

@Suite("@ObservedInPlace: a mutation through the property happens where the value is stored")
struct ObservedInPlaceTests {
  @Test("An unobserved append never copies the array: its elements stay where they are")
  func unobservedAppendDoesNotCopy() {
    let ledger = InPlaceLedger()
    ledger.items.reserveCapacity(64)
    ledger.items.append(0)
    let before = elementsAddress(ledger.items)
    #expect(addressesAfterAppending(1..<32, to: ledger) == [before])
    #expect(ledger.items == Array(0..<32))
    ledger.buffer.increment()
    #expect(ledger.buffer.wasUniqueAtLastMutation)
  }

  @Test("A [.new]-observed append never copies the array, and notifies once with the new value")
  func newObservedAppendDoesNotCopy() {
    let ledger = InPlaceLedger()
    let watcher = Watcher()
    ledger.items.reserveCapacity(64)
    ledger.items.append(0)
    let before = elementsAddress(ledger.items)
    watcher.autoObserve(ledger, keyPath: \.items, options: [.new]) { w, _, c in
      w.record(describe(c))
    }
    #expect(addressesAfterAppending(1..<3, to: ledger) == [before])
    #expect(watcher.log == ["setting nil->[0, 1]", "setting nil->[0, 1, 2]"])
  }

  @Test("A struct mutated in place stays uniquely referenced under a [.new] observer")
  func structMutatedInPlace() {
    let ledger = InPlaceLedger()
    let watcher = Watcher()
    watcher.autoObserve(ledger, keyPath: \.buffer, options: [.new]) { w, _, c in
      w.record(describe(c))
    }
    ledger.buffer.increment()
    ledger.buffer.increment()
    #expect(ledger.buffer.wasUniqueAtLastMutation)
    #expect(watcher.log == ["setting nil->1", "setting nil->2"])
  }

  @Test(".old delivers exactly the value before the mutation, a copy the mutation then makes")
  func oldAndNewValues() {
    let ledger = InPlaceLedger()
    ledger.items = [0]
    ledger.buffer.increment()
    let watcher = Watcher()
    watcher.autoObserve(ledger, keyPath: \.items, options: [.old, .new]) { w, _, c in
      w.record(describe(c))
    }
    watcher.autoObserve(ledger, keyPath: \.buffer, options: [.old, .new]) { w, _, c in
      w.record(describe(c))
    }
    ledger.items.append(1)
    ledger.items[0] = 5
    ledger.items.removeAll()
    ledger.buffer.increment()
    #expect(
      watcher.log == [
        "setting [0]->[0, 1]", "setting [0, 1]->[5, 1]", "setting [5, 1]->[]", "setting 1->2",
      ])
    #expect(!ledger.buffer.wasUniqueAtLastMutation)
  }

  @Test("count += 1 notifies once, with the old and the new count")
  func compoundAssignment() {
    let ledger = InPlaceLedger()
    let watcher = Watcher()
    watcher.autoObserve(ledger, keyPath: \.count, options: [.old, .new]) { w, _, c in
      w.record(describe(c))
    }
    ledger.count += 1
    ledger.count += 1
    #expect(watcher.log == ["setting 0->1", "setting 1->2"])
  }

  @Test(".prior is called before the mutation begins, with the old value, then the change")
  func priorOrder() {
    let ledger = InPlaceLedger()
    ledger.items = [1]
    let watcher = Watcher()
    watcher.autoObserve(ledger, keyPath: \.items, options: [.prior, .old, .new]) { w, l, c in
      w.record("\(describe(c)) seen=\(l.items)")
    }
    ledger.items.append(2)
    #expect(
      watcher.log == [
        "prior setting [1]->nil seen=[1]", "setting [1]->[1, 2] seen=[1, 2]",
      ])
  }

  @Test("A handler runs after the mutation ended: it reads the property, and may set another")
  func handlerReadsTheProperty() {
    let ledger = InPlaceLedger()
    let watcher = Watcher()
    watcher.autoObserve(ledger, keyPath: \.items, options: [.new]) { w, l, c in
      w.record("\(l.items.count) \(c.newValue!.count)")
      l.count = l.items.count
    }
    ledger.items.append(1)
    ledger.items.append(2)
    #expect(watcher.log == ["1 1", "2 2"])
    #expect(ledger.count == 2)
  }

  @Test("A mutation that throws is still one change, delivered after it")
  func throwingMutation() {
    struct Refused: Error {}
    let ledger = InPlaceLedger()
    ledger.items = [1, 2]
    let watcher = Watcher()
    watcher.autoObserve(ledger, keyPath: \.items, options: [.old, .new]) { w, _, c in
      w.record(describe(c))
    }
    #expect(throws: Refused.self) {
      try ledger.items.withUnsafeMutableBufferPointer { buffer in
        buffer[0] = 9
        throw Refused()
      }
    }
    #expect(watcher.log == ["setting [1, 2]->[9, 2]"])
  }

  @Test("An assignment is an @Observed set: one change with the old and the new value")
  func plainAssignment() {
    let ledger = InPlaceLedger()
    let watcher = Watcher()
    watcher.autoObserve(ledger, keyPath: \.items, options: [.old, .new]) { w, _, c in
      w.record(describe(c))
    }
    ledger.items = [1, 2]
    ledger.items = []
    #expect(watcher.log == ["setting []->[1, 2]", "setting [1, 2]->[]"])
  }

  @Test("A computed property that reads it is notified of each mutation, with its values")
  func discoveredDependency() {
    let ledger = InPlaceLedger()
    let watcher = Watcher()
    watcher.autoObserve(ledger, keyPath: \.total, options: [.old, .new]) { w, _, c in
      w.record(describe(c))
    }
    ledger.items.append(5)
    ledger.items.append(7)
    #expect(watcher.log == ["setting 0->5", "setting 5->12"])
  }

  @Test("A chain through it follows its assignments and the changes of the object it holds")
  func chainThroughIt() {
    let ledger = InPlaceLedger()
    let watcher = Watcher()
    watcher.autoObserve(ledger, keyPath: \.dog?.name, options: [.old, .new]) { w, _, c in
      w.record(describe(c))
    }
    let rex = Dog("Rex")
    ledger.dog = rex
    rex.name = "Max"
    ledger.dog = nil
    rex.name = "Ignored"
    #expect(
      watcher.log == [
        "setting nil->Optional(\"Rex\")", "setting Optional(\"Rex\")->Optional(\"Max\")",
        "setting Optional(\"Max\")->nil",
      ])
  }

  @Test("mutableArrayValue(for:) on it reports kinds and indexes, and mutates in place")
  func arrayProxy() {
    let ledger = InPlaceLedger()
    ledger.items.reserveCapacity(16)
    ledger.items = [1]
    ledger.items.reserveCapacity(16)
    let before = elementsAddress(ledger.items)
    let watcher = Watcher()
    watcher.autoObserve(ledger, keyPath: \.items, options: [.new]) { w, _, c in
      w.record("\(c.kind) \(c.indexes.map { Array($0) } ?? []) \(c.newValue ?? [])")
    }
    let proxy = ledger.mutableArrayValue(for: \.items)
    proxy.append(2)
    proxy.remove(at: 0)
    #expect(watcher.log == ["insertion [1] [2]", "removal [0] []"])
    #expect(ledger.items == [2])
    #expect(elementsAddress(ledger.items) == before)
  }

  @Test("With automatic notification off, a mutation posts nothing; manual notification does")
  func manualNotification() {
    let ledger = InPlaceLedger()
    let watcher = Watcher()
    watcher.autoObserve(ledger, keyPath: \.audited, options: [.old, .new]) { w, _, c in
      w.record(describe(c))
    }
    ledger.audited.append(1)
    #expect(watcher.log.isEmpty)
    ledger.willChangeValue(for: \.audited)
    ledger.audited.append(2)
    ledger.didChangeValue(for: \.audited)
    #expect(watcher.log == ["setting [1]->[1, 2]"])
  }

  @Test(
    "A registration with a delivery queue receives each mutation there, in order, with its values")
  func deliveryQueue() async {
    let ledger = InPlaceLedger()
    let queue = DispatchQueue(label: "autokvo.tests.in-place.delivery")
    let watcher = Watcher()
    watcher.autoObserve(ledger, keyPath: \.items, options: [.old, .new], deliveryQueue: queue) {
      w, _, change in
      dispatchPrecondition(condition: .onQueue(queue))
      w.record(describe(change))
    }
    ledger.items.append(1)
    ledger.items.append(2)
    ledger.items[0] = 5
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(
      watcher.log == [
        "setting []->[1]", "setting [1]->[1, 2]", "setting [1, 2]->[5, 2]",
      ])
  }

  @Test("changes(for:) yields each mutation")
  func changesSequence() async {
    let ledger = InPlaceLedger()
    let changes = ledger.changes(for: \.items, options: [.new])
    ledger.items.append(1)
    ledger.items.append(2)
    var received: [[Int]] = []
    for await change in changes {
      received.append(change.newValue!)
      if received.count == 2 { break }
    }
    #expect(received == [[1], [1, 2]])
  }

  @Test("Observation tracks an in-place mutation once, as withMutation: willSet old, didSet new")
  func observationTracking() {
    let ledger = TrackedInPlaceLedger()
    ledger.items = [1]
    let log = TrackingLog()
    withObservationTracking {
      _ = ledger.items
    } willSet: { _ in
      log.record("willSet \(ledger.items)")
    } didSet: { tracking in
      log.record("didSet \(ledger.items)")
      // This form stays armed until cancelled, as SwiftUI cancels it: left armed, its closures
      // would keep the ledger alive through the ledger's own registrar.
      tracking.cancel()
    }
    ledger.items.append(2)
    #expect(log.all == ["willSet [1]", "didSet [1, 2]"])
    let onChange = TrackingLog()
    track(onChange, { _ = ledger.items }, entry: { "changed" })
    ledger.items[0] = 3
    ledger.items.append(4)
    #expect(onChange.all == ["changed"])
    #expect(ledger.items == [3, 2, 4])
  }

  @Test("Observation and a [.new] observer together: one change each, and no copy")
  func observationAndObserverWithoutCopy() {
    let ledger = TrackedInPlaceLedger()
    ledger.items.reserveCapacity(16)
    ledger.items.append(0)
    let before = elementsAddress(ledger.items)
    let watcher = Watcher()
    watcher.autoObserve(ledger, keyPath: \.items, options: [.new]) { w, _, c in
      w.record(describe(c))
    }
    let log = TrackingLog()
    track(log, { _ = ledger.items }, entry: { "changed" })
    ledger.items.append(1)
    #expect(elementsAddress(ledger.items) == before)
    #expect(log.all == ["changed"])
    #expect(watcher.log == ["setting nil->[0, 1]"])
  }
}
