import AutoKVO
import Testing

/// `ObservationDiagnostic.Kind` is an extensible value: the static spellings of the old enum
/// still compare, hash and match in `switch` patterns, and a `switch` needs a `default:`.
@Suite("Diagnostic kinds: an extensible value that matches as the enum did")
struct DiagnosticKindTests {
  private func label(_ kind: ObservationDiagnostic.Kind) -> String {
    switch kind {
    case .sharedRegistry: "shared"
    case .keyPathNeverNotifies: "never"
    case .unobservedIntermediate: "intermediate"
    default: "other"
    }
  }

  @Test("Kinds match in switch patterns, and the others fall to default")
  func switchPatterns() {
    #expect(label(.sharedRegistry) == "shared")
    #expect(label(.keyPathNeverNotifies) == "never")
    #expect(label(.unobservedIntermediate) == "intermediate")
    #expect(label(.unmatchedDidChange) == "other")
    #expect(label(.registrationWhileDeallocating) == "other")
  }

  @Test("Every kind is distinct, hashable, and named as its static member")
  func distinctAndNamed() {
    let kinds: [ObservationDiagnostic.Kind] = [
      .unmatchedDidChange, .keyPathNeverNotifies, .unsupportedKeyPath, .indexesOutOfRange,
      .unstableRegistry, .sequenceIteratedAgain, .registrationWhileDeallocating, .sharedRegistry,
      .unobservedIntermediate, .emptyKeyPaths, .bindingToItself,
    ]
    #expect(Set(kinds).count == kinds.count)
    #expect(
      kinds.map(\.description) == [
        "unmatchedDidChange", "keyPathNeverNotifies", "unsupportedKeyPath", "indexesOutOfRange",
        "unstableRegistry", "sequenceIteratedAgain", "registrationWhileDeallocating",
        "sharedRegistry", "unobservedIntermediate", "emptyKeyPaths", "bindingToItself",
      ])
    #expect(ObservationDiagnostic.Kind.sharedRegistry == .sharedRegistry)
    #expect(ObservationDiagnostic.Kind.sharedRegistry != .unstableRegistry)
    #expect(ObservationDiagnostic.Kind.sharedRegistry.name == "sharedRegistry")
  }

  @Test("A reported diagnostic carries a kind that matches its spelling")
  func reportedKind() {
    let recorder = DiagnosticsRecorder()
    defer { recorder.restore() }
    let model = Person()
    model.didChangeValue(for: \.name)
    #expect(recorder.kinds == [.unmatchedDidChange])
    #expect(
      recorder.kinds.allSatisfy { if case .unmatchedDidChange = $0 { true } else { false } })
  }
}
