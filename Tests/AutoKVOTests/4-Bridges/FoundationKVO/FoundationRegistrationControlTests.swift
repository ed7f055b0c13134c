import Foundation
import Testing

@testable import AutoKVO

/// An observer that is not `KeyValueObservable`, whose registrations live in a stand-in: what a
/// plain `NSObject` observer is on Apple platforms.
private final class StandInObserver: FakeRuntimeObject, KeyValueObserver, @unchecked Sendable {}

/// What the Apple-only `stopObserving` and `activeObservations` forms for `NSObject`s do, driven by
/// the fake Objective-C runtime: the search of the observed object's stand-in registry, by the
/// key path each registration made with Foundation's KVO.
@Suite("Ending registrations with Foundation's KVO by object and key path (fake runtime)")
struct FoundationRegistrationControlTests {
  typealias Router = FakeKeyValueObservingRuntime.Router

  @discardableResult
  private func register<Observer: KeyValueObserver>(
    _ observer: Observer, _ registry: ObservationRegistry, on object: FakeRuntimeObject,
    keyPath: String, through router: Router, log: Watcher
  ) -> KeyValueObservation {
    router.registerTyped(
      observer: observer, observerRegistry: registry, object: object, keyPath: keyPath,
      options: .new, delivery: .synchronous
    ) { (_: Observer, _: FakeRuntimeObject, change: KeyValueChange<String?>) in
      log.record("\(keyPath) \(change.newValue.map { $0 ?? "nil" } ?? "-")")
    }
  }

  @Test(
    "One key path: this observer's registrations on it end, with their Foundation ones; others stay"
  )
  func oneKeyPath() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let object = FakeRuntimeObject(["name": "A", "title": "T"])
    let other = FakeRuntimeObject(["name": "A"])
    let watcher = Watcher()
    let bystander = Watcher()
    let registry = watcher.observationRegistry
    register(watcher, registry, on: object, keyPath: "name", through: router, log: watcher)
    register(watcher, registry, on: object, keyPath: "name", through: router, log: watcher)
    register(watcher, registry, on: object, keyPath: "title", through: router, log: watcher)
    register(watcher, registry, on: other, keyPath: "name", through: router, log: watcher)
    register(
      bystander, bystander.observationRegistry, on: object, keyPath: "name", through: router,
      log: bystander)
    #expect(router.runtime.registrationCount == 5)

    #expect(
      registry.endFoundationRegistrations(on: object, keyPath: "name", in: router.runtime) == 2)
    #expect(
      registry.endFoundationRegistrations(on: object, keyPath: "name", in: router.runtime) == 0)
    #expect(router.runtime.registrationCount == 3)
    #expect(watcher.activeObservations.count == 2)
    router.runtime.set("B", forKey: "name", of: object)
    router.runtime.set("U", forKey: "title", of: object)
    router.runtime.set("B", forKey: "name", of: other)
    #expect(watcher.log == ["title U", "name B"])
    #expect(bystander.log == ["name B"])
  }

  @Test("Every key path: this observer's registrations on the object end, chains included")
  func everyKeyPath() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let dog = FakeRuntimeObject(["name": "Rex"])
    let owner = FakeRuntimeObject(["dog": dog, "title": "T"])
    let watcher = Watcher()
    let registry = watcher.observationRegistry
    register(watcher, registry, on: owner, keyPath: "title", through: router, log: watcher)
    register(watcher, registry, on: owner, keyPath: "dog.name", through: router, log: watcher)
    register(watcher, registry, on: dog, keyPath: "name", through: router, log: watcher)
    #expect(router.runtime.registrationCount == 4)

    #expect(registry.endFoundationRegistrations(on: owner, keyPath: nil, in: router.runtime) == 2)
    #expect(router.runtime.registrationCount == 1)
    router.runtime.set("U", forKey: "title", of: owner)
    router.runtime.set("Max", forKey: "name", of: dog)
    #expect(watcher.log == ["name Max"])
  }

  @Test("A chain's whole key path names it; one of its keys alone does not")
  func chainByItsKeyPath() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let dog = FakeRuntimeObject(["name": "Rex"])
    let owner = FakeRuntimeObject(["dog": dog])
    let watcher = Watcher()
    let registry = watcher.observationRegistry
    register(watcher, registry, on: owner, keyPath: "dog.name", through: router, log: watcher)
    #expect(registry.endFoundationRegistrations(on: owner, keyPath: "dog", in: router.runtime) == 0)
    #expect(
      registry.endFoundationRegistrations(on: owner, keyPath: "dog.name", in: router.runtime) == 1)
    #expect(router.runtime.registrationCount == 0)
  }

  @Test(
    "An observer with a stand-in: its registrations are found through it; a query attaches none")
  func observerThroughItsStandIn() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let object = FakeRuntimeObject(["name": "A"])
    let observer = StandInObserver()
    let log = Watcher()
    #expect(observer.existingRegistryForObserving(in: router.runtime) == nil)
    #expect(observer.associationCount == 0, "asking attached no stand-in")
    let registry = observer.registryForObserving(in: router.runtime)!
    register(observer, registry, on: object, keyPath: "name", through: router, log: log)
    #expect(observer.existingRegistryForObserving(in: router.runtime) === registry)
    #expect(registry.outgoingObservations.count == 1)

    #expect(
      registry.endFoundationRegistrations(on: object, keyPath: "name", in: router.runtime) == 1)
    router.runtime.set("B", forKey: "name", of: object)
    #expect(log.log.isEmpty)
    #expect(registry.outgoingObservations.isEmpty)
  }

  @Test("An object never observed through Foundation has no stand-in, and nothing ends")
  func objectWithoutStandIn() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let object = FakeRuntimeObject(["name": "A"])
    let watcher = Watcher()
    #expect(
      watcher.observationRegistry.endFoundationRegistrations(
        on: object, keyPath: nil, in: router.runtime) == 0)
    #expect(object.associationCount == 0)
  }
}
