import Foundation

/// Builds the descriptors of collection changes, validating indexes against the collection.
///
/// Out-of-range indexes are bad input: they are reported as an ``ObservationDiagnostic``, and a
/// manual notification's change is described as a `.setting` of the whole collection, so that
/// observers stay correct (a proxy refuses such a mutation before it gets here).
enum CollectionChanges {
  /// The descriptor of an indexed change of `array`, known before the change.
  static func arrayChange<Element>(
    _ kind: ChangeKind,
    at indexes: IndexSet,
    of array: [Element],
    keyPath: AnyKeyPath,
    object: AnyObject
  ) -> ChangeDescriptor {
    guard kind != .setting else { return .setting(keyPath) }
    let limit = kind == .insertion ? array.count + indexes.count : array.count
    guard (indexes.last ?? -1) < limit, (indexes.first ?? 0) >= 0 else {
      reportOutOfRange(
        kind, indexes, count: array.count, keyPath: keyPath, object: object,
        outcome: .deliveredAsSetting)
      return .setting(keyPath)
    }
    var descriptor = ChangeDescriptor(keyPath: keyPath, kind: kind, indexes: indexes)
    if kind != .insertion {
      descriptor.oldElements = indexes.map { array[$0] }
    }
    return descriptor
  }

  /// Adds the elements now at the change's indexes, for insertions and replacements.
  static func completeArrayChange<Element>(
    _ descriptor: inout ChangeDescriptor,
    with array: [Element],
    object: AnyObject
  ) {
    guard descriptor.kind == .insertion || descriptor.kind == .replacement,
      let indexes = descriptor.indexes
    else { return }
    guard (indexes.last ?? -1) < array.count else {
      reportOutOfRange(
        descriptor.kind, indexes, count: array.count, keyPath: descriptor.keyPath,
        object: object, outcome: .deliveredWithoutNewElements)
      return
    }
    descriptor.newElements = indexes.map { array[$0] }
  }

  /// The descriptor of a set mutation of `set` with `members`, complete before the change.
  static func setChange<Element>(
    _ mutation: SetMutationKind,
    with members: Set<Element>,
    of set: Set<Element>,
    keyPath: AnyKeyPath
  ) -> ChangeDescriptor {
    switch mutation {
    case .union:
      return ChangeDescriptor(
        keyPath: keyPath, kind: .insertion, newElements: members.subtracting(set))
    case .minus:
      return ChangeDescriptor(
        keyPath: keyPath, kind: .removal, oldElements: members.intersection(set))
    case .intersect:
      return ChangeDescriptor(
        keyPath: keyPath, kind: .removal, oldElements: set.subtracting(members))
    case .set:
      return ChangeDescriptor(
        keyPath: keyPath, kind: .replacement,
        oldElements: set.subtracting(members), newElements: members.subtracting(set))
    }
  }

  /// What became of a change whose indexes were out of range, as its diagnostic says.
  enum OutOfRangeOutcome {
    /// A proxy refused the mutation: nothing changed, and nothing is delivered.
    case nothingChanged
    /// A manual notification is delivered as a `.setting` of the whole collection.
    case deliveredAsSetting
    /// A manual notification found its indexes out of range only after the change: it is
    /// delivered with its kind and indexes, without the new elements.
    case deliveredWithoutNewElements

    var sentence: String {
      switch self {
      case .nothingChanged: "nothing was changed, and observers receive nothing."
      case .deliveredAsSetting:
        "observers receive a .setting change of the whole collection instead."
      case .deliveredWithoutNewElements:
        "observers receive the change with its kind and indexes but without new elements."
      }
    }
  }

  static func reportOutOfRange(
    _ kind: ChangeKind,
    _ indexes: IndexSet,
    count: Int,
    keyPath: AnyKeyPath,
    object: AnyObject,
    outcome: OutOfRangeOutcome
  ) {
    ObservationDiagnostics.report(
      .indexesOutOfRange,
      "\(kind) at indexes \(Array(indexes)) of \(PropertyNames.describe(keyPath, on: object)), "
        + "which has \(count) elements: the indexes are out of range; \(outcome.sentence)"
    )
  }
}

extension ObservationRegistry {
  /// Performs an array mutation of the property at `keyPath` of `object` with `mutate`, and
  /// notifies its observers of a `kind` change at `indexes`, with the elements removed or
  /// replaced (`oldElements`, known before) and the ones inserted or replacing them (what
  /// `mutate` returns; `nil` for a removal). Takes the elements as `Any`, so that a proxy
  /// specialized for its element type calls the engine's one unspecialized copy.
  @usableFromInline
  func performArrayChange(
    of object: AnyObject,
    _ kind: ChangeKind,
    at indexes: IndexSet,
    oldElements: Any?,
    keyPath: AnyKeyPath,
    mutate: () -> Any?
  ) {
    var descriptor = ChangeDescriptor(keyPath: keyPath, kind: kind, indexes: indexes)
    descriptor.oldElements = oldElements
    var newElements: Any?
    performCollectionChange(of: object, descriptor) {
      newElements = mutate()
    } completeDescriptor: { descriptor in
      descriptor.newElements = newElements
    }
  }
}
