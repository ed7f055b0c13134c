import Testing

@testable import AutoKVO

/// An observer ported from KVO: one callback, told apart by context.
final class LegacyInspector: KeyValueObserving, @unchecked Sendable {  // single-threaded tests
  let observationRegistry = ObservationRegistry()
  nonisolated(unsafe) static var nameContext = 0
  nonisolated(unsafe) static var ageContext = 0
  var received: [String] = []

  func observeValue(
    forKeyPath keyPath: AnyKeyPath,
    of object: AnyObject,
    change: AnyKeyValueChange,
    context: UnsafeMutableRawPointer?
  ) {
    if context == &Self.nameContext {
      received.append(
        "name \(change.oldValue(as: String.self) ?? "-")->\(change.newValue(as: String.self) ?? "-")"
      )
    } else if context == &Self.ageContext {
      received.append("age \(keyPath == \Person.age) \(change.newValue(as: Int.self) ?? -1)")
    }
  }
}

@Suite(
  "Classic callback: observeValue(forKeyPath:of:change:context:) with one call and no teardown")
struct ClassicCallbackTests {
  @Test("Registrations deliver to observeValue with their key path, object and context")
  func delivery() {
    let person = Person(name: "Ann", age: 30)
    let inspector = LegacyInspector()
    inspector.autoObserve(person, keyPath: \.name, context: &LegacyInspector.nameContext)
    inspector.autoObserve(
      person, keyPath: \.age, options: .new, context: &LegacyInspector.ageContext)
    person.name = "Bob"
    person.age = 31
    #expect(inspector.received == ["name Ann->Bob", "age true 31"])
  }

  @Test("The registration removes itself when either side is deallocated")
  func selfRemoving() {
    var person: Person? = Person()
    var inspector: LegacyInspector? = LegacyInspector()
    inspector!.autoObserve(person!, keyPath: \.name, context: &LegacyInspector.nameContext)
    person = nil
    #expect(inspector!.observationRegistry.observingCount == 0)
    let other = Person()
    inspector!.autoObserve(other, keyPath: \.name, context: &LegacyInspector.nameContext)
    inspector = nil
    #expect(other.observationRegistry.observerCount == 0)
  }

  @Test("The type-erased change keeps the kind, indexes and prior flag")
  func erasedChange() {
    let change = AnyKeyValueChange(
      KeyValueChange(kind: .removal, oldValue: ["a"], indexes: [3], isPrior: true))
    #expect(change.kind == .removal)
    #expect(change.oldValue(as: [String].self) == ["a"])
    #expect(change.newValue == nil)
    #expect(change.indexes == [3])
    #expect(change.isPrior)
  }
}
