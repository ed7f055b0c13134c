import Foundation

extension Array {
  /// Removes the elements at `indexes` in one pass: each kept element moves once.
  mutating func removeElements(at indexes: IndexSet) {
    guard let first = indexes.first else { return }
    var kept = first
    for index in (first + 1)..<count where !indexes.contains(index) {
      swapAt(kept, index)
      kept += 1
    }
    removeSubrange(kept...)
  }
}

/// The indexes an array mutation affects, as its caller knows them. One index, or the end of the
/// array, the common cases, make no `IndexSet` (a Foundation object on Linux) unless an observer
/// or a diagnostic needs one.
@usableFromInline
enum ArrayPositions {
  case one(Int)
  /// After the last element, for this many new elements.
  case end(adding: Int)
  case many(IndexSet)

  /// Whether a `kind` mutation at these positions fits an array of `count` elements.
  @inlinable
  func areValid(for kind: ChangeKind, count: Int) -> Bool {
    switch self {
    case .one(let index):
      return index >= 0 && index < (kind == .insertion ? count + 1 : count)
    case .end:
      return kind == .insertion
    case .many(let indexes):
      let limit = kind == .insertion ? count + indexes.count : count
      return (indexes.first ?? 0) >= 0 && (indexes.last ?? -1) < limit
    }
  }

  /// The elements of `array` at these positions.
  @inlinable
  func elements<Element>(of array: [Element]) -> [Element] {
    switch self {
    case .one(let index): [array[index]]
    case .end: []
    case .many(let indexes): indexes.map { array[$0] }
    }
  }

  /// The elements at these positions of `array` after a mutation that inserted or replaced them
  /// there, `array` having had `countBefore` elements before it; `nil` when a position is outside
  /// `array`.
  @inlinable
  func elements<Element>(of array: [Element], countBefore: Int) -> [Element]? {
    switch self {
    case .one(let index):
      return array.indices.contains(index) ? [array[index]] : nil
    case .end(let added):
      let range = countBefore..<(countBefore + added)
      return range.upperBound <= array.count ? Array(array[range]) : nil
    case .many(let indexes):
      guard (indexes.first ?? 0) >= 0, (indexes.last ?? -1) < array.count else { return nil }
      return indexes.map { array[$0] }
    }
  }

  /// The positions as indexes, for an array of `count` elements before the mutation.
  @inlinable
  func indexes(count: Int) -> IndexSet {
    switch self {
    case .one(let index): IndexSet(integer: index)
    case .end(let added): IndexSet(integersIn: count..<(count + added))
    case .many(let indexes): indexes
    }
  }
}
