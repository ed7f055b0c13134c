import Dispatch
import Foundation

/// Releases all of `parties` threads at once, so that two operations race as closely as the
/// machine allows.
final class ThreadBarrier: @unchecked Sendable {  // `arrived` is guarded by `condition`
  private let condition = NSCondition()
  private let parties: Int
  private var arrived = 0

  init(parties: Int) {
    self.parties = parties
  }

  func arriveAndWait() {
    condition.lock()
    arrived += 1
    if arrived == parties {
      condition.broadcast()
    } else {
      while arrived < parties { condition.wait() }
    }
    condition.unlock()
  }
}

/// Runs each closure on its own thread, all released together by a barrier, and returns when
/// every one has finished.
func runSimultaneously(_ bodies: [@Sendable () -> Void]) {
  let finished = runSimultaneously(bodies, within: .distantFuture)
  precondition(finished, "an unbounded wait cannot time out")
}

/// Runs each closure on its own thread, all released together by a barrier, and returns whether
/// every one finished within `seconds`. A deadlock then fails the test instead of hanging the run
/// (the stuck threads are left behind).
func runSimultaneously(_ bodies: [@Sendable () -> Void], within seconds: Double) -> Bool {
  runSimultaneously(bodies, within: DispatchTime.now() + seconds)
}

private func runSimultaneously(
  _ bodies: [@Sendable () -> Void],
  within deadline: DispatchTime
) -> Bool {
  let barrier = ThreadBarrier(parties: bodies.count)
  let group = DispatchGroup()
  for body in bodies {
    let thread = Thread {
      barrier.arriveAndWait()
      body()
      group.leave()
    }
    group.enter()
    thread.start()
  }
  return group.wait(timeout: deadline) == .success
}
