import Foundation

/// A thread-safe call counter.
final class Counter: @unchecked Sendable {  // `count` is guarded by `lock`
  private let lock = NSLock()
  private var count = 0
  var value: Int { lock.withLock { count } }
  func increment() { lock.withLock { count += 1 } }
}

/// A mutable reference slot for tests that need to reach something created later.
final class Box<Value>: @unchecked Sendable {  // single-threaded test use
  var value: Value?
}
