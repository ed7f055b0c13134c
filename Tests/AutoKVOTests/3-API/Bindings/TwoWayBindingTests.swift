import Dispatch
import Foundation
import Testing

@testable import AutoKVO

@Suite("Two-way bindings: autoSync(_:with:keyPath:) (T1–T8)")
struct TwoWayBindingTests {
  @Test(
    "T1: the target takes the object's value before autoSync returns; the object is not written")
  func initialDirection() {
    let field = Badge()
    let model = Badge()
    model.storedText = "Ann"
    field.storedText = "typed"
    field.autoSync(\.text, with: model, keyPath: \.text)
    #expect(field.writes == ["text=Ann"])
    #expect(model.writes == [])
  }

  @Test("T1: two sides already equal: nothing is written")
  func initiallyEqual() {
    let field = Badge()
    let model = Badge()
    field.autoSync(\.text, with: model, keyPath: \.text)
    #expect(field.writes == [])
    #expect(model.writes == [])
  }

  @Test("T2/T3: a change of either side is written to the other once, and never back")
  func propagation() {
    let field = Badge()
    let model = Badge()
    field.autoSync(\.text, with: model, keyPath: \.text)
    field.text = "a"
    #expect(model.writes == ["text=a"])
    #expect(field.writes == ["text=a"])
    model.text = "b"
    #expect(field.writes == ["text=a", "text=b"])
    #expect(model.writes == ["text=a", "text=b"])
  }

  @Test("T2: a side that already holds an equal value is not written")
  func equalNotWritten() {
    let field = Badge()
    let model = Badge()
    field.autoSync(\.text, with: model, keyPath: \.text)
    field.storedText = "a"  // notifies, and the model follows
    model.writes.removeAll()
    field.text = "a"
    #expect(model.writes == [])
  }

  @Test("T2: a collection mutation writes the whole value to the other side")
  func collectionWholeValue() {
    let field = Badge()
    let profile = Profile()
    field.autoSync(\.tags, with: profile, keyPath: \.tags)
    profile.mutableArrayValue(for: \.tags).append("x")
    #expect(field.writes == ["tags=[\"x\"]"])
  }

  @Test("T3: NaN costs one write to the other side and no write-back")
  func nan() {
    let field = Badge()
    let model = Badge()
    field.autoSync(\.level, with: model, keyPath: \.level)
    field.level = .nan
    #expect(field.writes == ["level=nan"])
    #expect(model.writes == ["level=nan"])
    model.level = .nan
    #expect(field.writes == ["level=nan", "level=nan"])
    #expect(model.writes == ["level=nan", "level=nan"])
  }

  @Test("T4: a clamping setter's kept value is written back once, and both sides end equal")
  func clampingSetter() {
    let field = Badge()
    let profile = Profile()
    field.autoSync(\.level, with: profile, keyPath: \.atMostTen)
    field.level = 15
    #expect(profile.level == 10)
    #expect(field.level == 10)
    #expect(field.writes == ["level=15.0", "level=10.0"])
  }

  @Test(
    "T4: two sides that can never agree are left as their setters left them, with no loop and no diagnostic"
  )
  func neverAgree() {
    let recorder = DiagnosticsRecorder()
    defer { recorder.restore() }
    let field = Badge()
    let profile = Profile()
    field.autoSync(\.atLeastTwelve, with: profile, keyPath: \.atMostTen)
    field.atLeastTwelve = 20
    #expect(profile.level == 10)
    #expect(field.storedLevel == 12)
    #expect(field.writes == ["atLeastTwelve=20.0", "atLeastTwelve=10.0"])
    #expect(recorder.kinds == [])
  }

  /// Syncs `field.text` with `model.text` and returns the handle.
  @discardableResult
  private func sync(_ field: Badge, _ model: Badge) -> KeyValueObservation {
    field.autoSync(\.text, with: model, keyPath: \.text)
  }

  @Test(
    "T5/T6: every ending event ends both directions together, exactly once, and the counts come back"
  )
  func endingEvents() {
    let ends: [(Badge, Badge, KeyValueObservation) -> Void] = [
      { _, _, handle in handle.cancel() },
      { field, _, _ in field.activeObservations.first?.cancel() },
      { field, model, _ in field.stopObserving(model) },
      { field, model, _ in field.stopObserving(model, keyPath: \.text) },
      { field, _, _ in field.stopObservingAll() },
      { field, model, _ in model.stopObserving(field) },
      { field, model, _ in model.stopObserving(field, keyPath: \.text) },
      { _, model, _ in model.stopObservingAll() },
    ]
    for end in ends {
      let field = Badge()
      let model = Badge()
      let handle = sync(field, model)
      for badge in [field, model] {
        #expect(badge.observationRegistry.observerCount == 1)
        #expect(badge.observationRegistry.observingCount == 1)
      }
      end(field, model, handle)
      #expect(handle.isCancelled)
      for badge in [field, model] {
        #expect(badge.observationRegistry.observerCount == 0)
        #expect(badge.observationRegistry.observingCount == 0)
      }
      field.text = "a"
      model.text = "b"
      #expect(field.writes == ["text=a"])
      #expect(model.writes == ["text=b"])
    }
  }

  @Test("T5: the target deallocated first ends both directions; neither side is retained")
  func targetDeallocatedFirst() {
    let tracker = LifetimeTracker()
    let model = Badge()
    var field: Badge? = Badge(tracker: tracker)
    let handle = sync(field!, model)
    field = nil
    #expect(tracker.liveCount == 0)
    #expect(handle.isCancelled)
    #expect(model.observationRegistry.observerCount == 0)
    #expect(model.observationRegistry.observingCount == 0)
    model.text = "b"
  }

  @Test("T5: the object deallocated first ends both directions; neither side is retained")
  func objectDeallocatedFirst() {
    let tracker = LifetimeTracker()
    let field = Badge()
    var model: Badge? = Badge(tracker: tracker)
    let handle = sync(field, model!)
    model = nil
    #expect(tracker.liveCount == 0)
    #expect(handle.isCancelled)
    #expect(field.observationRegistry.observerCount == 0)
    #expect(field.observationRegistry.observingCount == 0)
    field.text = "a"
  }

  @Test("T5: dropping the handle does not end it")
  func droppingTheHandle() {
    let field = Badge()
    let model = Badge()
    _ = sync(field, model)
    model.text = "b"
    #expect(field.text == "b")
  }

  @Test("T5: a binding cancelled inside the target's setter does not write the kept value back")
  func cancelledInsideTheSetter() {
    let field = Badge()
    let profile = Profile()
    let handle = field.autoSync(\.level, with: profile, keyPath: \.atMostTen)
    // The profile clamps; the field's write of 15 is written to it, which keeps 10, and the
    // write-back would follow: cancelled inside the profile's setter, through an observer.
    let watcher = Watcher()
    watcher.autoObserve(profile, keyPath: \.level) { _, _, _ in handle.cancel() }
    field.level = 15
    #expect(profile.level == 10)
    #expect(field.writes == ["level=15.0"])
  }

  @Test("T7: from nonisolated code, a change is written on the thread that made it, during the set")
  func nonisolatedDuringTheSet() {
    let field = Badge()
    let model = Badge()
    sync(field, model)
    let seen = LockedCell<[String]>([])
    let done = DispatchSemaphore(value: 0)
    Thread {
      model.text = "b"
      seen.mutate { $0.append(field.storedText) }
      field.text = "c"
      seen.mutate { $0.append(model.storedText) }
      done.signal()
    }.start()
    done.wait()
    #expect(seen.value == ["b", "c"])
  }

  @Test(
    "T7: echo suppression is per thread: a set made on another thread while the binding writes is written"
  )
  func perThreadEchoSuppression() {
    let field = Badge()
    let model = Badge()
    sync(field, model)
    let once = Cell(true)
    field.onTextWrite = {
      guard once.value else { return }
      once.value = false
      let done = DispatchSemaphore(value: 0)
      Thread {
        model.text = "y"
        done.signal()
      }.start()
      done.wait()
    }
    model.text = "x"
    #expect(field.writes == ["text=x", "text=y"])
    #expect(model.writes == ["text=x", "text=y"])
    #expect(field.text == "y")
  }

  @Test(
    "T7: from the main actor, the object's change on another thread is written on the main actor; the target's, during the set"
  )
  @MainActor
  func mainActor() async {
    let model = Profile(name: "Ann")
    let field = MainActorField()
    field.autoSync(\.text, with: model, keyPath: \.name)
    #expect(field.texts == ["Ann"])
    await Task.detached { model.name = "Bo" }.value
    #expect(await eventually { field.texts.count == 2 })
    #expect(field.texts == ["Ann", "Bo"])
    field.text = "Cy"
    #expect(model.name == "Cy")
    #expect(field.texts == ["Ann", "Bo", "Cy"])
  }

  @Test("T8: the same property of the same object is refused with .bindingToItself")
  func bindingToItself() {
    let recorder = DiagnosticsRecorder()
    defer { recorder.restore() }
    let badge = Badge()
    let handle = badge.autoSync(\.text, with: badge, keyPath: \.text)
    let line = #line - 1
    #expect(recorder.kinds == [.bindingToItself])
    #expect(recorder.messages.first?.contains("TwoWayBindingTests.swift:\(line)") == true)
    #expect(handle.isCancelled)
    #expect(badge.observationRegistry.observerCount == 0)
  }

  @Test(
    "T8: a target property that can never notify is reported; the object → target direction works")
  func targetNeverNotifies() {
    let recorder = DiagnosticsRecorder()
    defer { recorder.restore() }
    let badge = Badge()
    let profile = Profile(name: "Ann")
    let handle = badge.autoSync(\.plainText, with: profile, keyPath: \.name)
    #expect(recorder.kinds == [.keyPathNeverNotifies])
    #expect(recorder.messages.first?.contains("plainText") == true)
    #expect(recorder.messages.first?.hasPrefix("autoSync(_:with:keyPath: Badge.plainText)") == true)
    #expect(!handle.isCancelled)
    #expect(badge.plainText == "Ann")
    profile.name = "Bo"
    #expect(badge.plainText == "Bo")
    badge.plainText = "Cy"
    #expect(profile.name == "Bo")
  }

  @Test(
    "T8: made in either side's deinit, the binding is refused with .registrationWhileDeallocating")
  func fromDeinit() {
    let recorder = DiagnosticsRecorder()
    defer { recorder.restore() }
    let profile = Profile()
    let badge = Badge()
    let handles = Cell<[KeyValueObservation]>([])
    do {
      _ = DeinitRegistrar { registrar in
        handles.value.append(registrar.autoSync(\.label, with: profile, keyPath: \.name))
      }
    }
    do {
      _ = DeinitObserved { observed in
        handles.value.append(badge.autoSync(\.text, with: observed, keyPath: \.other))
      }
    }
    #expect(recorder.kinds == [.registrationWhileDeallocating, .registrationWhileDeallocating])
    #expect(handles.value.allSatisfy { $0.isCancelled })
    #expect(profile.observationRegistry.observerCount == 0)
    #expect(badge.observationRegistry.observerCount == 0)
  }
}

/// A main-actor field, observable, that records what it is given.
@MainActor
final class MainActorField: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  @Observed var stored = ""
  var texts: [String] = []
  var text: String {
    get { stored }
    set {
      MainActor.preconditionIsolated()
      texts.append(newValue)
      stored = newValue
    }
  }
}
