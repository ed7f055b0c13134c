/// One side's sentinels in a registry, in registration order, each found by its registration:
/// the observed-side sentinels of every registration observing the registry's object
/// (``IncomingSentinels``, from which each `@Observed` property's snapshot is filtered), or the
/// observer-side sentinels of every registration the object made (``OutgoingSentinels``).
///
/// A short list removes a sentinel by a linear search and a shift, as `InlineFirstArray` does. A
/// long one (``indexingThreshold`` sentinels or more) also keeps each sentinel's position, and a
/// removal empties the sentinel's slot (a tombstone, `nil`) instead of shifting the ones after it;
/// the list is compacted once tombstones outnumber live sentinels. Removing one registration thus
/// costs the same whatever the number of the others (N observers of one object deallocated one by
/// one cost O(N) in all instead of O(N²), and so do the N objects one observer observes), and the
/// order of the list never changes. Guarded by the registry's lock.
struct RegistrationList<Side: RegistrationListSide> {
  typealias Sentinel = Side.Sentinel

  /// In registration order, with tombstones (`nil`) where sentinels were removed from a long list.
  /// A change's snapshot is a copy of the observed side's, which shares its storage.
  private(set) var slots = InlineFirstArray<Sentinel?>()

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
  static var indexingThreshold: Int { 64 }

  /// The number of live sentinels: `slots` without its tombstones.
  var count: Int { slots.count - (index?.tombstones ?? 0) }

  var isEmpty: Bool { count == 0 }

  mutating func append(_ sentinel: Sentinel) {
    index?.positions[ObjectIdentifier(Side.observation(of: sentinel))] = slots.count
    slots.append(sentinel)
    if index == nil && slots.count >= Self.indexingThreshold {
      rebuildIndex()
    }
  }

  /// Removes the sentinel of `observation` and returns it, or returns `nil` when the list does
  /// not hold it.
  mutating func remove(sentinelOf observation: KeyValueObservation) -> Sentinel? {
    guard let index else {
      return slots.removeFirst(where: { $0.map(Side.observation(of:)) === observation }) ?? nil
    }
    guard let position = index.positions.removeValue(forKey: ObjectIdentifier(observation)) else {
      return nil
    }
    let removed = slots.replace(at: position, with: nil)
    index.tombstones += 1
    if index.positions.isEmpty {
      self = RegistrationList()
    } else if index.tombstones > index.positions.count {
      compact()
    }
    return removed
  }

  /// The sentinel of `observation`, if the list holds it.
  func sentinel(of observation: KeyValueObservation) -> Sentinel? {
    if let index {
      return index.positions[ObjectIdentifier(observation)].flatMap { slots[$0] }
    }
    var found: Sentinel?
    forEachSentinel { sentinel in
      if found == nil && Side.observation(of: sentinel) === observation { found = sentinel }
    }
    return found
  }

  /// Calls `body` on each live sentinel, in registration order.
  func forEachSentinel(_ body: (Sentinel) throws -> Void) rethrows {
    try slots.forEachElement { sentinel in
      if let sentinel { try body(sentinel) }
    }
  }

  /// The registrations of the live sentinels, in registration order.
  var observations: [KeyValueObservation] {
    var observations: [KeyValueObservation] = []
    observations.reserveCapacity(count)
    forEachSentinel { observations.append(Side.observation(of: $0)) }
    return observations
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
      positions[ObjectIdentifier(Side.observation(of: sentinel))] = position
      position += 1
    }
    index = PositionIndex(positions: positions)
  }
}

/// Which sentinels a ``RegistrationList`` holds, and how it finds each one's registration.
protocol RegistrationListSide {
  associatedtype Sentinel
  static func observation(of sentinel: Sentinel) -> KeyValueObservation
}

/// The observed side: the sentinels that tell registrations of changes.
enum ObservedSide: RegistrationListSide {
  static func observation(of sentinel: any ObservedSentinel) -> KeyValueObservation {
    sentinel.observation
  }
}

/// The observer side: the sentinels that end registrations when their observer is deallocated.
enum ObserverSide: RegistrationListSide {
  static func observation(of sentinel: ObserverSentinel) -> KeyValueObservation {
    sentinel.observation
  }
}

/// The observed-side sentinels of every registration observing one object.
typealias IncomingSentinels = RegistrationList<ObservedSide>

/// The observer-side sentinels of every registration one object made as an observer.
typealias OutgoingSentinels = RegistrationList<ObserverSide>
