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
  /// - Parameters:
  ///   - keyPath: The property to observe.
  ///   - options: What each change carries; `[.new]` by default. `.initial` makes the current
  ///     value the first element.
  /// - Returns: A single-consumer sequence of changes.
  public func changes<Value: Sendable>(
    for keyPath: KeyPath<Self, Value>,
    options: ObservationOptions = [.new]
  ) -> KeyValueChanges<Value> {
    engineChanges(for: keyPath, options: options)
  }

  /// `changes(for:options:)`, under a name of its own, for the overload that a class which is
  /// also an `@Observable` model resolves to.
  func engineChanges<Value: Sendable>(
    for keyPath: KeyPath<Self, Value>,
    options: ObservationOptions
  ) -> KeyValueChanges<Value> {
    KeyValueChanges.fed { streamObserver, endOfStream in
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
    by register: (StreamObserver<Value>, StreamFinisher<Value>) -> KeyValueObservation
  ) -> KeyValueChanges<Value> {
    var streamContinuation: AsyncStream<KeyValueChange<Value>>.Continuation?
    let stream = AsyncStream(KeyValueChange<Value>.self, bufferingPolicy: .unbounded) {
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
/// ``KeyValueObservable/changes(for:options:)-60fhs``.
///
/// Its registration ends, exactly once, at the first of: the observed object is deallocated (the
/// sequence then finishes after delivering what it buffered), the consuming task is cancelled,
/// the iteration ends (a `break`, or the iterator is dropped), or the sequence is dropped without
/// ever being iterated.
///
/// `KeyValueChanges` is `Sendable` (its elements are, as `Value` must be), so it may be handed
/// to another task; it supports one consumer.
public struct KeyValueChanges<Value: Sendable>: AsyncSequence, Sendable {
  /// Each element is one change, as a handler would receive it.
  public typealias Element = KeyValueChange<Value>

  private let stream: AsyncStream<KeyValueChange<Value>>
  private let owner: EndsRegistration

  init(stream: AsyncStream<KeyValueChange<Value>>, owner: EndsRegistration) {
    self.stream = stream
    self.owner = owner
  }

  /// Creates the iterator; iterate once.
  public func makeAsyncIterator() -> Iterator {
    Iterator(
      base: stream.makeAsyncIterator(), owner: owner,
      iteration: EndsRegistration(owner.observation))
  }

  /// Delivers the changes; dropping it ends the registration.
  ///
  /// Not `Sendable`, as iterators are not: iterate in the task that made it.
  public struct Iterator: AsyncIteratorProtocol {
    private var base: AsyncStream<KeyValueChange<Value>>.Iterator
    // Keeps the registration alive while iterating, even after the sequence itself is dropped
    // (as in `for await change in object.changes(for: ...)`).
    private let owner: EndsRegistration
    // Ends the registration when the iteration ends, even if the sequence is still alive.
    private let iteration: EndsRegistration

    init(
      base: AsyncStream<KeyValueChange<Value>>.Iterator,
      owner: EndsRegistration,
      iteration: EndsRegistration
    ) {
      self.base = base
      self.owner = owner
      self.iteration = iteration
    }

    /// The next change, or `nil` once the observed object is gone or the task is cancelled.
    public mutating func next() async -> KeyValueChange<Value>? {
      await base.next()
    }
  }
}

/// Cancels a registration when released.
final class EndsRegistration: Sendable {
  let observation: KeyValueObservation

  init(_ observation: KeyValueObservation) {
    self.observation = observation
  }

  deinit {
    observation.cancel()
  }
}

/// The observer behind ``KeyValueObservable/changes(for:options:)-60fhs``: yields each change into
/// the stream.
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
