#if canImport(Observation) && !canImport(ObjectiveC)
  import AutoKVO
  import Foundation
  import Observation
  import Testing

  @Suite("@Observable models: changes(for:)")
  struct ObservableModelSequenceTests {
    @Test("Every change in order, none coalesced, and the end when the model is deallocated")
    func everyChangeThenEnd() async {
      var board: Scoreboard? = Scoreboard()
      let changes = board!.changes(for: \.count, options: [.old, .new])
      board!.count = 1
      board!.count = 2
      board!.count = 3
      board = nil
      var received: [String] = []
      for await change in changes {
        received.append(modelChangeText(change))
      }
      #expect(received == ["0→1", "1→2", "2→3"])
    }

    @Test(".initial makes the current value the first element")
    func initial() async {
      let board = Scoreboard(count: 8)
      var iterator = board.changes(for: \.count, options: [.initial, .new]).makeAsyncIterator()
      board.count = 9
      #expect(await iterator.next()?.newValue == 8)
      #expect(await iterator.next()?.newValue == 9)
    }

    @Test("A key path that reads nothing tracked finishes the sequence at once, after a diagnostic")
    func untracked() async {
      let recorder = DiagnosticsRecorder()
      let board = Scoreboard()
      let changes = board.changes(for: \.ignored)
      recorder.restore()
      #expect(recorder.kinds == [.keyPathNeverNotifies])
      var count = 0
      for await _ in changes { count += 1 }
      #expect(count == 0)
    }

  }
#endif
