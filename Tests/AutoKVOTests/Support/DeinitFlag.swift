import Foundation

/// A flag an object raises as the first statement of its `deinit`, readable from any thread.
///
/// A handler that receives an object holds it strongly, so that object's `deinit` cannot begin
/// while the handler runs; a handler that sees the flag raised was given an object that had
/// already begun deallocating, which is exactly what AutoKVO promises never happens.
final class DeinitFlag: @unchecked Sendable {  // `raised` is guarded by `lock`
  private let lock = NSLock()
  private var raised = false

  var isRaised: Bool { lock.withLock { raised } }

  func raise() {
    lock.withLock { raised = true }
  }
}

/// A process-wide logical clock. Ticks are totally ordered, so "cancel() returned at tick 5" and
/// "this mutation began at tick 7" prove that the mutation began after cancel() returned.
final class LogicalClock: @unchecked Sendable {  // `now` is guarded by `lock`
  private let lock = NSLock()
  private var now = 0

  func tick() -> Int {
    lock.withLock {
      now += 1
      return now
    }
  }
}
