/// A view of a set property whose mutations notify the property's observers with the kind and
/// members that ``SetMutationKind`` describes; returned by
/// ``KeyValueObservable/mutableSetValue(for:)``.
///
/// A mutation that changes nothing (inserting a member already present) still notifies, with an
/// empty set of affected members, as KVO's set proxies do.
///
/// The proxy retains its object. Each mutation reads and writes the whole set through the
/// property, so it costs a copy of the set when the property is `@Observed`.
///
/// `MutableSetProxy` is not `Sendable`: it holds its object, which need not be. Make one where
/// you mutate, rather than passing it around.
public struct MutableSetProxy<Object: KeyValueObservable, Element: Hashable> {
  private let object: Object
  private let keyPath: ReferenceWritableKeyPath<Object, Set<Element>>

  init(object: Object, keyPath: ReferenceWritableKeyPath<Object, Set<Element>>) {
    self.object = object
    self.keyPath = keyPath
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
    // Removed members are released only after the change was delivered (see `Observed`).
    let before = object[keyPath: keyPath]
    defer { withExtendedLifetime(before) {} }
    guard registry.isObserved else { return body(&object[keyPath: keyPath]) }
    let descriptor = CollectionChanges.setChange(
      mutation, with: members, of: before,
      keyPath: Dependencies.postedKeyPath(of: keyPath, on: object))
    registry.performCollectionChange(of: object, descriptor) {
      body(&object[keyPath: keyPath])
    } completeDescriptor: { _ in
    }
  }
}
