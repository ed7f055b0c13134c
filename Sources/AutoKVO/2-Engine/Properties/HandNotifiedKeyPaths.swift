/// The key paths each class has notified by hand (`willChangeValue(for:)`) on any of its
/// instances: what a registration on a new instance of the class knows of the hops its code
/// notifies, before that instance notified any (`Dependencies.followUnobservedHops`).
///
/// Filled by the manual-change path the first time each object notifies each key path, so that an
/// object's later manual changes cost no look-up here; never emptied, as classes are never
/// unloaded, so that a class's identity is a lasting key.
enum HandNotifiedKeyPathCatalog {
  private static let keyPathsByClass = LockedValue<[ObjectIdentifier: [AnyKeyPath]]>([:])

  /// Records that an instance of `type` notified `keyPath` by hand.
  static func add(_ keyPath: AnyKeyPath, for type: AnyClass) {
    keyPathsByClass.withLock { catalog in
      let known = catalog[ObjectIdentifier(type), default: []]
      if !known.contains(where: { $0.matches(keyPath) }) {
        catalog[ObjectIdentifier(type)] = known + [keyPath]
      }
    }
  }

  /// The key paths instances of `type` have notified by hand, in the order first notified.
  static func keyPaths(of type: AnyClass) -> [AnyKeyPath] {
    keyPathsByClass.withLock { $0[ObjectIdentifier(type)] ?? [] }
  }
}

extension ObservationRegistry {
  /// The key paths `object`, which stores this registry, has notified by hand, then those other
  /// instances of its class have, each once.
  func manuallyNotifiedKeyPaths(of object: AnyObject) -> [AnyKeyPath] {
    let own = withState { $0.manuallyNotifiedKeyPaths }
    return own
      + HandNotifiedKeyPathCatalog.keyPaths(of: type(of: object)).filter { keyPath in
        !own.contains { $0.matches(keyPath) }
      }
  }
}
