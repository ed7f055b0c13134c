import AutoKVO
import Observation
import Testing

/// After the scenarios of Swift's own `Observations` tests (`test/stdlib/Observation/Observations.swift`).
@Suite("Swift Observation: Observations { model.property } yields an AutoKVO model's values")
@MainActor
struct ObservationsSequenceTests {
  @Test("The first value, then the value after a set")
  func initialThenChange() async {
    let contact = Contact()
    var values = Observations { contact.firstName }.makeAsyncIterator()
    #expect(await values.next() == "Ann")
    Task {
      await Task.yield()
      contact.firstName = "Bo"
    }
    #expect(await values.next() == "Bo")
  }

  @Test("A computed value of two properties, changed together in one transaction")
  func twoPropertiesOneTransaction() async {
    let contact = Contact()
    var values = Observations { contact.fullName }.makeAsyncIterator()
    #expect(await values.next() == "Ann Lee")
    Task {
      await Task.yield()
      contact.firstName = "Bo"
      contact.lastName = "Kim"
    }
    #expect(await values.next() == "Bo Kim")
  }

  @Test("Rapid successive sets yield the final value")
  func rapidChanges() async {
    let contact = Contact()
    var values = Observations { contact.firstName }.makeAsyncIterator()
    #expect(await values.next() == "Ann")
    Task {
      await Task.yield()
      for index in 1...5 { contact.firstName = "\(index)" }
    }
    #expect(await values.next() == "5")
  }

  @Test("A proxy mutation and a manual notification each yield the new value")
  func proxyAndManualChanges() async {
    let bookcase = Bookcase()
    var books = Observations { bookcase.books }.makeAsyncIterator()
    #expect(await books.next() == [])
    Task {
      await Task.yield()
      bookcase.mutableArrayValue(for: \.books).append("a")
    }
    #expect(await books.next() == ["a"])
    var balances = Observations { bookcase.balance }.makeAsyncIterator()
    #expect(await balances.next() == 0)
    Task {
      await Task.yield()
      bookcase.deposit(7)
    }
    #expect(await balances.next() == 7)
  }
}
