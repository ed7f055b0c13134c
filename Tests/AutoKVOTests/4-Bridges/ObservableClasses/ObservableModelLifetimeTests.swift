#if canImport(Observation) && !canImport(ObjectiveC)
  import AutoKVO
  import Foundation
  import Observation
  import Testing

  @testable import AutoKVO

  @Suite("@Observable models: every registration ends exactly once, whichever side goes first")
  struct ObservableModelLifetimeTests {
    @Test("Observer freed: never called again, the handle is cancelled, the handler released")
    func observerFreed() {
      let tracker = LifetimeTracker()
      let board = Scoreboard()
      var watcher: Watcher? = Watcher()
      let calls = Counter()
      let token = Token(tracker)
      let observation = watcher!.autoObserve(board, keyPath: \.count) { _, _, _ in
        withExtendedLifetime(token) { calls.increment() }
      }
      board.count = 1
      watcher = nil
      #expect(observation.isCancelled)
      #expect(observation.endReason == .observerDeallocated)
      #expect(tracker.liveCount == 1)  // `token`, held here
      board.count = 2
      #expect(calls.value == 1)
      _ = consume token
      #expect(tracker.liveCount == 0)
    }

    @Test("Handler captures are released when the observer goes, while the model lives on")
    func handlerReleasedWithObserver() {
      let tracker = LifetimeTracker()
      let board = Scoreboard()
      var watcher: Watcher? = Watcher()
      do {
        let token = Token(tracker)
        watcher!.autoObserve(board, keyPath: \.count) { _, _, _ in withExtendedLifetime(token) {} }
      }
      #expect(tracker.liveCount == 1)
      watcher = nil
      #expect(tracker.liveCount == 0)
      board.count = 1
    }

    @Test("Model freed: the handle is cancelled by the time its last reference is gone, no crash")
    func modelFreed() {
      let tracker = LifetimeTracker()
      var board: Scoreboard? = Scoreboard(tracker: tracker)
      let watcher = Watcher()
      let handlerTracker = LifetimeTracker()
      let token = Token(handlerTracker)
      let observation = watcher.autoObserve(board!, keyPath: \.count) { _, _, _ in
        withExtendedLifetime(token) {}
      }
      _ = consume token
      #expect(watcher.observationRegistry.observingCount == 1)
      board = nil
      #expect(tracker.liveCount == 0)
      #expect(observation.isCancelled)
      #expect(observation.endReason == .observedDeallocated)
      #expect(handlerTracker.liveCount == 0)
      #expect(watcher.observationRegistry.observingCount == 0)
      observation.cancel()
      #expect(observation.endReason == .observedDeallocated)
    }

    @Test("The model is not kept alive by its observers")
    func modelNotRetained() {
      let tracker = LifetimeTracker()
      let watcher = Watcher()
      do {
        let board = Scoreboard(tracker: tracker)
        for _ in 0..<3 {
          watcher.autoObserve(board, keyPath: \.count, options: [.old, .new, .prior]) { _, _, _ in }
        }
        board.count = 1
      }
      #expect(tracker.liveCount == 0)
      #expect(watcher.observationRegistry.observingCount == 0)
    }

    @Test("cancel() stops delivery at once and releases the handler; later calls are no-ops")
    func cancel() {
      let board = Scoreboard()
      let watcher = Watcher()
      let tracker = LifetimeTracker()
      let token = Token(tracker)
      let observation = watcher.autoObserve(board, keyPath: \.count) { watcher, _, change in
        withExtendedLifetime(token) { watcher.record(modelChangeText(change)) }
      }
      _ = consume token
      board.count = 1
      observation.cancel()
      #expect(observation.isCancelled)
      #expect(tracker.liveCount == 0)
      board.count = 2
      observation.cancel()
      #expect(watcher.log == ["0→1"])
      #expect(observation.endReason == .cancelled)
      #expect(watcher.observationRegistry.observingCount == 0)
    }

    @Test("A model freed while a cancellation in its handler's captures runs: no deadlock")
    func cancelFromDeinitOfCapture() {
      var board: Scoreboard? = Scoreboard()
      let watcher = Watcher()
      let second = watcher.autoObserve(board!, keyPath: \.label) { _, _, _ in }
      let canceller = CancelsOnDeinit(second)
      watcher.autoObserve(board!, keyPath: \.count) { _, _, _ in withExtendedLifetime(canceller) {}
      }
      _ = consume canceller
      board = nil
      #expect(second.isCancelled)
      #expect(watcher.observationRegistry.observingCount == 0)
    }

    @Test(
      "A chain whose root is freed ends at the latest at the next change of what it reads",
      arguments: [ObservationOptions.new, [.old, .new], [.prior, .new]])
    func chainRootFreed(options: ObservationOptions) {
      var board: Scoreboard? = Scoreboard()
      let friend = Scoreboard(count: 1)
      board!.friend = friend
      let watcher = Watcher()
      let observation = watcher.autoObserve(board!, keyPath: \.friend?.count, options: options) {
        watcher, _, change in
        watcher.record(modelChangeText(change))
      }
      board = nil
      friend.count = 2
      #expect(observation.isCancelled)
      #expect(observation.endReason == .observedDeallocated)
      #expect(watcher.log.isEmpty)
      #expect(watcher.observationRegistry.observingCount == 0)
      friend.count = 3
      #expect(watcher.log.isEmpty)
    }

    @Test("A set from another thread calls the handler on that thread")
    func otherThread() {
      let board = Scoreboard()
      let watcher = Watcher()
      let threads = LockedList<ObjectIdentifier>()
      watcher.autoObserve(board, keyPath: \.count) { _, _, _ in
        threads.append(ObjectIdentifier(Thread.current))
      }
      let setter = LockedList<ObjectIdentifier>()
      runSimultaneously([
        {
          setter.append(ObjectIdentifier(Thread.current))
          board.count = 1
        }
      ])
      #expect(threads.all == setter.all)
    }

    @Test("Sets from four threads: every change delivered once, each old value the previous new")
    func concurrentSets() {
      let board = Scoreboard()
      let watcher = Watcher()
      let access = NSLock()
      let seen = LockedList<String>()
      watcher.autoObserve(board, keyPath: \.count) { _, _, change in
        seen.append(modelChangeText(change))
      }
      let perThread = 500
      runSimultaneously(
        (0..<4).map { _ in
          {
            for _ in 0..<perThread { access.withLock { board.count += 1 } }
          }
        })
      #expect(board.count == 4 * perThread)
      #expect(seen.all.count == 4 * perThread)
      #expect(Set(seen.all) == Set((0..<4 * perThread).map { "\($0)→\($0 + 1)" }))
    }

    @Test(
      "Observers made and freed while another thread sets: none is called once its deinit began, and a live one hears every change once"
    )
    func observersRaceSets() {
      let board = Scoreboard()
      let access = NSLock()
      let tracker = LifetimeTracker()
      let dying = LockedList<Bool>()
      let steady = Watcher()
      let heard = LockedList<String>()
      steady.autoObserve(board, keyPath: \.count) { _, _, change in
        heard.append(modelChangeText(change))
      }
      let rounds = 300
      let sets = rounds * 4
      let finished = runSimultaneously(
        [
          {
            for _ in 0..<rounds {
              let watcher = DeinitFlaggedWatcher(tracker: tracker)
              _ = access.withLock {
                watcher.autoObserve(board, keyPath: \.count) { watcher, _, _ in
                  dying.append(watcher.flag.isRaised)
                }
              }
            }
          },
          {
            for _ in 0..<sets { access.withLock { board.count += 1 } }
          },
        ], within: 120)
      #expect(finished)
      #expect(!dying.all.contains(true))
      #expect(tracker.liveCount == 0)
      #expect(heard.all == (0..<sets).map { "\($0)→\($0 + 1)" })
      #expect(steady.observationRegistry.observingCount == 1)
    }

    @Test("cancel() on another thread: no change that begins after it returns is delivered")
    func cancelRacesSets() {
      for _ in 0..<50 {
        let board = Scoreboard()
        let watcher = Watcher()
        let access = NSLock()
        let delivered = Counter()
        let observation = watcher.autoObserve(board, keyPath: \.count) { _, _, _ in
          delivered.increment()
        }
        let atCancel = Box<Int>()
        runSimultaneously([
          {
            for _ in 0..<200 { access.withLock { board.count += 1 } }
          },
          {
            for _ in 0..<50 { access.withLock { _ = board.count } }
            access.withLock {
              observation.cancel()
              atCancel.value = delivered.value
            }
          },
        ])
        #expect(observation.isCancelled)
        #expect(delivered.value == atCancel.value)
        #expect(watcher.observationRegistry.observingCount == 0)
      }
    }

    @Test("Models and observers freed on several threads: every registration ends once")
    func concurrentTeardown() {
      let modelTracker = LifetimeTracker()
      let watcherTracker = LifetimeTracker()
      let pairs = (0..<200).map { _ in
        (Handoff(Scoreboard(tracker: modelTracker)), Handoff(Watcher(tracker: watcherTracker)))
      }
      var observations: [KeyValueObservation] = []
      for (board, watcher) in pairs {
        observations.append(
          watcher.object!.autoObserve(board.object!, keyPath: \.count) { _, _, _ in })
      }
      runSimultaneously([
        { for (board, _) in pairs { board.release() } },
        { for (_, watcher) in pairs { watcher.release() } },
      ])
      #expect(modelTracker.liveCount == 0)
      #expect(watcherTracker.liveCount == 0)
      #expect(observations.allSatisfy { $0.isCancelled })
      #expect(observations.allSatisfy { $0.endReason != nil })
    }
  }

  /// Cancels a registration when released.
  final class CancelsOnDeinit: @unchecked Sendable {  // immutable
    let observation: KeyValueObservation

    init(_ observation: KeyValueObservation) {
      self.observation = observation
    }

    deinit {
      observation.cancel()
    }
  }

  /// A watcher that raises its flag first thing in its deinit.
  final class DeinitFlaggedWatcher: KeyValueObservable, @unchecked Sendable {  // immutable
    let observationRegistry = ObservationRegistry()
    let flag = DeinitFlag()
    private let tracker: LifetimeTracker

    init(tracker: LifetimeTracker) {
      self.tracker = tracker
      tracker.instanceCreated()
    }

    deinit {
      flag.raise()
      tracker.instanceDestroyed()
    }
  }

  /// A list appended to from several threads.
  final class LockedList<Element>: @unchecked Sendable {  // `elements` is guarded by `lock`
    private let lock = NSLock()
    private var elements: [Element] = []

    func append(_ element: Element) {
      lock.withLock { elements.append(element) }
    }

    var all: [Element] { lock.withLock { elements } }
  }
#endif
