// expected-error: is unavailable: AutoKVO cannot bind from an @Observable model on Apple platforms: make the class KeyValueObservable
// needs-module: Observation
//
// With a macOS 14 / iOS 17 SDK (`AUTOKVO_DARWIN_CACHE` of typecheck-observation's variant): a
// binding from an `@Observable` model is refused with the reason and what to do.
import AutoKVO
import Foundation
import Observation

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@Observable final class Counter { var count = 0 }

final class Badge: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  var text = ""
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
func observe(_ badge: Badge, _ counter: Counter) {
  badge.autoBind(\.text, from: counter, keyPath: \.count) { "\($0)" }
}
