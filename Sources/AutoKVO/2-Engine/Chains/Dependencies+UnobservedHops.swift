// Unobserved hops: a key-path chain reaches an object through something no `@Observed` read
// returned (a plain stored property, a member of a plain struct, a computed property over either).
// Only the recorded reads say so: nothing here reads a field the key path does not read. Such a hop
// is followed only when its holder notifies it by hand (`willChangeValue(for:)`), as KVO code writes
// a custom or `weak` hop; any other is named in a diagnostic at registration.

extension Dependencies {
  /// A hop of the path that no `@Observed` read explains.
  struct UnobservedHop {
    /// The last object the path is known to pass through before the hop: the root, or the object
    /// the latest `@Observed` read before it returned.
    let holder: AnyObject
    /// The object the path reaches through the hop; `nil` where the path goes on from `holder`
    /// through nothing it reads (an optional hop that is `nil` now).
    let object: AnyObject?
    /// Whether the evaluation read properties of `object`: the path goes on through it, so that
    /// replacing the hop changes what it reads. A hop whose object the path only returns, or that
    /// is `nil`, is watched but not reported.
    let isRead: Bool
  }

  /// The hops of one evaluation's path that its recorded reads do not explain, in order.
  ///
  /// An object whose property the evaluation read was reached through a declared hop when an
  /// earlier read returned it (`@Observed var current: Item?`), or returned a value that may hold
  /// it (`@Observed var items: [Item]`, then `\.items[0].title`: replacing any element is a set of
  /// `items`). Any other was reached through a read the recorder did not see. And when the path
  /// reads nothing after an object a read returned, or nothing at all, and its value is not that
  /// object, it may go on from there through an optional hop that is `nil` now: that is watched too.
  ///
  /// - Parameter value: What the whole path read, asked only for those last two cases.
  static func unobservedHops(
    in accesses: [DependencyRecorder.Access],
    root: AnyObject,
    value: () -> DependencyRecorder.ReturnedValue
  ) -> [UnobservedHop] {
    var hops: [UnobservedHop] = []
    var reached: [AnyObject] = [root]
    var read: [AnyObject] = []
    var mayReachThroughValue = false
    var latest = root
    for access in accesses {
      let object = access.object as AnyObject
      if !read.contains(where: { $0 === object }) {
        read.append(object)
        if !mayReachThroughValue, !reached.contains(where: { $0 === object }) {
          hops.append(UnobservedHop(holder: latest, object: object, isRead: true))
          reached.append(object)
        }
      }
      switch access.returned {
      case .object(let returned):
        if !reached.contains(where: { $0 === returned }) { reached.append(returned) }
        latest = returned
      case .compositeValue:
        mayReachThroughValue = true
      case .none, .noReference:
        break
      }
    }
    // The path's end: it reads nothing past `latest` (the root when it reads nothing at all).
    if !mayReachThroughValue, !read.contains(where: { $0 === latest }) {
      switch value() {
      case .object(let object) where object === latest:
        break  // the path's value is the last object it reached: nothing goes on from it
      case .object(let object):
        hops.append(UnobservedHop(holder: latest, object: object, isRead: false))
      case .none:
        hops.append(UnobservedHop(holder: latest, object: nil, isRead: false))
      case .noReference, .compositeValue:
        break
      }
    }
    return hops
  }

  /// Finds the unobserved hops of the registered key path's own evaluation, which read `value` and
  /// made `accesses`, and follows them with `declaredHops`, those of the declared key paths'.
  /// Its own function, out of the way of the usual registration, which has none.
  @inline(never)
  mutating func followUnobservedHops<Value>(
    of accesses: [DependencyRecorder.Access],
    value: UnsafePointer<Value>,
    declaredHops: [UnobservedHop]?,
    root: any KeyValueObservable
  ) {
    // The registered key path's own hops come first: the one a diagnostic names is among them.
    let hops = Self.unobservedHops(in: accesses, root: root) {
      DependencyRecorder.ReturnedValue(of: value.pointee)
    }
    if !hops.isEmpty || declaredHops != nil {
      followUnobservedHops(hops + (declaredHops ?? []), root: root)
    }
  }

  /// Resolves each unobserved hop that properties notified by hand explain: from the hop's holder,
  /// key paths it notified by hand lead to the hop's object (or to `nil`, for a hop that is `nil`),
  /// directly or through other objects' (`\.holder?.leaf?.value`, `holder` and `leaf` both notified
  /// by hand). Each of those key paths becomes a trigger of the registration, on the root or on a
  /// link to its object, as an `@Observed` hop's would. Every other hop whose holder is observable
  /// gets a link that watches its manual changes (``HandNotifiedHopWatch``), so that a hop notified
  /// by hand only after this evaluation is followed from its first change.
  ///
  /// Reads only properties that objects on the path notified by hand, through their key paths.
  mutating func followUnobservedHops(_ hops: [UnobservedHop], root: AnyObject) {
    for hop in hops {
      let holder = hop.holder as? any KeyValueObservable
      let path = holder.flatMap {
        Self.handNotifiedPath(from: $0, to: hop.object, levels: Self.handNotifiedPathLevels)
      }
      if let path {
        for (object, keyPath) in path {
          addTrigger(keyPath, of: object, root: root)
        }
        continue
      }
      if hop.isRead, unobservedHopTargetType == nil, let object = hop.object {
        unobservedHopTargetType = type(of: object)
      }
      if let holder, !links.contains(where: { $0.object === holder && $0.watchesManualChanges }) {
        links.append(LinkTarget(object: holder, keyPaths: [], watchesManualChanges: true))
      }
    }
  }

  /// How many hops notified by hand in a row a path may take from a holder to the object it reaches.
  private static var handNotifiedPathLevels: Int { 4 }

  /// The key paths, each with its object, that lead from `holder` to `target` through properties
  /// notified by hand, at most `levels` of them; `nil` when none does. A `nil` target is reached
  /// by a key path whose value is `nil`.
  private static func handNotifiedPath(
    from holder: any KeyValueObservable,
    to target: AnyObject?,
    levels: Int
  ) -> [(object: any KeyValueObservable, keyPath: AnyKeyPath)]? {
    guard levels > 0 else { return nil }
    var throughObjects: [(keyPath: AnyKeyPath, object: any KeyValueObservable)] = []
    for keyPath in holder.observationRegistry.manuallyNotifiedKeyPaths(of: holder) {
      guard let held = holder[keyPath: keyPath] else { continue }
      switch DependencyRecorder.ReturnedValue(of: held) {
      case .object(let object) where object === target:
        return [(holder, keyPath)]
      case .object(let object):
        if let next = object as? any KeyValueObservable, next !== holder {
          throughObjects.append((keyPath, next))
        }
      case .none where target == nil:
        return [(holder, keyPath)]
      case .none, .noReference, .compositeValue:
        break
      }
    }
    for (keyPath, next) in throughObjects {
      if let rest = handNotifiedPath(from: next, to: target, levels: levels - 1) {
        return [(holder, keyPath)] + rest
      }
    }
    return nil
  }

  /// Makes a change of `keyPath` of `object` concern the registration: a trigger on the root, or a
  /// key path of the link on `object`.
  private mutating func addTrigger(
    _ keyPath: AnyKeyPath,
    of object: any KeyValueObservable,
    root: AnyObject
  ) {
    if object === root {
      if !isRootTrigger(keyPath) { extraRootTriggers.append(keyPath) }
    } else if let link = links.firstIndex(where: {
      $0.object === object && !$0.watchesManualChanges
    }) {
      if !links[link].keyPaths.contains(keyPath) { links[link].keyPaths.append(keyPath) }
      links[link].isLeaf = false
      links[link].isLastRead = false
    } else {
      links.append(LinkTarget(object: object, keyPaths: [keyPath]))
    }
  }

}
