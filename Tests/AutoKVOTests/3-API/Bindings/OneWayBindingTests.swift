import Dispatch
import Foundation
import Testing

@testable import AutoKVO

@Suite("One-way bindings: autoBind(_:from:keyPath:) (B1–B7)")
struct OneWayBindingTests {
  @Test("B1: the target takes the object's current value before autoBind returns")
  func initialValue() {
    let profile = Profile(name: "Ann")
    let badge = Badge()
    badge.autoBind(\.text, from: profile, keyPath: \.name)
    #expect(badge.text == "Ann")
    #expect(badge.writes == ["text=Ann"])
  }

  @Test("B1/B3: an initial value equal to the target's is not written")
  func initialValueAlreadyEqual() {
    let profile = Profile(name: "Ann")
    let badge = Badge()
    badge.storedText = "Ann"
    badge.autoBind(\.text, from: profile, keyPath: \.name)
    #expect(badge.writes == [])
  }

  @Test("B1: with a transform, the transformed value")
  func transformed() {
    let profile = Profile(age: 30)
    let badge = Badge()
    badge.autoBind(\.text, from: profile, keyPath: \.age) { "\($0) years" }
    profile.age = 31
    #expect(badge.writes == ["text=30 years", "text=31 years"])
  }

  @Test("An optional target follows a non-optional source without a transform")
  func optionalTarget() {
    let profile = Profile(name: "Ann")
    let badge = Badge()
    badge.autoBind(\.optionalText, from: profile, keyPath: \.name)
    profile.name = "Bo"
    #expect(badge.writes == ["optionalText=Ann", "optionalText=Bo"])
    let other = Badge()
    other.autoBind(\.optionalText, from: profile, keyPath: \.nickname)
    profile.nickname = "B"
    #expect(other.writes == ["optionalText=B"])
  }

  @Test(
    "B2: stored, computed, chained (nil on the way writes nil) and manual changes write the whole value"
  )
  func everyLaterChange() {
    let profile = Profile(name: "Ann")
    let greeting = Badge()
    let petName = Badge()
    let manual = Badge()
    greeting.autoBind(\.text, from: profile, keyPath: \.greeting)
    petName.autoBind(\.optionalText, from: profile, keyPath: \.pet?.name)
    manual.autoBind(\.text, from: profile, keyPath: \.manual) { "\($0)" }
    profile.name = "Bo"
    profile.pet = Dog("Rex")
    profile.pet?.name = "Max"
    profile.pet = nil
    profile.willChangeValue(for: \.manual)
    profile.manual = 7
    profile.didChangeValue(for: \.manual)
    #expect(greeting.writes == ["text=Hello, Ann", "text=Hello, Bo"])
    #expect(petName.writes == ["optionalText=Rex", "optionalText=Max", "optionalText=nil"])
    #expect(manual.writes == ["text=0", "text=7"])
  }

  @Test("B2: after a collection mutation, the target gets the collection as it now is")
  func collectionAsItNowIs() {
    let profile = Profile()
    profile.tags = ["a"]
    let badge = Badge()
    badge.autoBind(\.tags, from: profile, keyPath: \.tags)
    profile.mutableArrayValue(for: \.tags).append("b")
    profile.mutableArrayValue(for: \.tags).remove(at: 0)
    #expect(badge.writes == ["tags=[\"a\"]", "tags=[\"a\", \"b\"]", "tags=[\"b\"]"])
  }

  @Test("B2: the target's property need not be observable")
  func plainTarget() {
    let profile = Profile(name: "Ann")
    let badge = Badge()
    badge.autoBind(\.plainText, from: profile, keyPath: \.name)
    profile.name = "Bo"
    #expect(badge.plainText == "Bo")
  }

  @Test("B3: an equal value is not written, and the target's observers hear nothing")
  func equalValueNotWritten() {
    let profile = Profile(name: "Ann")
    let badge = Badge()
    badge.autoBind(\.text, from: profile, keyPath: \.name)
    let heard = Cell(0)
    let watcher = Watcher()
    watcher.autoObserve(badge, keyPath: \.storedText) { _, _, _ in heard.value += 1 }
    profile.name = "Ann"
    #expect(badge.writes == ["text=Ann"])
    #expect(heard.value == 0)
  }

  @Test("B3: nil replacing nil is equal")
  func nilReplacingNil() {
    let profile = Profile()
    let badge = Badge()
    badge.autoBind(\.optionalText, from: profile, keyPath: \.nickname)
    profile.nickname = nil
    #expect(badge.writes == [])
  }

  @Test("B3: a value that is not Equatable is written on every change, even an identical one")
  func notEquatableAlwaysWritten() {
    let profile = Profile()
    let badge = Badge()
    badge.autoBind(\.blob, from: profile, keyPath: \.blob)
    profile.blob = Blob(1)
    profile.blob = Blob(1)
    #expect(badge.writes == ["blob=1", "blob=1", "blob=1"])
  }

  @Test("B3: the Equatable check is made at run time, for generic callers too")
  func equatableAtRunTime() {
    func bind<Value>(
      _ badge: Badge, _ keyPath: ReferenceWritableKeyPath<Badge, Value>, _ profile: Profile,
      _ source: KeyPath<Profile, Value>
    ) {
      badge.autoBind(keyPath, from: profile, keyPath: source)
    }
    let profile = Profile(name: "Ann")
    let badge = Badge()
    bind(badge, \.text, profile, \.name)
    profile.name = "Ann"
    #expect(badge.writes == ["text=Ann"])
  }

  @Test("B3: NaN is never equal to itself, so it is written on every change")
  func nanWritten() {
    let profile = Profile()
    let badge = Badge()
    badge.autoBind(\.level, from: profile, keyPath: \.level)
    profile.level = .nan
    profile.level = .nan
    #expect(badge.writes == ["level=nan", "level=nan"])
  }

  @Test(
    "B4: a → b and b → a with values that are not Equatable: one set of a writes b once and a once")
  func loopNotEquatable() {
    let a = Badge()
    let b = Badge()
    withExtendedLifetime((a, b)) {
      a.autoBind(\.blob, from: b, keyPath: \.blob)
      b.autoBind(\.blob, from: a, keyPath: \.blob)
      a.writes.removeAll()
      b.writes.removeAll()
      a.blob = Blob(5)
      #expect(a.writes == ["blob=5", "blob=5"])  // the set, then b → a once
      #expect(b.writes == ["blob=5"])
    }
  }

  @Test("B4: a → b and b → a with Equatable values: a is not written back")
  func loopEquatable() {
    let a = Badge()
    let b = Badge()
    a.autoBind(\.text, from: b, keyPath: \.text)
    b.autoBind(\.text, from: a, keyPath: \.text)
    a.text = "x"
    #expect(a.writes == ["text=x"])
    #expect(b.writes == ["text=x"])
  }

  @Test("B4: a cycle of three bindings ends after one lap")
  func loopOfThree() {
    let a = Badge()
    let b = Badge()
    let c = Badge()
    withExtendedLifetime((a, b, c)) {
      b.autoBind(\.blob, from: a, keyPath: \.blob)
      c.autoBind(\.blob, from: b, keyPath: \.blob)
      a.autoBind(\.blob, from: c, keyPath: \.blob)
      for badge in [a, b, c] { badge.writes.removeAll() }
      a.blob = Blob(9)
      #expect(a.writes == ["blob=9", "blob=9"])
      #expect(b.writes == ["blob=9"])
      #expect(c.writes == ["blob=9"])
    }
  }

  /// Binds `badge.text` to `profile.name` and returns the handle.
  @discardableResult
  private func bind(_ badge: Badge, _ profile: Profile) -> KeyValueObservation {
    badge.autoBind(\.text, from: profile, keyPath: \.name)
  }

  @Test(
    "B5: cancel(), stopObserving(object), stopObserving(object, keyPath:) and stopObservingAll() end it; nothing is written after"
  )
  func endingEvents() {
    let ends: [(Badge, Profile, KeyValueObservation) -> Void] = [
      { _, _, handle in handle.cancel() },
      { badge, profile, _ in badge.stopObserving(profile) },
      { badge, profile, _ in badge.stopObserving(profile, keyPath: \.name) },
      { badge, _, _ in badge.stopObservingAll() },
    ]
    for end in ends {
      let profile = Profile(name: "Ann")
      let badge = Badge()
      let handle = bind(badge, profile)
      #expect(badge.activeObservations.map(ObjectIdentifier.init) == [ObjectIdentifier(handle)])
      #expect(profile.observationRegistry.observerCount == 1)
      end(badge, profile, handle)
      #expect(handle.isCancelled)
      #expect(profile.observationRegistry.observerCount == 0)
      profile.name = "Bo"
      #expect(badge.writes == ["text=Ann"])
    }
  }

  @Test("B5: the target deallocated first ends it; neither side is retained")
  func targetDeallocatedFirst() {
    let tracker = LifetimeTracker()
    let profile = Profile(name: "Ann")
    var badge: Badge? = Badge(tracker: tracker)
    let handle = bind(badge!, profile)
    badge = nil
    #expect(tracker.liveCount == 0)
    #expect(handle.isCancelled)
    #expect(profile.observationRegistry.observerCount == 0)
    profile.name = "Bo"
  }

  @Test("B5: the object deallocated first ends it, and the target keeps the last value")
  func objectDeallocatedFirst() {
    let tracker = LifetimeTracker()
    let badge = Badge()
    var profile: Profile? = Profile(name: "Ann", tracker: tracker)
    let handle = bind(badge, profile!)
    profile!.name = "Bo"
    profile = nil
    #expect(tracker.liveCount == 0)
    #expect(handle.isCancelled)
    #expect(badge.text == "Bo")
    #expect(badge.observationRegistry.observingCount == 0)
  }

  @Test("B5: the transform is released when the binding ends; dropping the handle does not end it")
  func transformReleased() {
    let tracker = LifetimeTracker()
    let profile = Profile()
    let badge = Badge()
    do {
      let token = Token(tracker)
      _ = badge.autoBind(\.text, from: profile, keyPath: \.age) { age in
        withExtendedLifetime(token) { "\(age)" }
      }
    }
    profile.age = 1
    #expect(badge.text == "1")
    #expect(tracker.liveCount == 1)
    badge.stopObservingAll()
    #expect(tracker.liveCount == 0)
  }

  @Test("B5: an earlier handler of the same change that cancels the binding prevents its write")
  func cancelledByAnEarlierHandler() {
    let profile = Profile(name: "Ann")
    let badge = Badge()
    let handle = Cell<KeyValueObservation?>(nil)
    let watcher = Watcher()
    watcher.autoObserve(profile, keyPath: \.name) { _, _, _ in handle.value?.cancel() }
    handle.value = bind(badge, profile)
    profile.name = "Bo"
    #expect(badge.writes == ["text=Ann"])
  }

  @Test("B6: from nonisolated code, the write happens on the mutating thread, during the set")
  func writesDuringTheSet() {
    let profile = Profile(name: "Ann")
    let badge = Badge()
    bind(badge, profile)
    let done = DispatchSemaphore(value: 0)
    let seenDuringSet = LockedCell("")
    Thread {
      profile.name = "Bo"
      seenDuringSet.mutate { $0 = badge.storedText }
      done.signal()
    }.start()
    done.wait()
    #expect(seenDuringSet.value == "Bo")
  }

  @Test("B6: from the main actor, a change made on another thread is written on the main actor")
  @MainActor
  func writesOnTheMainActor() async {
    let profile = Profile(name: "Ann")
    let label = MainActorLabel()
    label.autoBind(\.text, from: profile, keyPath: \.name)
    #expect(label.texts == ["Ann"])
    await Task.detached { profile.name = "Bo" }.value
    #expect(await eventually { label.texts.count == 2 })
    #expect(label.texts == ["Ann", "Bo"])
  }

  @Test(
    "B7: a binding of a property to itself is refused with .bindingToItself; two properties of one object may be bound"
  )
  func bindingToItself() {
    let recorder = DiagnosticsRecorder()
    defer { recorder.restore() }
    let badge = Badge()
    let handle = badge.autoBind(\.text, from: badge, keyPath: \.text)
    let line = #line - 1
    #expect(recorder.kinds == [.bindingToItself])
    #expect(recorder.messages.first?.contains("Badge") == true)
    #expect(recorder.messages.first?.contains("OneWayBindingTests.swift:\(line)") == true)
    #expect(handle.isCancelled)
    #expect(badge.observationRegistry.observerCount == 0)
    badge.autoBind(\.optionalText, from: badge, keyPath: \.text)
    badge.text = "x"
    #expect(badge.optionalText == "x")
    #expect(recorder.kinds == [.bindingToItself])
  }

  @Test("B7: a source key path that can never notify gets .keyPathNeverNotifies")
  func sourceNeverNotifies() {
    let recorder = DiagnosticsRecorder()
    defer { recorder.restore() }
    let profile = Profile()
    let badge = Badge()
    badge.autoBind(\.text, from: profile, keyPath: \.plain) { "\($0)" }
    #expect(recorder.kinds == [.keyPathNeverNotifies])
    #expect(recorder.messages.first?.contains("plain") == true)
    // The message names the call that was made.
    #expect(recorder.messages.first?.hasPrefix("autoBind(_:from:keyPath: Profile.plain)") == true)
  }

  @Test("B7: a binding made in either side's deinit is refused with .registrationWhileDeallocating")
  func fromDeinit() {
    let recorder = DiagnosticsRecorder()
    defer { recorder.restore() }
    let profile = Profile()
    let badge = Badge()
    let handles = Cell<[KeyValueObservation]>([])
    do {
      _ = DeinitRegistrar { registrar in
        handles.value.append(registrar.autoBind(\.label, from: profile, keyPath: \.name))
      }
    }
    do {
      _ = DeinitObserved { observed in
        handles.value.append(badge.autoBind(\.text, from: observed, keyPath: \.other))
      }
    }
    #expect(recorder.kinds == [.registrationWhileDeallocating, .registrationWhileDeallocating])
    #expect(handles.value.allSatisfy { $0.isCancelled })
    #expect(profile.observationRegistry.observerCount == 0)
    #expect(badge.writes == [])
  }
}

/// A main-actor target that records what it is given.
@MainActor
final class MainActorLabel: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  var texts: [String] = []
  var text: String {
    get { texts.last ?? "" }
    set {
      MainActor.preconditionIsolated()
      texts.append(newValue)
    }
  }
}
