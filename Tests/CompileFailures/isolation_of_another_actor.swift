// expected-error: call to actor-isolated instance method 'autoObserve(_:keyPath:options:isolation:file:line:changeHandler:)' in a synchronous main actor-isolated context
//
// From synchronous isolated code, `isolation:` cannot name another actor than the caller's.
// (What the compiler does not check, an explicit `nil` or an `await`ed call from asynchronous
// code, is listed under "Where the handler runs" in SwiftConcurrency.md.)
import AutoKVO

final class Person: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  @Observed var name = "Ann"
}

actor Archive {}

@MainActor final class ViewModel: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  var title = ""

  func bind(to person: Person, archive: Archive) {
    autoObserve(person, keyPath: \.name, isolation: archive) { viewModel, _, change in
      viewModel.title = change.newValue ?? ""
    }
  }
}
