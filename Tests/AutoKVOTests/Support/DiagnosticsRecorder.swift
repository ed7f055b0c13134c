import AutoKVO
import Foundation

/// Records the diagnostics raised on the thread that created it, until `restore()`.
///
/// The diagnostics handler is global and tests run in parallel, so a recorder keeps only what its
/// own test raises: diagnostics are reported on the thread that caused them, and every test that
/// records is synchronous. Diagnostics from threads without a recorder are printed as usual.
final class DiagnosticsRecorder: @unchecked Sendable {  // `received` is guarded by `lock`
  private let lock = NSLock()
  private var received: [ObservationDiagnostic] = []
  private let thread = ObjectIdentifier(Thread.current)

  init() {
    Self.routing.withLock { routing in
      if routing.recorders.isEmpty {
        routing.previous = ObservationDiagnostics.handler
        ObservationDiagnostics.handler = Self.route
      }
      routing.recorders[thread] = self
    }
  }

  var kinds: [ObservationDiagnostic.Kind] { lock.withLock { received.map(\.kind) } }
  var messages: [String] { lock.withLock { received.map(\.message) } }

  func restore() {
    Self.routing.withLock { routing in
      routing.recorders[thread] = nil
      if routing.recorders.isEmpty, let previous = routing.previous {
        ObservationDiagnostics.handler = previous
        routing.previous = nil
      }
    }
  }

  private func record(_ diagnostic: ObservationDiagnostic) {
    lock.withLock { received.append(diagnostic) }
  }

  private struct Routing {
    var recorders: [ObjectIdentifier: DiagnosticsRecorder] = [:]
    var previous: (@Sendable (ObservationDiagnostic) -> Void)?
  }

  private static let routing = RoutingTable()

  private static let route: @Sendable (ObservationDiagnostic) -> Void = { diagnostic in
    let thread = ObjectIdentifier(Thread.current)
    let (recorder, previous) = routing.withLock { ($0.recorders[thread], $0.previous) }
    if let recorder {
      recorder.record(diagnostic)
    } else {
      (previous ?? ObservationDiagnostics.printToStandardError)(diagnostic)
    }
  }

  private final class RoutingTable: @unchecked Sendable {  // `routing` is guarded by `lock`
    private let lock = NSLock()
    private var routing = Routing()

    func withLock<Result>(_ body: (inout Routing) -> Result) -> Result {
      lock.withLock { body(&routing) }
    }
  }
}
