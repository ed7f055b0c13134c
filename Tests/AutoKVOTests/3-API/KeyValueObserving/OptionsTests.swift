import Testing

@testable import AutoKVO

@Suite("Options: .initial, .prior, .old and .new deliver exactly what they promise")
struct OptionsTests {
  @Test(".initial calls the handler synchronously inside autoObserve, with the new value only")
  func initialDeliversCurrentValue() {
    let person = Person(name: "Ann")
    let watcher = Watcher()
    watcher.autoObserve(person, keyPath: \.name, options: [.initial, .old, .new]) { w, _, c in
      w.record(describe(c))
    }
    #expect(watcher.log == ["setting nil->Ann"])
  }

  @Test(".initial without .new carries no value")
  func initialWithoutNew() {
    let person = Person()
    let watcher = Watcher()
    var change: KeyValueChange<String>?
    watcher.autoObserve(person, keyPath: \.name, options: [.initial]) { _, _, c in change = c }
    #expect(change == KeyValueChange(kind: .setting))
  }

  @Test(".prior sends a call before the change with the old value, then the normal call")
  func priorThenAfter() {
    let person = Person(age: 30)
    let watcher = Watcher()
    watcher.autoObserve(person, keyPath: \.age, options: [.prior, .old, .new]) { w, p, c in
      w.record("\(describe(c)) seen=\(p.age)")
    }
    person.age = 31
    #expect(watcher.log == ["prior setting 30->nil seen=30", "setting 30->31 seen=31"])
  }

  @Test(".prior without .old carries no value at all")
  func priorWithoutOld() {
    let person = Person(age: 30)
    let watcher = Watcher()
    watcher.autoObserve(person, keyPath: \.age, options: [.prior, .new]) { w, _, c in
      w.record(describe(c))
    }
    person.age = 31
    #expect(watcher.log == ["prior setting nil->nil", "setting nil->31"])
  }

  @Test(
    "Old and new values are present only when requested",
    arguments: zip(
      [ObservationOptions(), .old, .new, [.old, .new]],
      ["setting nil->nil", "setting Ann->nil", "setting nil->Bob", "setting Ann->Bob"]
    ))
  func valuesOnlyWhenRequested(options: ObservationOptions, expected: String) {
    let person = Person(name: "Ann")
    let watcher = Watcher()
    watcher.autoObserve(person, keyPath: \.name, options: options) { w, _, c in
      w.record(describe(c))
    }
    person.name = "Bob"
    #expect(watcher.log == [expected])
  }

  @Test("Setting an equal value still notifies, as KVO's automatic notification does")
  func equalValueNotifies() {
    let person = Person(name: "Ann")
    let watcher = Watcher()
    watcher.autoObserve(person, keyPath: \.name) { w, _, c in w.record(describe(c)) }
    person.name = "Ann"
    person.name = "Ann"
    #expect(watcher.log == ["setting Ann->Ann", "setting Ann->Ann"])
  }

  @Test("Every change has kind .setting, no indexes, and isPrior false unless it is the prior call")
  func settingShape() {
    let person = Person()
    var changes: [KeyValueChange<Int>] = []
    let watcher = Watcher()
    watcher.autoObserve(person, keyPath: \.age, options: [.old, .new, .prior, .initial]) {
      _, _, c in changes.append(c)
    }
    person.age = 40
    #expect(
      changes == [
        KeyValueChange(kind: .setting, newValue: 30),
        KeyValueChange(kind: .setting, oldValue: 30, isPrior: true),
        KeyValueChange(kind: .setting, oldValue: 30, newValue: 40),
      ])
  }

  @Test("The default options are [.old, .new]")
  func defaultOptions() {
    let person = Person(age: 1)
    let watcher = Watcher()
    watcher.autoObserve(person, keyPath: \.age) { w, _, c in w.record(describe(c)) }
    person.age = 2
    #expect(watcher.log == ["setting 1->2"])
  }

  @Test("Option raw values match Foundation's NSKeyValueObservingOptions")
  func rawValues() {
    #expect(ObservationOptions.new.rawValue == 1)
    #expect(ObservationOptions.old.rawValue == 2)
    #expect(ObservationOptions.initial.rawValue == 4)
    #expect(ObservationOptions.prior.rawValue == 8)
    #expect(ChangeKind.setting.rawValue == 1)
    #expect(ChangeKind.replacement.rawValue == 4)
  }
}

@Suite("Properties: stored, computed and inherited @Observed properties notify")
struct PropertyTests {
  @Test("A computed property that reads @Observed properties notifies when any of them changes")
  func computedProperty() {
    let person = Person(name: "Ann", age: 30)
    let watcher = Watcher()
    watcher.autoObserve(person, keyPath: \.summary) { w, _, c in w.record(describe(c)) }
    person.age = 31
    person.name = "Bo"
    #expect(watcher.log == ["setting Ann (30)->Ann (31)", "setting Ann (31)->Bo (31)"])
  }

  @Test("@Observed works in a subclass and for inherited properties")
  func subclass() {
    let employee = Employee()
    let watcher = Watcher()
    watcher.autoObserve(employee, keyPath: \.title) { w, _, c in w.record(describe(c)) }
    watcher.autoObserve(employee, keyPath: \.name) { w, _, c in w.record(describe(c)) }
    employee.title = "Lead"
    employee.name = "Eve"
    #expect(watcher.log == ["setting Engineer->Lead", "setting Base->Eve"])
  }

  @Test("A set of one property does not notify observers of another")
  func otherPropertiesAreSilent() {
    let person = Person()
    let watcher = Watcher()
    watcher.autoObserve(person, keyPath: \.name) { w, _, c in w.record(describe(c)) }
    person.age = 99
    #expect(watcher.log.isEmpty)
  }

  @Test("Reads and writes without observers behave like a plain property")
  func unobservedProperty() {
    let person = Person(name: "Ann")
    person.name += "e"
    #expect(person.name == "Anne")
    #expect(person.observationRegistry.observerCount == 0)
  }
}

@Suite(
  "Ordering: several observers and registrations are independent and run in registration order")
struct OrderingTests {
  @Test("Several observers of one key are each notified once, in registration order")
  func severalObservers() {
    let person = Person()
    let log = Watcher()
    let watchers = (0..<5).map { _ in Watcher() }
    for (index, watcher) in watchers.enumerated() {
      watcher.autoObserve(person, keyPath: \.name) { _, _, _ in log.record("w\(index)") }
    }
    withExtendedLifetime(watchers) { person.name = "Bob" }
    #expect(log.log == ["w0", "w1", "w2", "w3", "w4"])
  }

  @Test("Several registrations by the same observer are independent")
  func sameObserverTwice() {
    let person = Person()
    let watcher = Watcher()
    let first = watcher.autoObserve(person, keyPath: \.name) { w, _, _ in w.record("first") }
    watcher.autoObserve(person, keyPath: \.name, options: .new) { w, _, c in
      w.record("second \(c.newValue!)")
    }
    person.name = "Bob"
    first.cancel()
    person.name = "Cid"
    #expect(watcher.log == ["first", "second Bob", "second Cid"])
    #expect(person.observationRegistry.observerCount == 1)
  }

  @Test("With .prior, every prior call comes before the change and every after call after it")
  func priorCallsComeFirst() {
    let person = Person(age: 1)
    let log = Watcher()
    let watchers = (0..<3).map { _ in Watcher() }
    for (index, watcher) in watchers.enumerated() {
      watcher.autoObserve(person, keyPath: \.age, options: [.prior, .new]) { _, _, c in
        log.record("\(c.isPrior ? "before" : "after")\(index)")
      }
    }
    withExtendedLifetime(watchers) { person.age = 2 }
    #expect(log.log == ["before0", "before1", "before2", "after0", "after1", "after2"])
  }
}
