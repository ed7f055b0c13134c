// expected-error: requires that '[Person]' conform to 'KeyValueObservable'
//
// A sequence of objects is observed with `autoObserve(each:keyPath:)`: the unlabelled spelling
// is not a sequence form.
import AutoKVO

final class Person: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  @Observed var name = "Ann"
}

let board = Person()
let people = [Person(), Person()]
board.autoObserve(people, keyPath: \.name) { _, _, _ in }
