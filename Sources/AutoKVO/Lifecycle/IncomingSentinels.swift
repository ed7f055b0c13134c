/// Observed-side sentinels in registration order: those of every registration observing one
/// object (its registry's list, from which each `@Observed` property's snapshot is filtered).
///
/// A short list removes a sentinel by a linear search and a shift, as `InlineFirstArray` does. A
/// long one (``indexingThreshold`` sentinels or more) also keeps each sentinel's position, and a
/// removal empties the sentinel's slot (a tombstone, `nil`) instead of shifting the ones after it;
/// the list is compacted once tombstones outnumber live sentinels. N observers of one
/// object deallocated one by one thus cost O(N) in all instead of O(N²), and the order in which
/// registrations are notified never changes. Guarded by the registry's lock.
struct IncomingSentinels {
  /// In registration order, with tombstones (`nil`) where sentinels were removed from a long list.
  /// A change's snapshot is a copy of it, which shares its storage.
  private(set) var slots = InlineFirstArray<(any ObservedSentinel)?>()
  /// Kept only for a long list, out of line, so that a registry with a short list (nearly all of
  /// them) pays one word for it. A reference: copies of the list share it, so only the registry's
  /// own copy is ever mutated (the copy its `deinit` moves out is only read).
  private var index: PositionIndex?

  /// Where each live sentinel of a long list is, by the identity of its registration, and how
  /// many tombstones the list holds.
  private final class PositionIndex {
    var positions: [ObjectIdentifier: Int]
    var tombstones = 0

    init(positions: [ObjectIdentifier: Int]) {
      self.positions = positions
    }
  }

  /// The length from which positions are kept; they are dropped again below half of it.
  static let indexingThreshold = 64

  /// The number of live sentinels: `slots` without its tombstones.
  var count: Int { slots.count - (index?.tombstones ?? 0) }

  var isEmpty: Bool { count == 0 }

  mutating func append(_ sentinel: any ObservedSentinel) {
    index?.positions[ObjectIdentifier(sentinel.observation)] = slots.count
    slots.append(sentinel)
    if index == nil && slots.count >= Self.indexingThreshold {
      rebuildIndex()
    }
  }

  /// Removes the sentinel of `observation` and returns it, or returns `nil` when the list does
  /// not hold it.
  mutating func remove(observedSideOf observation: KeyValueObservation) -> (any ObservedSentinel)? {
    guard let index else {
      return slots.removeFirst(where: { $0?.observation === observation }) ?? nil
    }
    guard let position = index.positions.removeValue(forKey: ObjectIdentifier(observation)) else {
      return nil
    }
    let removed = slots.replace(at: position, with: nil)
    index.tombstones += 1
    if index.positions.isEmpty {
      self = IncomingSentinels()
    } else if index.tombstones > index.positions.count {
      compact()
    }
    return removed
  }

  /// The sentinel of `observation`, if the list holds it.
  func sentinel(of observation: KeyValueObservation) -> (any ObservedSentinel)? {
    if let index {
      return index.positions[ObjectIdentifier(observation)].flatMap { slots[$0] }
    }
    var found: (any ObservedSentinel)?
    forEachSentinel { sentinel in
      if found == nil && sentinel.observation === observation { found = sentinel }
    }
    return found
  }

  /// Calls `body` on each live sentinel, in registration order.
  func forEachSentinel(_ body: (any ObservedSentinel) throws -> Void) rethrows {
    try slots.forEachElement { sentinel in
      if let sentinel { try body(sentinel) }
    }
  }

  private mutating func compact() {
    slots = slots.keeping { $0 != nil }
    if slots.count >= Self.indexingThreshold / 2 {
      rebuildIndex()
    } else {
      index = nil
    }
  }

  /// Indexes `slots`, which holds no tombstone: it is called when the list first grows long,
  /// while it has no index and so no tombstone, and right after a compaction.
  private mutating func rebuildIndex() {
    var positions = [ObjectIdentifier: Int](minimumCapacity: slots.count)
    var position = 0
    slots.forEachElement { sentinel in
      guard let sentinel else { preconditionFailure("indexing a list that holds tombstones") }
      positions[ObjectIdentifier(sentinel.observation)] = position
      position += 1
    }
    index = PositionIndex(positions: positions)
  }
}
