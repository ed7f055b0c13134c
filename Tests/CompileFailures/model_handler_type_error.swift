// expected-error: cannot assign value of type 'Int?' to type 'String'
//
// The same mistake in a handler for an `@Observable` model is reported as itself too.
import AutoKVO
import Observation

@Observable final class Counter {
  var count = 0
}

final class Badge: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  var text = ""
}

let badge = Badge()
let counter = Counter()
badge.autoObserve(counter, keyPath: \.count) { badge, _, change in
  badge.text = change.newValue
}
