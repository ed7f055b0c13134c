extension KeyValueObservable {
  /// Every change of `keyPath` of this object, as an asynchronous sequence that finishes when the
  /// object is deallocated.
  ///
  /// ```swift
  /// for await change in person.changes(for: \.name) {
  ///     print("renamed to \(change.newValue!)")
  /// }
  /// // the loop ends when `person` is deallocated
  /// ```
  ///
  /// The registration is made when this method is called, so no change made after it returns is
  /// missed, even before iteration starts; changes are buffered and delivered one by one, in
  /// order, never coalesced. See ``KeyValueChanges`` for when the registration ends.
  ///
  /// Unlike the toolchain's `Observations` (from the Observation module), which coalesces changes
  /// into the latest value per transaction and keeps waiting after its object is gone, this
  /// sequence delivers each change with its old and new values and finishes with the object.
  ///
  /// A consumer slower than the changes can bound what waits for it: with
  /// `bufferingPolicy: .bufferingNewest(1)` it always reads the latest change and never more
  /// than one behind.
  ///
  /// - Parameters:
  ///   - keyPath: The property to observe.
  ///   - options: What each change carries; `[.new]` by default. `.initial` makes the current
  ///     value the first element.
  ///   - bufferingPolicy: What to keep of the changes the consumer has not read yet; every one
  ///     (`.unbounded`) by default.
  /// - Returns: A single-consumer sequence of changes.
  public func changes<Value: Sendable>(
    for keyPath: KeyPath<Self, Value>,
    options: ObservationOptions = [.new],
    bufferingPolicy: KeyValueChanges<Value>.BufferingPolicy = .unbounded
  ) -> KeyValueChanges<Value> {
    KeyValueChanges.fed(bufferingPolicy: bufferingPolicy) { streamObserver, endOfStream in
      // Synchronous: the stream is the hop, and it must see every change in order.
      streamObserver.register(self, keyPath, options, .synchronous) { streamObserver, _, change in
        // The handler owns `endOfStream`: the registration releases its handler when it ends, so
        // the observed object's deallocation finishes the stream.
        _ = endOfStream
        streamObserver.continuation.yield(change)
      }
    }
  }
}

extension KeyValueChanges {
  /// A sequence fed by the registration `register` makes: it registers the given observer, with
  /// a handler that yields each change to it and owns the given finisher.
  static func fed(
    bufferingPolicy: BufferingPolicy,
    by register: (StreamObserver<Value>, StreamFinisher<Value>) -> KeyValueObservation
  ) -> KeyValueChanges<Value> {
    var streamContinuation: AsyncStream<KeyValueChange<Value>>.Continuation?
    let stream = AsyncStream(KeyValueChange<Value>.self, bufferingPolicy: bufferingPolicy) {
      streamContinuation = $0
    }
    // AsyncStream calls its build closure synchronously, before returning.
    let continuation = streamContinuation!
    let streamObserver = StreamObserver(continuation)
    let observation = register(streamObserver, StreamFinisher(continuation))
    continuation.onTermination = { _ in
      // The observer lives as long as the stream needs it.
      withExtendedLifetime(streamObserver) { observation.cancel() }
    }
    return KeyValueChanges(stream: stream, owner: EndsRegistration(observation))
  }
}

/// The changes of one property, in order, as an asynchronous sequence; returned by
/// ``KeyValueObservable/changes(for:options:bufferingPolicy:)-43ndc``.
///
/// Its registration ends, exactly once, at the first of: the observed object is deallocated (the
/// sequence then finishes after delivering what it buffered), the consuming task is cancelled
/// (``Iterator/next()`` then returns `nil` at once, and what was buffered is dropped), the
/// iteration ends (a `break`, or the iterator is dropped), or the sequence is dropped without
/// ever being iterated.
///
/// `KeyValueChanges` is `Sendable` (its elements are, as `Value` must be), so it may be handed
/// to another task. It has one consumer: the changes are made for the first iterator. Making a
/// second iterator is a misuse, reported as ``ObservationDiagnostic/Kind/sequenceIteratedAgain``;
/// that iterator finishes at once, and the first one keeps every change. For two consumers, call
/// `changes(for:)` twice: each sequence has its own registration and receives every change.
public struct KeyValueChanges<Value: Sendable>: AsyncSequence, Sendable {
  /// Each element is one change, as a handler would receive it.
  public typealias Element = KeyValueChange<Value>

  /// What the sequence keeps of the changes its consumer has not read yet: every one
  /// (`.unbounded`), the oldest ones up to a count (`.bufferingOldest(_:)`, later changes are
  /// dropped), or the newest ones up to a count (`.bufferingNewest(_:)`, earlier changes are
  /// dropped); `AsyncStream`'s policies.
  public typealias BufferingPolicy = AsyncStream<KeyValueChange<Value>>.Continuation.BufferingPolicy

  private let stream: AsyncStream<KeyValueChange<Value>>
  private let owner: EndsRegistration

  init(stream: AsyncStream<KeyValueChange<Value>>, owner: EndsRegistration) {
    self.stream = stream
    self.owner = owner
  }

  /// Creates the iterator; iterate once. A second iterator finishes at once, with a diagnostic.
  public func makeAsyncIterator() -> Iterator {
    guard owner.claimIteration() else {
      ObservationDiagnostics.report(
        .sequenceIteratedAgain,
        "a KeyValueChanges sequence of \(Value.self) was iterated a second time; it has one "
          + "consumer, so this iterator finishes at once and the first one keeps every change. "
          + "Call changes(for:) once per consumer.")
      return Iterator(base: nil, owner: owner)
    }
    return Iterator(base: stream.makeAsyncIterator(), owner: owner)
  }

  /// Delivers the changes; dropping it ends the registration.
  ///
  /// Not `Sendable`, as iterators are not: iterate in the task that made it.
  public struct Iterator: AsyncIteratorProtocol {
    /// `nil` once the iteration has finished, or for an iterator that was refused.
    private var base: AsyncStream<KeyValueChange<Value>>.Iterator?
    // Keeps the registration alive while iterating, even after the sequence itself is dropped
    // (as in `for await change in object.changes(for: ...)`).
    private let owner: EndsRegistration
    // Ends the registration when the iteration ends, even if the sequence is still alive.
    private let iteration: EndsRegistration

    init(base: AsyncStream<KeyValueChange<Value>>.Iterator?, owner: EndsRegistration) {
      self.base = base
      self.owner = owner
      self.iteration = EndsRegistration(base == nil ? nil : owner.observation)
    }

    /// The next change, or `nil` once the observed object is gone or the task is cancelled.
    ///
    /// Once the consuming task is cancelled, it returns `nil` — changes still buffered are
    /// dropped, not delivered — and the registration ends.
    public mutating func next() async -> KeyValueChange<Value>? {
      guard !Task.isCancelled, let change = await base?.next(), !Task.isCancelled else {
        return finish()
      }
      return change
    }

    /// Ends the iteration: the registration ends, and what the stream still buffers goes with it.
    private mutating func finish() -> KeyValueChange<Value>? {
      if base != nil {
        base = nil
        iteration.observation?.cancel()
      }
      return nil
    }
  }
}

/// Cancels a registration when released; claims a sequence's one iteration.
// @unchecked Sendable: `isIterated` is behind its own lock, `observation` is immutable.
final class EndsRegistration: @unchecked Sendable {
  let observation: KeyValueObservation?
  private let isIterated = LockedValue(false)

  init(_ observation: KeyValueObservation?) {
    self.observation = observation
  }

  deinit {
    observation?.cancel()
  }

  /// Whether this is the first call: the sequence this registration feeds gets one iterator.
  func claimIteration() -> Bool {
    isIterated.withLock { isIterated in
      defer { isIterated = true }
      return !isIterated
    }
  }
}

/// The observer behind ``KeyValueObservable/changes(for:options:bufferingPolicy:)-43ndc``: yields
/// each change into the stream.
final class StreamObserver<Value: Sendable>: KeyValueObservable, Sendable {
  let observationRegistry = ObservationRegistry()
  let continuation: AsyncStream<KeyValueChange<Value>>.Continuation

  init(_ continuation: AsyncStream<KeyValueChange<Value>>.Continuation) {
    self.continuation = continuation
  }
}

/// Finishes a stream when released: owned by the registration's handler, it goes when the
/// registration ends for any reason.
final class StreamFinisher<Value: Sendable>: Sendable {
  private let continuation: AsyncStream<KeyValueChange<Value>>.Continuation

  init(_ continuation: AsyncStream<KeyValueChange<Value>>.Continuation) {
    self.continuation = continuation
  }

  deinit {
    continuation.finish()
  }
}
