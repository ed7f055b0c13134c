/// Where a registration was made: the call, and its `#fileID` and `#line`, which diagnostics
/// give when they cannot name the property a registration is about.
@usableFromInline
struct RegistrationSite: Sendable {
  /// The public call that made a registration, as diagnostics name it.
  @usableFromInline
  enum Call: UInt8, Sendable {
    case autoObserve
    case autoObserveKeyPaths
    case autoBind
    case autoSync

    /// The call's name up to its key path argument, which a diagnostic completes:
    /// `autoBind(_:from:keyPath:`.
    var openingOfName: String {
      switch self {
      case .autoObserve: "autoObserve(_:keyPath:"
      case .autoObserveKeyPaths: "autoObserve(_:keyPaths:"
      case .autoBind: "autoBind(_:from:keyPath:"
      case .autoSync: "autoSync(_:with:keyPath:"
      }
    }
  }

  let file: StaticString
  // Between the two, where `file`'s layout leaves room: the site stays 32 bytes.
  let call: Call
  let line: UInt

  @usableFromInline
  init(file: StaticString, line: UInt, call: Call = .autoObserve) {
    self.file = file
    self.call = call
    self.line = line
  }
}

extension Optional where Wrapped == RegistrationSite {
  /// `autoObserve(_:keyPath:`, or the binding's or several key paths' call that made the
  /// registration: how a diagnostic opens its name.
  var openingOfCallName: String {
    (self?.call ?? .autoObserve).openingOfName
  }

  /// " at File.swift:12", or nothing for a registration made by the library itself.
  var diagnosticSuffix: String {
    map { " at \($0.file):\($0.line)" } ?? ""
  }
}
