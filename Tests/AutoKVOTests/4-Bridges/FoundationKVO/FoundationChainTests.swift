import Foundation
import Testing

@testable import AutoKVO

/// Stands for an `NSObject` observed with Foundation's KVO: its keys' values, read as key-value
/// coding would, and the registry its associated stand-in would carry.
// @unchecked Sendable: `values` is guarded by `lock`; the rest is immutable.
private final class KeyedObject: @unchecked Sendable {
  let registry = ObservationRegistry()
  private let lock = NSLock()
  private var values: [String: Any] = [:]
  private var weakValues: [String: WeakReference] = [:]
  private let tracker: LifetimeTracker?

  init(tracker: LifetimeTracker? = nil, _ values: [String: Any] = [:]) {
    self.tracker = tracker
    self.values = values
    tracker?.instanceCreated()
  }

  deinit {
    tracker?.instanceDestroyed()
  }

  func value(forKey key: String) -> Any? {
    lock.withLock { values[key] ?? weakValues[key]?.object }
  }

  /// Stores `value`, and returns the value it replaces, for the caller to release.
  func store(_ value: Any?, forKey key: String, weakly: Bool) -> Any? {
    lock.withLock {
      let replaced: Any? =
        values.removeValue(forKey: key) ?? weakValues.removeValue(forKey: key)?.object.map { $0 }
      if weakly {
        weakValues[key] = WeakReference(object: value.map { $0 as AnyObject })
      } else {
        values[key] = value
      }
      return replaced
    }
  }

  private struct WeakReference {
    weak var object: AnyObject?
  }
}

/// Stands for Foundation (key-value coding and KVO with `.prior`) and for the shared router.
// @unchecked Sendable: `registrations` is guarded by `lock`.
private final class KeyPlatform: FoundationKeyObserving, @unchecked Sendable {
  private let lock = NSLock()
  private var registrations: [Registration] = []
  /// How many Foundation registrations a link removed from a live object.
  let detachments = Counter()

  private struct Registration {
    let id: UInt
    weak var object: KeyedObject?
    let key: String
    weak var link: FoundationChainLink?
  }
  private var lastID: UInt = 0

  func registry(of object: AnyObject) -> ObservationRegistry {
    (object as! KeyedObject).registry
  }

  func value(of object: AnyObject, forKey key: String) -> Any? {
    (object as! KeyedObject).value(forKey: key)
  }

  func observe(_ object: AnyObject, key: String, for link: FoundationChainLink)
    -> @Sendable (AnyObject) -> Void
  {
    let id = lock.withLock {
      lastID += 1
      registrations.append(
        Registration(id: lastID, object: object as? KeyedObject, key: key, link: link))
      return lastID
    }
    return { [self] _ in
      lock.withLock { registrations.removeAll { $0.id == id } }
      detachments.increment()
    }
  }

  /// How many Foundation registrations are live on `object`.
  func registrationCount(on object: KeyedObject) -> Int {
    lock.withLock { registrations.filter { $0.object === object }.count }
  }

  /// What a KVO-compliant setter does: the prior notification, the change, the after one. The
  /// replaced value is released after the notifications, as an autoreleased one would be.
  func set(_ object: KeyedObject, _ key: String, to value: Any?, weakly: Bool = false) {
    let links = lock.withLock {
      registrations.filter { $0.object === object && $0.key == key }.compactMap(\.link)
    }
    for link in links { link.objectWillChange() }
    let replaced = object.store(value, forKey: key, weakly: weakly)
    for link in links { link.objectDidChange() }
    withExtendedLifetime(replaced) {}
  }

  /// What key-value coding's `value(forKeyPath:)` reads.
  func value(of root: AnyObject, atPath keys: [String]) -> Any? {
    var current: Any? = root
    for key in keys {
      guard let object = current.map({ $0 as AnyObject }) as? KeyedObject else { return nil }
      current = object.value(forKey: key)
    }
    return current
  }

  @discardableResult
  func register(
    _ watcher: Watcher, on root: KeyedObject, path: String, options: ObservationOptions,
    delivery: HandlerDelivery = .synchronous,
    handler: @escaping (Watcher, KeyValueChange<Any?>) -> Void = { watcher, change in
      watcher.record(describeAny(change))
    },
    onEvaluation: @escaping () -> Void = {}
  ) -> KeyValueObservation {
    let keys = path.split(separator: ".").map(String.init)
    return FoundationChainSentinel.register(
      observer: watcher, observerRegistry: watcher.observationRegistry, root: root,
      rootRegistry: root.registry, keys: keys,
      options: options, delivery: delivery, platform: self,
      evaluate: { [self] root in
        onEvaluation()
        return value(of: root, atPath: keys)
      },
      handler: { watcher, _, change in handler(watcher, change) })
  }

  /// Registers a chain that starts with `head`, `@Observed` properties of a Swift model, and
  /// continues with the Foundation keys of `path`.
  @discardableResult
  func register<Root: KeyValueObservable>(
    _ watcher: Watcher, on root: Root, head: KeyPath<Root, KeyedObject?>, path: String,
    options: ObservationOptions,
    handler: @escaping (Watcher, KeyValueChange<Any?>) -> Void = { watcher, change in
      watcher.record(describeAny(change))
    }
  ) -> KeyValueObservation {
    let keys = path.split(separator: ".").map(String.init)
    return FoundationChainSentinel.register(
      observer: watcher, observerRegistry: watcher.observationRegistry, root: root,
      rootRegistry: root.observationRegistry, head: .engine(head), keys: keys,
      options: options, delivery: .synchronous, platform: self,
      evaluate: { [self] root in root[keyPath: head].flatMap { value(of: $0, atPath: keys) } },
      handler: { watcher, _, change in handler(watcher, change) })
  }
}

/// A Swift model whose `@Observed` property leads to an object observed with Foundation's KVO
/// (`\.player`, then `currentItem.status`). Its registry is declared first, so it is destroyed
/// before the player when the model goes.
// @unchecked Sendable: each test's model is changed from one thread at a time.
private final class Model: KeyValueObservable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  @Observed var player: KeyedObject?
  @Observed var holder: Holder?
  @Observed var title = "a"
  private let tracker: LifetimeTracker?

  init(tracker: LifetimeTracker? = nil, player: KeyedObject? = nil) {
    self.tracker = tracker
    self.player = player
    tracker?.instanceCreated()
  }

  deinit {
    tracker?.instanceDestroyed()
  }
}

/// The same, with its registry declared last: destroyed after the player it owns.
// @unchecked Sendable: changed from one thread at a time.
private final class ModelWithRegistryLast: KeyValueObservable, @unchecked Sendable {
  @Observed var player: KeyedObject?
  let observationRegistry = ObservationRegistry()

  init(player: KeyedObject?) {
    self.player = player
  }
}

/// An engine object between a model and its player: `\Model.holder?.player`.
// @unchecked Sendable: changed from one thread at a time.
private final class Holder: KeyValueObservable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  @Observed var player: KeyedObject?

  init(player: KeyedObject?) {
    self.player = player
  }
}

/// `kind old->new`, with `prior` marked; an absent value is `-`.
private func describeAny(_ change: KeyValueChange<Any?>) -> String {
  func text(_ value: Any??) -> String {
    guard let value else { return "·" }  // not asked for
    guard let value else { return "-" }  // absent
    return "\(value)"
  }
  return "\(change.isPrior ? "prior " : "")\(text(change.oldValue))->\(text(change.newValue))"
}

@Suite("Foundation chains: one one-key registration per hop, each on the object it observes")
struct FoundationChainTests {
  @Test("A change of the leaf is delivered with the leaf's old and new values")
  func leafChange() {
    let platform = KeyPlatform()
    let item = KeyedObject(["status": "loading"])
    let player = KeyedObject(["currentItem": item])
    let watcher = Watcher()
    let observation = platform.register(
      watcher, on: player, path: "currentItem.status", options: [.initial, .old, .new])
    platform.set(item, "status", to: "ready")
    #expect(watcher.log == ["·->loading", "loading->ready"])
    #expect(platform.registrationCount(on: player) == 1)
    #expect(platform.registrationCount(on: item) == 1)
    #expect(player.registry.observerCount == 2)  // the registration and its link on the root
    #expect(item.registry.observerCount == 1)
    #expect(!observation.isCancelled)
  }

  @Test(
    "On a delivery queue, the path is read again on that queue after each change, with the old value the last reading found"
  )
  func readOnDeliveryQueue() async {
    let platform = KeyPlatform()
    let queue = DispatchQueue(label: "autokvo.tests.foundation-chain")
    let item = KeyedObject(["status": "loading"])
    let player = KeyedObject(["currentItem": item])
    let watcher = Watcher()
    let readings = PlacementLog()
    let delivery = HandlerDelivery.resolve(queue: queue)
    guard case .queue(let deliveryQueue) = delivery else {
      Issue.record("a queue's delivery is not a queue's")
      return
    }
    platform.register(
      watcher, on: player, path: "currentItem.status", options: [.old, .new, .prior],
      delivery: delivery,
      handler: { watcher, change in
        dispatchPrecondition(condition: .onQueue(queue))
        watcher.record(describeAny(change))
      },
      onEvaluation: { readings.record(deliveryQueue.identity.isCurrent ? "queue" : "caller") })
    // The queue is held until both changes are made: each reading runs later, and reads "playing".
    let hold = DispatchSemaphore(value: 0)
    queue.async { hold.wait() }
    platform.set(item, "status", to: "ready")
    platform.set(item, "status", to: "playing")
    hold.signal()
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(
      watcher.log == [
        "prior loading->·", "loading->playing", "prior playing->·", "playing->playing",
      ])
    #expect(readings.all == ["caller", "queue", "queue"])
  }

  @Test("An intermediate replaced: its hop moves to the new object, the old one is forgotten")
  func intermediateReplaced() {
    let platform = KeyPlatform()
    let first = KeyedObject(["status": "a"])
    let second = KeyedObject(["status": "b"])
    let player = KeyedObject(["currentItem": first])
    let watcher = Watcher()
    platform.register(watcher, on: player, path: "currentItem.status", options: [.old, .new])
    platform.set(player, "currentItem", to: second)
    #expect(watcher.log == ["a->b"])
    #expect(platform.registrationCount(on: first) == 0)
    #expect(first.registry.observerCount == 0)
    #expect(platform.registrationCount(on: second) == 1)
    platform.set(first, "status", to: "ignored")
    platform.set(second, "status", to: "c")
    #expect(watcher.log == ["a->b", "b->c"])
    #expect(platform.detachments.value == 1)  // the first item's hop, removed while it lived
  }

  @Test("An intermediate freed while its owner lives: its hop ends with it and the leaf is absent")
  func intermediateFreed() {
    let platform = KeyPlatform()
    let tracker = LifetimeTracker()
    let player = KeyedObject()
    var item: KeyedObject? = KeyedObject(tracker: tracker, ["status": "ready"])
    platform.set(player, "currentItem", to: item, weakly: true)
    let watcher = Watcher()
    let observation = platform.register(
      watcher, on: player, path: "currentItem.status", options: [.old, .new, .prior])
    #expect(platform.registrationCount(on: item!) == 1)
    item = nil
    #expect(tracker.liveCount == 0)
    // Its old value died with it: a prior call and a change to an absent leaf, nothing more.
    #expect(watcher.log == ["prior ·->·", "·->-"])
    #expect(platform.detachments.value == 0)  // removed by its own deallocation, not by another
    #expect(!observation.isCancelled)
    #expect(player.registry.observerCount == 2)
    platform.set(player, "currentItem", to: KeyedObject(["status": "new"]))
    #expect(watcher.log.last == "-->new")  // the old leaf was absent
  }

  @Test(
    "A root that owns its intermediate, freed: every hop ends exactly once, none from another object's deallocation of it"
  )
  func rootOwningIntermediateFreed() {
    let platform = KeyPlatform()
    let tracker = LifetimeTracker()
    var player: KeyedObject? = KeyedObject(
      tracker: tracker, ["currentItem": KeyedObject(tracker: tracker, ["status": "ready"])])
    let watcher = Watcher()
    let observation = platform.register(
      watcher, on: player!, path: "currentItem.status", options: [.old, .new])
    player = nil
    #expect(tracker.liveCount == 0)
    #expect(observation.isCancelled)
    #expect(observation.endReason == .observedDeallocated)
    #expect(watcher.observationRegistry.observingCount == 0)
    #expect(watcher.log.isEmpty)
    // The item's hop was removed either by the item's own deallocation or by a thread that held
    // the item: at most once, never after it was freed (the platform's registration is weak).
    #expect(platform.detachments.value <= 1)
  }

  @Test("The observer freed first: every hop is removed from its live object exactly once")
  func observerFreedFirst() {
    let platform = KeyPlatform()
    let item = KeyedObject(["status": "ready"])
    let player = KeyedObject(["currentItem": item])
    var watcher: Watcher? = Watcher()
    let observation = platform.register(
      watcher!, on: player, path: "currentItem.status", options: [.new])
    watcher = nil
    #expect(observation.isCancelled)
    #expect(observation.endReason == .observerDeallocated)
    #expect(platform.detachments.value == 2)
    #expect(platform.registrationCount(on: player) == 0)
    #expect(platform.registrationCount(on: item) == 0)
    #expect(player.registry.observerCount == 0)
    #expect(item.registry.observerCount == 0)
    platform.set(item, "status", to: "after")  // nobody left to tell
  }

  @Test("cancel() inside the .initial call: nothing more is delivered and every hop is removed")
  func cancelInsideInitial() {
    let platform = KeyPlatform()
    let item = KeyedObject(["status": "ready"])
    let player = KeyedObject(["currentItem": item])
    let watcher = Watcher()
    var ended = -1
    let observation = platform.register(
      watcher, on: player, path: "currentItem.status", options: [.initial, .new]
    ) { watcher, change in
      watcher.record("\(change.newValue.map { "\($0 ?? "-")" } ?? "·")")
      ended = watcher.stopObservingAll()  // the registration's cancel(), from inside its call
    }
    platform.set(item, "status", to: "later")
    #expect(watcher.log == ["ready"])
    #expect(ended == 1)
    #expect(observation.isCancelled)
    #expect(platform.registrationCount(on: player) == 0)
    #expect(platform.registrationCount(on: item) == 0)
    #expect(player.registry.observerCount == 0)
    #expect(item.registry.observerCount == 0)
  }

  @Test(
    "Both sides freed at once on two threads: every registration ends once, everything is freed")
  func bothSidesAtOnce() {
    let platform = KeyPlatform()
    let tracker = LifetimeTracker()
    for _ in 0..<200 {
      let player = Box<KeyedObject>()
      player.value = KeyedObject(
        tracker: tracker, ["currentItem": KeyedObject(tracker: tracker, ["status": "s"])])
      let watcher = Box<Watcher>()
      watcher.value = Watcher(tracker: tracker)
      let observation = platform.register(
        watcher.value!, on: player.value!, path: "currentItem.status", options: [.new])
      let sides = (player, watcher)  // each released by one thread only
      runSimultaneously([{ sides.0.value = nil }, { sides.1.value = nil }])
      #expect(observation.isCancelled)
    }
    #expect(tracker.liveCount == 0)
  }

  @Test("A collection operator or a path through a collection is refused with a diagnostic")
  func collectionsRefused() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let platform = KeyPlatform()
    let playlist = KeyedObject(["items": [KeyedObject(["title": "a"])]])
    let watcher = Watcher()
    let counted = platform.register(watcher, on: playlist, path: "items.@count", options: [.new])
    let through = platform.register(watcher, on: playlist, path: "items.title", options: [.new])
    #expect(counted.isCancelled && through.isCancelled)
    #expect(diagnostics.kinds == [.unsupportedKeyPath, .unsupportedKeyPath])
    #expect(diagnostics.messages[0].contains("collection operator @count"))
    #expect(diagnostics.messages[1].contains("goes through a collection at 'items'"))
    #expect(playlist.registry.observerCount == 0)
    #expect(watcher.activeObservations.isEmpty)
  }
}

@Suite("Mixed chains: @Observed properties of a Swift model, then Foundation keys")
struct MixedChainTests {
  @Test(
    "The leaf's changes and the head's replacements are delivered with the leaf's values, and each hop moves"
  )
  func headReplaced() {
    let platform = KeyPlatform()
    let item = KeyedObject(["status": "loading"])
    let player = KeyedObject(["currentItem": item])
    let model = Model(player: player)
    let watcher = Watcher()
    let observation = platform.register(
      watcher, on: model, head: \.player, path: "currentItem.status",
      options: [.initial, .old, .new])
    platform.set(item, "status", to: "ready")
    #expect(watcher.log == ["·->loading", "loading->ready"])
    // The registration and the head's link on the model; one Foundation hop on each object.
    #expect(model.observationRegistry.observerCount == 2)
    #expect(platform.registrationCount(on: player) == 1)
    #expect(platform.registrationCount(on: item) == 1)

    model.title = "b"  // not on the path
    let nextItem = KeyedObject(["status": "paused"])
    let nextPlayer = KeyedObject(["currentItem": nextItem])
    model.player = nextPlayer
    #expect(watcher.log == ["·->loading", "loading->ready", "ready->paused"])
    #expect(platform.registrationCount(on: player) == 0)
    #expect(platform.registrationCount(on: item) == 0)
    #expect(player.registry.observerCount == 0)
    #expect(item.registry.observerCount == 0)
    #expect(platform.detachments.value == 2)  // both removed from their live objects
    #expect(platform.registrationCount(on: nextPlayer) == 1)
    #expect(platform.registrationCount(on: nextItem) == 1)

    platform.set(item, "status", to: "ignored")
    platform.set(nextItem, "status", to: "playing")
    model.player = nil
    #expect(watcher.log.suffix(2) == ["paused->playing", "playing->-"])
    #expect(platform.registrationCount(on: nextPlayer) == 0)
    #expect(model.observationRegistry.observerCount == 2)
    #expect(!observation.isCancelled)
    model.player = KeyedObject(["currentItem": KeyedObject(["status": "back"])])
    #expect(
      watcher.log == [
        "·->loading", "loading->ready", "ready->paused", "paused->playing", "playing->-",
        "-->back",
      ])
  }

  @Test("A .prior call comes before each change, with the old value, through either kind of hop")
  func priorThroughBothHops() {
    let platform = KeyPlatform()
    let item = KeyedObject(["status": "a"])
    let model = Model(player: KeyedObject(["currentItem": item]))
    let watcher = Watcher()
    platform.register(
      watcher, on: model, head: \.player, path: "currentItem.status",
      options: [.prior, .old, .new])
    platform.set(item, "status", to: "b")
    model.player = KeyedObject(["currentItem": KeyedObject(["status": "c"])])
    #expect(watcher.log == ["prior a->·", "a->b", "prior b->·", "b->c"])
  }

  @Test("A head through two engine objects links both; replacing the middle one moves every hop")
  func headThroughTwoEngineObjects() {
    let platform = KeyPlatform()
    let first = Holder(player: KeyedObject(["currentItem": KeyedObject(["status": "1"])]))
    let model = Model()
    model.holder = first
    let watcher = Watcher()
    platform.register(
      watcher, on: model, head: \.holder?.player, path: "currentItem.status", options: [.old, .new])
    #expect(first.observationRegistry.observerCount == 1)
    first.player = KeyedObject(["currentItem": KeyedObject(["status": "2"])])
    let second = Holder(player: KeyedObject(["currentItem": KeyedObject(["status": "3"])]))
    model.holder = second
    #expect(watcher.log == ["1->2", "2->3"])
    #expect(first.observationRegistry.observerCount == 0)
    #expect(second.observationRegistry.observerCount == 1)
    first.player = nil  // no longer on the path
    second.player = nil
    #expect(watcher.log == ["1->2", "2->3", "3->-"])
  }

  @Test("An object of the Foundation keys freed while its owner lives: its hop ends with it")
  func foundationIntermediateFreed() {
    let platform = KeyPlatform()
    let tracker = LifetimeTracker()
    let player = KeyedObject()
    var item: KeyedObject? = KeyedObject(tracker: tracker, ["status": "ready"])
    platform.set(player, "currentItem", to: item, weakly: true)
    let model = Model(player: player)
    let watcher = Watcher()
    let observation = platform.register(
      watcher, on: model, head: \.player, path: "currentItem.status",
      options: [.old, .new, .prior])
    #expect(platform.registrationCount(on: item!) == 1)
    item = nil
    #expect(tracker.liveCount == 0)
    #expect(watcher.log == ["prior ·->·", "·->-"])
    #expect(platform.detachments.value == 0)  // removed by its own deallocation only
    #expect(!observation.isCancelled)
    platform.set(player, "currentItem", to: KeyedObject(["status": "new"]))
    #expect(watcher.log.last == "-->new")
  }

  @Test(
    "A model that owns its chain, freed, registry first or last: every hop ends exactly once, none after its object"
  )
  func rootOwningChainFreed() {
    let platform = KeyPlatform()
    let tracker = LifetimeTracker()
    var model: Model? = Model(
      tracker: tracker,
      player: KeyedObject(
        tracker: tracker, ["currentItem": KeyedObject(tracker: tracker, ["status": "s"])]))
    let watcher = Watcher()
    let observation = platform.register(
      watcher, on: model!, head: \.player, path: "currentItem.status", options: [.old, .new])
    model = nil
    #expect(tracker.liveCount == 0)
    #expect(observation.isCancelled)
    #expect(observation.endReason == .observedDeallocated)
    #expect(watcher.observationRegistry.observingCount == 0)
    #expect(watcher.log.isEmpty)
    // Each of the two Foundation hops was removed by its object's own deallocation or by a
    // thread that held the object: at most once each.
    #expect(platform.detachments.value <= 2)

    let otherTracker = LifetimeTracker()
    var other: ModelWithRegistryLast? = ModelWithRegistryLast(
      player: KeyedObject(
        tracker: otherTracker,
        ["currentItem": KeyedObject(tracker: otherTracker, ["status": "s"])]))
    let second = platform.register(
      watcher, on: other!, head: \.player, path: "currentItem.status", options: [.old, .new])
    other = nil
    #expect(otherTracker.liveCount == 0)
    #expect(second.isCancelled)
    #expect(second.endReason == .observedDeallocated)
    #expect(watcher.observationRegistry.observingCount == 0)
    #expect(watcher.log.isEmpty)
    #expect(platform.detachments.value <= 4)
  }

  @Test("The observer freed first: every hop, engine and Foundation, is removed exactly once")
  func observerFreedFirst() {
    let platform = KeyPlatform()
    let item = KeyedObject(["status": "ready"])
    let player = KeyedObject(["currentItem": item])
    let model = Model(player: player)
    var watcher: Watcher? = Watcher()
    let observation = platform.register(
      watcher!, on: model, head: \.player, path: "currentItem.status", options: [.new])
    watcher = nil
    #expect(observation.isCancelled)
    #expect(observation.endReason == .observerDeallocated)
    #expect(platform.detachments.value == 2)
    #expect(platform.registrationCount(on: player) == 0)
    #expect(platform.registrationCount(on: item) == 0)
    #expect(model.observationRegistry.observerCount == 0)
    #expect(player.registry.observerCount == 0)
    model.player = nil  // nobody left to tell
  }

  @Test("cancel() inside the .initial call: nothing more is delivered and every hop is removed")
  func cancelInsideInitial() {
    let platform = KeyPlatform()
    let item = KeyedObject(["status": "ready"])
    let model = Model(player: KeyedObject(["currentItem": item]))
    let watcher = Watcher()
    var ended = -1
    let observation = platform.register(
      watcher, on: model, head: \.player, path: "currentItem.status", options: [.initial, .new]
    ) { watcher, change in
      watcher.record("\(change.newValue.map { "\($0 ?? "-")" } ?? "·")")
      ended = watcher.stopObservingAll()
    }
    platform.set(item, "status", to: "later")
    model.player = nil
    #expect(watcher.log == ["ready"])
    #expect(ended == 1)
    #expect(observation.isCancelled)
    #expect(platform.registrationCount(on: item) == 0)
    #expect(model.observationRegistry.observerCount == 0)
    #expect(item.registry.observerCount == 0)
  }

  @Test(
    "Both sides freed at once on two threads: every registration ends once, everything is freed")
  func bothSidesAtOnce() {
    let platform = KeyPlatform()
    let tracker = LifetimeTracker()
    for _ in 0..<200 {
      let model = Box<Model>()
      model.value = Model(
        tracker: tracker,
        player: KeyedObject(
          tracker: tracker, ["currentItem": KeyedObject(tracker: tracker, ["status": "s"])]))
      let watcher = Box<Watcher>()
      watcher.value = Watcher(tracker: tracker)
      let observation = platform.register(
        watcher.value!, on: model.value!, head: \.player, path: "currentItem.status",
        options: [.new])
      let sides = (model, watcher)  // each released by one thread only
      runSimultaneously([{ sides.0.value = nil }, { sides.1.value = nil }])
      #expect(observation.isCancelled)
    }
    #expect(tracker.liveCount == 0)
  }

  @Test("A leaf read through no object is absent: nil for an optional leaf, no value otherwise")
  func absentLeafFlattened() {
    // What the typed Apple forms hand their handler: the chain reads `Leaf?`, `nil` when the head
    // leads to no object.
    let int = KeyValueChange<Int?>(kind: .setting, oldValue: .some(nil), newValue: .some(3))
      .flatteningAbsentLeaf()
    #expect(int == KeyValueChange<Int>(kind: .setting, oldValue: nil, newValue: 3))
    let optional = KeyValueChange<String??>(
      kind: .setting, oldValue: .some(.some(nil)), newValue: .some(nil), isPrior: false
    ).flatteningAbsentLeaf()
    #expect(optional.oldValue == .some(.none))  // the leaf's own nil
    #expect(optional.newValue == .some(.none))  // absent
    let notAsked = KeyValueChange<String??>(kind: .setting, newValue: .some(.some("x")))
      .flatteningAbsentLeaf()
    #expect(notAsked.oldValue == nil)  // not asked for
    #expect(notAsked.newValue == .some("x"))
    let prior = KeyValueChange<Int?>(kind: .setting, oldValue: .some(1), isPrior: true)
      .flatteningAbsentLeaf()
    #expect(prior == KeyValueChange<Int>(kind: .setting, oldValue: 1, isPrior: true))
  }

  @Test("Foundation keys through a collection after the head are refused with a diagnostic")
  func collectionAfterHeadRefused() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let platform = KeyPlatform()
    let model = Model(player: KeyedObject(["items": [KeyedObject(["title": "a"])]]))
    let watcher = Watcher()
    let through = platform.register(
      watcher, on: model, head: \.player, path: "items.title", options: [.new])
    #expect(through.isCancelled)
    #expect(diagnostics.kinds == [.unsupportedKeyPath])
    #expect(diagnostics.messages[0].contains("'items.title' after "))
    #expect(diagnostics.messages[0].contains("goes through a collection at 'items'"))
    #expect(model.observationRegistry.observerCount == 0)
    #expect(watcher.activeObservations.isEmpty)
  }
}
