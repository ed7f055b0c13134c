#if canImport(Observation) && !canImport(ObjectiveC)
  import AutoKVO
  import Dispatch
  import Foundation
  import Observation
  import Testing

  @Suite("@Observable models: where handlers run, and sequences that stop when cancelled")
  struct ObservableModelIsolationTests {
    @Test(
      "Ten main-actor observers of a main-actor model, mixed with main-queue ones, each run exactly once during the set"
    )
    @MainActor
    func everyMainActorObserverDuringTheSet() {
      let screen = MainScreen()
      let labels = (0..<10).map { _ in MainScreenLabel() }
      for (index, label) in labels.enumerated() {
        if index.isMultiple(of: 2) {
          label.autoObserve(screen, keyPath: \.title, options: .new) { label, _, change in
            MainActor.preconditionIsolated()
            label.texts.append(change.newValue!)
          }
        } else {
          label.autoObserve(screen, keyPath: \.title, options: .new, deliveryQueue: .main) {
            label, _, change in
            dispatchPrecondition(condition: .onQueue(.main))
            MainActor.assumeIsolated { label.texts.append(change.newValue!) }
          }
        }
      }
      screen.title = "Settings"
      #expect(labels.map(\.texts) == Array(repeating: ["Settings"], count: 10))
    }

    @Test("Cancelling the task that consumes a model's changes makes next() return nil at once")
    func cancellationDropsBuffered() async {
      let board = Scoreboard()
      let changes = board.changes(for: \.count)
      for count in 1...1000 { board.count = count }
      let task = Task {
        var received: [Int] = []
        for await change in changes {
          received.append(change.newValue!)
          if received.count == 1 { withUnsafeCurrentTask { $0?.cancel() } }
        }
        return received
      }
      #expect(await task.value == [1])
      board.count = 1001
    }

    @Test("A model's changes with bufferingNewest(1) keep only the latest change")
    func bufferingNewest() async {
      var board: Scoreboard? = Scoreboard()
      let changes = board!.changes(
        for: \.count, options: [.old, .new], bufferingPolicy: .bufferingNewest(1))
      for count in 1...50 { board!.count = count }
      board = nil
      var received: [String] = []
      for await change in changes { received.append(modelChangeText(change)) }
      #expect(received == ["49→50"])
    }
  }
#endif
