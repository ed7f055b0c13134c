import Foundation
import Testing

@testable import AutoKVO

/// An observed object of the fake runtime that is also an engine object: what an `NSObject`
/// subclass that conforms to `KeyValueObservable` is on Apple platforms.
private final class FakeObservableObject: FakeRuntimeObject, KeyValueObservable,
  @unchecked Sendable  // single-threaded tests
{
  let observationRegistry = ObservationRegistry()
  @Observed var score = 0
}

/// An observer that is neither `KeyValueObservable` nor anything the engine knows: what a plain
/// `NSObject` observer is on Apple platforms.
private final class FakeObserver: FakeRuntimeObject, KeyValueObserver, @unchecked Sendable {
  // `entries` is guarded by `entriesLock`.
  private let entriesLock = NSLock()
  private var entries: [String] = []

  var log: [String] { entriesLock.withLock { entries } }

  func record(_ entry: String) {
    entriesLock.withLock { entries.append(entry) }
  }
}

/// The router Apple platforms register every Foundation observation through, driven by a fake
/// Objective-C runtime (`FakeKeyValueObservingRuntime`): the real routing, the real unregistration
/// and stand-ins, the real checks and choice of engine behind the `NSObject` forms. What stays
/// untested here is each hook's one Objective-C runtime call.
@Suite("The Foundation router, driven by a fake Objective-C runtime")
struct KeyValueObservingRouterTests {
  typealias Router = FakeKeyValueObservingRuntime.Router

  private func register<Value>(
    _ watcher: Watcher, on object: FakeRuntimeObject, keyPath: String,
    options: ObservationOptions = [.old, .new], through router: Router,
    as _: Value.Type = String.self
  ) -> KeyValueObservation {
    router.registerTyped(
      observer: watcher, observerRegistry: watcher.observationRegistry, object: object,
      keyPath: keyPath, options: options, delivery: .synchronous
    ) { (watcher: Watcher, _: FakeRuntimeObject, change: KeyValueChange<Value>) in
      watcher.record(describe(change))
    }
  }

  // MARK: One key

  @Test("Each change is decoded and delivered; cancel() removes its Foundation registration once")
  func oneKey() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let object = FakeRuntimeObject(["name": "A"])
    let watcher = Watcher()
    let observation = register(watcher, on: object, keyPath: "name", through: router)
    #expect(router.runtime.registrationCount == 1)
    router.runtime.set("B", forKey: "name", of: object)
    router.runtime.set("C", forKey: "name", of: object)
    observation.cancel()
    observation.cancel()
    router.runtime.set("D", forKey: "name", of: object)
    #expect(watcher.log == ["setting A->B", "setting B->C"])
    #expect(router.runtime.removalCount == 1)
    #expect(router.runtime.registrationCount == 0)
    #expect(router.runtime.unmatchedRemovalCount == 0)
    #expect(object.associationCount == 1, "the stand-in stays; the unregistration went")
  }

  @Test("The object deallocated: the registration ends as the object's, removed once, all freed")
  func objectDeallocated() {
    let lifetimes = LifetimeTracker()
    let router = FakeKeyValueObservingRuntime.makeRouter()
    var object: FakeRuntimeObject? = FakeRuntimeObject(["name": "A"], tracker: lifetimes)
    let watcher = Watcher()
    let observation = register(watcher, on: object!, keyPath: "name", through: router)
    object = nil
    #expect(lifetimes.liveCount == 0)
    #expect(observation.endReason == .observedDeallocated)
    #expect(router.runtime.removalCount == 1)
    #expect(router.runtime.unmatchedRemovalCount == 0)
    #expect(watcher.observationRegistry.observingCount == 0)
    #expect(router.registrations.count == 0)
  }

  @Test("The observer deallocated: its Foundation registration is removed from the live object")
  func observerDeallocated() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let object = FakeRuntimeObject(["name": "A"])
    var watcher: Watcher? = Watcher()
    let observation = register(watcher!, on: object, keyPath: "name", through: router)
    watcher = nil
    #expect(observation.endReason == .observerDeallocated)
    #expect(router.runtime.removalCount == 1)
    #expect(router.runtime.registrationCount == 0)
    router.runtime.set("B", forKey: "name", of: object)
    #expect(router.registrations.count == 0)
  }

  @Test(".initial is delivered inside the registration, before it returns")
  func initialCall() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let object = FakeRuntimeObject(["name": "A"])
    let watcher = Watcher()
    _ = register(watcher, on: object, keyPath: "name", options: [.initial, .new], through: router)
    #expect(watcher.log == ["setting nil->A"])
  }

  @Test("A nil value decodes to nil for an optional value type and to absent for another")
  func nullValues() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let object = FakeRuntimeObject(["name": "A"])
    let optional = Watcher()
    let plain = Watcher()
    _ = register(optional, on: object, keyPath: "name", through: router, as: String?.self)
    _ = register(plain, on: object, keyPath: "name", through: router, as: String.self)
    router.runtime.set(nil, forKey: "name", of: object)
    #expect(optional.log == ["setting Optional(\"A\")->nil"])
    #expect(plain.log == ["setting A->nil"])
    var decoded = KeyValueChange<String?>(
      foundationChange: [FakeChangeKey.kind: ChangeKind.setting.rawValue, .new: NSNull()])
    #expect(decoded.newValue == .some(nil))
    decoded = KeyValueChange(foundationChange: [FakeChangeKey.new: 3])
    #expect(decoded.newValue == nil, "a value of another type is absent")
  }

  @Test("A notification whose context is unknown is dropped")
  func unknownContext() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    router.route([.kind: 1], context: UnsafeMutableRawPointer(bitPattern: 0xdead))
    router.route(nil, context: nil)
    #expect(router.registrations.count == 0)
  }

  // MARK: Chains

  @Test("A dotted key path observes each key on its object, and moves with the intermediate")
  func chain() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let lifetimes = LifetimeTracker()
    var first: FakeRuntimeObject? = FakeRuntimeObject(["name": "Rex"], tracker: lifetimes)
    let owner = FakeRuntimeObject(["dog": first!])
    let watcher = Watcher()
    _ = register(watcher, on: owner, keyPath: "dog.name", through: router, as: String?.self)
    #expect(router.runtime.registrationCount == 2)
    router.runtime.set("Max", forKey: "name", of: first!)
    let second = FakeRuntimeObject(["name": "Spot"])
    router.runtime.set(second, forKey: "dog", of: owner)
    router.runtime.set("Ghost", forKey: "name", of: first!)
    router.runtime.set("Spotty", forKey: "name", of: second)
    #expect(
      watcher.log == [
        "setting Optional(\"Rex\")->Optional(\"Max\")",
        "setting Optional(\"Max\")->Optional(\"Spot\")",
        "setting Optional(\"Spot\")->Optional(\"Spotty\")",
      ])
    #expect(router.runtime.registrationCount == 2)
    first = nil
    #expect(lifetimes.liveCount == 0, "the old intermediate is not retained")
    #expect(router.runtime.unmatchedRemovalCount == 0)
  }

  // MARK: The checks and the choice of engine behind the NSObject forms

  @Test("A key path with no @objc string is refused with a diagnostic; with one it is registered")
  func foundationFormChecks() {
    let recorder = DiagnosticsRecorder()
    defer { recorder.restore() }
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let object = FakeObservableObject(["score": 1])
    let observer = FakeObserver()
    let refused = observer.observeWithFoundation(
      through: router, object, \.score, keyPathString: nil, [.new], .synchronous
    ) { observer, _, change in observer.record(describe(change)) }
    #expect(refused.isCancelled)
    #expect(recorder.kinds == [.unsupportedKeyPath])
    #expect(router.runtime.registrationCount == 0)
    let registered = observer.observeWithFoundation(
      through: router, object, \.score, keyPathString: "score", [.new], .synchronous
    ) { observer, _, change in observer.record(describe(change)) }
    router.runtime.set(2, forKey: "score", of: object)
    #expect(!registered.isCancelled)
    #expect(observer.log == ["setting nil->2"])
    #expect(observer.associationCount == 1, "the observer's stand-in holds its side")
  }

  @Test("Engine choice: Foundation for an @objc key path, the engine through a stand-in otherwise")
  func engineChoice() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let object = FakeObservableObject(["score": 0])
    var observer: FakeObserver? = FakeObserver()
    let throughEngine = observer!.observeChoosingEngine(
      through: router, object, \.score, keyPathString: nil, [.old, .new], .synchronous
    ) { observer, _, change in observer.record("engine " + describe(change)) }
    let throughFoundation = observer!.observeChoosingEngine(
      through: router, object, \.score, keyPathString: "score", [.new], .synchronous
    ) { observer, _, change in observer.record("foundation " + describe(change)) }
    #expect(router.runtime.registrationCount == 1)
    object.score = 5
    router.runtime.set(6, forKey: "score", of: object)
    #expect(observer!.log == ["engine setting 0->5", "foundation setting nil->6"])
    observer = nil
    #expect(throughEngine.endReason == .observerDeallocated)
    #expect(throughFoundation.endReason == .observerDeallocated)
    #expect(router.runtime.registrationCount == 0)
  }

  @Test("An observable observer keeps its own registry; a key path with no @objc string uses it")
  func ownRegistry() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let object = FakeObservableObject(["score": 0])
    let watcher = Watcher()
    _ = watcher.observeChoosingEngineWithOwnRegistry(
      through: router, object, \.score, keyPathString: nil, [.new], .synchronous
    ) { watcher, _, change in watcher.record(describe(change)) }
    _ = watcher.observeChoosingEngineWithOwnRegistry(
      through: router, object, \.score, keyPathString: "score", [.new], .synchronous
    ) { watcher, _, change in watcher.record("kvo " + describe(change)) }
    object.score = 1
    router.runtime.set(2, forKey: "score", of: object)
    #expect(watcher.log == ["setting nil->1", "kvo setting nil->2"])
    #expect(watcher.observationRegistry.observingCount == 2)
  }

  @Test("Engine then Foundation: a tail that is not an NSObject's @objc key path is refused")
  func engineThenFoundationChecks() {
    let recorder = DiagnosticsRecorder()
    defer { recorder.restore() }
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let holder = Owner(pet: Dog("Rex"))
    let observer = FakeObserver()
    for (tailString, isObjectiveC) in [(nil, true), ("name", false)] as [(String?, Bool)] {
      let refused = observer.observeThroughEngineThenFoundation(
        through: router, holder, .engine(\Owner.pet), \Dog.name, tailString: tailString,
        intermediateIsObjectiveC: isObjectiveC, evaluate: { $0.pet.name }, [.new],
        .synchronous, { _, _, _ in }, site: nil)
      #expect(refused.isCancelled)
    }
    #expect(recorder.kinds == [.unsupportedKeyPath, .unsupportedKeyPath])
    #expect(router.runtime.registrationCount == 0)
  }

  @Test("One stand-in per observer, however many registrations; freed with its object")
  func oneStandIn() {
    let router = FakeKeyValueObservingRuntime.makeRouter()
    let object = FakeObservableObject()
    let lifetimes = LifetimeTracker()
    var observer: FakeObserver? = FakeObserver(tracker: lifetimes)
    var observations: [KeyValueObservation] = []
    for _ in 0..<3 {
      observations.append(
        observer!.observeWithEngineThroughStandIn(
          in: router.runtime, object, \.score, [.new], .synchronous, { _, _, _ in }))
    }
    #expect(observer!.associationCount == 1)
    #expect(object.observationRegistry.observerCount == 3)
    observer = nil
    #expect(lifetimes.liveCount == 0)
    #expect(observations.allSatisfy { $0.endReason == .observerDeallocated })
    #expect(object.observationRegistry.observerCount == 0)
  }
}
