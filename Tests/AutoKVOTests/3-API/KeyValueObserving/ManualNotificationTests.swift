import Foundation
import Testing

@testable import AutoKVO

@Suite("Manual notification: will/did pairs, as in KVO", .serialized)
struct ManualNotificationTests {
  @Test("With automatic notification off, a set is silent and a will/did pair notifies once")
  func pairNotifiesOnce() {
    let account = Account()
    let watcher = Watcher()
    watcher.autoObserve(account, keyPath: \.balance) { w, _, c in w.record(describe(c)) }
    account.balance = 10
    #expect(watcher.log.isEmpty)
    account.willChangeValue(for: \.balance)
    account.balance = 20
    account.didChangeValue(for: \.balance)
    #expect(watcher.log == ["setting 10->20"])
  }

  @Test("The old value is read at will and the new value at did")
  func valuesReadAtWillAndDid() {
    let account = Account()
    let watcher = Watcher()
    watcher.autoObserve(account, keyPath: \.note, options: [.old, .new, .prior]) { w, _, c in
      w.record(describe(c))
    }
    account.note = "a"
    account.willChangeValue(for: \.note)
    account.note = "b"
    account.note = "c"
    account.didChangeValue(for: \.note)
    #expect(watcher.log == ["prior setting a->nil", "setting a->c"])
  }

  @Test("Automatic notification stays on for the keys the class does not exclude")
  func otherKeysStayAutomatic() {
    let account = Account()
    let watcher = Watcher()
    watcher.autoObserve(account, keyPath: \.owner) { w, _, c in w.record(describe(c)) }
    account.owner = "Bob"
    #expect(watcher.log == ["setting Ann->Bob"])
  }

  @Test("A lone didChangeValue notifies nothing and reports a diagnostic")
  func loneDidChange() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let account = Account()
    let watcher = Watcher()
    watcher.autoObserve(account, keyPath: \.balance) { w, _, c in w.record(describe(c)) }
    account.didChangeValue(for: \.balance)
    #expect(watcher.log.isEmpty)
    #expect(diagnostics.kinds == [.unmatchedDidChange])
    // Named as declared, not as the key path describes itself (`\Account.<computed 0x…>`).
    #expect(diagnostics.messages.first?.contains("didChangeValue(for: Account.balance)") == true)
    #expect(diagnostics.messages.first?.contains("<computed") == false)
  }

  @Test("A lone didChangeValue of a plain stored property names it too")
  func loneDidChangeOfStoredProperty() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let account = Account()
    account.didChangeValue(for: \.note)
    #expect(diagnostics.kinds == [.unmatchedDidChange])
    #expect(diagnostics.messages.first?.contains("didChangeValue(for: Account.note)") == true)
  }

  @Test("A lone didChangeValue of an inherited property names it by its declaration")
  func loneDidChangeOfInheritedProperty() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let derived = NamedSubclass()
    derived.didChangeValue(for: \NamedSubclass.name)
    #expect(diagnostics.kinds == [.unmatchedDidChange])
    #expect(diagnostics.messages.first?.contains("didChangeValue(for: PersonBase.name)") == true)
  }

  @Test("Nested will/did pairs for different keys deliver one notification per key")
  func nestedPairs() {
    let account = Account()
    let watcher = Watcher()
    watcher.autoObserve(account, keyPath: \.balance) { w, _, c in w.record("balance \(describe(c))")
    }
    watcher.autoObserve(account, keyPath: \.note) { w, _, c in w.record("note \(describe(c))") }
    account.willChangeValue(for: \.balance)
    account.willChangeValue(for: \.note)
    account.balance = 5
    account.note = "x"
    account.didChangeValue(for: \.note)
    account.didChangeValue(for: \.balance)
    #expect(watcher.log == ["note setting ->x", "balance setting 0->5"])
  }

  @Test("A will/did pair on an object nobody observes yet does not report a diagnostic")
  func pairWithoutObservers() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let account = Account()
    account.willChangeValue(for: \.balance)
    let watcher = Watcher()
    watcher.autoObserve(account, keyPath: \.balance) { w, _, c in w.record(describe(c)) }
    account.didChangeValue(for: \.balance)
    #expect(diagnostics.kinds.isEmpty)
    #expect(
      watcher.log.isEmpty, "the registration came after will; it is not notified of this change")
  }
}

private final class NamedSubclass: PersonBase, @unchecked Sendable {}  // single-threaded tests
