/// Where a registration was made: the `#fileID` and `#line` of the `autoObserve` call, which
/// diagnostics give when they cannot name the property a registration is about.
@usableFromInline
struct RegistrationSite: Sendable {
  let file: StaticString
  let line: UInt

  @usableFromInline
  init(file: StaticString, line: UInt) {
    self.file = file
    self.line = line
  }

}

extension Optional where Wrapped == RegistrationSite {
  /// " at File.swift:12", or nothing for a registration made by the library itself.
  var diagnosticSuffix: String {
    map { " at \($0.file):\($0.line)" } ?? ""
  }
}
