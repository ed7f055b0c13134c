import AutoKVO
import Foundation

// `stopObserving(_:keyPath:)`, `stopObserving(_:)`, `stopObservingAll()` and
// `activeObservations` resolve for every observer × observed object pair of the Apple matrix
// (the classes of OverloadMatrix.swift). Type-checked by .ci/apple-overloads; nothing here runs.
func control(_ plain: PlainObject, _ engine: EngineObject, _ hybrid: HybridObject) {
  let counts: [Int] = [
    plain.stopObserving(plain, keyPath: \.value), plain.stopObserving(engine, keyPath: \.value),
    plain.stopObserving(hybrid, keyPath: \.value), plain.stopObserving(plain),
    plain.stopObserving(engine), plain.stopObserving(hybrid),
    engine.stopObserving(plain, keyPath: \.value), engine.stopObserving(engine, keyPath: \.value),
    engine.stopObserving(hybrid, keyPath: \.value), engine.stopObserving(plain),
    engine.stopObserving(engine), engine.stopObserving(hybrid),
    hybrid.stopObserving(plain, keyPath: \.value), hybrid.stopObserving(engine, keyPath: \.value),
    hybrid.stopObserving(hybrid, keyPath: \.value), hybrid.stopObserving(plain),
    hybrid.stopObserving(engine), hybrid.stopObserving(hybrid),
    plain.stopObservingAll(), engine.stopObservingAll(), hybrid.stopObservingAll(),
  ]
  let active: [[KeyValueObservation]] = [
    plain.activeObservations, engine.activeObservations, hybrid.activeObservations,
  ]
  _ = (counts, active)
}

#if canImport(Observation)
  import Observation

  // With the Observation module (a macOS 14 / iOS 17 SDK): a class that is both
  // `KeyValueObservable` and `Observable`, and an `@Observable` `NSObject`, keep their forms; a
  // plain `@Observable` model gets the unavailable form's message (Failures/).
  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  final class ObservableEngineObject: KeyValueObservable, Observable {
    let observationRegistry = ObservationRegistry()
    @Observed var value = 0
  }

  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  final class ObservableNSObject: NSObject, Observable {
    @objc dynamic var value = 0
  }

  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  func observableObjects(
    _ plain: PlainObject, _ engine: EngineObject, _ both: ObservableEngineObject,
    _ objectiveC: ObservableNSObject
  ) {
    plain.autoObserve(both, keyPath: \.value) { _, _, _ in }
    engine.autoObserve(both, keyPath: \.value) { _, _, _ in }
    plain.autoObserve(objectiveC, keyPath: \.value) { _, _, _ in }
    engine.autoObserve(objectiveC, keyPath: \.value) { _, _, _ in }
  }
#endif
