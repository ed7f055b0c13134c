#if canImport(Observation) && !canImport(ObjectiveC)
  import AutoKVO
  import Foundation
  import Observation
  import Testing

  @testable import AutoKVO

  @Suite("@Observable models: handlers may set, register, cancel and release anything")
  struct ObservableModelReentrancyTests {
    @Test(
      "A handler that sets the model again: the others hear the inner change, then the outer with the latest value"
    )
    func nestedSet() {
      let board = Scoreboard()
      let setter = Watcher()
      let other = Watcher()
      setter.autoObserve(board, keyPath: \.count) { setter, board, change in
        setter.record(modelChangeText(change))
        if change.newValue == 1 { board.count = 2 }
      }
      other.autoObserve(board, keyPath: \.count) { other, _, change in
        other.record(modelChangeText(change))
      }
      board.count = 1
      #expect(setter.log.count == 2)
      #expect(Set(setter.log) == ["0→1", "1→2"])
      #expect(other.log.count == 2)
      // Observation calls its trackers in no set order: when the setter is called first, the
      // other hears the inner change first, then the outer one with the value read after it.
      if setter.log == ["0→1", "1→2"] && other.log.first == "1→2" {
        #expect(other.log == ["1→2", "0→2"])
      } else {
        #expect(other.log == ["0→1", "1→2"])
      }
      #expect(board.count == 2)
    }

    @Test("A registration made in a handler does not receive the change in progress")
    func registerInHandler() {
      let board = Scoreboard()
      let watcher = Watcher()
      let late = Watcher()
      watcher.autoObserve(board, keyPath: \.count, options: [.prior, .new]) {
        watcher, board, change in
        guard watcher.log.isEmpty else { return }
        watcher.record(modelChangeText(change))
        for options in [ObservationOptions.new, [.old, .new]] {
          late.autoObserve(board, keyPath: \.count, options: options) { late, _, change in
            late.record("\(options.rawValue) " + modelChangeText(change))
          }
        }
      }
      board.count = 1
      #expect(late.log.isEmpty)
      board.count = 2
      #expect(late.log.sorted() == ["1 -→2", "3 1→2"])
    }

    @Test("A registration made in a didSet handler does not receive the change in progress")
    func registerInDidSetHandler() {
      let board = Scoreboard()
      let watcher = Watcher()
      let late = Watcher()
      watcher.autoObserve(board, keyPath: \.count) { watcher, board, _ in
        guard watcher.log.isEmpty else { return }
        watcher.record("first")
        late.autoObserve(board, keyPath: \.count) { late, _, change in
          late.record(modelChangeText(change))
        }
      }
      board.count = 1
      #expect(late.log.isEmpty)
      board.count = 2
      #expect(late.log == ["1→2"])
    }

    @Test("A handler that cancels another registration: it is not called after the cancel")
    func cancelInHandler() {
      let board = Scoreboard()
      let first = Watcher()
      let second = Watcher()
      let secondObservation = Box<KeyValueObservation>()
      first.autoObserve(board, keyPath: \.count) { first, _, change in
        first.record(modelChangeText(change))
        secondObservation.value?.cancel()
      }
      secondObservation.value = second.autoObserve(board, keyPath: \.count) { second, _, change in
        second.record(modelChangeText(change))
      }
      board.count = 1
      board.count = 2
      #expect(first.log == ["0→1", "1→2"])
      #expect(second.log.count <= 1)
      #expect(secondObservation.value?.isCancelled == true)
    }

    @Test(
      "A handler that cancels its own registration: never called again, its captures released",
      arguments: [ObservationOptions.new, [.old, .new], [.prior, .old, .new]])
    func cancelOwnRegistrationInHandler(options: ObservationOptions) {
      let board = Scoreboard()
      let watcher = Watcher()
      let tracker = LifetimeTracker()
      let own = Box<KeyValueObservation>()
      do {
        let token = Token(tracker)
        own.value = watcher.autoObserve(board, keyPath: \.count, options: options) {
          watcher, _, change in
          withExtendedLifetime(token) { watcher.record(modelChangeText(change)) }
          own.value?.cancel()
        }
      }
      board.count = 1
      #expect(own.value?.isCancelled == true)
      #expect(tracker.liveCount == 0)
      board.count = 2
      #expect(watcher.log.count == 1)
      #expect(watcher.observationRegistry.observingCount == 0)
    }

    @Test("A handler that releases its own observer: no crash, never called again")
    func releaseObserverInHandler() {
      let board = Scoreboard()
      let tracker = LifetimeTracker()
      let holder = Box<Watcher>()
      holder.value = Watcher(tracker: tracker)
      let calls = Counter()
      let observation = holder.value!.autoObserve(board, keyPath: \.count) { _, _, _ in
        calls.increment()
        holder.value = nil
      }
      board.count = 1
      board.count = 2
      #expect(calls.value == 1)
      #expect(tracker.liveCount == 0)
      #expect(observation.isCancelled)
    }

    @Test("A handler that registers and cancels on the same model, many times: no deadlock")
    func churnInHandler() {
      let board = Scoreboard()
      let watcher = Watcher()
      watcher.autoObserve(board, keyPath: \.count) { watcher, board, _ in
        for _ in 0..<10 {
          watcher.autoObserve(board, keyPath: \.label) { _, _, _ in }.cancel()
        }
      }
      for value in 1...20 { board.count = value }
      #expect(watcher.observationRegistry.observingCount == 1)
    }
  }
#endif
