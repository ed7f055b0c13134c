import Testing

@testable import AutoKVO

/// An observed object that knows its place in the order of registration.
private final class NumberedItem: KeyValueObservable, @unchecked Sendable {  // single-threaded
  let observationRegistry = ObservationRegistry()
  let number: Int
  @Observed var value = 0
  @Observed var other = 0

  init(number: Int) {
    self.number = number
  }
}

@Suite("Long observing lists: one observer of many objects removes, stops and tears down exactly")
struct LongObservingListTests {
  /// Registers `observer` on each of `items`; each handler appends the item's number to `log`.
  @discardableResult
  private func observeValues(
    of items: [NumberedItem],
    by observer: Watcher,
    log: Box<[Int]>
  ) -> [KeyValueObservation] {
    items.map { item in
      observer.autoObserve(item, keyPath: \.value) { _, item, _ in log.value!.append(item.number) }
    }
  }

  @Test(
    "Cancelling every third of 200 registrations keeps the others live, in registration order, through compaction"
  )
  func cancellingEveryThird() {
    let observer = Watcher()
    let items = (0..<200).map(NumberedItem.init(number:))
    let log = Box<[Int]>()
    log.value = []
    let handles = observeValues(of: items, by: observer, log: log)
    for (position, handle) in handles.enumerated() where position % 3 == 0 {
      handle.cancel()
    }
    let survivors = handles.indices.filter { $0 % 3 != 0 }
    #expect(observer.observationRegistry.observingCount == survivors.count)
    #expect(
      observer.activeObservations.map(ObjectIdentifier.init)
        == survivors.map {
          ObjectIdentifier(handles[$0])
        })
    for item in items { item.value += 1 }
    #expect(log.value == survivors)
    // Below half the indexing threshold: the list drops its positions and searches again.
    for position in survivors.dropLast(10) { handles[position].cancel() }
    #expect(observer.observationRegistry.observingCount == 10)
    log.value = []
    for item in items { item.value += 1 }
    #expect(log.value == Array(survivors.suffix(10)))
    #expect(observer.stopObservingAll() == 10)
    #expect(observer.observationRegistry.observingCount == 0)
    #expect(items.allSatisfy { $0.observationRegistry.observerCount == 0 })
  }

  @Test("Freeing 150 of 200 observed objects one by one ends exactly their registrations")
  func freeingObservedObjects() {
    let observer = Watcher()
    var items: [NumberedItem?] = (0..<200).map(NumberedItem.init(number:))
    let log = Box<[Int]>()
    log.value = []
    let handles = observeValues(of: items.map { $0! }, by: observer, log: log)
    for position in stride(from: 199, through: 50, by: -1) {
      items[position] = nil
      #expect(handles[position].isCancelled)
      #expect(observer.observationRegistry.observingCount == position)
    }
    for item in items.compactMap({ $0 }) { item.value += 1 }
    #expect(log.value == Array(0..<50))
    #expect(handles.prefix(50).allSatisfy { !$0.isCancelled })
  }

  @Test(
    "stopObserving(object) and stopObserving(object, keyPath:) end only that object's registrations by this observer, from the shorter list"
  )
  func stoppingOneObjectFromEitherSide() {
    // This observer's list is the long one: it observes 100 objects, two key paths of the first.
    let observer = Watcher()
    let items = (0..<100).map(NumberedItem.init(number:))
    let log = Box<[Int]>()
    log.value = []
    observeValues(of: items, by: observer, log: log)
    observer.autoObserve(items[0], keyPath: \.other) { _, _, _ in log.value!.append(-1) }
    // The first object's list is the long one for this second observer: 80 others observe it.
    let others = (0..<80).map { _ in Watcher() }
    for other in others {
      other.autoObserve(items[0], keyPath: \.value) { _, _, _ in log.value!.append(1_000) }
    }
    let second = Watcher()
    second.autoObserve(items[0], keyPath: \.value) { _, _, _ in log.value!.append(2_000) }
    second.autoObserve(items[0], keyPath: \.other) { _, _, _ in log.value!.append(2_001) }
    second.autoObserve(items[1], keyPath: \.value) { _, _, _ in log.value!.append(2_002) }

    #expect(observer.stopObserving(items[0], keyPath: \.other) == 1)
    #expect(observer.stopObserving(items[0]) == 1)
    #expect(observer.stopObserving(items[0]) == 0)
    #expect(second.stopObserving(items[0], keyPath: \.value) == 1)
    #expect(second.stopObserving(items[0]) == 1)
    #expect(observer.observationRegistry.observingCount == 99)
    #expect(second.observationRegistry.observingCount == 1)
    #expect(items[0].observationRegistry.observerCount == 80)

    items[0].value += 1
    items[0].other += 1
    items[1].value += 1
    #expect(log.value == Array(repeating: 1_000, count: 80) + [1, 2_002])
    withExtendedLifetime(others) {}
  }
}
