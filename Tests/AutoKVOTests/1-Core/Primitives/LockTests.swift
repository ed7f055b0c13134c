import Foundation
import Testing

@testable import AutoKVO

/// State that the tests read and write only while holding `lock`.
private final class Guarded: @unchecked Sendable {  // every access holds `lock`
  let lock = Lock()
  var count = 0
  var scratch = 0
  var holderReleased = false
  var waiterSawRelease: Bool?

  deinit {
    lock.destroy()
  }
}

@Suite("Lock: mutual exclusion, and a thread that waits is woken")
struct LockTests {
  @Test(
    "Four threads each add 25,000 under the lock, with a read and a write apart: the total is exactly 100,000"
  )
  func mutualExclusionUnderContention() {
    let guarded = Guarded()
    let perThread = 25_000
    let body: @Sendable () -> Void = {
      for _ in 0..<perThread {
        guarded.lock.withLock {
          // A read and a write apart, so that two threads inside at once would lose an update.
          let read = guarded.count
          for step in 0..<16 { guarded.scratch &+= step }
          guarded.count = read + 1
        }
      }
    }
    let finished = runSimultaneously(Array(repeating: body, count: 4), within: 60)
    #expect(finished, "the threads did not finish within 60 s (deadlock or lost wake-up)")
    #expect(guarded.lock.withLock { guarded.count } == 4 * perThread)
  }

  @Test(
    "A thread that waits while the holder sleeps takes the lock only after the release, and is woken"
  )
  func waiterIsWokenAfterRelease() {
    let guarded = Guarded()
    let held = DispatchSemaphore(value: 0)
    let holder: @Sendable () -> Void = {
      guarded.lock.withLock {
        held.signal()
        // Long enough that the waiter stops spinning and sleeps on the lock.
        Thread.sleep(forTimeInterval: 0.2)
        guarded.holderReleased = true
      }
    }
    let waiter: @Sendable () -> Void = {
      held.wait()
      guarded.lock.withLock {
        guarded.waiterSawRelease = guarded.holderReleased
      }
    }
    let finished = runSimultaneously([holder, waiter], within: 30)
    #expect(finished, "the waiting thread was not woken within 30 s")
    #expect(guarded.lock.withLock { guarded.waiterSawRelease } == true)
  }
}
