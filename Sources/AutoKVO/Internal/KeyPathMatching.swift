extension AnyKeyPath {
  /// Whether `other` is equal to this key path: `==`, with the objects' identity asked first.
  ///
  /// The standard library's `==` compares the two key paths' types and components, about 60
  /// instructions even for one object compared with itself; a property's key path is usually one
  /// object wherever the engine meets it (a literal is instantiated once), so the identity settles
  /// most of the comparisons registration and teardown make (Docs/Performance.md).
  func matches(_ other: AnyKeyPath) -> Bool {
    self === other || self == other
  }
}
