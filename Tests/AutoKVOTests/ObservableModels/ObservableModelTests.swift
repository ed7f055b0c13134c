#if canImport(Observation) && !canImport(ObjectiveC)
  import AutoKVO
  import Foundation
  import Observation
  import Testing

  @testable import AutoKVO

  @Suite("@Observable models: every change, old and new values, synchronously")
  struct ObservableModelTests {
    @Test("Three sets, three calls, each with its old and new value, on the setting thread")
    func threeSets() {
      let board = Scoreboard()
      let watcher = ModelWatcher()
      let observation = watcher.autoObserve(board, keyPath: \.count) { watcher, _, change in
        #expect(change.kind == .setting)
        #expect(change.indexes == nil)
        watcher.record(modelChangeText(change))
      }
      board.count = 1
      board.count = 2
      board.count = 3
      #expect(watcher.log == ["0→1", "1→2", "2→3"])
      #expect(!observation.isCancelled)
    }
  }
#endif
