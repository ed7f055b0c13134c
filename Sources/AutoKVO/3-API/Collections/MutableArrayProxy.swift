import Foundation

/// A view of an array property whose mutations notify the property's observers with the exact
/// kind, indexes and elements; returned by ``KeyValueObservable/mutableArrayValue(for:)``.
///
/// Observers of the property receive `.insertion`, `.removal` or `.replacement` with the affected
/// `indexes`, the removed or replaced elements as `oldValue` and the inserted or replacing ones as
/// `newValue` (each when its option was requested); `.prior` calls come before the mutation.
/// Observers of other key paths that depend on the array receive a `.setting` change.
///
/// Indexes outside the array are bad input: the mutation is not performed and an
/// ``ObservationDiagnostic`` is reported; nothing traps.
///
/// The proxy retains its object. On an `@Observed` property it mutates the array where it is
/// stored, without copying it, so n appends cost O(n); on any other property (a computed one, or
/// one that is not `@Observed`) each mutation reads and writes the whole array through the key
/// path, as KVO's proxies do.
///
/// `MutableArrayProxy` is not `Sendable`: it holds its object, which need not be. Make one where
/// you mutate, rather than passing it around.
public struct MutableArrayProxy<Object: KeyValueObservable, Element> {
  @usableFromInline let object: Object
  @usableFromInline let keyPath: ReferenceWritableKeyPath<Object, [Element]>
  /// The key path of the `@Observed` property `keyPath` names, which changes are posted under and
  /// whose storage is mutated in place; `nil` for any other property.
  @usableFromInline let propertyKeyPath: AnyKeyPath?

  init(object: Object, keyPath: ReferenceWritableKeyPath<Object, [Element]>) {
    self.object = object
    self.keyPath = keyPath
    propertyKeyPath = Dependencies.declaredKeyPath(of: keyPath, on: object)
  }

  /// The current elements.
  public var elements: [Element] { object[keyPath: keyPath] }

  /// The number of elements.
  public var count: Int { elements.count }

  /// The element at `index`, or `nil` when `index` is out of range.
  public subscript(index: Int) -> Element? {
    let elements = elements
    return elements.indices.contains(index) ? elements[index] : nil
  }

  /// Appends `element`; observers get an `.insertion` at the new last index.
  ///
  /// Inlinable: appending to an `@Observed` array nobody observes is then specialized where it is
  /// called, with no run-time generic metadata look-up (Docs/Performance.md).
  @inlinable
  public func append(_ element: Element) {
    // Nobody observes: nothing to describe and no index to check. The same relaxed loads and
    // decision as the unobserved branch of `mutate`.
    if let propertyKeyPath, !object.observationRegistry.isObservedOrTracked {
      return withUnsafePointer(to: element) { element in
        InPlaceMutation.mutate(
          object, at: keyPath, property: propertyKeyPath, placeholder: [], context: element
        ) { array, element in
          array.assumingMemoryBound(to: [Element].self).pointee.append(
            element!.assumingMemoryBound(to: Element.self).pointee)
        }
      }
    }
    mutate(.insertion, at: .end(adding: 1)) { $0.append(element) }
  }

  /// Appends `newElements`; observers get one `.insertion` at their new indexes.
  public func append(contentsOf newElements: some Sequence<Element>) {
    let newElements = Array(newElements)
    mutate(.insertion, at: .end(adding: newElements.count)) { $0.append(contentsOf: newElements) }
  }

  /// Inserts `element` at `index`; observers get an `.insertion` at `[index]`.
  public func insert(_ element: Element, at index: Int) {
    mutate(.insertion, at: .one(index)) { $0.insert(element, at: index) }
  }

  /// Inserts `newElements` so that they end up at `indexes`, in ascending order, as KVO's
  /// `insertObjects(_:at:)`; observers get one `.insertion` at `indexes`.
  public func insert(_ newElements: [Element], at indexes: IndexSet) {
    guard newElements.count == indexes.count else {
      return reportCountMismatch("insert", indexes: indexes, elements: newElements.count)
    }
    mutate(.insertion, at: .many(indexes)) { array in
      for (element, index) in zip(newElements, indexes) {
        array.insert(element, at: index)
      }
    }
  }

  /// Removes and returns the element at `index`, or returns `nil` and reports a diagnostic when
  /// `index` is out of range; observers get a `.removal` at `[index]`.
  @discardableResult
  public func remove(at index: Int) -> Element? {
    var removed: Element?
    mutate(.removal, at: .one(index)) { removed = $0.remove(at: index) }
    return removed
  }

  /// Removes the elements at `indexes`; observers get one `.removal` at `indexes`.
  public func remove(at indexes: IndexSet) {
    mutate(.removal, at: .many(indexes)) { $0.removeElements(at: indexes) }
  }

  /// Removes every element that satisfies `shouldBeRemoved`; observers get one `.removal` at all
  /// the removed elements' indexes, and nothing when none is removed.
  ///
  /// The predicate is called once per element, in order, before the array changes; the removal is
  /// one pass over the array where it is stored.
  public func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
    let indexes = try self.indexes(where: shouldBeRemoved)
    guard !indexes.isEmpty else { return }
    remove(at: indexes)
  }

  /// The index of the first element that satisfies `predicate`, or `nil`. Reads the array without
  /// copying it.
  public func firstIndex(where predicate: (Element) throws -> Bool) rethrows -> Int? {
    try object[keyPath: keyPath].firstIndex(where: predicate)
  }

  /// Moves the elements at `source` so that they stand, in their order, before the element that
  /// was at `destination` (or at the end when `destination` is the count), as SwiftUI's
  /// `move(fromOffsets:toOffset:)` does; observers get a `.removal` at `source`, then an
  /// `.insertion` at the elements' new indexes.
  ///
  /// Out-of-range offsets are reported and nothing moves. An empty `source` does nothing.
  public func move(fromOffsets source: IndexSet, toOffset destination: Int) {
    guard !source.isEmpty else { return }
    let moving: [Element]
    do {
      let array = object[keyPath: keyPath]
      guard (source.first ?? 0) >= 0, (source.last ?? -1) < array.count else {
        return reportOutOfRange(.removal, at: .many(source), count: array.count)
      }
      guard destination >= 0, destination <= array.count else {
        return reportOutOfRange(.insertion, at: .one(destination), count: array.count)
      }
      moving = source.map { array[$0] }
    }
    let target = destination - source.count(in: 0..<destination)
    remove(at: source)
    insert(moving, at: IndexSet(integersIn: target..<(target + moving.count)))
  }

  /// The indexes of the elements that satisfy `predicate`, found in one read of the array, which
  /// is released before any mutation.
  private func indexes(where predicate: (Element) throws -> Bool) rethrows -> IndexSet {
    var indexes = IndexSet()
    for (index, element) in object[keyPath: keyPath].enumerated() where try predicate(element) {
      indexes.insert(index)
    }
    return indexes
  }

  /// Removes and returns the last element, or `nil` when the array is empty.
  @discardableResult
  public func removeLast() -> Element? {
    let count = count
    guard count > 0 else { return nil }
    return remove(at: count - 1)
  }

  /// Removes every element; observers get one `.removal` at all former indexes.
  public func removeAll() {
    remove(at: IndexSet(integersIn: 0..<count))
  }

  /// Replaces the element at `index`; observers get a `.replacement` at `[index]`.
  public func replace(at index: Int, with element: Element) {
    mutate(.replacement, at: .one(index)) { $0[index] = element }
  }

  /// Replaces the elements at `indexes` with `newElements`, in ascending index order; observers
  /// get one `.replacement` at `indexes`.
  public func replace(at indexes: IndexSet, with newElements: [Element]) {
    guard newElements.count == indexes.count else {
      return reportCountMismatch("replace", indexes: indexes, elements: newElements.count)
    }
    mutate(.replacement, at: .many(indexes)) { array in
      for (element, index) in zip(newElements, indexes) {
        array[index] = element
      }
    }
  }

  /// Performs `body` on the array, after checking `positions` against it, and notifies the
  /// property's observers of a `kind` change at them, if it has any.
  ///
  /// Inlinable, so that what depends on the element type (reading the affected elements, the
  /// mutation) is specialized where the proxy is used; the notification itself is the engine's,
  /// which takes the elements as `Any`.
  @inlinable
  func mutate(
    _ kind: ChangeKind,
    at positions: ArrayPositions,
    _ body: (inout [Element]) -> Void
  ) {
    let registry = object.observationRegistry
    // One read of the array before the mutation, for the check and, when the property is
    // observed, the elements it removes or replaces; released before the mutation, so that the
    // mutation finds the buffer uniquely referenced.
    let count: Int
    let isObserved: Bool
    var oldElements: [Element]?
    do {
      let array = object[keyPath: keyPath]
      count = array.count
      guard positions.areValid(for: kind, count: count) else {
        return reportOutOfRange(kind, at: positions, count: count)
      }
      isObserved = registry.isObservedOrTracked
      if isObserved, kind != .insertion { oldElements = positions.elements(of: array) }
    }
    // Removed and replaced elements are released only after the change was delivered (see
    // `Observed`): their deinit may read the property. Observed, `oldElements` holds them already;
    // otherwise they are taken as the mutation removes them. The inserted or replacing elements
    // are taken while the array is at hand, rather than by reading it again after the mutation.
    var released: [Element] = []
    var inserted: [Element]?
    func mutation(_ array: inout [Element]) {
      if kind != .insertion, !isObserved { released = positions.elements(of: array) }
      body(&array)
      if isObserved, kind != .removal {
        inserted = positions.elements(of: array, countBefore: count)
      }
    }
    defer { withExtendedLifetime((released, oldElements)) {} }
    guard isObserved else { return mutateInPlace(mutation) }
    registry.performArrayChange(
      of: object, kind, at: positions.indexes(count: count),
      oldElements: oldElements, keyPath: propertyKeyPath ?? keyPath
    ) {
      mutateInPlace(mutation)
      return inserted
    }
  }

  @inlinable
  func mutateInPlace(_ body: (inout [Element]) -> Void) {
    InPlaceMutation.mutate(object, at: keyPath, property: propertyKeyPath, placeholder: [], body)
  }

  /// Reports a mutation at `positions` of the array of `count` elements that does not fit it.
  @usableFromInline
  func reportOutOfRange(_ kind: ChangeKind, at positions: ArrayPositions, count: Int) {
    CollectionChanges.reportOutOfRange(
      kind, positions.indexes(count: count), count: count, keyPath: keyPath, object: object,
      outcome: .nothingChanged)
  }

  private func reportCountMismatch(_ operation: String, indexes: IndexSet, elements: Int) {
    ObservationDiagnostics.report(
      .indexesOutOfRange,
      "\(operation) at \(indexes.count) indexes of \(PropertyNames.describe(keyPath, on: object)) "
        + "with \(elements) "
        + "elements: the counts differ; nothing was changed."
    )
  }
}

extension MutableArrayProxy where Element: Equatable {
  /// The index of the first element equal to `element`, or `nil`. Reads the array without copying
  /// it.
  public func firstIndex(of element: Element) -> Int? {
    object[keyPath: keyPath].firstIndex(of: element)
  }
}
