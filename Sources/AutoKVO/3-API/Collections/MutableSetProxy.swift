/// A view of a set property whose mutations notify the property's observers with the kind and
/// members that ``SetMutationKind`` describes; returned by
/// ``KeyValueObservable/mutableSetValue(for:)``.
///
/// A mutation that changes nothing (inserting a member already present) still notifies, with an
/// empty set of affected members, as KVO's set proxies do.
///
/// The proxy retains its object. On an `@Observed` property it mutates the set where it is
/// stored, without copying it; on any other property each mutation reads and writes the whole
/// set through the key path.
///
/// `MutableSetProxy` is not `Sendable`: it holds its object, which need not be. Make one where
/// you mutate, rather than passing it around.
public struct MutableSetProxy<Object: KeyValueObservable, Element: Hashable> {
  private let object: Object
  private let keyPath: ReferenceWritableKeyPath<Object, Set<Element>>
  /// The key path of the `@Observed` property `keyPath` names, which changes are posted under and
  /// whose storage is mutated in place; `nil` for any other property.
  private let propertyKeyPath: AnyKeyPath?

  init(object: Object, keyPath: ReferenceWritableKeyPath<Object, Set<Element>>) {
    self.object = object
    self.keyPath = keyPath
    propertyKeyPath = Dependencies.declaredKeyPath(of: keyPath, on: object)
  }

  /// The current members.
  public var elements: Set<Element> { object[keyPath: keyPath] }

  /// The number of members.
  public var count: Int { elements.count }

  /// Whether `member` is in the set.
  public func contains(_ member: Element) -> Bool { elements.contains(member) }

  /// Adds `member`; observers get an `.insertion` whose new value is the members added.
  public func insert(_ member: Element) {
    formUnion([member])
  }

  /// Removes `member`; observers get a `.removal` whose old value is the members removed.
  public func remove(_ member: Element) {
    subtract([member])
  }

  /// Adds `members`: a ``SetMutationKind/union``.
  public func formUnion(_ members: Set<Element>) {
    mutate(.union, members) { $0.formUnion(members) }
  }

  /// Removes `members`: a ``SetMutationKind/minus``.
  public func subtract(_ members: Set<Element>) {
    mutate(.minus, members) { $0.subtract(members) }
  }

  /// Keeps only `members`: a ``SetMutationKind/intersect``.
  public func formIntersection(_ members: Set<Element>) {
    mutate(.intersect, members) { $0.formIntersection(members) }
  }

  /// Replaces every member with `members`: a ``SetMutationKind/set``.
  public func replaceAll(with members: Set<Element>) {
    mutate(.set, members) { $0 = members }
  }

  private func mutate(
    _ mutation: SetMutationKind,
    _ members: Set<Element>,
    _ body: (inout Set<Element>) -> Void
  ) {
    let object = object
    let keyPath = keyPath
    let registry = object.observationRegistry
    // Members removed are released only after the change was delivered (see `Observed`); the
    // descriptor holds them when someone observes, `released` otherwise.
    var released = Set<Element>()
    defer { withExtendedLifetime(released) {} }
    guard registry.isObservedOrTracked else {
      return mutateInPlace { set in
        released = Self.members(removedBy: mutation, members, from: set)
        body(&set)
      }
    }
    let descriptor = CollectionChanges.setChange(
      mutation, with: members, of: object[keyPath: keyPath],
      keyPath: propertyKeyPath ?? keyPath)
    registry.performCollectionChange(of: object, descriptor) {
      mutateInPlace(body)
    } completeDescriptor: { _ in
    }
  }

  /// The members of `set` that `mutation` with `members` removes, in time proportional to what
  /// the mutation itself costs.
  private static func members(
    removedBy mutation: SetMutationKind,
    _ members: Set<Element>,
    from set: Set<Element>
  ) -> Set<Element> {
    switch mutation {
    case .union: []
    case .minus: members.intersection(set)
    case .intersect, .set: set.subtracting(members)
    }
  }

  /// Mutates the set where it is stored when the property is `@Observed`, otherwise through the
  /// key path.
  private func mutateInPlace(_ body: (inout Set<Element>) -> Void) {
    InPlaceMutation.mutate(object, at: keyPath, property: propertyKeyPath, placeholder: [], body)
  }
}
