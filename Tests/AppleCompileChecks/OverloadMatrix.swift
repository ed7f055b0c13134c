import AutoKVO
import Foundation

// Every observer × observed object pair of the Apple matrix resolves to one `autoObserve`, with no
// method written for the pair (Docs/Apple.md, "Which `autoObserve` a call picks"). Type-checked by
// .ci/apple-overloads against the macOS SDK; nothing here runs.
final class PlainObject: NSObject { @objc dynamic var value = 0 }
final class EngineObject: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  @Observed var value = 0
}
final class HybridObject: NSObject, KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  @objc dynamic var value = 0
  @Observed var engineValue = 0
}

func matrix(_ plain: PlainObject, _ engine: EngineObject, _ hybrid: HybridObject) {
  plain.autoObserve(plain, keyPath: \.value) { _, _, _ in }
  plain.autoObserve(engine, keyPath: \.value) { _, _, _ in }
  plain.autoObserve(hybrid, keyPath: \.value) { _, _, _ in }
  plain.autoObserve(hybrid, keyPath: \.engineValue) { _, _, _ in }
  engine.autoObserve(plain, keyPath: \.value) { _, _, _ in }
  engine.autoObserve(engine, keyPath: \.value) { _, _, _ in }
  engine.autoObserve(hybrid, keyPath: \.value) { _, _, _ in }
  engine.autoObserve(hybrid, keyPath: \.engineValue) { _, _, _ in }
  hybrid.autoObserve(plain, keyPath: \.value) { _, _, _ in }
  hybrid.autoObserve(engine, keyPath: \.value) { _, _, _ in }
  hybrid.autoObserve(hybrid, keyPath: \.value) { _, _, _ in }
  hybrid.autoObserve(hybrid, keyPath: \.engineValue) { _, _, _ in }
  // The queue form, for objects AutoKVO's engine observes.
  engine.autoObserve(engine, keyPath: \.value, deliveryQueue: .main) { _, _, _ in }
  engine.autoObserve(hybrid, keyPath: \.engineValue, deliveryQueue: .main) { _, _, _ in }
  // The sequence form.
  engine.autoObserve(each: [engine], keyPath: \.value) { _, _, _ in }
}
