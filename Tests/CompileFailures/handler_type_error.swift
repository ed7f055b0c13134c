// expected-error: cannot assign value of type 'Int?' to type 'String'
//
// A type error inside a handler is reported as itself, not as an overload that does not apply
// ("requires that 'Person' conform to 'Sequence'", before the sequence form took its `each:`).
import AutoKVO

final class Person: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  @Observed var age = 0
}

final class Badge: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  var text = ""
}

let badge = Badge()
let person = Person()
badge.autoObserve(person, keyPath: \.age) { badge, _, change in
  badge.text = change.newValue
}
