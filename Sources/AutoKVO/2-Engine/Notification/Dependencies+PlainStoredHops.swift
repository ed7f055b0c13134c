// Plain stored hops: a key-path chain that reaches an object through a stored property that is not
// `@Observed` (`\.current.title` where `current` is a plain `var`). Replacing that property is not
// seen, and the object it held dies inside the write, where reading the path again would access the
// property during its own write (a fatal exclusivity violation). Registration names the hop in a
// diagnostic; the link on that object then ends without re-reading the path.

extension Dependencies {
  /// Sets ``LinkTarget/plainStoredHop`` of each link whose object is held strongly by a stored
  /// property that is not `@Observed` of an object on the path: the root, another link's object, or
  /// an object one of the recorded `@Observed` reads returned.
  ///
  /// The objects the evaluation's recorded reads (``evaluationAccesses``) returned are read again
  /// (`@Observed` getters, with no user code), so that a hop after an `@Observed` one
  /// (`\.player.item.title`, `item` plain) is found in the object the first one returned. Asked at
  /// registration, and after a change only when the chain reaches an object it does not link yet:
  /// a link keeps what was found for it.
  mutating func findPlainStoredHops(root: AnyObject) {
    plainStoredHopsAreFound = true
    let accesses = evaluationAccesses
    var holders: [AnyObject] = [root] + links.map { $0.object as AnyObject }
    // The objects `@Observed` properties hold on the path: a hop through one of those is seen.
    var observedHops: [(holder: AnyObject, object: AnyObject)] = []
    for access in accesses where Self.mayHoldObject(type(of: access.keyPath).valueType) {
      guard let value = access.object[keyPath: access.keyPath],
        let object = Self.object(in: value)
      else { continue }
      observedHops.append((access.object, object))
      if !holders.contains(where: { $0 === object }) { holders.append(object) }
    }
    markPlainStoredHops(among: holders, except: observedHops)
    // A link that an `@Observed` read returned is reached through that read. Any other that none
    // of those objects holds may be held by an object reached through plain stored properties only
    // (`\.settings.theme.color`, `settings` and `theme` plain): such objects are found by following
    // the stored properties of the objects already known. Asked only then: a chain of `@Observed`
    // hops, evaluated again after each of its changes, does not walk the objects it reaches.
    let unexplained = links.contains { link in
      link.plainStoredHop == nil && !observedHops.contains { $0.object === link.object }
    }
    guard unexplained else { return }
    markPlainStoredHops(
      among: Self.objects(reachableFrom: holders, levels: 4), except: observedHops)
  }

  /// Sets the hop of each link that has none and whose object one of `holders` holds in a stored
  /// property that is not `@Observed` storage, unless `observedHops` says the path reaches it
  /// through an `@Observed` property of that holder.
  private mutating func markPlainStoredHops(
    among holders: [AnyObject],
    except observedHops: [(holder: AnyObject, object: AnyObject)]
  ) {
    for index in links.indices where links[index].plainStoredHop == nil {
      let object = links[index].object as AnyObject
      for holder in holders where holder !== object {
        if observedHops.contains(where: { $0.holder === holder && $0.object === object }) {
          continue
        }
        let names = StoredReferences.namesOfProperties(of: holder, holding: object)
          .filter { !Self.isObservedStorage(named: $0, in: holder) }
        if let name = names.first {
          links[index].plainStoredHop = "\(type(of: holder)).\(Self.propertyName(ofField: name))"
          break
        }
      }
    }
  }

  /// The objects the stored properties of `objects` hold, and those theirs hold, to `levels`
  /// levels, leaving out `objects` themselves; at most a few dozen. A class that supplies its own
  /// mirror is not followed: its `customMirror` is user code.
  private static func objects(reachableFrom objects: [AnyObject], levels: Int) -> [AnyObject] {
    let limit = 32
    var known = objects
    var found: [AnyObject] = []
    var level = objects
    for _ in 0..<levels {
      var next: [AnyObject] = []
      for holder in level where !(holder is any CustomReflectable) {
        var mirror: Mirror? = Mirror(reflecting: holder)
        while let current = mirror {
          for child in current.children {
            guard let object = object(in: child.value), !known.contains(where: { $0 === object })
            else { continue }
            known.append(object)
            next.append(object)
            if found.count + next.count == limit { return found + next }
          }
          mirror = current.superclassMirror
        }
      }
      found += next
      level = next
    }
    return found
  }

  /// Whether a property of type `type` may hold an object: a class, or an optional of anything
  /// (its wrapped type is not asked for).
  private static func mayHoldObject(_ type: Any.Type) -> Bool {
    type is AnyClass || type is any OptionalValue.Type
  }

  /// The object `value` is, or the object an optional `value` wraps.
  private static func object(in value: Any) -> AnyObject? {
    if type(of: value) is AnyClass { return value as AnyObject }
    if let optional = value as? any OptionalValue { return optional.wrappedObject }
    return nil
  }

  /// Whether the field `name` of `holder` is an `@Observed` property's storage: its first word
  /// is the value's, so a reference it holds matches too. Asked of the mirror
  /// (``PropertyNames/observedStorageLabel(in:where:)``).
  private static func isObservedStorage(named name: String, in holder: AnyObject) -> Bool {
    guard name.hasPrefix("_"), let observable = holder as? any KeyValueObservable else {
      return false
    }
    return PropertyNames.observedStorageLabel(in: observable) { label, _ in label == name } != nil
  }

  /// The property a stored field belongs to: a `lazy var`'s storage carries a prefix.
  private static func propertyName(ofField name: String) -> String {
    let lazyPrefix = "$__lazy_storage_$_"
    return name.hasPrefix(lazyPrefix) ? String(name.dropFirst(lazyPrefix.count)) : name
  }
}

/// An optional, asked for the object it wraps without naming its wrapped type.
private protocol OptionalValue {
  var wrappedObject: AnyObject? { get }
}

extension Optional: OptionalValue {
  fileprivate var wrappedObject: AnyObject? {
    guard case .some(let wrapped) = self else { return nil }
    return type(of: wrapped as Any) is AnyClass ? wrapped as AnyObject : nil
  }
}
