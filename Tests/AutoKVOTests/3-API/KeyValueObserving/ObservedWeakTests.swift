import Dispatch
import Foundation
import Observation
import Testing

@testable import AutoKVO

/// The object an `@ObservedWeak` property references in these tests.
// @unchecked Sendable: tests hand instances between threads in sequence, ordered by barriers.
final class Track: KeyValueObservable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  @Observed var title: String
  private let tracker: LifetimeTracker?

  init(_ title: String, tracker: LifetimeTracker? = nil) {
    self.title = title
    self.tracker = tracker
    tracker?.instanceCreated()
  }

  deinit {
    tracker?.instanceDestroyed()
  }
}

/// A referent that is not `KeyValueObservable`.
final class PlainTrack: @unchecked Sendable {  // immutable
  let title: String

  init(_ title: String) {
    self.title = title
  }
}

/// Holds its tracks weakly, as a player holds the track it plays.
// @unchecked Sendable: the stress test sets `current` on one thread at a time; the others read
// nothing of it.
final class Player: KeyValueObservable, @unchecked Sendable {
  let observationRegistry = ObservationRegistry()
  @ObservedWeak var current: Track?
  @ObservedWeak var anything: AnyObject?
  @ObservedWeak var plain: PlainTrack?
  private let tracker: LifetimeTracker?

  /// A computed property through the weak one.
  var currentTitle: String { current?.title ?? "none" }

  init(current: Track? = nil, tracker: LifetimeTracker? = nil) {
    self.current = current
    self.tracker = tracker
    tracker?.instanceCreated()
  }

  deinit {
    tracker?.instanceDestroyed()
  }
}

/// A player whose `current` its class notifies by hand.
final class ManualPlayer: KeyValueObservable, @unchecked Sendable {  // single-threaded tests
  let observationRegistry = ObservationRegistry()
  @ObservedWeak var current: Track?

  static func automaticallyNotifiesObservers(for keyPath: AnyKeyPath) -> Bool {
    keyPath != \ManualPlayer.current
  }
}

/// A player that Swift's Observation tracks too.
final class TrackedPlayer: KeyValueObservable, Observable, @unchecked Sendable {  // one thread
  let observationRegistry = ObservationRegistry()
  @ObservedWeak var current: Track?
}

/// Reaches a player through an `@Observed` property: a chain whose weak hop is in the middle.
final class Room: KeyValueObservable, @unchecked Sendable {  // single-threaded tests
  let observationRegistry = ObservationRegistry()
  @Observed var player = Player()
}

/// One line per call: `prior`, then the old and new values, `-` when absent, `nil` when present
/// and `nil`.
private func describe(_ change: KeyValueChange<Track?>) -> String {
  func value(_ value: Track??) -> String {
    switch value {
    case .none: "-"
    case .some(.none): "nil"
    case .some(.some(let track)): track.title
    }
  }
  return "\(change.isPrior ? "prior " : "")\(value(change.oldValue))->\(value(change.newValue))"
}

private func describe(_ change: KeyValueChange<String?>) -> String {
  func value(_ value: String??) -> String {
    switch value {
    case .none: "-"
    case .some(.none): "nil"
    case .some(.some(let title)): title
    }
  }
  return "\(change.isPrior ? "prior " : "")\(value(change.oldValue))->\(value(change.newValue))"
}

/// Runs `body` on a thread of its own and returns that thread's identity, once it has finished.
private func onAnotherThread(_ body: @escaping @Sendable () -> Void) -> ObjectIdentifier {
  let identity = Box<ObjectIdentifier>()
  let done = DispatchSemaphore(value: 0)
  let thread = Thread {
    identity.value = ObjectIdentifier(Thread.current)
    body()
    done.signal()
  }
  thread.start()
  done.wait()
  return identity.value!
}

@Suite("@ObservedWeak: sets notify as @Observed's do, and the referent's deallocation once, as nil")
struct ObservedWeakTests {
  // MARK: Sets

  @Test(
    "A set delivers exactly the values each option asks for",
    arguments: zip(
      [ObservationOptions(), .old, .new, [.old, .new], [.prior, .old, .new]],
      [["-->-"], ["a->-"], ["-->b"], ["a->b"], ["prior a->-", "a->b"]]
    ))
  func setDeliversAskedValues(options: ObservationOptions, expected: [String]) {
    let a = Track("a")
    let b = Track("b")
    let player = Player(current: a)
    let watcher = Watcher()
    watcher.autoObserve(player, keyPath: \.current, options: options) { w, _, c in
      w.record(describe(c))
    }
    player.current = b
    #expect(watcher.log == expected)
    withExtendedLifetime((a, b)) {}
  }

  @Test(".initial calls the handler inside autoObserve with the current referent")
  func initialDeliversCurrentReferent() {
    let a = Track("a")
    let player = Player(current: a)
    let watcher = Watcher()
    watcher.autoObserve(player, keyPath: \.current, options: [.initial, .old, .new]) { w, _, c in
      w.record(describe(c))
    }
    #expect(watcher.log == ["-->a"])
    withExtendedLifetime(a) {}
  }

  @Test("Declared without an initial value, the property reads nil; setting nil notifies")
  func declaredWithoutValue() {
    let player = Player()
    #expect(player.current == nil)
    let watcher = Watcher()
    watcher.autoObserve(player, keyPath: \.current, options: [.old, .new]) { w, _, c in
      w.record(describe(c))
    }
    player.current = nil
    #expect(watcher.log == ["nil->nil"])
  }

  @Test("A class that notifies the property by hand: sets notify only through its calls")
  func manualNotification() {
    let a = Track("a")
    let player = ManualPlayer()
    let watcher = Watcher()
    watcher.autoObserve(player, keyPath: \.current, options: [.old, .new]) { w, _, c in
      w.record(describe(c))
    }
    player.current = a
    #expect(watcher.log == [])
    player.willChangeValue(for: \.current)
    player.current = nil
    player.didChangeValue(for: \.current)
    #expect(watcher.log == ["a->nil"])
  }

  @Test("A computed property that reads it is notified by its sets")
  func computedDependency() {
    let a = Track("a")
    let player = Player()
    let watcher = Watcher()
    watcher.autoObserve(player, keyPath: \.currentTitle, options: [.old, .new]) { w, _, c in
      w.record("\(c.oldValue ?? "-")->\(c.newValue ?? "-")")
    }
    player.current = a
    a.title = "a2"
    #expect(watcher.log == ["none->a", "a->a2"])
    // The track lives until here: an optimized build may free it after its last use, and its
    // deallocation is a change of `currentTitle` with no old value.
    withExtendedLifetime(a) {}
  }

  @Test("changes(for:) yields each set and the referent's deallocation")
  func changesSequence() async {
    var a: Track? = Track("a")
    let player = Player()
    let changes = player.changes(for: \.current, options: [.old, .new])
    player.current = a
    a = nil
    var received: [String] = []
    for await change in changes {
      received.append(describe(change))
      if received.count == 2 { break }
    }
    #expect(received == ["nil->a", "-->nil"])
  }

  @Test("withObservationTracking is told of a set, before and after, as for @Observed")
  func observationTracking() {
    let a = Track("a")
    let player = TrackedPlayer()
    let fired = Counter()
    withObservationTracking {
      _ = player.current
    } onChange: {
      fired.increment()
    }
    player.current = a
    #expect(fired.value == 1)
    #expect(player.current === a)
    player.current = nil
    #expect(fired.value == 1)
  }

  // MARK: The referent's deallocation

  @Test(
    "The referent's deallocation: one .setting change to a present nil, no old value though .old is asked, no prior call"
  )
  func deallocationDeliversNilOnce() {
    var a: Track? = Track("a")
    let player = Player(current: a)
    let watcher = Watcher()
    watcher.autoObserve(player, keyPath: \.current, options: [.prior, .old, .new]) { w, p, c in
      w.record("\(c.kind) \(describe(c)) reads \(p.current == nil ? "nil" : "a")")
    }
    a = nil
    #expect(watcher.log == ["setting -->nil reads nil"])
    #expect(player.current == nil)
  }

  @Test("Without .new, the deallocation's change carries no value at all")
  func deallocationWithoutNew() {
    var a: Track? = Track("a")
    let player = Player(current: a)
    let watcher = Watcher()
    watcher.autoObserve(player, keyPath: \.current, options: .old) { w, _, c in
      w.record(describe(c))
    }
    a = nil
    #expect(watcher.log == ["-->-"])
  }

  @Test(
    "Each registration made from nonisolated code hears the deallocation once, on the deallocating thread"
  )
  func deallocationOnDeallocatingThread() {
    let handoff = Handoff(Track("a"))
    let player = Player(current: handoff.object)
    let threads = Box<[ObjectIdentifier]>()
    threads.value = []
    let lock = NSLock()
    let watchers = [Watcher(), Watcher()]
    for watcher in watchers {
      watcher.autoObserve(player, keyPath: \.current, options: [.old, .new]) { w, _, c in
        lock.withLock { threads.value!.append(ObjectIdentifier(Thread.current)) }
        w.record(describe(c))
      }
    }
    let deallocating = onAnotherThread { handoff.release() }
    #expect(watchers.map(\.log) == [["-->nil"], ["-->nil"]])
    #expect(lock.withLock { threads.value } == [deallocating, deallocating])
  }

  @Test("A registration with a delivery queue hears the deallocation once, on its queue")
  func deallocationOnDeliveryQueue() async {
    var a: Track? = Track("a")
    let player = Player(current: a)
    let watcher = Watcher()
    let queue = DispatchQueue(label: "autokvo.tests.observed-weak")
    watcher.autoObserve(player, keyPath: \.current, options: [.old, .new], deliveryQueue: queue) {
      w, _, c in
      dispatchPrecondition(condition: .onQueue(queue))
      w.record(describe(c))
    }
    a = nil
    #expect(await eventually { watcher.log.count == 1 })
    queue.sync {}
    #expect(watcher.log == ["-->nil"])
  }

  @Test("A registration made on an actor hears the deallocation once, on that actor")
  func deallocationOnActor() async {
    let handoff = Handoff(Track("a"))
    let player = Player(current: handoff.object)
    let listener = WeakListener()
    await listener.watch(player)
    _ = onAnotherThread { handoff.release() }
    #expect(await eventually { await listener.received.count == 1 })
    #expect(await listener.received == ["-->nil"])
  }

  @MainActor
  @Test("A main-actor registration hears the deallocation once, on the main actor")
  func deallocationOnMainActor() async {
    let handoff = Handoff(Track("a"))
    let player = Player(current: handoff.object)
    let journal = MainJournal()
    let badge = MainBadge("badge", journal: journal)
    badge.autoObserve(player, keyPath: \.current, options: [.old, .new]) { badge, _, change in
      MainActor.preconditionIsolated()
      badge.journal.append(describe(change))
    }
    _ = onAnotherThread { handoff.release() }
    #expect(await eventually { journal.entries.count == 1 })
    #expect(journal.entries == ["-->nil"])
  }

  @Test("Declared as AnyObject?, a KeyValueObservable referent's deallocation is seen")
  func anyObjectDeclaredType() {
    var a: Track? = Track("a")
    let player = Player()
    player.anything = a
    let watcher = Watcher()
    watcher.autoObserve(player, keyPath: \.anything, options: [.old, .new]) { w, _, c in
      w.record("\(c.oldValue.map { $0 == nil ? "nil" : "object" } ?? "-")->\(c.newValue! == nil)")
    }
    #expect(a!.observationRegistry.observerCount == 1)
    a = nil
    #expect(watcher.log == ["-->true"])
  }

  #if !canImport(ObjectiveC)
    @Test(
      "On Linux, the deallocation of a referent that is not KeyValueObservable is not told; a set still notifies"
    )
    func plainReferentOnLinux() {
      var a: PlainTrack? = PlainTrack("a")
      let player = Player()
      let watcher = Watcher()
      watcher.autoObserve(player, keyPath: \.plain, options: [.old, .new]) { w, _, c in
        w.record("\(c.oldValue!?.title ?? "nil")->\(c.newValue!?.title ?? "nil")")
      }
      player.plain = a
      #expect(watcher.log == ["nil->a"])
      a = nil
      #expect(watcher.log == ["nil->a"])
      #expect(player.plain == nil)
      player.plain = nil
      #expect(watcher.log == ["nil->a", "nil->nil"])
    }
  #endif

  @Test("automaticallyNotifiesObservers false: the deallocation is told all the same")
  func deallocationOfHandNotifiedProperty() {
    var a: Track? = Track("a")
    let player = ManualPlayer()
    player.current = a
    let watcher = Watcher()
    watcher.autoObserve(player, keyPath: \.current, options: [.old, .new]) { w, _, c in
      w.record(describe(c))
    }
    a = nil
    #expect(watcher.log == ["-->nil"])
  }

  // MARK: Chains through it

  @Test(
    "A chain through it (\\.current?.title) delivers nil once on the deallocation, with no old value and no prior call"
  )
  func chainDeliversNil() {
    var a: Track? = Track("a")
    let player = Player(current: a)
    let watcher = Watcher()
    watcher.autoObserve(player, keyPath: \.current?.title, options: [.prior, .old, .new]) {
      w, _, c in
      w.record(describe(c))
    }
    a!.title = "a2"
    #expect(watcher.log == ["prior a->-", "a->a2"])
    a = nil
    #expect(watcher.log == ["prior a->-", "a->a2", "-->nil"])
  }

  @Test("A chain through it follows a replacement, and the replaced referent's changes stop")
  func chainFollowsReplacement() {
    let a = Track("a")
    let b = Track("b")
    let player = Player(current: a)
    let watcher = Watcher()
    watcher.autoObserve(player, keyPath: \.current?.title, options: [.old, .new]) { w, _, c in
      w.record(describe(c))
    }
    player.current = b
    a.title = "a2"
    b.title = "b2"
    #expect(watcher.log == ["a->b", "b->b2"])
  }

  @Test("A chain through it delivered on a queue: nil once on the deallocation, with no old value")
  func chainOnQueueDeliversNil() async {
    var a: Track? = Track("a")
    let player = Player(current: a)
    let watcher = Watcher()
    let queue = DispatchQueue(label: "autokvo.tests.observed-weak.chain")
    watcher.autoObserve(
      player, keyPath: \.current?.title, options: [.old, .new], deliveryQueue: queue
    ) { w, _, c in
      w.record(describe(c))
    }
    a = nil
    #expect(await eventually { watcher.log.count == 1 })
    queue.sync {}
    #expect(watcher.log == ["-->nil"])
  }

  @Test("A chain whose weak hop is in the middle (\\.player.current?.title) delivers nil once")
  func chainThroughIntermediate() {
    var a: Track? = Track("a")
    let room = Room()
    room.player.current = a
    let watcher = Watcher()
    watcher.autoObserve(room, keyPath: \.player.current?.title, options: [.prior, .old, .new]) {
      w, _, c in
      w.record(describe(c))
    }
    a = nil
    #expect(watcher.log == ["-->nil"])
  }

  @Test("A chain through it reports no diagnostic")
  func chainReportsNothing() {
    let recorder = DiagnosticsRecorder()
    defer { recorder.restore() }
    let a = Track("a")
    let player = Player(current: a)
    let watcher = Watcher()
    watcher.autoObserve(player, keyPath: \.current?.title) { _, _, _ in }
    #expect(recorder.kinds == [])
    withExtendedLifetime(a) {}
  }

  // MARK: What it attaches, and when it lets go

  @Test("An unobserved property attaches nothing to its referent")
  func unobservedAttachesNothing() {
    let a = Track("a")
    let player = Player(current: a)
    player.current = a
    #expect(a.observationRegistry.observerCount == 0)
  }

  @Test(
    "Replacing the reference detaches from the replaced referent, whose deallocation then delivers nothing"
  )
  func replacementDetaches() {
    var a: Track? = Track("a")
    let b = Track("b")
    let player = Player(current: a)
    let watcher = Watcher()
    watcher.autoObserve(player, keyPath: \.current, options: [.old, .new]) { w, _, c in
      w.record(describe(c))
    }
    #expect(a!.observationRegistry.observerCount == 1)
    player.current = b
    #expect(a!.observationRegistry.observerCount == 0)
    #expect(b.observationRegistry.observerCount == 1)
    a = nil
    #expect(watcher.log == ["a->b"])
    player.current = nil
    #expect(b.observationRegistry.observerCount == 0)
  }

  @Test("Once nobody observes, the next set detaches and attaches nothing")
  func lastObserverGoneDetachesAtNextSet() {
    let a = Track("a")
    let b = Track("b")
    let player = Player(current: a)
    let observation = Watcher().autoObserve(player, keyPath: \.current) { _, _, _ in }
    #expect(a.observationRegistry.observerCount == 1)
    observation.cancel()
    player.current = b
    #expect(a.observationRegistry.observerCount == 0)
    #expect(b.observationRegistry.observerCount == 0)
  }

  @Test(
    "The holder deallocated first detaches: the referent keeps nothing, and its deallocation delivers nothing"
  )
  func holderDeallocatedFirst() {
    let tracker = LifetimeTracker()
    var a: Track? = Track("a", tracker: tracker)
    var player: Player? = Player(current: a, tracker: tracker)
    let watcher = Watcher()
    watcher.autoObserve(player!, keyPath: \.current, options: [.old, .new]) { w, _, c in
      w.record(describe(c))
    }
    #expect(a!.observationRegistry.observerCount == 1)
    player = nil
    #expect(a!.observationRegistry.observerCount == 0)
    #expect(watcher.observationRegistry.observingCount == 0)
    a = nil
    #expect(watcher.log == [])
    #expect(tracker.liveCount == 0)
  }

  @Test("It keeps nothing alive: every referent and holder is freed")
  func keepsNothingAlive() {
    let tracker = LifetimeTracker()
    let watcher = Watcher()
    do {
      let player = Player(tracker: tracker)
      watcher.autoObserve(player, keyPath: \.current?.title) { _, _, _ in }
      for index in 0..<10 {
        let track = Track("\(index)", tracker: tracker)
        player.current = track
        #expect(track.observationRegistry.observerCount == 2)  // its attachment, the chain's link
      }
    }
    #expect(tracker.liveCount == 0)
    #expect(watcher.observationRegistry.observingCount == 0)
  }

  @Test("Two registrations on the property attach once to the referent")
  func attachesOnce() {
    let a = Track("a")
    let player = Player(current: a)
    let watchers = [Watcher(), Watcher()]
    for watcher in watchers {
      watcher.autoObserve(player, keyPath: \.current, options: .new) { _, _, _ in }
    }
    #expect(a.observationRegistry.observerCount == 1)
  }

  // MARK: Concurrency

  @Test(
    "The referent deallocated on one thread while the property is set on another: each change once, the final state exact"
  )
  func deallocationRacingSet() {
    let tracker = LifetimeTracker()
    let rounds = 300
    let player = Player()
    let sets = Counter()
    let zeroings = Counter()
    let watcher = Watcher()
    watcher.autoObserve(player, keyPath: \.current, options: [.old, .new]) { _, _, change in
      if change.newValue! == nil {
        #expect(change.oldValue == nil)
        zeroings.increment()
      } else {
        sets.increment()
      }
    }
    let kept = Track("kept", tracker: tracker)
    for round in 0..<rounds {
      let handoff = Handoff(Track("\(round)", tracker: tracker))
      player.current = handoff.object
      let zeroingsBefore = zeroings.value
      runSimultaneously([
        { player.current = kept },
        { handoff.release() },
      ])
      #expect(player.current === kept)
      #expect(zeroings.value - zeroingsBefore <= 1)
      #expect(sets.value == 2 * (round + 1))
      #expect(kept.observationRegistry.observerCount == 1)
    }
    #expect(tracker.liveCount == 1)
    withExtendedLifetime(kept) {}
  }
}

/// An actor that observes a player's `current` and records, in its own state, what it receives.
actor WeakListener: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  private(set) var received: [String] = []

  func watch(_ player: Player) {
    autoObserve(player, keyPath: \.current, options: [.old, .new]) { [self] _, _, change in
      self.assertIsolated()
      self.received.append(describe(change))
    }
  }
}
