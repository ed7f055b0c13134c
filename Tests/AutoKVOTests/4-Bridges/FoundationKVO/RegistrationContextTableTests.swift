import Testing

@testable import AutoKVO

@Suite("Context table: one shared observer finds each registration by a context never reused")
struct RegistrationContextTableTests {
  @Test("Contexts are unique, never zero, and never handed out again after removal")
  func contextsAreNeverReused() {
    let table = RegistrationContextTable<Token>()
    var seen = Set<UInt>()
    for _ in 0..<100 {
      let context = table.makeContext()
      #expect(context != 0)
      #expect(seen.insert(context).inserted)
      table.removeContext(context)
    }
    #expect(table.count == 0)
  }

  @Test("An entry is found by its context until the context is removed")
  func entryFoundUntilRemoved() {
    let table = RegistrationContextTable<Token>()
    let token = Token(LifetimeTracker())
    let context = table.makeContext()
    #expect(table.entry(for: context) == nil, "a reserved context has no entry yet")
    table.setEntry(token, for: context)
    #expect(table.entry(for: context) === token)
    #expect(table.entry(for: context &+ 1) == nil)

    table.removeContext(context)
    table.removeContext(context)  // removing twice is a no-op

    #expect(table.entry(for: context) == nil)
  }

  @Test("The table holds entries weakly: a released entry is no longer found")
  func entriesAreWeak() {
    let tracker = LifetimeTracker()
    let table = RegistrationContextTable<Token>()
    var token: Token? = Token(tracker)
    let context = table.makeContext()
    table.setEntry(token!, for: context)

    token = nil

    #expect(tracker.liveCount == 0)
    #expect(table.entry(for: context) == nil)
  }

  @Test("Contexts made on two threads at once are distinct")
  func concurrentContextsAreDistinct() {
    let table = RegistrationContextTable<Token>()
    let first = Box<[UInt]>()
    let second = Box<[UInt]>()
    runSimultaneously([
      { first.value = (0..<500).map { _ in table.makeContext() } },
      { second.value = (0..<500).map { _ in table.makeContext() } },
    ])
    let all = (first.value ?? []) + (second.value ?? [])
    #expect(Set(all).count == 1000)
  }
}
