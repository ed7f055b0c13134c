import AutoKVO

/// What Swift itself charges for the operations under three of AutoKVO's missed targets, measured
/// without AutoKVO's engine: a weak reference's store (under `@ObservedWeak`'s set), a read of an
/// optional chain through its key path (under a set delivered through `\.optionalLeaf?.value`),
/// and a write through a `ReferenceWritableKeyPath` (under `autoBind`'s write). Each key path is a
/// value passed to a function the optimizer does not inline, as the engine holds it.
extension Baseline {
  final class StrongReference {
    var leaf: AutoKVOSystem.Leaf?
  }

  final class WeakReference {
    weak var leaf: AutoKVOSystem.Leaf?
  }

  @inline(never)
  static func setStrong(_ leaf: AutoKVOSystem.Leaf?, on holder: StrongReference) {
    holder.leaf = leaf
  }

  @inline(never)
  static func setWeak(_ leaf: AutoKVOSystem.Leaf?, on holder: WeakReference) {
    holder.leaf = leaf
  }

  @inline(never)
  static func read<Root, Value>(_ keyPath: KeyPath<Root, Value>, of root: Root) -> Value {
    root[keyPath: keyPath]
  }

  @inline(never)
  static func write<Root, Value>(
    _ value: Value, _ keyPath: ReferenceWritableKeyPath<Root, Value>, on root: Root
  ) {
    root[keyPath: keyPath] = value
  }

  static func floorWorkloads() -> [Workload] {
    /// Sets alternate between two leaves the workload keeps alive, as the `@ObservedWeak` rows'.
    func alternating<Holder>(
      _ holder: Holder, _ set: @escaping (AutoKVOSystem.Leaf?, Holder) -> Void
    ) -> Workload.Body {
      .repeated {
        let leaves = [AutoKVOSystem.Leaf(), AutoKVOSystem.Leaf()]
        return { n in
          for i in 0..<n { set(leaves[i & 1], holder) }
          withExtendedLifetime(leaves) {}
        }
      }
    }
    return [
      Workload(
        .setWithoutObserver, .baseline, variant: "plain strong reference",
        body: alternating(StrongReference()) { setStrong($0, on: $1) }),
      Workload(
        .setWithoutObserver, .baseline, variant: "plain weak reference",
        body: alternating(WeakReference()) { setWeak($0, on: $1) }),
      Workload(
        .getOfObservedProperty, .baseline, variant: "an optional chain, through its key path",
        body: .repeated {
          let holder = AutoKVOSystem.Holder()
          let keyPath: KeyPath<AutoKVOSystem.Holder, Double?> = \.optionalLeaf?.value
          return { n in
            var total = 0.0
            for _ in 0..<n { total += read(keyPath, of: holder) ?? 0 }
            blackHole(total)
          }
        }),
      Workload(
        .setWithOneObserver, .baseline, variant: "a write through a ReferenceWritableKeyPath",
        body: .repeated {
          let target = AutoKVOSystem.Observer()
          return { n in for i in 0..<n { write(i, \.total, on: target) } }
        }),
    ]
  }
}
