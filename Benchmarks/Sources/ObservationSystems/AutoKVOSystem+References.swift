import AutoKVO

/// A reference held by an `@Observed` property and by an `@ObservedWeak` one: the rows that
/// compare a weak reference's get and unobserved set with a strong one's.
extension AutoKVOSystem {
  public final class References: KeyValueObservable {
    public let observationRegistry = ObservationRegistry()
    @Observed public var strong: Leaf?
    @ObservedWeak public var weak: Leaf?

    public init() {}
  }

  /// Reaches a leaf through an `@ObservedWeak` property: the root of a two-hop weak chain.
  public final class WeakHolder: KeyValueObservable {
    public let observationRegistry = ObservationRegistry()
    @ObservedWeak public var leaf: Leaf?

    public init() {}
  }

  /// Sets the value of the holder's weakly held leaf, through a two-hop chain with a weak hop.
  @inline(never)
  public static func setValue(_ value: Double, onLeafOf holder: WeakHolder) {
    holder.leaf?.value = value
  }

  @inline(never)
  public static func setStrong(_ leaf: Leaf?, on references: References) {
    references.strong = leaf
  }

  @inline(never)
  public static func setWeak(_ leaf: Leaf?, on references: References) {
    references.weak = leaf
  }

  @inline(never)
  public static func strong(of references: References) -> Leaf? { references.strong }

  @inline(never)
  public static func weak(of references: References) -> Leaf? { references.weak }

  /// A set through a chain over an `@ObservedWeak` hop, and four workloads that compare the two
  /// properties: a set nobody observes and a get with one observer, of each. Sets alternate
  /// between two leaves the workload keeps alive.
  static func referenceWorkloads() -> [Workload] {
    func setting(_ set: @escaping (Leaf?, References) -> Void) -> Workload.Body {
      .repeated {
        let references = References()
        let leaves = [Leaf(), Leaf()]
        return { n in
          for i in 0..<n { set(leaves[i & 1], references) }
          withExtendedLifetime(leaves) {}
        }
      }
    }
    func getting(
      _ keyPath: KeyPath<References, Leaf?>, _ get: @escaping (References) -> Leaf?
    ) -> Workload.Body {
      .repeated {
        let references = References()
        let leaf = Leaf()
        references.strong = leaf
        references.weak = leaf
        let observer = Observer()
        observer.autoObserve(references, keyPath: keyPath) { observer, _, _ in
          observer.total &+= 1
        }
        return { n in
          var present = 0
          withExtendedLifetime((observer, leaf)) {
            for _ in 0..<n where get(references) != nil { present &+= 1 }
          }
          blackHole(present)
        }
      }
    }
    return [
      Workload(
        .setWithOneObserver, .autoKVO, variant: "through a two-hop @ObservedWeak chain",
        body: .repeated {
          let holder = WeakHolder()
          let leaf = Leaf()
          holder.leaf = leaf
          let observer = Observer()
          observer.autoObserve(holder, keyPath: \.leaf?.value, options: [.old, .new]) {
            observer, _, change in
            observer.total &+= Int((change.oldValue! ?? 0) + (change.newValue! ?? 0))
          }
          return { n in
            withExtendedLifetime((observer, leaf)) {
              for i in 0..<n { setValue(Double(i), onLeafOf: holder) }
            }
          }
        }),
      Workload(
        .setWithoutObserver, .autoKVO, variant: "@Observed reference",
        body: setting { setStrong($0, on: $1) }),
      Workload(
        .setWithoutObserver, .autoKVO, variant: "@ObservedWeak reference",
        body: setting { setWeak($0, on: $1) }),
      Workload(
        .getOfObservedProperty, .autoKVO, variant: "@Observed reference",
        body: getting(\.strong) { strong(of: $0) }),
      Workload(
        .getOfObservedProperty, .autoKVO, variant: "@ObservedWeak reference",
        body: getting(\.weak) { weak(of: $0) }),
    ]
  }
}
