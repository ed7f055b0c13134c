#if canImport(ObjectiveC)
  import ObjectiveC
#else
  @_spi(Reflection) import Swift
#endif

/// Finds which stored properties of an object hold another object strongly, by comparing each
/// stored field's first word with the other object's address: a strong (or `unowned`) reference
/// stores the address, a `weak` one stores a reference to a side table, a computed property stores
/// nothing. No user code runs and no reference count changes.
///
/// Each class's field list is found once, by reflection, and kept: on Apple platforms the class's
/// instance-variable list, elsewhere the standard library's field enumeration (`_forEachField`,
/// SPI, which Apple's public SDK interfaces do not carry). Classes are never unloaded, so a class's
/// identity is a lasting key.
enum StoredReferences {
  /// One stored property: its name and where its first word lies in an instance.
  struct Field {
    let name: String
    let offset: Int
  }

  /// The names of the stored properties of `holder`'s class and superclasses that hold `target`.
  ///
  /// Reads `holder`'s fields without an access: call it only where `holder` is alive and a read of
  /// its properties would be allowed (this thread may read them).
  static func namesOfProperties(of holder: AnyObject, holding target: AnyObject) -> [String] {
    let base = UnsafeRawPointer(Unmanaged.passUnretained(holder).toOpaque())
    let address = UInt(bitPattern: Unmanaged.passUnretained(target).toOpaque())
    return fields(of: type(of: holder)).compactMap { field in
      base.loadUnaligned(fromByteOffset: field.offset, as: UInt.self) == address ? field.name : nil
    }
  }

  private static let cache = LockedValue<[ObjectIdentifier: [Field]]>([:])

  /// The fields of `type` and its superclasses at least a word wide, from the cache or found now.
  static func fields(of type: AnyClass) -> [Field] {
    if let known = cache.withLock({ $0[ObjectIdentifier(type)] }) { return known }
    let found = wordWideFields(of: type)
    cache.withLock { $0[ObjectIdentifier(type)] = found }
    return found
  }

  #if canImport(ObjectiveC)
    /// A field's width is the distance to the next field, or to the end of the instance.
    private static func wordWideFields(of type: AnyClass) -> [Field] {
      var fields: [Field] = []
      var current: AnyClass? = type
      while let someClass = current {
        var count: UInt32 = 0
        if let ivars = class_copyIvarList(someClass, &count) {
          var own = (0..<Int(count)).compactMap { index -> Field? in
            guard let name = ivar_getName(ivars[index]) else { return nil }
            return Field(name: String(cString: name), offset: ivar_getOffset(ivars[index]))
          }
          free(ivars)
          own.sort { $0.offset < $1.offset }
          let end = class_getInstanceSize(someClass)
          for (index, field) in own.enumerated() {
            let next = index + 1 < own.count ? own[index + 1].offset : end
            if next - field.offset >= MemoryLayout<UInt>.size { fields.append(field) }
          }
        }
        current = class_getSuperclass(someClass)
      }
      return fields
    }
  #else
    private static func wordWideFields(of type: AnyClass) -> [Field] {
      var fields: [Field] = []
      // `.classType` (bit 0) and `.ignoreUnknown` (bit 1), spelled by value: the standard library
      // declares its options as mutable static properties, which strict concurrency refuses.
      let classTypeIgnoringUnknown = _EachFieldOptions(rawValue: 0b11)
      _ = _forEachField(of: type, options: classTypeIgnoringUnknown) {
        name, offset, fieldType, _ in
        if size(of: fieldType) >= MemoryLayout<UInt>.size {
          fields.append(Field(name: String(cString: name), offset: offset))
        }
        return true
      }
      return fields
    }

    private static func size(of type: Any.Type) -> Int {
      func size<T>(_: T.Type) -> Int { MemoryLayout<T>.size }
      return size(type)
    }
  #endif
}
