/// What one registration depends on: the key paths of the observed object whose changes concern
/// it, and the key paths of other objects its key path reaches through chains.
struct Dependencies {
  /// The key path of the observed (root) object that the registration's own changes are posted
  /// under (see ``postedKeyPath(of:on:)``): its first trigger.
  let postedKeyPath: AnyKeyPath
  /// The other key paths of the observed object whose changes concern the registration; empty for
  /// a single stored property, the common case, which then allocates no array.
  var extraRootTriggers: [AnyKeyPath]
  /// Other objects the evaluation read `@Observed` properties of, each with those key paths: one
  /// chain link each.
  var links: [LinkTarget]
  /// Whether the evaluation read no `@Observed` property at all and no dependency was declared.
  var isEmpty: Bool
  /// Whether the key path names an `@Observed` property declared in a superclass of the observed
  /// object's class, which that class may override with a computed property: the key path then
  /// reads what the override returns, not what the setter stores, so it is read around each set.
  var mayReadThroughOverride = false
  /// The class of the object the path reaches through its first hop that neither an `@Observed`
  /// read nor a property notified by hand explains (``followUnobservedHops(_:root:)``): what
  /// registration reports. `nil` when there is none. The class, not the object: a metatype costs
  /// the usual registration nothing to carry.
  var unobservedHopTargetType: AnyObject.Type?

  struct LinkTarget {
    let object: any KeyValueObservable
    var keyPaths: [AnyKeyPath]
    /// Whether the one key path of `object` the chain reads is its leaf (``markLeaf(of:accesses:)``).
    var isLeaf = false
    /// Whether the one key path of `object` the chain reads is its evaluation's last read
    /// (``markLastRead(accesses:)``).
    var isLastRead = false
    /// Whether the link watches `object`'s manual changes for an unobserved hop of the path
    /// (``HandNotifiedHopWatch``), rather than `keyPaths`.
    var watchesManualChanges = false

    var chainLinkTarget: ChainLinkTarget {
      if watchesManualChanges {
        return ChainLinkTarget(object: object, key: .manualChanges)
      }
      return ChainLinkTarget(
        object: object, key: .properties(keyPaths), isLeaf: isLeaf, isLastRead: isLastRead)
    }
  }

  /// Whether the dependencies can change from one evaluation to the next, so that they must be
  /// discovered again after every change: anything beyond a single stored `@Observed` property.
  var needsRediscovery: Bool {
    !extraRootTriggers.isEmpty || !links.isEmpty || mayReadThroughOverride
  }

  /// Evaluates `keyPath` on `root` and records what it reads, expanding the key paths `root`'s
  /// class declares in ``KeyValueObservable/keyPathsForValuesAffecting(_:)`` transitively.
  static func discover<Object: KeyValueObservable, Value>(
    root: Object,
    keyPath: KeyPath<Object, Value>
  ) -> (value: Value, dependencies: Dependencies) {
    let (value, accesses) = DependencyRecorder.evaluate(keyPath, on: root)
    return (value, discover(root: root, keyPath: keyPath, value: value, accesses: accesses))
  }

  /// The dependencies of `keyPath` on `root`, from an evaluation of it made under a recorder
  /// (``DependencyRecorder/evaluate(_:on:)``), which read `value` and made `accesses`. Separate
  /// arguments rather than a tuple: this code runs unspecialized, where a tuple of a generic type
  /// costs a run-time metadata look-up.
  static func discover<Object: KeyValueObservable, Value>(
    root: Object,
    keyPath: KeyPath<Object, Value>,
    value: Value,
    accesses: [DependencyRecorder.Access]
  ) -> Dependencies {
    withUnsafePointer(to: value) { value in
      discover(root: root, keyPath: keyPath, value: value, accesses: accesses, recordedKeyPath: nil)
    }
  }

  /// The dependencies of `keyPath` on `root`: from an evaluation of it, which read `value` (by
  /// address: an optional of a generic type would cost a run-time metadata look-up here) and made
  /// `accesses`; or, when `value` is `nil`, from `recordedKeyPath`, the declaration of the
  /// `@Observed` property of `root`'s own class that `keyPath` names, whose record a recording
  /// made before (``ObservationRegistry/recordedPropertyKeyPath(named:of:)``). That way nothing of
  /// the property's value is read; declared dependencies still are.
  static func discover<Object: KeyValueObservable, Value>(
    root: Object,
    keyPath: KeyPath<Object, Value>,
    value: UnsafePointer<Value>?,
    accesses firstAccesses: [DependencyRecorder.Access],
    recordedKeyPath: AnyKeyPath?
  ) -> Dependencies {
    var isInherited = false
    let declared: AnyKeyPath?
    if let value {
      declared = declaredKeyPath(
        of: keyPath, on: root, value: value, accesses: firstAccesses, isInherited: &isInherited)
    } else {
      declared = recordedKeyPath
    }
    let posted = declared ?? keyPath
    var dependencies = Dependencies(
      postedKeyPath: posted, extraRootTriggers: [], links: [],
      isEmpty: value != nil && firstAccesses.isEmpty)
    if declared != nil {
      // A key path equal to the declaration's has the declaring class as its root: the property
      // may be overridden when the object is of a subclass of it. One that names it through a
      // subclass root (`\Derived.items`) has a superclass's declaration.
      dependencies.mayReadThroughOverride = isInherited || type(of: root) != Object.self
    }
    // When the one read is the property the key path names, it is already the first trigger:
    // adding it again would only compare two key paths for nothing.
    var accesses = declared == nil ? firstAccesses : []

    // Declared dependencies, followed transitively; the visited list ends cycles.
    // Declarations are asked for under both names of an inherited property; any other declared
    // key path is equal to `keyPath`, and asked for once.
    let declaredDependencies = type(of: root).keyPathsForValuesAffecting(keyPath)
    // Most key paths declare none: the empty set is not turned into an array.
    var pending = declaredDependencies.isEmpty ? [] : Array(declaredDependencies)
    if isInherited {
      pending += type(of: root).keyPathsForValuesAffecting(posted)
    }
    // The unobserved hops of the declared key paths' evaluations, each a path of its own: `nil`
    // unless one goes through such a hop, as it almost never does.
    var declaredHops: [UnobservedHop]?
    while let declared = pending.popLast() {
      guard !dependencies.isRootTrigger(declared) else { continue }
      dependencies.extraRootTriggers.append(declared)
      accesses += Self.evaluateDeclared(declared, on: root, addingHopsTo: &declaredHops)
      pending += type(of: root).keyPathsForValuesAffecting(declared)
    }

    dependencies.isEmpty = dependencies.isEmpty && dependencies.extraRootTriggers.isEmpty
    for access in accesses {
      dependencies.add(access, root: root)
    }
    if !dependencies.links.isEmpty, value != nil, declaredDependencies.isEmpty, !isInherited {
      dependencies.markLeaf(of: keyPath, accesses: firstAccesses)
    }
    if let value, declared == nil {
      dependencies.followUnobservedHops(
        of: firstAccesses, value: value, declaredHops: declaredHops, root: root)
    } else if let declaredHops {
      dependencies.followUnobservedHops(declaredHops, root: root)
    }
    // After the hops: a chain through an unobserved hop is read again, and discovered, at every
    // change it sees, since that hop may have moved unseen.
    if !dependencies.links.isEmpty, value != nil, declaredDependencies.isEmpty, !isInherited,
      dependencies.unobservedHopTargetType == nil
    {
      dependencies.markLastRead(accesses: firstAccesses)
    }
    return dependencies
  }

  /// Evaluates the declared key path `declared` on `root` under a recorder, returns its reads, and
  /// adds the unobserved hops of its path to `hops`. A function of its own, out of the way of the
  /// usual registration, which declares nothing.
  @inline(never)
  private static func evaluateDeclared(
    _ declared: AnyKeyPath,
    on root: any KeyValueObservable,
    addingHopsTo hops: inout [UnobservedHop]?
  ) -> [DependencyRecorder.Access] {
    let (value, accesses) = DependencyRecorder.record { root[keyPath: declared] as Any }
    let found = unobservedHops(in: accesses, root: root) {
      DependencyRecorder.ReturnedValue(of: value)
    }
    if !found.isEmpty { hops = (hops ?? []) + found }
    return accesses
  }

  /// Marks the link of the chain's leaf, when `keyPath` is nothing but the chain of `@Observed`
  /// properties its evaluation read, `accesses`, one after the other (`\.player.item.title`): the
  /// key path's value is then the last property's value, and no other read depends on it, so a set
  /// of that property changes the value by exactly what the set stored, and changes nothing about
  /// which objects the chain goes through. A computed property anywhere on the path, an optional
  /// chain, or a property read twice does not compose to `keyPath`, and is not marked; nor is a
  /// leaf object of a subclass of the class that declares the property, which may override it.
  private mutating func markLeaf(of keyPath: AnyKeyPath, accesses: [DependencyRecorder.Access]) {
    guard accesses.count >= 2, let leaf = accesses.last,
      // The root's guard (`mayReadThroughOverride`), applied to the leaf: an object of a subclass
      // of the property's declaring class may override it, and the key path then reads what the
      // override returns, not what the setter stores.
      ObjectIdentifier(type(of: leaf.object)) == ObjectIdentifier(type(of: leaf.keyPath).rootType),
      let index = links.firstIndex(where: { $0.object === leaf.object }),
      links[index].keyPaths.count == 1
    else { return }
    var composed: AnyKeyPath? = accesses[0].keyPath
    for access in accesses.dropFirst() {
      composed = composed?.appending(path: access.keyPath)
    }
    guard let composed, composed == keyPath else { return }
    links[index].isLeaf = true
  }

  /// Marks the link of the property the evaluation, `accesses`, read last, when it is the one
  /// property of its object the evaluation read, and the chain has no other kind of dependency: a
  /// change of it changes the key path's value, but nothing about which objects the chain goes
  /// through, since nothing the evaluation read came after it. The owner then reads the key path
  /// again without discovering it (``ChainLinkOwner/linkedLastReadDidChange(token:)``), for a
  /// chain whose leaf the setter's values cannot stand for: an optional chain
  /// (`\.current?.title`), a computed last property, an override. A leaf's link is not marked.
  mutating func markLastRead(accesses: [DependencyRecorder.Access]) {
    guard let last = accesses.last,
      !accesses.dropLast().contains(where: { $0.object === last.object }),
      let index = links.firstIndex(where: { $0.object === last.object }),
      links[index].keyPaths.count == 1, !links[index].isLeaf,
      !links.contains(where: \.watchesManualChanges)
    else { return }
    links[index].isLastRead = true
  }

  /// Whether changes of `keyPath` of the observed object concern the registration.
  func isRootTrigger(_ keyPath: AnyKeyPath) -> Bool {
    keyPath.matches(postedKeyPath) || extraRootTriggers.contains { $0.matches(keyPath) }
  }

  /// Adds one recorded read, once: diamonds in the dependency graph record the same read twice.
  private mutating func add(_ access: DependencyRecorder.Access, root: AnyObject) {
    if access.object === root {
      if !isRootTrigger(access.keyPath) { extraRootTriggers.append(access.keyPath) }
    } else if let index = links.firstIndex(where: { $0.object === access.object }) {
      if !links[index].keyPaths.contains(access.keyPath) {
        links[index].keyPaths.append(access.keyPath)
      }
    } else {
      links.append(LinkTarget(object: access.object, keyPaths: [access.keyPath]))
    }
  }
}
