// expected-error: cannot convert value of type 'Int?' to specified type 'String'
// expected-error: cannot assign value of type 'Int?' to type 'String'
//
// A type error inside a handler is reported as itself for every observer kind: a
// `KeyValueObservable` class, a plain `NSObject`, an `NSObject` that is both.
import AutoKVO
import Foundation

final class Counter: NSObject { @objc dynamic var value = 0 }
final class Label: NSObject { var text = "" }
final class Model: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  @Observed var value = 0
}
final class Hybrid: NSObject, KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  @objc dynamic var value = 0
}

func bind(_ counter: Counter, _ label: Label, _ model: Model, _ hybrid: Hybrid) {
  model.autoObserve(model, keyPath: \.value) { _, _, change in
    let text: String = change.newValue
    _ = text
  }
  label.autoObserve(counter, keyPath: \.value) { label, _, change in
    label.text = change.newValue
  }
  hybrid.autoObserve(hybrid, keyPath: \.value) { _, _, change in
    let text: String = change.newValue
    _ = text
  }
}
