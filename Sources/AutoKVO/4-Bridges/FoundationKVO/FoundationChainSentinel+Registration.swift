extension FoundationChainSentinel {
  /// Registers `handler` for the changes of the value `keys` reach from `root`, after `head`, and
  /// returns the registration; a refused one after a diagnostic when the path cannot be observed
  /// (a collection operator, or a path through a collection). Neither side is retained.
  ///
  /// - Parameters:
  ///   - rootRegistry: The registry that owns the registration's sentinel: the root's stand-in's
  ///     (`platform.registry(of: root)`), or the root's own when it is ``KeyValueObservable``.
  ///   - head: What comes before `keys`: ``ChainHead/none``, or `@Observed` properties of the root.
  ///   - evaluate: Reads the whole path, head included, from the root.
  static func register(
    observer: Observer,
    observerRegistry: ObservationRegistry,
    root: Root,
    rootRegistry: ObservationRegistry,
    head: ChainHead<Root> = .none,
    keys: [String],
    options: ObservationOptions,
    delivery: HandlerDelivery,
    platform: any FoundationKeyObserving,
    evaluate: @escaping (Root) -> Value,
    handler: @escaping (Observer, Root, KeyValueChange<Value>) -> Void
  ) -> KeyValueObservation {
    let path = keys.joined(separator: ".")
    // Read once here, for the check and for the first links: reading a head records its reads.
    let headRead = head.read(root)
    if let unsupported = unsupportedReason(keys: keys, start: headRead.start, platform: platform) {
      let named = head.name.map { "'\(path)' after \($0)" } ?? "'\(path)' of \(type(of: root))"
      ObservationDiagnostics.report(
        .unsupportedKeyPath,
        "\(named) \(unsupported), so nothing was registered. Observe the "
          + "collection itself, or each of its elements with its own registration."
      )
      return .refused()
    }
    let sentinel = FoundationChainSentinel(
      observer: observer, root: root, head: head, keys: keys, options: options,
      delivery: delivery, platform: platform, evaluate: evaluate, handler: handler)
    let observation = sentinel.observation
    observation.attach(sentinel, to: rootRegistry, observerRegistry: observerRegistry)
    sentinel.replaceLinks(root: root, headRead: headRead)
    if !delivery.isSynchronous, options.contains(.old) || options.contains(.prior) {
      let value = evaluate(root)
      observation.withLock { sentinel.lastValue = value }
    }
    if options.contains(.initial) {
      let change = KeyValueChange(
        kind: .setting, newValue: options.contains(.new) ? evaluate(root) : nil)
      delivery.whileRegistering { sentinel.deliver(change) }
    }
    return observation
  }

  /// Why the path cannot be observed one key at a time from `start`, or `nil`: a collection
  /// operator (`@count`, `@sum`), or an object on the path that is a collection.
  private static func unsupportedReason(
    keys: [String],
    start: AnyObject?,
    platform: any FoundationKeyObserving
  ) -> String? {
    if keys.contains(where: \.isEmpty) {
      return "has an empty key"
    }
    if let key = keys.first(where: { $0.hasPrefix("@") }) {
      return "uses the collection operator \(key), which AutoKVO does not observe"
    }
    if isKeyValueCollection(start) {
      return "starts from a collection, which AutoKVO does not observe one element at a time"
    }
    var object: AnyObject? = start
    for key in keys.dropLast() {
      guard let current = object else { return nil }
      let value = platform.value(of: current, forKey: key)
      if isKeyValueCollection(value) {
        return "goes through a collection at '\(key)', which AutoKVO does not observe"
      }
      object = value.map { $0 as AnyObject }
    }
    return nil
  }
}
