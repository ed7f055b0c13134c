import AutoKVO
import XCTest

/// `ObservationDiagnostic.Kind` is an extensible value: the static spellings of the old enum
/// still compare, hash and match in `switch` patterns, and a `switch` needs a `default:`.
final class DiagnosticKindTests: XCTestCase {
  private func label(_ kind: ObservationDiagnostic.Kind) -> String {
    switch kind {
    case .sharedRegistry: "shared"
    case .keyPathNeverNotifies: "never"
    case .unobservedIntermediate: "intermediate"
    default: "other"
    }
  }

  func testKindsMatchInSwitchPatternsAndFallToDefault() {
    XCTAssertEqual(label(.sharedRegistry), "shared")
    XCTAssertEqual(label(.keyPathNeverNotifies), "never")
    XCTAssertEqual(label(.unobservedIntermediate), "intermediate")
    XCTAssertEqual(label(.unmatchedDidChange), "other")
    XCTAssertEqual(label(.registrationWhileDeallocating), "other")
  }

  func testEveryKindIsDistinctHashableAndNamedAsItsMember() {
    let kinds: [ObservationDiagnostic.Kind] = [
      .unmatchedDidChange, .keyPathNeverNotifies, .unsupportedKeyPath, .indexesOutOfRange,
      .unstableRegistry, .sequenceIteratedAgain, .registrationWhileDeallocating, .sharedRegistry,
      .unobservedIntermediate, .emptyKeyPaths, .bindingToItself,
    ]
    XCTAssertEqual(Set(kinds).count, kinds.count)
    XCTAssertEqual(
      kinds.map(\.description),
      [
        "unmatchedDidChange", "keyPathNeverNotifies", "unsupportedKeyPath", "indexesOutOfRange",
        "unstableRegistry", "sequenceIteratedAgain", "registrationWhileDeallocating",
        "sharedRegistry", "unobservedIntermediate", "emptyKeyPaths", "bindingToItself",
      ])
    XCTAssertEqual(ObservationDiagnostic.Kind.sharedRegistry, .sharedRegistry)
    XCTAssertNotEqual(ObservationDiagnostic.Kind.sharedRegistry, .unstableRegistry)
    XCTAssertEqual(ObservationDiagnostic.Kind.sharedRegistry.name, "sharedRegistry")
  }

  func testAReportedDiagnosticCarriesAKindThatMatchesItsSpelling() {
    let recorder = DiagnosticsRecorder()
    defer { recorder.restore() }
    let model = Person()
    model.didChangeValue(for: \.name)
    XCTAssertEqual(recorder.kinds, [.unmatchedDidChange])
    XCTAssertTrue(
      recorder.kinds.allSatisfy { if case .unmatchedDidChange = $0 { true } else { false } })
  }
}
