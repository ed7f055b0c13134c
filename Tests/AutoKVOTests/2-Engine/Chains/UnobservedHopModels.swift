import AutoKVO
import Foundation

// Models for chains through hops that are not declared: each shape the adversarial review of the
// removed stored-field search crashed on, and the declared shapes that must not be reported.

/// The leaf of every chain here.
final class HopItem: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  @Observed var title: String

  init(_ title: String) {
    self.title = title
  }
}

/// A plain struct whose second member is the object.
struct HopSlot {
  var id: Int
  var item: HopItem
}

/// A plain struct holding the object `unowned`, after another member.
struct UnownedHopReference {
  var tag = 0
  unowned var leaf: HopItem
}

enum HopState {
  case idle(Int, Int)
  case playing(Int, HopItem)

  var item: HopItem? {
    if case .playing(_, let item) = self { return item }
    return nil
  }
}

/// Every undeclared shape, each a plain stored property of the root.
final class PlainHops: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  var slot = HopSlot(id: 1, item: HopItem("A"))
  var items = [HopItem("A")]
  var pair: (Int, HopItem) = (1, HopItem("A"))
  var byName: [String: HopItem] = ["a": HopItem("A")]
  var state = HopState.playing(1, HopItem("A"))
  var reference: UnownedHopReference
  var strong = HopItem("A")
  unowned var unownedItem: HopItem
  weak var weakItem: HopItem?
  let constant = HopItem("A")
  /// A computed property over a plain field.
  var firstItem: HopItem { items[0] }

  init(leaf: HopItem) {
    reference = UnownedHopReference(leaf: leaf)
    unownedItem = leaf
  }
}

/// Reaches a plain struct through an `@Observed` hop: `\.inner.slot.item.title`.
final class ObservedThenPlain: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  /// What `inner`'s `unowned` fields refer to, kept alive here.
  let keptLeaf: HopItem
  @Observed var inner: PlainHops

  init() {
    let leaf = HopItem("kept")
    keptLeaf = leaf
    _inner = Observed(wrappedValue: PlainHops(leaf: leaf))
  }
}

/// Every declared shape: nothing here is reported.
final class DeclaredHops: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  @Observed var current: HopItem? = HopItem("A")
  @Observed var required = HopItem("A")
  @Observed var items = [HopItem("A")]
  @Observed var slot = HopSlot(id: 1, item: HopItem("A"))
  /// A plain field that holds the same object as `current`, and one that holds its identity: off
  /// the path, so they change nothing.
  var pinned: HopItem?
  var pinnedID: ObjectIdentifier?
  var first: HopItem? { items.first }
}

/// A holder whose `weak` hop its setter notifies by hand, as KVO code writes one.
final class HandNotifiedHolder: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  weak var leaf: HopItem? {
    willSet { willChangeValue(for: \.leaf) }
    didSet { didChangeValue(for: \.leaf) }
  }

  init(leaf: HopItem? = nil) {
    self.leaf = leaf
  }

  static func automaticallyNotifiesObservers(for keyPath: AnyKeyPath) -> Bool {
    keyPath != \HandNotifiedHolder.leaf
  }
}

/// Reaches a ``HandNotifiedHolder`` through its own hand-notified hop.
final class HandNotifiedRoot: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  var holder: HandNotifiedHolder? {
    willSet { willChangeValue(for: \.holder) }
    didSet { didChangeValue(for: \.holder) }
  }

  static func automaticallyNotifiesObservers(for keyPath: AnyKeyPath) -> Bool {
    keyPath != \HandNotifiedRoot.holder
  }
}

/// Three `@Observed` hops and a plain field that another thread writes.
// `ticks` is written by another thread, unsynchronized on purpose: no key path reads it.
final class DeepRoot: KeyValueObservable, @unchecked Sendable {
  final class Third: KeyValueObservable, @unchecked Sendable {  // set by the test thread
    let observationRegistry = ObservationRegistry()
    @Observed var value = 0
  }
  final class Second: KeyValueObservable, @unchecked Sendable {  // set by the test thread
    let observationRegistry = ObservationRegistry()
    @Observed var third = Third()
  }
  final class First: KeyValueObservable, @unchecked Sendable {  // set by the test thread
    let observationRegistry = ObservationRegistry()
    @Observed var second = Second()
  }
  let observationRegistry = ObservationRegistry()
  @Observed var first = First()
  var ticks = 0
}

/// Two plain hops in a row, the second object holding a dangling `unowned` field no key path reads.
final class DanglingSettings: @unchecked Sendable {  // one thread per test
  final class Delegate {}
  let item = HopItem("A")
  unowned var delegate: Delegate

  init(delegate: Delegate) {
    self.delegate = delegate
  }
}

final class DanglingApp: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  let settings: DanglingSettings

  init(delegate: DanglingSettings.Delegate) {
    settings = DanglingSettings(delegate: delegate)
  }
}

/// A holder whose `weak` hop its setter notifies by hand, used by one test only, so that no
/// instance of its class has notified anything before that test's registration.
final class FreshHolder: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  weak var leaf: HopItem? {
    willSet { willChangeValue(for: \.leaf) }
    didSet { didChangeValue(for: \.leaf) }
  }

  init(leaf: HopItem) {
    self.leaf = leaf
  }
}

/// Reaches a ``FreshHolder`` through a hop its setter notifies by hand, and has a count it notifies
/// by hand too; used by one test only.
final class FreshRoot: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  var holder: FreshHolder {
    willSet { willChangeValue(for: \.holder) }
    didSet { didChangeValue(for: \.holder) }
  }
  var count = 0 {
    willSet { willChangeValue(for: \.count) }
    didSet { didChangeValue(for: \.count) }
  }

  init(holder: FreshHolder) {
    self.holder = holder
  }
}

/// Reaches its item through a plain hop, and notifies by hand another object property: a chain
/// through `item` keeps a watch of its manual changes, which `other`'s reach.
final class WatchedHolder: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  var item = HopItem("A")
  var other: HopItem? {
    willSet { willChangeValue(for: \.other) }
    didSet { didChangeValue(for: \.other) }
  }
}
