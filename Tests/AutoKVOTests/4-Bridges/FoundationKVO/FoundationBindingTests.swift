import Foundation
import Testing

@testable import AutoKVO

/// An `NSObject` with `@objc` properties, as the fake runtime stands for one: each typed property
/// reads what the runtime stored under its key. `plain` has no `@objc` string.
private final class FakePerson: FakeRuntimeObject, @unchecked Sendable {
  var name: String? { value(forKey: "name") as? String }
  var age: Int { value(forKey: "age") as? Int ?? 0 }
  var plain = 0
}

/// An observer that is also the object it binds from, with a writable `@objc`-like property.
private final class SelfBound: FakeRuntimeObject, KeyValueObserver, @unchecked Sendable {
  var title: String {
    get { value(forKey: "title") as? String ?? "" }
    set {}
  }
}

/// A value of a change, erased: `-` when absent; an optional `String` unwrapped (`nil` for none).
private func text(_ value: Any?) -> String {
  guard let value else { return "-" }
  if let string = value as? String? { return string ?? "nil" }
  return "\(value)"
}

/// What the Apple-only `autoBind` and `autoObserve(_:keyPaths:)` forms for an `NSObject` object
/// do, driven by the fake Objective-C runtime: the binding's handler and the group of
/// registrations, made of Foundation registrations.
@Suite("Bindings and several key paths from an NSObject, with Foundation's KVO (fake runtime)")
struct FoundationBindingTests {
  typealias Router = FakeKeyValueObservingRuntime.Router

  private func bindName(
    of person: FakePerson, to badge: Badge, through router: Router, keyPathString: String? = "name"
  ) -> KeyValueObservation {
    badge.bindWithFoundation(
      through: router, \.text, person, \.name, keyPathString: keyPathString, .synchronous,
      site: RegistrationSite(file: #fileID, line: #line, call: .autoBind), transform: { $0 ?? "-" })
  }

  private func observe(
    _ person: FakePerson, by watcher: Watcher, _ keyPaths: [PartialKeyPath<FakePerson>],
    strings: [String?], options: ObservationOptions = [.old, .new], through router: Router
  ) -> KeyValueObservation {
    watcher.observeKeyPathsWithFoundation(
      through: router, person, keyPaths, keyPathStrings: strings, options, .synchronous,
      { watcher, _, keyPath, change in
        let name = keyPath == \FakePerson.name ? "name" : keyPath == \FakePerson.age ? "age" : "?"
        watcher.record("\(name) \(text(change.oldValue))->\(text(change.newValue))")
      }, site: RegistrationSite(file: #fileID, line: #line, call: .autoObserveKeyPaths))
  }

  @Test("autoBind: the current value before the call returns, then each later one, equal ones not")
  func bindingWrites() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let person = FakePerson(["name": "Ann"])
    let badge = Badge()
    let handle = bindName(of: person, to: badge, through: router)
    #expect(badge.writes == ["text=Ann"])
    router.runtime.set("Bo", forKey: "name", of: person)
    router.runtime.set("Bo", forKey: "name", of: person)
    router.runtime.set(nil, forKey: "name", of: person)
    #expect(badge.writes == ["text=Ann", "text=Bo", "text=-"])
    #expect(router.runtime.registrationCount == 1)
    handle.cancel()
    router.runtime.set("Cy", forKey: "name", of: person)
    #expect(badge.writes == ["text=Ann", "text=Bo", "text=-"])
    #expect(router.runtime.registrationCount == 0)
    #expect(router.runtime.unmatchedRemovalCount == 0)
  }

  @Test("autoBind: a key path with no @objc string is reported, and nothing is registered")
  func bindingWithoutObjectiveCKeyPath() {
    let recorder = DiagnosticsRecorder()
    defer { recorder.restore() }
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let person = FakePerson(["name": "Ann"])
    let badge = Badge()
    let handle = bindName(of: person, to: badge, through: router, keyPathString: nil)
    #expect(recorder.kinds == [.unsupportedKeyPath])
    #expect(handle.isCancelled)
    #expect(badge.writes == [])
    #expect(router.runtime.registrationCount == 0)
    #expect(badge.observationRegistry.observingCount == 0)
  }

  @Test("autoBind: a property bound to itself is refused with .bindingToItself")
  func bindingToItself() {
    let recorder = DiagnosticsRecorder()
    defer { recorder.restore() }
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let object = SelfBound(["title": "T"])
    let handle = object.bindWithFoundation(
      through: router, \.title, object, \.title, keyPathString: "title", .synchronous,
      site: RegistrationSite(file: #fileID, line: #line, call: .autoBind), transform: { $0 })
    #expect(recorder.kinds == [.bindingToItself])
    #expect(handle.isCancelled)
    #expect(router.runtime.registrationCount == 0)
  }

  @Test("autoBind: the target freed first removes the Foundation registration, once")
  func bindingTargetFreedFirst() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let person = FakePerson(["name": "Ann"])
    let tracker = LifetimeTracker()
    var badge: Badge? = Badge(tracker: tracker)
    let handle = bindName(of: person, to: badge!, through: router)
    badge = nil
    #expect(tracker.liveCount == 0)
    #expect(handle.isCancelled)
    #expect(router.runtime.registrationCount == 0)
    #expect(router.runtime.removalCount == 1)
    router.runtime.set("Bo", forKey: "name", of: person)
    #expect(router.runtime.unmatchedRemovalCount == 0)
  }

  @Test("autoBind: the object freed first ends the binding, and the target keeps its last value")
  func bindingObjectFreedFirst() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    var person: FakePerson? = FakePerson(["name": "Ann"])
    let badge = Badge()
    let handle = bindName(of: person!, to: badge, through: router)
    router.runtime.set("Bo", forKey: "name", of: person!)
    person = nil
    #expect(handle.isCancelled)
    #expect(badge.text == "Bo")
    #expect(badge.observationRegistry.observingCount == 0)
  }

  @Test("Several key paths: each change once, with its key path; .initial in the order of keyPaths")
  func severalKeyPaths() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let person = FakePerson(["name": "Ann", "age": 30])
    let watcher = Watcher()
    let handle = observe(
      person, by: watcher, [\.age, \.name], strings: ["age", "name"],
      options: [.initial, .old, .new], through: router)
    #expect(watcher.log == ["age -->30", "name -->Ann"])
    router.runtime.set("Bo", forKey: "name", of: person)
    router.runtime.set(31, forKey: "age", of: person)
    #expect(watcher.log == ["age -->30", "name -->Ann", "name Ann->Bo", "age 30->31"])
    #expect(router.runtime.registrationCount == 2)
    #expect(watcher.observationRegistry.observingCount == 2)
    handle.cancel()
    #expect(router.runtime.registrationCount == 0)
    #expect(router.runtime.removalCount == 2)
    #expect(watcher.observationRegistry.observingCount == 0)
  }

  @Test("Several key paths: one listed twice is observed once")
  func duplicateKeyPath() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let person = FakePerson(["name": "Ann"])
    let watcher = Watcher()
    let name: PartialKeyPath<FakePerson> = \.name
    let handle = observe(
      person, by: watcher, [name, \.name], strings: ["name", "name"], through: router)
    #expect(router.runtime.registrationCount == 1)
    router.runtime.set("Bo", forKey: "name", of: person)
    #expect(watcher.log == ["name Ann->Bo"])
    withExtendedLifetime(handle) {}
  }

  @Test("Several key paths: one with no @objc string is reported and left out; the others go on")
  func severalKeyPathsWithoutObjectiveCKeyPath() {
    let recorder = DiagnosticsRecorder()
    defer { recorder.restore() }
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let person = FakePerson(["name": "Ann"])
    let watcher = Watcher()
    let handle = observe(
      person, by: watcher, [\.plain, \.name], strings: [nil, "name"], through: router)
    #expect(recorder.kinds == [.unsupportedKeyPath])
    #expect(!handle.isCancelled)
    #expect(router.runtime.registrationCount == 1)
    router.runtime.set("Bo", forKey: "name", of: person)
    #expect(watcher.log == ["name Ann->Bo"])

    let none = observe(person, by: watcher, [\.plain], strings: [nil], through: router)
    #expect(recorder.kinds == [.unsupportedKeyPath, .unsupportedKeyPath])
    #expect(none.isCancelled)
    #expect(router.runtime.registrationCount == 1)
  }

  @Test(
    "Several key paths: ending one by its key path ends it alone; the handle ends with the last")
  func endingOneKeyPath() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let person = FakePerson(["name": "Ann", "age": 30])
    let watcher = Watcher()
    let registry = watcher.observationRegistry
    let handle = observe(
      person, by: watcher, [\.name, \.age], strings: ["name", "age"], through: router)
    #expect(
      registry.endFoundationRegistrations(on: person, keyPath: "name", in: router.runtime) == 1)
    #expect(!handle.isCancelled)
    router.runtime.set("Bo", forKey: "name", of: person)
    router.runtime.set(31, forKey: "age", of: person)
    #expect(watcher.log == ["age 30->31"])
    #expect(
      registry.endFoundationRegistrations(on: person, keyPath: "age", in: router.runtime) == 1)
    #expect(handle.isCancelled)
    #expect(router.runtime.registrationCount == 0)
    #expect(registry.observingCount == 0)
  }

  @Test("Several key paths: the observer freed first ends every key path's registration")
  func severalKeyPathsObserverFreedFirst() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let person = FakePerson(["name": "Ann", "age": 30])
    let tracker = LifetimeTracker()
    var watcher: Watcher? = Watcher(tracker: tracker)
    let handle = observe(
      person, by: watcher!, [\.name, \.age], strings: ["name", "age"], through: router)
    watcher = nil
    #expect(tracker.liveCount == 0)
    #expect(handle.isCancelled)
    #expect(router.runtime.registrationCount == 0)
    #expect(router.runtime.unmatchedRemovalCount == 0)
  }

  @Test("Several key paths: the object freed first ends every key path's registration")
  func severalKeyPathsObjectFreedFirst() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    var person: FakePerson? = FakePerson(["name": "Ann", "age": 30])
    let watcher = Watcher()
    let handle = observe(
      person!, by: watcher, [\.name, \.age], strings: ["name", "age"], through: router)
    person = nil
    #expect(handle.isCancelled)
    #expect(watcher.observationRegistry.observingCount == 0)
  }
}
