import AutoKVO
import Foundation
import Testing

/// One shape of undeclared hop: how to register through it, which leaf it reaches, and how the
/// program replaces (or frees) what leads to that leaf.
struct UndeclaredHopCase: Sendable, CustomTestStringConvertible {
  let testDescription: String
  let register: @Sendable (Watcher, PlainHops) -> KeyValueObservation
  let leaf: @Sendable (PlainHops) -> HopItem
  let replace: @Sendable (PlainHops) -> Void

  static func watching<Value>(
    _ keyPath: KeyPath<PlainHops, Value> & Sendable
  ) -> @Sendable (Watcher, PlainHops) -> KeyValueObservation {
    { watcher, hops in
      watcher.autoObserve(hops, keyPath: keyPath, options: [.old, .new]) { w, _, change in
        w.record(describe(change))
      }
    }
  }

  static let all: [UndeclaredHopCase] = [
    UndeclaredHopCase(
      testDescription: "a plain struct member, the struct replaced",
      register: watching(\.slot.item.title), leaf: { $0.slot.item },
      replace: { $0.slot = HopSlot(id: 2, item: HopItem("C")) }),
    UndeclaredHopCase(
      testDescription: "a plain struct member, the member replaced",
      register: watching(\.slot.item.title), leaf: { $0.slot.item },
      replace: { $0.slot.item = HopItem("C") }),
    UndeclaredHopCase(
      testDescription: "a plain array's element, the array replaced",
      register: watching(\.items[0].title), leaf: { $0.items[0] },
      replace: { $0.items = [HopItem("C")] }),
    UndeclaredHopCase(
      testDescription: "a plain array's element, the element replaced",
      register: watching(\.items[0].title), leaf: { $0.items[0] },
      replace: { $0.items[0] = HopItem("C") }),
    UndeclaredHopCase(
      testDescription: "a plain tuple's second element, the tuple replaced",
      register: watching(\.pair.1.title), leaf: { $0.pair.1 },
      replace: { $0.pair = (2, HopItem("C")) }),
    UndeclaredHopCase(
      testDescription: "a plain dictionary's value, the value replaced",
      register: watching(\.byName["a"]!.title), leaf: { $0.byName["a"]! },
      replace: { $0.byName["a"] = HopItem("C") }),
    UndeclaredHopCase(
      testDescription: "an enum payload after another value, through a computed property",
      register: watching(\.state.item!.title), leaf: { $0.state.item! },
      replace: { $0.state = .playing(2, HopItem("C")) }),
    UndeclaredHopCase(
      testDescription: "a plain strong property",
      register: watching(\.strong.title), leaf: { $0.strong },
      replace: { $0.strong = HopItem("C") }),
    UndeclaredHopCase(
      testDescription: "a plain weak property",
      register: watching(\.weakItem!.title), leaf: { $0.weakItem! },
      replace: { $0.weakItem = $0.strong }),
    UndeclaredHopCase(
      testDescription: "a computed property over a plain field",
      register: watching(\.firstItem.title), leaf: { $0.firstItem },
      replace: { $0.items = [HopItem("C")] }),
  ]
}

@Suite("Chains: a hop is observed because its declaration says so")
struct UnobservedHopTests {
  @Test(
    "An undeclared hop is reported once; replacing what leads to the leaf neither crashes nor is delivered",
    arguments: UndeclaredHopCase.all)
  func undeclaredHop(_ hop: UndeclaredHopCase) {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let leaf = HopItem("A")
    let hops = PlainHops(leaf: leaf)
    hops.weakItem = leaf
    let watcher = Watcher()
    let observation = hop.register(watcher, hops)
    #expect(diagnostics.kinds == [.unobservedIntermediate])
    let message = diagnostics.messages.first ?? ""
    #expect(message.contains("\\PlainHops."))
    #expect(message.contains("reaches HopItem through a hop that is not observed"))
    #expect(message.contains("Mark the hop @Observed, or @ObservedWeak for a weak reference"))
    let reached = hop.leaf(hops)
    reached.title = "B"
    hop.replace(hops)
    #expect(hop.leaf(hops) !== reached)
    hop.leaf(hops).title = "N"
    #expect(watcher.log == ["setting A->B"])
    // The chain stays linked to the object it reached while that object lives: its next change
    // reads the path again, which now reads the new leaf.
    reached.title = "C"
    #expect(watcher.log == ["setting A->B", "setting N->N"])
    hop.leaf(hops).title = "M"
    #expect(watcher.log == ["setting A->B", "setting N->N", "setting N->M"])
    #expect(diagnostics.kinds == [.unobservedIntermediate])
    observation.cancel()
    #expect(hops.observationRegistry.observerCount == 0)
    withExtendedLifetime(leaf) {}
  }

  @Test("Every undeclared shape survives its replacement in a process of its own")
  func undeclaredHopsDoNotCrash() async {
    await #expect(processExitsWith: .success) {
      for hop in UndeclaredHopCase.all {
        let leaf = HopItem("A")
        let hops = PlainHops(leaf: leaf)
        hops.weakItem = leaf
        let watcher = Watcher()
        _ = hop.register(watcher, hops)
        hop.replace(hops)
        hop.leaf(hops).title = "changed"
        withExtendedLifetime((leaf, watcher)) {}
      }
    }
  }

  @Test(
    "An unowned leaf inside a plain struct that dies on its own ends its link and reads nothing")
  func unownedLeafInStructDies() async {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    var leaf: HopItem? = HopItem("A")
    let hops = PlainHops(leaf: leaf!)
    let watcher = Watcher()
    watcher.autoObserve(hops, keyPath: \.reference.leaf.title, options: [.old, .new]) {
      w, _, change in w.record(describe(change))
    }
    #expect(diagnostics.kinds == [.unobservedIntermediate])
    leaf!.title = "B"
    leaf = nil
    #expect(watcher.log == ["setting A->B"])
    #expect(hops.observationRegistry.observerCount == 2)
    await #expect(processExitsWith: .success) {
      var leaf: HopItem? = HopItem("A")
      let hops = PlainHops(leaf: leaf!)
      let watcher = Watcher()
      watcher.autoObserve(hops, keyPath: \.reference.leaf.title) { _, _, _ in }
      leaf = nil
      withExtendedLifetime((hops, watcher)) {}
    }
  }

  @Test("A let hop is reported, and the message says that a constant misses nothing")
  func constantHop() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let hops = PlainHops(leaf: HopItem("unused"))
    let watcher = Watcher()
    watcher.autoObserve(hops, keyPath: \.constant.title, options: [.new]) { w, _, change in
      w.record(describe(change))
    }
    #expect(diagnostics.kinds == [.unobservedIntermediate])
    #expect(
      diagnostics.messages.first?.contains("if it is a constant (a let), nothing is missed") == true
    )
    hops.constant.title = "B"
    #expect(watcher.log == ["setting nil->B"])
  }

  @Test(
    "A plain hop after an @Observed one is reported; replacing the @Observed one follows the path")
  func plainHopAfterObservedHop() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let root = ObservedThenPlain()
    let watcher = Watcher()
    watcher.autoObserve(root, keyPath: \.inner.slot.item.title, options: [.old, .new]) {
      w, _, change in w.record(describe(change))
    }
    #expect(diagnostics.kinds == [.unobservedIntermediate])
    root.inner.slot = HopSlot(id: 2, item: HopItem("unseen"))
    #expect(watcher.log == [])
    let replacement = PlainHops(leaf: root.keptLeaf)
    replacement.slot.item.title = "C"
    root.inner = replacement
    replacement.slot.item.title = "D"
    #expect(watcher.log == ["setting unseen->C", "setting C->D"])
    #expect(diagnostics.kinds == [.unobservedIntermediate])
  }

  @Test("Registering through two plain hops reads no field the key path does not read")
  func danglingUnownedFieldIsNeverRead() async {
    await #expect(processExitsWith: .success) {
      var delegate: DanglingSettings.Delegate? = DanglingSettings.Delegate()
      let app = DanglingApp(delegate: delegate!)
      delegate = nil
      let watcher = Watcher()
      var delivered = 0
      watcher.autoObserve(app, keyPath: \.settings.item.title, options: [.new]) { _, _, _ in
        delivered += 1
      }
      app.settings.item.title = "B"
      precondition(delivered == 1)
      withExtendedLifetime(watcher) {}
    }
  }

  @Test(
    "Declared hops are not reported: optional and required @Observed hops, an @Observed array's element, a computed first element, an @Observed struct's member"
  )
  func declaredHopsAreNotReported() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let hops = DeclaredHops()
    hops.pinned = hops.current
    hops.pinnedID = hops.current.map(ObjectIdentifier.init)
    let watcher = Watcher()
    watcher.autoObserve(hops, keyPath: \.current?.title, options: [.new]) { w, _, change in
      w.record("current \(describe(change))")
    }
    watcher.autoObserve(hops, keyPath: \.required.title, options: [.new]) { w, _, change in
      w.record("required \(describe(change))")
    }
    watcher.autoObserve(hops, keyPath: \.items[0].title, options: [.new]) { w, _, change in
      w.record("items[0] \(describe(change))")
    }
    watcher.autoObserve(hops, keyPath: \.first?.title, options: [.new]) { w, _, change in
      w.record("first \(describe(change))")
    }
    watcher.autoObserve(hops, keyPath: \.slot.item.title, options: [.new]) { w, _, change in
      w.record("slot \(describe(change))")
    }
    #expect(diagnostics.kinds == [])
    hops.current = nil
    hops.required = HopItem("R")
    hops.items = [HopItem("I")]
    hops.slot.item = HopItem("S")
    #expect(
      watcher.log == [
        "current setting nil->nil", "required setting nil->R", "items[0] setting nil->I",
        "first setting nil->Optional(\"I\")", "slot setting nil->S",
      ])
  }

  @Test("No path is read again when an object on it dies")
  func deathReadsNothing() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let path = CountedWeakPath()
    var item: HopItem? = HopItem("A")
    path.item = item
    let watcher = Watcher()
    watcher.autoObserve(path, keyPath: \.title, options: [.new]) { w, _, change in
      w.record(describe(change))
    }
    #expect(path.reads == 1)
    item!.title = "B"
    #expect(path.reads == 2)
    item = nil
    #expect(path.reads == 2)
    #expect(watcher.log == ["setting nil->Optional(\"B\")"])
  }

  @Test(
    "Registering chains of three @Observed hops while another thread writes a field no key path reads"
  )
  func noReadOfUnrelatedFields() {
    let root = DeepRoot()
    let done = LockedFlag()
    let writer = Thread {
      var tick = 0
      while !done.value {
        tick += 1
        root.ticks = tick
      }
    }
    writer.start()
    let watcher = Watcher()
    for round in 0..<300 {
      let observation = watcher.autoObserve(root, keyPath: \.first.second.third.value) { _, _, _ in
      }
      root.first.second = DeepRoot.Second()
      root.first.second.third.value = round
      observation.cancel()
    }
    done.set()
    #expect(root.observationRegistry.observerCount == 0)
  }
}

/// A computed path through a plain weak reference that counts its evaluations.
final class CountedWeakPath: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  weak var item: HopItem?
  private(set) var reads = 0

  var title: String? {
    reads += 1
    return item?.title
  }
}

/// A flag one thread sets and another polls.
final class LockedFlag: @unchecked Sendable {  // `isSet` is guarded by `lock`
  private let lock = NSLock()
  private var isSet = false
  var value: Bool { lock.withLock { isSet } }
  func set() { lock.withLock { isSet = true } }
}

@Suite("Chains: a hop notified by hand is a declared hop")
struct HandNotifiedHopTests {
  @Test(
    "A chain through a hop its class notifies by hand follows its replacement, with the path's old and new values"
  )
  func handNotifiedHopOnTheRoot() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let holder = HandNotifiedHolder()
    let first = HopItem("A")
    let second = HopItem("B")
    holder.leaf = first
    let watcher = Watcher()
    watcher.autoObserve(holder, keyPath: \.leaf?.title, options: [.old, .new]) { w, _, change in
      w.record(describe(change))
    }
    #expect(diagnostics.kinds == [])
    holder.leaf = second
    first.title = "unseen"
    second.title = "C"
    #expect(
      watcher.log == [
        "setting Optional(\"A\")->Optional(\"B\")", "setting Optional(\"B\")->Optional(\"C\")",
      ])
    #expect(first.observationRegistry.observerCount == 0)
    #expect(second.observationRegistry.observerCount == 1)
    holder.leaf = nil
    second.title = "unseen too"
    #expect(watcher.log.last == "setting Optional(\"C\")->nil")
    #expect(second.observationRegistry.observerCount == 0)
  }

  @Test(
    "A hop another instance of its class notified by hand is declared for a new instance: no diagnostic"
  )
  func handNotifiedHopKnownFromItsClass() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let taught = HandNotifiedHolder()
    let item = HopItem("A")
    taught.leaf = item
    // A new instance, whose leaf is set without a manual change (its class's initializer).
    let holder = HandNotifiedHolder(leaf: item)
    let watcher = Watcher()
    watcher.autoObserve(holder, keyPath: \.leaf?.title, options: [.new]) { w, _, change in
      w.record(describe(change))
    }
    #expect(diagnostics.kinds == [])
    holder.leaf = nil
    #expect(watcher.log == ["setting nil->nil"])
  }

  @Test(
    "A hand-notified hop registered before its first manual change is followed from that change")
  func handNotifiedHopBeforeItsFirstChange() {
    let holder = HandNotifiedHolder()
    let first = HopItem("A")
    let watcher = Watcher()
    watcher.autoObserve(holder, keyPath: \.leaf?.title, options: [.old, .new, .prior]) {
      w, _, change in w.record(describe(change))
    }
    holder.leaf = first
    first.title = "B"
    #expect(
      watcher.log == [
        "prior setting nil->nil", "setting nil->Optional(\"A\")",
        "prior setting Optional(\"A\")->nil", "setting Optional(\"A\")->Optional(\"B\")",
      ])
  }

  @Test(
    "A chain through two hops notified by hand follows each, on the root and on an intermediate")
  func handNotifiedHopOnAnIntermediate() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let root = HandNotifiedRoot()
    let holder = HandNotifiedHolder()
    let other = HandNotifiedHolder()
    let first = HopItem("A")
    let second = HopItem("B")
    let third = HopItem("C")
    holder.leaf = first
    other.leaf = third
    root.holder = holder
    let watcher = Watcher()
    watcher.autoObserve(root, keyPath: \.holder?.leaf?.title, options: [.old, .new]) {
      w, _, change in w.record(describe(change))
    }
    #expect(diagnostics.kinds == [])
    holder.leaf = second
    root.holder = other
    holder.leaf = first
    second.title = "unseen"
    third.title = "D"
    #expect(
      watcher.log == [
        "setting Optional(\"A\")->Optional(\"B\")", "setting Optional(\"B\")->Optional(\"C\")",
        "setting Optional(\"C\")->Optional(\"D\")",
      ])
    #expect(holder.observationRegistry.observerCount == 0)
    #expect(first.observationRegistry.observerCount == 0)
    #expect(diagnostics.kinds == [])
  }

  @Test(
    "Two hops notified by hand, registered before either was notified: replacing the first is followed; a manual change of a number is not a hop"
  )
  func twoHandNotifiedHopsBeforeTheirFirstChange() {
    let first = HopItem("A")
    let second = HopItem("B")
    let root = FreshRoot(holder: FreshHolder(leaf: first))
    let other = FreshHolder(leaf: second)
    let watcher = Watcher()
    watcher.autoObserve(root, keyPath: \.holder.leaf?.title, options: [.old, .new]) {
      w, _, change in w.record(describe(change))
    }
    root.count += 1
    #expect(watcher.log == [])
    root.holder = other
    second.title = "C"
    first.title = "unseen"
    #expect(
      watcher.log == [
        "setting Optional(\"A\")->Optional(\"B\")", "setting Optional(\"B\")->Optional(\"C\")",
      ])
    #expect(first.observationRegistry.observerCount == 0)
    withExtendedLifetime(first) {}
  }
}

@Suite("Chains: the watch of an unobserved hop ends with its registration")
struct HandNotifiedHopWatchLifecycleTests {
  @Test("The observer freed first: the registration, its link and its watch end")
  func observerFreedFirst() {
    let holder = WatchedHolder()
    let tracker = LifetimeTracker()
    var watcher: Watcher? = Watcher(tracker: tracker)
    watcher!.autoObserve(holder, keyPath: \.item.title) { _, _, _ in }
    #expect(holder.observationRegistry.observerCount == 2)
    #expect(holder.item.observationRegistry.observerCount == 1)
    watcher = nil
    #expect(tracker.liveCount == 0)
    #expect(holder.observationRegistry.observerCount == 0)
    #expect(holder.item.observationRegistry.observerCount == 0)
  }

  @Test("The observed object freed first: the registration, its link and its watch end")
  func observedFreedFirst() {
    let item = HopItem("A")
    var holder: WatchedHolder? = WatchedHolder()
    holder!.item = item
    let watcher = Watcher()
    watcher.autoObserve(holder!, keyPath: \.item.title) { w, _, change in
      w.record(describe(change))
    }
    holder = nil
    item.title = "B"
    #expect(watcher.log == [])
    #expect(watcher.observationRegistry.observingCount == 0)
    #expect(item.observationRegistry.observerCount == 0)
  }

  @Test(
    "A manual change of another object property reaches the watch: one delivery, and a handler that cancels inside it hears nothing more"
  )
  func cancelInsideAForwardedChange() {
    let holder = WatchedHolder()
    let watcher = Watcher()
    var observation: KeyValueObservation?
    observation = watcher.autoObserve(holder, keyPath: \.item.title, options: [.old, .new]) {
      w, _, change in
      w.record(describe(change))
      observation?.cancel()
    }
    holder.other = HopItem("X")
    holder.other = HopItem("Y")
    holder.item.title = "B"
    #expect(watcher.log == ["setting A->A"])
    #expect(holder.observationRegistry.observerCount == 0)
    #expect(holder.item.observationRegistry.observerCount == 0)
  }
}
