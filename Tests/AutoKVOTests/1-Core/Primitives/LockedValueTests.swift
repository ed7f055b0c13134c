import Testing

@testable import AutoKVO

/// Runs `action` when deallocated.
private final class DeinitAction: @unchecked Sendable {  // immutable
  private let action: () -> Void

  init(_ action: @escaping () -> Void) {
    self.action = action
  }

  deinit {
    action()
  }
}

@Suite("LockedValue: a replaced value is released after the lock")
struct LockedValueTests {
  @Test(
    "Replacing a value whose last reference runs a deinit that reads the same LockedValue returns, with the deinit run once"
  )
  func replacedValueReleasedOutsideTheLock() {
    let stored = LockedValue<AnyObject?>(nil)
    let reads = Counter()
    // The deinit reads `stored`: had the old value been released under its lock (as an
    // assignment inside `withLock` does), the non-recursive lock would deadlock here.
    _ = stored.replace(
      with: DeinitAction { [stored] in
        _ = stored.withLock { $0 }
        reads.increment()
      })
    let finished = runSimultaneously([{ _ = stored.replace(with: nil) }], within: 10)
    #expect(finished, "replace(with:) did not return within 10 s (deadlock)")
    #expect(reads.value == 1)
    #expect(stored.withLock { $0 } == nil)
  }
}
