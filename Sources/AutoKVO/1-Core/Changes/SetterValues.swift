/// The values an `@Observed` setter replaced and stored, lent to the registrations it notifies for
/// the duration of the notification, so that none reads the property again.
///
/// An `@ObservedWeak` property's zeroing is lent the same way, with its new value, `nil`, and no
/// old value: the object it referenced is being deallocated and cannot be handed out.
@usableFromInline
struct SetterValues {
  /// The replaced value; `nil` for a zeroing.
  let oldValue: UnsafeRawPointer?
  let newValue: UnsafeRawPointer
  /// The property's value type: a registration takes the values only when its own value type is
  /// the same.
  let valueType: Any.Type

  /// Made by the setter, which is specialized for `Value`, so that no generic code copies the
  /// values to take their addresses.
  @inlinable
  init<Value>(
    oldValue: UnsafePointer<Value>,
    newValue: UnsafePointer<Value>,
    valueType: Value.Type
  ) {
    self.init(
      oldValue: UnsafeRawPointer(oldValue), newValue: UnsafeRawPointer(newValue),
      valueType: valueType as Any.Type)
  }

  @usableFromInline
  init(oldValue: UnsafeRawPointer?, newValue: UnsafeRawPointer, valueType: Any.Type) {
    self.oldValue = oldValue
    self.newValue = newValue
    self.valueType = valueType
  }
}
