import AutoKVO
import Foundation

// The bindings and the several-key-path form for each receiver × object pair they take on Apple
// platforms, with the types of OverloadMatrix.swift: an `NSObject` object is observed with
// Foundation's KVO, by any receiver for `autoBind` and by a `KeyValueObservable` one for
// `autoObserve(_:keyPaths:)`. Type-checked by .ci/apple-overloads; nothing here runs.
final class Label: NSObject {
  @objc dynamic var text: String? = ""
  @objc dynamic var count = 0
}
final class EngineLabel: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  var text: String? = ""
  var count = 0
  var title = ""
}

func bindingMatrix(
  _ plain: PlainObject, _ engine: EngineObject, _ hybrid: HybridObject, _ label: Label,
  _ engineLabel: EngineLabel
) {
  // One-way, plain and with a transform, into an NSObject and into a KeyValueObservable target.
  label.autoBind(\.count, from: plain, keyPath: \.value)
  label.autoBind(\.count, from: engine, keyPath: \.value)
  label.autoBind(\.count, from: hybrid, keyPath: \.value)
  label.autoBind(\.count, from: hybrid, keyPath: \.engineValue)
  label.autoBind(\.text, from: plain, keyPath: \.value) { "\($0)" }
  engineLabel.autoBind(\.count, from: plain, keyPath: \.value)
  engineLabel.autoBind(\.count, from: engine, keyPath: \.value)
  engineLabel.autoBind(\.count, from: hybrid, keyPath: \.value)
  engineLabel.autoBind(\.title, from: plain, keyPath: \.value) { "\($0)" }
  // An optional target from a non-optional source, without a transform.
  engineLabel.autoBind(\.text, from: label, keyPath: \.text)
  // Several key paths of each kind of object.
  engine.autoObserve(plain, keyPaths: [\.value]) { _, _, _, _ in }
  engine.autoObserve(engine, keyPaths: [\.value]) { _, _, _, _ in }
  engine.autoObserve(hybrid, keyPaths: [\.value, \.engineValue]) { _, _, _, _ in }
  hybrid.autoObserve(plain, keyPaths: [\.value]) { _, _, _, _ in }
}
