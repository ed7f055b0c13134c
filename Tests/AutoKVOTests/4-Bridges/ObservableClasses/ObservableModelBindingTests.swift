#if canImport(Observation) && !canImport(ObjectiveC)
  @testable import AutoKVO
  import Observation
  import Testing

  /// A target whose text is observable, so that a write it does not get is seen not to happen.
  // @unchecked Sendable: single-threaded tests.
  private final class Display: KeyValueObservable, @unchecked Sendable {
    let observationRegistry = ObservationRegistry()
    @Observed var text = ""
    var optionalText: String?
    var count = 0
  }

  /// Which listed key path a call reports, by name.
  private func name(_ keyPath: PartialKeyPath<Scoreboard>) -> String {
    switch keyPath {
    case \Scoreboard.count: "count"
    case \Scoreboard.label: "label"
    case \Scoreboard.summary: "summary"
    default: "other"
    }
  }

  private func entry(_ keyPath: PartialKeyPath<Scoreboard>, _ change: AnyKeyValueChange) -> String {
    let old = change.oldValue.map { "\($0)" } ?? "-"
    let new = change.newValue.map { "\($0)" } ?? "-"
    return "\(name(keyPath)) \(old)->\(new)"
  }

  @Suite("Several key paths and bindings from @Observable models (Linux)")
  struct ObservableModelBindingTests {
    @Test("One handler hears each listed key path of a model, with that key path and its values")
    func severalKeyPaths() {
      let board = Scoreboard()
      let watcher = Watcher()
      let handle = watcher.autoObserve(board, keyPaths: [\.count, \.label, \.count]) {
        watcher, _, keyPath, change in watcher.record(entry(keyPath, change))
      }
      board.count = 1
      board.label = "one"
      board.ignored = 5
      #expect(watcher.log == ["count 0->1", "label zero->one"])
      // The duplicate is observed once: one registration per distinct key path.
      #expect(watcher.activeObservations.count == 2)
      handle.cancel()
      board.count = 2
      #expect(watcher.log.count == 2)
      #expect(watcher.activeObservations.isEmpty)
      withExtendedLifetime(board) {}
    }

    @Test(".initial calls each key path once, in the order of keyPaths, with its current value")
    func initialCalls() {
      let board = Scoreboard(count: 3)
      let watcher = Watcher()
      let handle = watcher.autoObserve(
        board, keyPaths: [\.label, \.count], options: [.initial, .new]
      ) {
        watcher, _, keyPath, change in watcher.record(entry(keyPath, change))
      }
      #expect(watcher.log == ["label -->zero", "count -->3"])
      withExtendedLifetime((board, handle)) {}
    }

    @Test("stopObserving(model, keyPath:) ends that key path only; the handle ends with the last")
    func stopOneKeyPath() {
      let board = Scoreboard()
      let watcher = Watcher()
      let handle = watcher.autoObserve(board, keyPaths: [\.count, \.label], options: .new) {
        watcher, _, keyPath, change in watcher.record(entry(keyPath, change))
      }
      #expect(watcher.stopObserving(board, keyPath: \.count) == 1)
      board.count = 1
      board.label = "one"
      #expect(watcher.log == ["label -->one"])
      #expect(!handle.isCancelled)
      #expect(watcher.stopObserving(board, keyPath: \.label) == 1)
      #expect(handle.isCancelled)
      #expect(watcher.activeObservations.isEmpty)
    }

    @Test("The model's deallocation ends every key path, once, and frees the handler")
    func modelDeallocated() {
      let tracker = LifetimeTracker()
      let watcher = Watcher()
      var board: Scoreboard? = Scoreboard()
      let captured = Watcher(tracker: tracker)
      let handle = watcher.autoObserve(board!, keyPaths: [\.count, \.summary]) { _, _, _, _ in
        withExtendedLifetime(captured) {}
      }
      #expect(watcher.activeObservations.count == 2)
      board = nil
      #expect(handle.isCancelled)
      #expect(watcher.activeObservations.isEmpty)
      _ = consume captured
      #expect(tracker.liveCount == 0)
    }

    @Test("The observer's deallocation ends every key path, once; the model goes on unobserved")
    func observerDeallocated() {
      let board = Scoreboard()
      let tracker = LifetimeTracker()
      var watcher: Watcher? = Watcher(tracker: tracker)
      let sink = Watcher()
      let handle = watcher!.autoObserve(board, keyPaths: [\.count, \.label]) {
        _, _, keyPath, change in sink.record(entry(keyPath, change))
      }
      board.count = 1
      #expect(sink.log == ["count 0->1"])
      watcher = nil
      #expect(tracker.liveCount == 0)
      #expect(handle.isCancelled)
      board.count = 2
      board.label = "two"
      #expect(sink.log == ["count 0->1"])
    }

    @Test("autoBind from a model ends when the target is deallocated first; the model goes on")
    func bindTargetDeallocated() {
      let board = Scoreboard()
      var display: Display? = Display()
      let handle = display!.autoBind(\.text, from: board, keyPath: \.label)
      #expect(display?.text == "zero")
      display = nil
      #expect(handle.isCancelled)
      #expect(handle.endReason == .observerDeallocated)
      board.label = "one"
      #expect(board.label == "one")
    }

    @Test("An empty list on a model is refused with .emptyKeyPaths, naming the types and the site")
    func emptyKeyPaths() {
      let recorder = DiagnosticsRecorder()
      defer { recorder.restore() }
      let board = Scoreboard()
      let watcher = Watcher()
      let line = #line + 1
      let handle = watcher.autoObserve(board, keyPaths: []) { _, _, _, _ in }
      #expect(handle.isCancelled)
      #expect(recorder.kinds == [.emptyKeyPaths])
      #expect(recorder.messages.first?.contains("Scoreboard") == true)
      #expect(recorder.messages.first?.contains("Watcher") == true)
      #expect(
        recorder.messages.first?.contains("ObservableModelBindingTests.swift:\(line)") == true)
      #expect(watcher.activeObservations.isEmpty)
    }

    @Test("autoBind from a model writes its value now and after each change, equal values not")
    func bindFromModel() {
      let board = Scoreboard()
      board.label = "one"
      let display = Display()
      let heard = Watcher()
      heard.autoObserve(display, keyPath: \.text, options: .new) { heard, _, change in
        heard.record(change.newValue!)
      }
      let handle = display.autoBind(\.text, from: board, keyPath: \.label)
      #expect(display.text == "one")
      board.label = "two"
      #expect(display.text == "two")
      #expect(heard.log == ["one", "two"])
      handle.cancel()
      board.label = "three"
      #expect(display.text == "two")
      // A change whose transformed value equals the target's is not written: the display's
      // observer hears the first "small" and "big" only.
      display.autoBind(\.text, from: board, keyPath: \.count) { $0 > 5 ? "big" : "small" }
      board.count = 1
      board.count = 7
      board.count = 8
      #expect(heard.log == ["one", "two", "small", "big"])
      display.autoBind(\.count, from: board, keyPath: \.count)
      board.count = 4
      #expect(display.count == 4)
      withExtendedLifetime(board) {}
    }

    @Test("autoBind from a model transforms, fills an optional target, and ends with the model")
    func bindTransformedAndOptional() {
      var board: Scoreboard? = Scoreboard(count: 2)
      let display = Display()
      let transformed = display.autoBind(\.text, from: board!, keyPath: \.count) { "\($0) pts" }
      let optional = display.autoBind(\.optionalText, from: board!, keyPath: \.label)
      #expect(display.text == "2 pts")
      #expect(display.optionalText == "zero")
      board!.count = 3
      board!.label = "three"
      #expect(display.text == "3 pts")
      #expect(display.optionalText == "three")
      board = nil
      // The model went first: both bindings ended, and the target keeps the last values.
      #expect(transformed.isCancelled)
      #expect(optional.isCancelled)
      #expect(display.text == "3 pts")
      #expect(display.optionalText == "three")
      #expect(display.activeObservations.isEmpty)
    }

    @Test("A class that is both KeyValueObservable and Observable keeps the engine's forms")
    func objectThatIsBoth() {
      let contact = Contact()
      let watcher = Watcher()
      watcher.autoObserve(contact, keyPaths: [\.firstName], options: .new) {
        watcher, _, _, change in watcher.record("\(change.newValue!)")
      }
      // The engine reports a set of an equal value, which an @Observable model's registrar
      // does not: the engine's form was chosen.
      contact.firstName = "Ann"
      #expect(watcher.log == ["Ann"])
    }
  }
#endif
