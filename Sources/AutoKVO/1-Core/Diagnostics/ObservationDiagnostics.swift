import Foundation

/// A report of a misuse AutoKVO recovered from, such as a `didChangeValue(for:)` with no
/// matching `willChangeValue(for:)`.
///
/// AutoKVO hands each one to ``ObservationDiagnostics/handler``. `ObservationDiagnostic` is
/// `Sendable`: it holds only its kind and its message.
public struct ObservationDiagnostic: Sendable, CustomStringConvertible {
  /// The kinds of misuse AutoKVO reports; `Sendable` and `Hashable`.
  ///
  /// A kind is a value with static members, not a closed enum, so that a later version can add
  /// kinds without breaking a client's `switch`: compare with `==`, or match with
  /// `case .sharedRegistry:` and end the `switch` with a `default:`.
  public struct Kind: Sendable, Hashable, CustomStringConvertible {
    /// The kind's name, as its static member spells it: `"sharedRegistry"`.
    public let name: String

    private init(_ name: String) { self.name = name }

    /// The kind's name.
    public var description: String { name }

    /// `didChangeValue(for:)` was called with no matching `willChangeValue(for:)` on the thread.
    public static let unmatchedDidChange = Kind("unmatchedDidChange")
    /// A registration's key path reads no `@Observed` property and declares no dependency, so it
    /// can only notify through manual `willChangeValue(for:)` / `didChangeValue(for:)`.
    public static let keyPathNeverNotifies = Kind("keyPathNeverNotifies")
    /// A key path the chosen observation route cannot observe (on Apple platforms, for
    /// Foundation's KVO: a key path that is not `@objc`, a collection operator such as `@count`,
    /// or a path through a collection). Nothing was registered; the returned handle is already
    /// cancelled.
    public static let unsupportedKeyPath = Kind("unsupportedKeyPath")
    /// A collection change named indexes outside the collection. A proxy mutation is refused:
    /// nothing changes and nothing is delivered. A manual notification is delivered as a
    /// `.setting` change of the whole collection instead. The message says which happened.
    public static let indexesOutOfRange = Kind("indexesOutOfRange")
    /// A class's `observationRegistry` returned a different ``ObservationRegistry`` on two reads:
    /// it is computed, so every registration would be lost with the registry it made. It must be
    /// a stored constant. Nothing was registered; the returned handle is already cancelled.
    public static let unstableRegistry = Kind("unstableRegistry")
    /// A ``KeyValueChanges`` sequence was iterated a second time. It has one consumer: the new
    /// iterator finishes at once, and the first one keeps receiving every change.
    public static let sequenceIteratedAgain = Kind("sequenceIteratedAgain")
    /// `autoObserve` was called while the observer or the observed object was being deallocated
    /// (from its `deinit`). Nothing was registered; the returned handle is already cancelled.
    public static let registrationWhileDeallocating = Kind("registrationWhileDeallocating")
    /// An ``ObservationRegistry`` is stored by two objects. It serves the first one that used it;
    /// a registration on or by the other is refused (its handle is already cancelled), and that
    /// object's manual and collection notifications reach no one.
    public static let sharedRegistry = Kind("sharedRegistry")
    /// A key-path chain reaches an object through a hop that is not declared: a stored property
    /// that is neither `@Observed` nor `@ObservedWeak` nor notified by hand (`\.current.title`
    /// where `current` is a plain `var`), a member of a plain struct, an element of a plain
    /// collection. The registration is made; replacing the hop is not seen, and when the object
    /// the registration reached dies, its link ends without reading the path again. Mark the hop
    /// `@Observed`, or `@ObservedWeak` for a `weak` reference.
    public static let unobservedIntermediate = Kind("unobservedIntermediate")
    /// `autoObserve(_:keyPaths:)` was given no key path. Nothing was registered; the returned
    /// handle is already cancelled.
    public static let emptyKeyPaths = Kind("emptyKeyPaths")
    /// A binding (`autoBind`, `autoSync`) was asked to bind a property of an object to the same
    /// property of the same object. Nothing was registered; the returned handle is already
    /// cancelled.
    public static let bindingToItself = Kind("bindingToItself")
  }

  /// What went wrong.
  public let kind: Kind

  /// A sentence naming the type and key path involved and what AutoKVO did instead.
  public let message: String

  /// The message, prefixed with `AutoKVO:`, as the default handler prints it.
  public var description: String { "AutoKVO: \(message)" }
}

/// Where AutoKVO sends ``ObservationDiagnostic``s.
///
/// By default each diagnostic is printed to standard error. Install your own handler to log
/// them elsewhere, to collect them in tests, or to stop at them in a debugger:
///
/// ```swift
/// ObservationDiagnostics.handler = { diagnostic in logger.warning("\(diagnostic)") }
/// ```
///
/// To receive the diagnostics of one piece of work only, such as a test that runs in parallel
/// with others, scope a handler to it with ``withHandler(_:operation:)-(_,()->Result)``: the
/// global ``handler`` stays as it is, and receives everything else.
///
/// A namespace with no instances. Its ``handler`` is `@Sendable` and may be read and replaced
/// from any thread.
public enum ObservationDiagnostics {
  private static let storage = LockedValue<@Sendable (ObservationDiagnostic) -> Void>(
    ObservationDiagnostics.printToStandardError
  )

  /// The function that receives every diagnostic that no scoped handler receives (see
  /// ``withHandler(_:operation:)-(_,()->Result)``); called on the thread that caused it, with no
  /// AutoKVO lock held.
  public static var handler: @Sendable (ObservationDiagnostic) -> Void {
    get { storage.withLock { $0 } }
    set {
      // The replaced handler is released here, after the lock: it may hold the last reference
      // to something whose deinit reports a diagnostic, and so reads this property.
      let replaced = storage.replace(with: newValue)
      withExtendedLifetime(replaced) {}
    }
  }

  /// The default handler: prints the diagnostic to standard error.
  public static let printToStandardError: @Sendable (ObservationDiagnostic) -> Void = {
    diagnostic in
    FileHandle.standardError.write(Data("\(diagnostic)\n".utf8))
  }

  /// The handler that ``withHandler(_:operation:)-(_,()->Result)`` installed for the current
  /// task (or, outside any task, the current thread), if any.
  private static let scopedHandler = TaskLocal<(@Sendable (ObservationDiagnostic) -> Void)?>(
    wrappedValue: nil)

  /// Runs `operation` with `handler` receiving the diagnostics it raises, instead of the global
  /// ``handler``.
  ///
  /// ```swift
  /// ObservationDiagnostics.withHandler({ diagnostic in logger.warning("\(diagnostic)") }) {
  ///     badge.autoObserve(person, keyPath: \.name) { badge, _, change in
  ///         badge.text = change.newValue ?? ""
  ///     }
  /// }
  /// ```
  ///
  /// The handler is a task-local value: it receives the diagnostics raised by the code that
  /// `operation` runs on its own thread or task, and by the child tasks it creates, as long as
  /// `operation` runs; a diagnostic raised elsewhere meanwhile (another thread, a handler
  /// delivered on a queue or an actor later) goes to the global ``handler``, as before. Scopes
  /// nest: the innermost handler receives the diagnostic.
  ///
  /// - Parameters:
  ///   - handler: Receives each diagnostic raised inside `operation`, on the thread that raised
  ///     it, with no AutoKVO lock held.
  ///   - operation: The work whose diagnostics `handler` receives.
  /// - Returns: What `operation` returns.
  public static func withHandler<Result>(
    _ handler: @escaping @Sendable (ObservationDiagnostic) -> Void,
    operation: () throws -> Result
  ) rethrows -> Result {
    try scopedHandler.withValue(handler, operation: operation)
  }

  /// Runs the asynchronous `operation` with `handler` receiving the diagnostics it raises,
  /// instead of the global ``handler``: ``withHandler(_:operation:)-(_,()->Result)`` for
  /// asynchronous work, such as a test.
  ///
  /// - Parameters:
  ///   - handler: Receives each diagnostic raised inside `operation` and its child tasks, on the
  ///     thread that raised it, with no AutoKVO lock held.
  ///   - isolation: The caller's actor, captured by default; `operation` runs there. Leave it to
  ///     its default.
  ///   - operation: The work whose diagnostics `handler` receives.
  /// - Returns: What `operation` returns.
  public static func withHandler<Result>(
    _ handler: @escaping @Sendable (ObservationDiagnostic) -> Void,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws -> Result
  ) async rethrows -> Result {
    #if canImport(ObjectiveC) && !canImport(Synchronization)
      // A pre-Swift 6 SDK's `withValue` (see PreSwift6SDK.swift), which no user build compiles.
      try await scopedHandler.withValue(handler, operation: operation)
    #else
      try await scopedHandler.withValue(handler, operation: operation, isolation: isolation)
    #endif
  }

  static func report(_ kind: ObservationDiagnostic.Kind, _ message: String) {
    (scopedHandler.get() ?? handler)(ObservationDiagnostic(kind: kind, message: message))
  }
}
