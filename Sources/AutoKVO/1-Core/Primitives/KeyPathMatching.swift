extension AnyKeyPath {
  /// Whether `other` is equal to this key path: `==`, with the objects' identity asked first.
  ///
  /// The standard library's `==` compares the two key paths' types and components, even for one
  /// object compared with itself; a property's key path is usually one object wherever the engine
  /// meets it (a literal is instantiated once), so the identity settles most of the comparisons
  /// registration and teardown make.
  func matches(_ other: AnyKeyPath) -> Bool {
    self === other || self == other
  }
}

extension AnyKeyPath {
  /// Whether `other` could name the same stored property as this key path through another class
  /// of its hierarchy (`\Derived.rows` and `\Base.rows`): their value types are equal and their
  /// roots are two classes, one a subclass of the other. Types only, no evaluation: what may be
  /// asked under a lock. Whether they do is answered by reading the object
  /// (`InheritedStoredProperty`).
  func mayNameInheritedProperty(as other: AnyKeyPath) -> Bool {
    guard type(of: other).valueType == type(of: self).valueType,
      let root = type(of: self).rootType as? AnyClass,
      let otherRoot = type(of: other).rootType as? AnyClass, otherRoot != root
    else { return false }
    return isClass(otherRoot, inheritingFrom: root) || isClass(root, inheritingFrom: otherRoot)
  }
}

private func isClass(_ subclass: AnyClass, inheritingFrom superclass: AnyClass) -> Bool {
  var current: AnyClass? = _getSuperclass(subclass)
  while let candidate = current {
    if candidate == superclass { return true }
    current = _getSuperclass(candidate)
  }
  return false
}
