/// What one registration depends on: the key paths of the observed object whose changes concern
/// it, and the key paths of other objects its key path reaches through chains.
struct Dependencies {
  /// Key paths of the observed (root) object; the registered key path comes first.
  var rootTriggers: [AnyKeyPath]
  /// Other objects the evaluation read `@Observed` properties of, each with those key paths.
  var relays: [RelayTarget]
  /// Whether the evaluation read no `@Observed` property at all and no dependency was declared.
  var isEmpty: Bool

  struct RelayTarget {
    let object: any KeyValueObservable
    var keyPaths: [AnyKeyPath]
  }

  /// Whether the dependencies can change from one evaluation to the next, so that they must be
  /// discovered again after every change: anything beyond a single stored `@Observed` property.
  var needsRediscovery: Bool {
    rootTriggers.count > 1 || !relays.isEmpty
  }

  /// Evaluates `keyPath` on `root` and records what it reads, expanding the key paths `root`'s
  /// class declares in ``KeyValueObservable/keyPathsForValuesAffecting(_:)`` transitively.
  static func discover<Object: KeyValueObservable, Value>(
    root: Object,
    keyPath: KeyPath<Object, Value>
  ) -> (value: Value, dependencies: Dependencies) {
    let (value, firstAccesses) = DependencyRecorder.record { root[keyPath: keyPath] }
    var accesses = firstAccesses
    var dependencies = Dependencies(rootTriggers: [keyPath], relays: [], isEmpty: true)

    // Declared dependencies, followed transitively; the visited list ends cycles.
    var pending = Array(type(of: root).keyPathsForValuesAffecting(keyPath))
    while let declared = pending.popLast() {
      guard !dependencies.rootTriggers.contains(declared) else { continue }
      dependencies.rootTriggers.append(declared)
      accesses += DependencyRecorder.record { root[keyPath: declared] as Any }.accesses
      pending += type(of: root).keyPathsForValuesAffecting(declared)
    }

    dependencies.isEmpty = accesses.isEmpty && dependencies.rootTriggers.count == 1
    for access in accesses {
      dependencies.add(access, root: root)
    }
    return (value, dependencies)
  }

  /// Adds one recorded read, once: diamonds in the dependency graph record the same read twice.
  private mutating func add(_ access: DependencyRecorder.Access, root: AnyObject) {
    if access.object === root {
      if !rootTriggers.contains(access.keyPath) { rootTriggers.append(access.keyPath) }
    } else if let index = relays.firstIndex(where: { $0.object === access.object }) {
      if !relays[index].keyPaths.contains(access.keyPath) {
        relays[index].keyPaths.append(access.keyPath)
      }
    } else {
      relays.append(RelayTarget(object: access.object, keyPaths: [access.keyPath]))
    }
  }
}
