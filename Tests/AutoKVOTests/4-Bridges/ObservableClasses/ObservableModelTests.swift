#if canImport(Observation) && !canImport(ObjectiveC)
  import AutoKVO
  import Foundation
  import Observation
  import Testing

  @testable import AutoKVO

  @Suite("@Observable models: every change, with the values asked for")
  struct ObservableModelTests {
    @Test("Three sets, three calls, each with its old and new value, on the setting thread")
    func threeSets() {
      let board = Scoreboard()
      let watcher = Watcher()
      let thread = Thread.current
      let observation = watcher.autoObserve(board, keyPath: \.count) { watcher, model, change in
        #expect(model === board)
        #expect(change.kind == .setting)
        #expect(change.indexes == nil)
        #expect(!change.isPrior)
        #expect(Thread.current == thread)
        watcher.record(modelChangeText(change))
      }
      board.count = 1
      board.count = 2
      board.count = 3
      #expect(watcher.log == ["0→1", "1→2", "2→3"])
      #expect(!observation.isCancelled)
      #expect(watcher.observationRegistry.observingCount == 1)
    }

    @Test("Each option delivers what it names, and nothing else")
    func options() {
      let board = Scoreboard(count: 5)
      let watcher = Watcher()
      watcher.autoObserve(board, keyPath: \.count, options: .new) { watcher, _, change in
        watcher.record("new " + modelChangeText(change))
      }
      watcher.autoObserve(board, keyPath: \.count, options: .old) { watcher, _, change in
        watcher.record("old " + modelChangeText(change))
      }
      watcher.autoObserve(board, keyPath: \.count, options: []) { watcher, _, change in
        watcher.record("none " + modelChangeText(change))
      }
      board.count = 6
      #expect(watcher.log.sorted() == ["new -→6", "none -→-", "old 5→-"])
    }

    @Test(".initial calls the handler once before autoObserve returns, with the current value")
    func initial() {
      let board = Scoreboard(count: 4)
      let watcher = Watcher()
      watcher.autoObserve(board, keyPath: \.count, options: [.initial, .old, .new]) {
        watcher, _, change in
        watcher.record(modelChangeText(change))
      }
      #expect(watcher.log == ["-→4"])
      board.count = 5
      #expect(watcher.log == ["-→4", "4→5"])
    }

    @Test(".prior calls before the store, with the old value, then the change after it")
    func prior() {
      let board = Scoreboard(count: 1)
      let watcher = Watcher()
      watcher.autoObserve(board, keyPath: \.count, options: [.prior, .old, .new]) {
        watcher, board, change in
        watcher.record("\(modelChangeText(change)) stored \(board.count)")
      }
      board.count = 2
      #expect(watcher.log == ["prior 1 stored 1", "1→2 stored 2"])
    }

    @Test(
      "In-place mutations are delivered, even when nothing changed; so is a hand-written withMutation"
    )
    func inPlaceMutations() {
      let board = Scoreboard(count: 3)
      let dial = Dial()
      let watcher = Watcher()
      watcher.autoObserve(board, keyPath: \.count) { watcher, _, change in
        watcher.record("count " + modelChangeText(change))
      }
      watcher.autoObserve(board, keyPath: \.items) { watcher, _, change in
        watcher.record("items " + modelChangeText(change))
      }
      watcher.autoObserve(dial, keyPath: \.target) { watcher, _, change in
        watcher.record("target " + modelChangeText(change))
      }
      board.count += 2
      board.count += 0
      board.items.append(1)
      dial.target = 21
      dial.touch()
      #expect(
        watcher.log == [
          "count 3→5", "count 5→5", "items []→[1]", "target 20→21", "target 21→21",
        ])
    }

    @Test("A plain set of an equal value is not delivered: the @Observable macro skips it")
    func equalValueSkipped() {
      let board = Scoreboard(count: 3)
      let watcher = Watcher()
      watcher.autoObserve(board, keyPath: \.count) { watcher, _, change in
        watcher.record(modelChangeText(change))
      }
      board.count = 3
      board.count = 4
      board.count = 4
      #expect(watcher.log == ["3→4"])
    }

    @Test("A computed property is delivered through the tracked properties it reads")
    func computedProperty() {
      let board = Scoreboard()
      let watcher = Watcher()
      watcher.autoObserve(board, keyPath: \.summary) { watcher, _, change in
        watcher.record(modelChangeText(change))
      }
      board.count = 1
      board.label = "one"
      board.ignored = 9
      #expect(watcher.log == ["zero:0→zero:1", "zero:1→one:1"])
    }

    @Test("A chain through another model follows a replaced intermediate; the old one is left")
    func chain() {
      let board = Scoreboard()
      let first = Scoreboard(count: 10)
      let second = Scoreboard(count: 20)
      board.friend = first
      let watcher = Watcher()
      watcher.autoObserve(board, keyPath: \.friend?.count) { watcher, _, change in
        watcher.record(modelChangeText(change))
      }
      first.count = 11
      board.friend = second
      first.count = 12
      second.count = 21
      board.friend = nil
      second.count = 22
      #expect(
        watcher.log == [
          "Optional(10)→Optional(11)", "Optional(11)→Optional(20)", "Optional(20)→Optional(21)",
          "Optional(21)→nil",
        ])
    }

    @Test("A subclass key path to a property declared in an @Observable base class is delivered")
    func subclassKeyPath() {
      let crane = Crane()
      let watcher = Watcher()
      watcher.autoObserve(crane, keyPath: \Crane.speed) { watcher, _, change in
        watcher.record("speed " + modelChangeText(change))
      }
      crane.speed = 5
      crane.load = "steel"
      crane.speed = 6
      #expect(watcher.log == ["speed 0→5", "speed 5→6"])
    }

    @Test(
      "A key path that reads nothing Observation tracks is reported and returns a cancelled handle")
    func untrackedKeyPath() {
      let recorder = DiagnosticsRecorder()
      defer { recorder.restore() }
      let board = Scoreboard()
      let watcher = Watcher()
      let ignored = watcher.autoObserve(board, keyPath: \.ignored) { watcher, _, _ in
        watcher.record("ignored")
      }
      let constant = watcher.autoObserve(board, keyPath: \.constant) { watcher, _, _ in
        watcher.record("constant")
      }
      // A plain stored property of a subclass of an @Observable class: the macro does not reach it.
      let crane = Crane()
      let load = watcher.autoObserve(crane, keyPath: \.load) { watcher, _, _ in
        watcher.record("load")
      }
      #expect(ignored.isCancelled)
      #expect(constant.isCancelled)
      #expect(load.isCancelled)
      #expect(
        recorder.kinds == [.keyPathNeverNotifies, .keyPathNeverNotifies, .keyPathNeverNotifies])
      #expect(recorder.messages.count == 3)
      #expect(recorder.messages.count == 3 && recorder.messages[0].contains("Scoreboard.ignored"))
      #expect(recorder.messages.count == 3 && recorder.messages[1].contains("Scoreboard.constant"))
      #expect(recorder.messages.count == 3 && recorder.messages[2].contains("Crane.load"))
      #expect(recorder.messages.allSatisfy { $0.contains("ObservableModelTests.swift") })
      board.ignored = 1
      crane.load = "sand"
      #expect(watcher.log.isEmpty)
      #expect(watcher.observationRegistry.observingCount == 0)
    }

    @Test("deliveryQueue: the handler runs on the queue, in order, with each change's values")
    func deliveryQueue() async {
      let board = Scoreboard()
      let watcher = Watcher()
      let queue = DispatchQueue(label: "model delivery")
      let key = DispatchSpecificKey<Bool>()
      queue.setSpecific(key: key, value: true)
      watcher.autoObserve(board, keyPath: \.count, deliveryQueue: queue) { watcher, _, change in
        watcher.record(
          modelChangeText(change) + (DispatchQueue.getSpecific(key: key) == true ? "" : " off"))
      }
      board.count = 1
      board.count = 2
      #expect(await eventually { watcher.log.count == 2 })
      #expect(watcher.log == ["0→1", "1→2"])
    }

    @Test("From the main actor, the handler runs on the main actor")
    @MainActor
    func mainActor() async {
      let board = Scoreboard()
      let watcher = Watcher()
      watcher.autoObserve(board, keyPath: \.count, options: .new) { watcher, _, change in
        MainActor.assertIsolated()
        watcher.record(modelChangeText(change))
      }
      board.count = 7
      #expect(await eventually { watcher.log == ["-→7"] })
    }

    @Test("A main-actor model observed from the main actor: synchronous on main, in order")
    @MainActor
    func mainActorModel() {
      let screen = MainScreen()
      let label = MainScreenLabel()
      label.autoObserve(screen, keyPath: \.title, options: [.initial, .new]) { label, _, change in
        label.texts.append(change.newValue ?? "-")
      }
      screen.title = "Settings"
      screen.title = "About"
      #expect(label.texts == ["Home", "Settings", "About"])
    }

    @Test("A registration made inside another tracking's closure is tracked by it too")
    func registrationInsideAnotherTracking() {
      let board = Scoreboard()
      let watcher = Watcher()
      let fired = Counter()
      _ = withObservationTracking {
        watcher.autoObserve(board, keyPath: \.count) { watcher, _, change in
          watcher.record(modelChangeText(change))
        }
      } onChange: {
        fired.increment()
      }
      #expect(fired.value == 0)
      board.count = 1
      // Documented in the article's table: register outside a tracking scope.
      #expect(fired.value == 1)
      #expect(watcher.log == ["0→1"])
    }

    @Test("A class that is both KeyValueObservable and Observable keeps AutoKVO's own semantics")
    func bothConformances() async {
      let contact = Contact()
      let watcher = Watcher()
      var stream = contact.changes(for: \.firstName).makeAsyncIterator()
      watcher.autoObserve(contact, keyPath: \.firstName) { watcher, _, change in
        watcher.record(modelChangeText(change))
      }
      // The engine reports a set of an equal value, which an @Observable model would not.
      contact.firstName = "Ann"
      contact.firstName = "Bo"
      #expect(watcher.log == ["Ann→Ann", "Ann→Bo"])
      #expect(await stream.next()?.newValue == "Ann")
      #expect(await stream.next()?.newValue == "Bo")
    }
  }
#endif
