import AutoKVO
import Foundation

/// Installs a diagnostics handler that records instead of printing, until `restore()`.
final class DiagnosticsRecorder: @unchecked Sendable {  // `received` is guarded by `lock`
  private let lock = NSLock()
  private var received: [ObservationDiagnostic] = []
  private let previous: @Sendable (ObservationDiagnostic) -> Void

  init() {
    previous = ObservationDiagnostics.handler
    ObservationDiagnostics.handler = { [self] diagnostic in
      lock.withLock { received.append(diagnostic) }
    }
  }

  var kinds: [ObservationDiagnostic.Kind] { lock.withLock { received.map(\.kind) } }
  var messages: [String] { lock.withLock { received.map(\.message) } }

  func restore() {
    ObservationDiagnostics.handler = previous
  }
}
