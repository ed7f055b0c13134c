import Foundation

extension KeyValueChange {
  /// Decodes a Foundation change dictionary; a value that does not cast to `Value` is absent.
  init<Key: KeyValueChangeDictionaryKey>(foundationChange change: [Key: Any]) {
    let rawKind = change[.kindKey] as? UInt ?? ChangeKind.setting.rawValue
    self.init(
      kind: ChangeKind(rawValue: rawKind) ?? .setting,
      oldValue: change[.oldKey].flatMap(Self.bridged),
      newValue: change[.newKey].flatMap(Self.bridged),
      indexes: change[.indexesKey] as? IndexSet,
      isPrior: change[.notificationIsPriorKey] as? Bool ?? false
    )
  }

  /// Foundation reports a `nil` value as `NSNull`. When `Value` is optional that is the value
  /// `nil`, found by casting a `nil` of any optional type; otherwise the value is absent.
  private static func bridged(_ value: Any) -> Value? {
    if value is NSNull {
      return (Any?.none as Any) as? Value
    }
    return value as? Value
  }
}

extension KeyValueChange where Value == Any? {
  /// The change as Foundation's change dictionary, for a chain's classic handler: an absent
  /// value is `NSNull`, as Foundation reports it; a value not asked for has no entry.
  func foundationChange<Key: KeyValueChangeDictionaryKey>(keyedBy _: Key.Type) -> [Key: Any] {
    var change: [Key: Any] = [.kindKey: kind.rawValue]
    if let oldValue { change[.oldKey] = oldValue ?? NSNull() }
    if let newValue { change[.newKey] = newValue ?? NSNull() }
    if let indexes { change[.indexesKey] = indexes }
    if isPrior { change[.notificationIsPriorKey] = true }
    return change
  }
}
