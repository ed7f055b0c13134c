import AutoKVO
import Foundation
import Testing

/// The diagnostics a scoped handler collected, in order.
// @unchecked Sendable: `received` is guarded by `lock`.
private final class Collected: @unchecked Sendable {
  private let lock = NSLock()
  private var received: [String] = []

  var entries: [String] { lock.withLock { received } }

  func record(_ entry: String) {
    lock.withLock { received.append(entry) }
  }

  /// A handler that records each diagnostic's kind behind `tag`.
  func handler(_ tag: String) -> @Sendable (ObservationDiagnostic) -> Void {
    { diagnostic in self.record("\(tag) \(diagnostic.kind)") }
  }
}

/// Raises one `.unmatchedDidChange` diagnostic.
private func raiseUnmatchedDidChange() {
  Person().didChangeValue(for: \.name)
}

@Suite("Diagnostics scoped to a task: withHandler(_:operation:) sync and async")
struct ScopedDiagnosticsTests {
  @Test("Inside the scope the scoped handler receives each diagnostic; the global one none")
  func synchronousScope() {
    let global = DiagnosticsRecorder()
    defer { global.restore() }
    let collected = Collected()
    let result = ObservationDiagnostics.withHandler(collected.handler("scoped")) {
      raiseUnmatchedDidChange()
      raiseUnmatchedDidChange()
      return 7
    }
    #expect(result == 7)
    #expect(collected.entries == ["scoped unmatchedDidChange", "scoped unmatchedDidChange"])
    #expect(global.kinds.isEmpty)
    // After the scope, the global handler receives them again.
    raiseUnmatchedDidChange()
    #expect(global.kinds == [.unmatchedDidChange])
    #expect(collected.entries.count == 2)
  }

  @Test("Scopes nest: the innermost handler receives, then the outer one again")
  func nestedScopes() {
    let collected = Collected()
    ObservationDiagnostics.withHandler(collected.handler("outer")) {
      raiseUnmatchedDidChange()
      ObservationDiagnostics.withHandler(collected.handler("inner")) {
        raiseUnmatchedDidChange()
      }
      raiseUnmatchedDidChange()
    }
    #expect(
      collected.entries == [
        "outer unmatchedDidChange", "inner unmatchedDidChange", "outer unmatchedDidChange",
      ])
  }

  @Test("An error thrown by the operation leaves the scope and propagates")
  func throwingOperation() {
    struct Failure: Error {}
    let collected = Collected()
    #expect(throws: Failure.self) {
      try ObservationDiagnostics.withHandler(collected.handler("scoped")) {
        raiseUnmatchedDidChange()
        throw Failure()
      }
    }
    #expect(collected.entries == ["scoped unmatchedDidChange"])
  }

  @Test("A diagnostic raised on another thread during the scope goes to the global handler")
  func otherThread() {
    let collected = Collected()
    let onThread = Collected()
    let done = DispatchSemaphore(value: 0)
    ObservationDiagnostics.withHandler(collected.handler("scoped")) {
      Thread.detachNewThread {
        // The global handler, seen through a recorder of this thread's diagnostics.
        let global = DiagnosticsRecorder()
        raiseUnmatchedDidChange()
        for kind in global.kinds { onThread.record("global \(kind)") }
        global.restore()
        done.signal()
      }
      done.wait()
    }
    #expect(collected.entries.isEmpty)
    #expect(onThread.entries == ["global unmatchedDidChange"])
  }

  @Test("The asynchronous form covers the operation across suspensions and its child tasks")
  func asynchronousScope() async {
    let collected = Collected()
    let value = await ObservationDiagnostics.withHandler(collected.handler("scoped")) {
      raiseUnmatchedDidChange()
      await Task.yield()
      await withTaskGroup(of: Void.self) { group in
        group.addTask { raiseUnmatchedDidChange() }
      }
      return "done"
    }
    #expect(value == "done")
    #expect(collected.entries == ["scoped unmatchedDidChange", "scoped unmatchedDidChange"])
  }

  @Test("The asynchronous form runs its operation on the caller's actor")
  @MainActor func asynchronousScopeOnTheCallersActor() async {
    let collected = Collected()
    let label = MainLabel()
    await ObservationDiagnostics.withHandler(collected.handler("scoped")) {
      label.text = "set on the main actor"
      await Task.yield()
      raiseUnmatchedDidChange()
    }
    #expect(label.text == "set on the main actor")
    #expect(collected.entries == ["scoped unmatchedDidChange"])
  }
}

/// Main-actor state, which only an operation run on the main actor may set.
@MainActor private final class MainLabel {
  var text = ""
}
