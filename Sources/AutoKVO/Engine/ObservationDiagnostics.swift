import Foundation

/// A report of a misuse AutoKVO recovered from, such as a `didChangeValue(for:)` with no
/// matching `willChangeValue(for:)`.
public struct ObservationDiagnostic: Sendable, CustomStringConvertible {
  /// What went wrong.
  public enum Kind: Sendable, Hashable {
    /// `didChangeValue(for:)` was called with no matching `willChangeValue(for:)` on the thread.
    case unmatchedDidChange
    /// A registration's key path reads no `@Observed` property and declares no dependency, so it
    /// can only notify through manual `willChangeValue(for:)` / `didChangeValue(for:)`.
    case keyPathNeverNotifies
    /// A collection change named indexes outside the collection; it was delivered as a
    /// `.setting` change of the whole collection instead.
    case indexesOutOfRange
  }

  /// What went wrong.
  public let kind: Kind

  /// A sentence naming the type and key path involved and what AutoKVO did instead.
  public let message: String

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
public enum ObservationDiagnostics {
  private static let storage = LockedValue<@Sendable (ObservationDiagnostic) -> Void>(
    ObservationDiagnostics.printToStandardError
  )

  /// The function that receives every diagnostic; called on the thread that caused it, with no
  /// AutoKVO lock held.
  public static var handler: @Sendable (ObservationDiagnostic) -> Void {
    get { storage.withLock { $0 } }
    set { storage.withLock { $0 = newValue } }
  }

  /// The default handler: prints the diagnostic to standard error.
  public static let printToStandardError: @Sendable (ObservationDiagnostic) -> Void = {
    diagnostic in
    FileHandle.standardError.write(Data("\(diagnostic)\n".utf8))
  }

  static func report(_ kind: ObservationDiagnostic.Kind, _ message: String) {
    handler(ObservationDiagnostic(kind: kind, message: message))
  }
}
