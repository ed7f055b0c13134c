/// Tells whether two key paths rooted at two classes of one hierarchy read the same stored
/// property of an object: how a property that is not `@Observed` is identified when it is named
/// through a subclass, as KVO identifies a key by its name.
///
/// `\Derived.rows` and `\Base.rows` name the same stored property `rows` that `Base` declares, yet
/// do not compare equal, and neither carries the property's name at run time: a property of a
/// class that is not `final` is reached through its accessors. So the object is read: the two key
/// paths name the same property when they read the same value, bit for bit, and exactly one stored
/// property of the object (of its class or any superclass, as its `Mirror` lists them) holds that
/// value, of that type. When two stored properties of that type hold the same value (two empty
/// arrays), the property cannot be told, and the change is posted under its own key path only.
/// An `@Observed` property is identified by its declaration instead
/// (`Dependencies.postedKeyPath(of:on:)`), with no reading.
enum InheritedStoredProperty {
  /// Whether `posted` and `registered` read the same stored property of `object`. Reads both key
  /// paths (which may run a computed property's getter: never under a lock) and the object's
  /// stored properties; a class with a custom mirror is never read through it.
  static func identify(
    _ posted: AnyKeyPath, _ registered: AnyKeyPath, on object: AnyObject
  ) -> Identity {
    guard !(object is any CustomReflectable),
      let postedValue = (object as Any)[keyPath: posted],
      let registeredValue = (object as Any)[keyPath: registered],
      haveSameBits(postedValue, registeredValue)
    else { return .different }
    var holders = 0
    var mirror: Mirror? = Mirror(reflecting: object)
    while let current = mirror {
      for child in current.children where haveSameBits(child.value, postedValue) {
        holders += 1
      }
      mirror = current.superclassMirror
    }
    switch holders {
    case 1: return .same
    case 0: return .different
    default: return .ambiguous
    }
  }

  /// What ``identify(_:_:on:)`` found.
  enum Identity {
    /// The two key paths read the one stored property that holds their value.
    case same
    /// They read different values, or a value no stored property holds (a computed one).
    case different
    /// They read the same value, which several stored properties of that type hold: which one
    /// each reads cannot be told.
    case ambiguous
  }

  /// Whether two values are of the same type and have the same bits.
  private static func haveSameBits(_ first: Any, _ second: Any) -> Bool {
    guard type(of: first) == type(of: second) else { return false }
    return _openExistential(first, do: bytes) == _openExistential(second, do: bytes)
  }
}

/// A value's bytes. A free function: passed to `_openExistential` as a static method, it crashes
/// the Swift 6.3 compiler.
private func bytes<Value>(of value: Value) -> [UInt8] {
  withUnsafeBytes(of: value) { Array($0) }
}
