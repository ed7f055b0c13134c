/// The part of a chain's path that comes before its Foundation keys, read from the root: nothing,
/// for a path of `@objc` keys from an `NSObject` root, or a key path of `@Observed` properties of
/// a ``KeyValueObservable`` root that leads to the object the keys start from
/// (`autoObserve(model, keyPath: \.player, then: \.currentItem?.status)`).
///
/// The engine segment is read under a recorder, as a portable registration reads its key path:
/// every `@Observed` property it reads, on the root and on the objects it goes through, becomes a
/// chain link (``ChainLinkSentinel``) beside the Foundation links, in the same ``ChainLinks``
/// replacement.
struct ChainHead<Root: AnyObject> {
  /// How diagnostics name the head, for instance `\Model.player`; `nil` for no head.
  let name: String?

  /// Reads the head from `root`: the object the Foundation keys start from, `nil` when the path
  /// is absent there, and the engine objects to link, each with what of it to observe. Runs user
  /// code (getters), so never under a lock.
  let read: (Root) -> (start: AnyObject?, links: [ChainLinkTarget])
}

extension ChainHead {
  /// No head: the Foundation keys start at the root.
  static var none: ChainHead {
    ChainHead(name: nil) { root in (root, []) }
  }
}

extension ChainHead where Root: KeyValueObservable {
  /// A head of `@Observed` properties that may be absent (`\.player` of an `AVPlayer?`).
  static func engine<Intermediate: AnyObject>(
    _ keyPath: KeyPath<Root, Intermediate?>
  ) -> ChainHead {
    engine(keyPath, start: { $0 })
  }

  /// A head of `@Observed` properties that always leads to an object.
  static func engine<Intermediate: AnyObject>(
    _ keyPath: KeyPath<Root, Intermediate>
  ) -> ChainHead {
    engine(keyPath, start: { $0 })
  }

  /// A head that reads `keyPath` under a recorder; `start` turns its value into the object the
  /// Foundation keys start from.
  private static func engine<HeadValue>(
    _ keyPath: KeyPath<Root, HeadValue>,
    start: @escaping (HeadValue) -> AnyObject?
  ) -> ChainHead {
    ChainHead(name: "\(keyPath)") { root in
      let (value, dependencies) = Dependencies.discover(root: root, keyPath: keyPath)
      return (start(value), links(of: dependencies, root: root))
    }
  }

  /// The links an engine head needs: one on the root for what it reads there (the property the
  /// key path names, under the key path its changes are posted with, and the declared
  /// dependencies), and one on each other object it read `@Observed` properties of.
  private static func links(of dependencies: Dependencies, root: Root) -> [ChainLinkTarget] {
    var links: [ChainLinkTarget] = []
    if !dependencies.isEmpty {
      links.append(
        ChainLinkTarget(
          object: root,
          key: .properties([dependencies.postedKeyPath] + dependencies.extraRootTriggers)))
    }
    return links + dependencies.links.map(\.chainLinkTarget)
  }
}

extension KeyValueChange {
  /// The change of a chain whose head may lead to no object, read as a `Value?` (`nil` when it
  /// does), told as a change of `Leaf`: a leaf read through no object is absent, which for an
  /// optional `Leaf` is its `nil` and otherwise no value at all, as for a value that was not asked
  /// for.
  func flatteningAbsentLeaf<Leaf>() -> KeyValueChange<Leaf> where Value == Leaf? {
    func leaf(_ value: Leaf??) -> Leaf? {
      switch value {
      case .none: nil  // not asked for
      case .some(.some(let leaf)): leaf
      // Absent: `nil` cast to `Leaf` is `.some(nil)` for an optional `Leaf`, and fails otherwise.
      case .some(.none): (Leaf?.none as Any) as? Leaf
      }
    }
    return KeyValueChange<Leaf>(
      kind: kind, oldValue: leaf(oldValue), newValue: leaf(newValue), indexes: indexes,
      isPrior: isPrior)
  }
}
