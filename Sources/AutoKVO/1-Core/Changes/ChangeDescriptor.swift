import Foundation

/// One change in flight, as the engine hands it to each registration it concerns.
///
/// A `.setting` change says only which key path changed: a registration reads the values of its
/// own key path, unless an `@Observed` setter hands it the values it replaced and stored (see
/// `SetterValues`). A collection change (insertion, removal, replacement) also carries the
/// affected indexes and elements, which registrations on exactly that key path deliver as their
/// old and new values.
struct ChangeDescriptor {
  /// The key path of the object that posted the change.
  let keyPath: AnyKeyPath
  var kind: ChangeKind
  var indexes: IndexSet?
  /// The affected elements before the change, as the collection's own type (removal, replacement).
  var oldElements: Any?
  /// The affected elements after the change, as the collection's own type (insertion, replacement).
  var newElements: Any?

  static func setting(_ keyPath: AnyKeyPath) -> ChangeDescriptor {
    ChangeDescriptor(keyPath: keyPath, kind: .setting)
  }

  /// The same change, posted under `keyPath`: another name of the same property.
  func posted(under keyPath: AnyKeyPath) -> ChangeDescriptor {
    ChangeDescriptor(
      keyPath: keyPath, kind: kind, indexes: indexes, oldElements: oldElements,
      newElements: newElements)
  }

  /// Whether a registration on `registeredKeyPath` receives this change with its indexes and
  /// elements, rather than as a `.setting` of its own value.
  func isCollectionShaped(for registeredKeyPath: AnyKeyPath?) -> Bool {
    kind != .setting && (registeredKeyPath.map(keyPath.matches) ?? false)
  }
}
