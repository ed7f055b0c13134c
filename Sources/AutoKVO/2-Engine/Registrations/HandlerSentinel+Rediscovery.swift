// Rediscovery: a key path that reads more than one stored `@Observed` property (a computed
// property, or a chain through other objects) is evaluated again after every change, and its
// links on the other objects it reaches are replaced.

extension HandlerSentinel {
  func linkedObjectWillChange() -> Any? {
    guard let root else { return nil }
    return willChange(root: root, collection: nil)
  }

  func linkedObjectDidChange(token: Any?) {
    guard let root else { return }
    didChange(root: root, collection: nil, token: token)
  }

  func linkedLastReadDidChange(token: Any?) {
    guard let root else { return }
    didChange(root: root, collection: nil, token: token, discovering: false)
  }

  func linkedLeafDidSet(values: SetterValues) {
    guard let root else { return }
    // The chain's value type is its leaf's: a leaf is marked only when the key path is the chain.
    guard values.valueType == Value.self else {
      preconditionFailure("a chain's leaf of type \(values.valueType) for a \(Value.self) key path")
    }
    deliverSet(of: root, values)
  }

  func linkedWeakPropertyDidZero() {
    guard let root else { return }
    weakHopDidZero(root: root)
  }

  /// An `@ObservedWeak` property the key path reads was zeroed: its object is being deallocated,
  /// on this thread. The key path is read again (where the handler runs), and the change has no old
  /// value, which would be read through the dying object, and sends no prior call: the
  /// deallocation is learned after the fact.
  func weakHopDidZero(root: Object) {
    didChange(root: root, collection: nil, token: nil, knowsOldValue: false)
  }

  /// Whether the link on the chain's leaf hands this registration the leaf's setter values
  /// (``ChainLinkSentinel``): when the handler runs on the setting thread and wants no prior call,
  /// which reads the value before the change.
  private var forwardsLeafSetterValues: Bool {
    delivery.isSynchronous && !options.contains(.prior)
  }

  /// Installs freshly discovered dependencies: the triggers on the root object, and one link
  /// per other object, keeping the links that still match and ending the others.
  func replaceLinks(with dependencies: Dependencies, root: Object) {
    guard let coldState else {
      preconditionFailure("links replaced for a registration that does not rediscover")
    }
    let triggers = dependencies.extraRootTriggers
    // The same instances as before, the usual case after a change of a chain's object: nothing
    // to update, and no property's snapshot to drop.
    root.observationRegistry.updateTriggers(
      of: self,
      unlessUnchanged: { coldState.extraTriggers.elementsEqual(triggers, by: ===) },
      { coldState.extraTriggers = triggers })

    // Under the lifecycle lock; see `ChainLinks.replace` for what is ended and released after it.
    let (retired, _, targetsLoadedUnderLock) = observation.withLock {
      ChainLinks.replace(&coldState.links, with: dependencies.links.map(\.chainLinkTarget)) {
        target -> any ChainLink in
        guard let object = target.object as? any KeyValueObservable else {
          preconditionFailure("an engine chain links engine objects only: \(target)")
        }
        switch target.key {
        case .properties(let keyPaths):
          return ChainLinkSentinel.attach(
            to: object, keyPaths: keyPaths, isLeaf: target.isLeaf, isLastRead: target.isLastRead,
            forwardsSetterValues: target.isLeaf && forwardsLeafSetterValues, owner: self)
        case .manualChanges:
          return HandNotifiedHopWatch.attach(to: object, owner: self)
        case .foundationKey:
          preconditionFailure("an engine chain links engine objects only: \(target)")
        }
      }
    }
    withExtendedLifetime(targetsLoadedUnderLock) {}
    for link in retired {
      link.observation.end(.cancelled)
    }
  }
}
