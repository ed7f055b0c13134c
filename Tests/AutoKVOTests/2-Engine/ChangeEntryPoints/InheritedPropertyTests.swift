import Foundation
import Testing

@testable import AutoKVO

/// Collection properties declared in a superclass, some notified automatically and some by
/// hand-written accessors, as KVO's indexed accessors are.
class Library: KeyValueObservable, @unchecked Sendable {  // single-threaded tests
  let observationRegistry = ObservationRegistry()
  @Observed var books: [String] = []
  @Observed var genres: Set<String> = []
  @Observed var shelf: [String] = []
  @Observed var labels: Set<String> = []

  static func automaticallyNotifiesObservers(for keyPath: AnyKeyPath) -> Bool {
    keyPath != \Library.shelf && keyPath != \Library.labels
  }

  func shelve(_ book: String, at index: Int) {
    willChange(.insertion, valuesAt: [index], for: \.shelf)
    shelf.insert(book, at: index)
    didChange(.insertion, valuesAt: [index], for: \.shelf)
  }

  func label(_ label: String) {
    willChangeValue(for: \.labels, withSetMutation: .union, using: [label])
    labels.insert(label)
    didChangeValue(for: \.labels, withSetMutation: .union, using: [label])
  }
}

/// Plain stored properties (not `@Observed`) declared in a superclass and notified by hand, as a
/// KVO class's indexed accessors notify an ivar-backed key.
class Ledger: KeyValueObservable, @unchecked Sendable {  // single-threaded tests
  let observationRegistry = ObservationRegistry()
  var rows: [String] = []
  var drafts: [String] = []

  func insertRow(_ row: String, at index: Int) {
    willChange(.insertion, valuesAt: [index], for: \.rows)
    rows.insert(row, at: index)
    didChange(.insertion, valuesAt: [index], for: \.rows)
  }

  func insertDraft(_ draft: String, at index: Int) {
    willChange(.insertion, valuesAt: [index], for: \.drafts)
    drafts.insert(draft, at: index)
    didChange(.insertion, valuesAt: [index], for: \.drafts)
  }
}

final class BranchLedger: Ledger, @unchecked Sendable {  // single-threaded tests
  /// Notifies through the subclass key path: reaches observers of the superclass one.
  func removeRow(at index: Int) {
    willChange(.removal, valuesAt: [index], for: \BranchLedger.rows)
    rows.remove(at: index)
    didChange(.removal, valuesAt: [index], for: \BranchLedger.rows)
  }
}

final class BranchLibrary: Library, @unchecked Sendable {  // single-threaded tests
  /// Writable, of the same type as the inherited `books`, and reading only it: yet a property
  /// of its own, with its own values.
  var reversedBooks: [String] {
    get { books.reversed() }
    set { books = newValue.reversed() }
  }
}

@Suite("Inherited properties: the same notifications through a subclass key path")
struct InheritedPropertyTests {
  private func observe<Value>(
    _ library: BranchLibrary,
    _ keyPath: KeyPath<BranchLibrary, Value>,
    options: ObservationOptions = [.old, .new]
  ) -> (Watcher, Box<[KeyValueChange<Value>]>) {
    let watcher = Watcher()
    let changes = Box<[KeyValueChange<Value>]>()
    changes.value = []
    watcher.autoObserve(library, keyPath: keyPath, options: options) { _, _, change in
      changes.value!.append(change)
    }
    return (watcher, changes)
  }

  @Test("An array proxy through the subclass key path notifies once, with kind and indexes")
  func arrayProxy() {
    let library = BranchLibrary()
    library.books = ["a"]
    let (watcher, changes) = observe(library, \.books)
    let books = library.mutableArrayValue(for: \BranchLibrary.books)
    books.append("b")
    books.remove(at: 0)
    books.replace(at: 0, with: "c")
    #expect(
      changes.value == [
        KeyValueChange(kind: .insertion, newValue: ["b"], indexes: [1]),
        KeyValueChange(kind: .removal, oldValue: ["a"], indexes: [0]),
        KeyValueChange(kind: .replacement, oldValue: ["b"], newValue: ["c"], indexes: [0]),
      ])
    #expect(library.books == ["c"])
    _ = watcher
  }

  @Test("A set proxy through the subclass key path notifies once, with the members changed")
  func setProxy() {
    let library = BranchLibrary()
    library.genres = ["crime"]
    let (watcher, changes) = observe(library, \.genres)
    let genres = library.mutableSetValue(for: \BranchLibrary.genres)
    genres.insert("poetry")
    genres.remove("crime")
    #expect(
      changes.value == [
        KeyValueChange(kind: .insertion, newValue: ["poetry"]),
        KeyValueChange(kind: .removal, oldValue: ["crime"]),
      ])
    _ = watcher
  }

  @Test("A set through the subclass stays one .setting with the old and new values")
  func plainSet() {
    let library = BranchLibrary()
    let (watcher, changes) = observe(library, \.books)
    library.books = ["x"]
    #expect(changes.value == [KeyValueChange(kind: .setting, oldValue: [], newValue: ["x"])])
    _ = watcher
  }

  @Test("Indexed accessors written in the superclass notify observers of the subclass key path")
  func manualArrayAccessors() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let library = BranchLibrary()
    let (watcher, changes) = observe(library, \.shelf)
    library.shelve("a", at: 0)
    library.shelve("b", at: 0)
    #expect(
      changes.value == [
        KeyValueChange(kind: .insertion, newValue: ["a"], indexes: [0]),
        KeyValueChange(kind: .insertion, newValue: ["b"], indexes: [0]),
      ])
    #expect(diagnostics.kinds == [])
    _ = watcher
  }

  @Test("A set mutation notified in the superclass reaches observers of the subclass key path")
  func manualSetAccessors() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let library = BranchLibrary()
    let (watcher, changes) = observe(library, \.labels)
    library.label("new")
    #expect(changes.value == [KeyValueChange(kind: .insertion, newValue: ["new"])])
    #expect(diagnostics.kinds == [])
    _ = watcher
  }

  @Test("The superclass key path and the subclass one observe the same property")
  func bothKeyPaths() {
    let library = BranchLibrary()
    let (subclassWatcher, throughSubclass) = observe(library, \BranchLibrary.books)
    let superclassWatcher = Watcher()
    let throughSuperclass = Box<[KeyValueChange<[String]>]>()
    throughSuperclass.value = []
    superclassWatcher.autoObserve(library as Library, keyPath: \Library.books) { _, _, change in
      throughSuperclass.value!.append(change)
    }
    library.mutableArrayValue(for: \BranchLibrary.books).append("a")
    (library as Library).mutableArrayValue(for: \Library.books).append("b")
    let expected = [
      KeyValueChange(kind: .insertion, newValue: ["a"], indexes: [0]),
      KeyValueChange(kind: .insertion, newValue: ["b"], indexes: [1]),
    ]
    #expect(throughSubclass.value == expected)
    #expect(throughSuperclass.value == expected)
    #expect(subclassWatcher.stopObserving(library, keyPath: \BranchLibrary.books) == 1)
    #expect(superclassWatcher.stopObserving(library as Library, keyPath: \Library.books) == 1)
  }

  @Test(
    "A plain property notified by hand in the superclass reaches observers of the subclass key path once, with kind and indexes"
  )
  func plainPropertyManualNotification() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let ledger = BranchLedger()
    ledger.drafts = ["draft"]
    let watcher = Watcher()
    let rows = Box<[KeyValueChange<[String]>]>()
    rows.value = []
    watcher.autoObserve(ledger, keyPath: \BranchLedger.rows, options: [.old, .new]) {
      _, _, change in
      rows.value!.append(change)
    }
    // Registering a plain property reports that only manual notifications reach it.
    #expect(diagnostics.kinds == [.keyPathNeverNotifies])
    ledger.insertRow("a", at: 0)
    ledger.insertRow("b", at: 0)
    // Another plain property of the same type and class hierarchy is another key.
    ledger.insertDraft("d", at: 0)
    #expect(
      rows.value == [
        KeyValueChange(kind: .insertion, newValue: ["a"], indexes: [0]),
        KeyValueChange(kind: .insertion, newValue: ["b"], indexes: [0]),
      ])
    #expect(diagnostics.kinds == [.keyPathNeverNotifies])
    _ = watcher
  }

  @Test(
    "Two stored properties holding the same value cannot be told apart: a diagnostic, no delivery"
  )
  func plainPropertyAmbiguous() {
    let diagnostics = DiagnosticsRecorder()
    defer { diagnostics.restore() }
    let ledger = BranchLedger()
    let watcher = Watcher()
    let rows = Box<[KeyValueChange<[String]>]>()
    rows.value = []
    watcher.autoObserve(ledger, keyPath: \BranchLedger.rows, options: [.new]) { _, _, change in
      rows.value!.append(change)
    }
    // `rows` and `drafts` are both the empty array: which one `\BranchLedger.rows` reads is not
    // known.
    ledger.insertRow("a", at: 0)
    #expect(rows.value == [])
    #expect(diagnostics.kinds == [.keyPathNeverNotifies, .keyPathNeverNotifies])
    #expect(
      diagnostics.messages.last?.contains("several stored properties hold the same value") == true)
    ledger.insertRow("b", at: 0)
    #expect(rows.value == [KeyValueChange(kind: .insertion, newValue: ["b"], indexes: [0])])
    _ = watcher
  }

  @Test(
    "A plain property notified through the subclass reaches observers of the superclass key path")
  func plainPropertyNotifiedThroughSubclass() {
    let ledger = BranchLedger()
    ledger.rows = ["a", "b"]
    let watcher = Watcher()
    let rows = Box<[KeyValueChange<[String]>]>()
    rows.value = []
    watcher.autoObserve(ledger as Ledger, keyPath: \Ledger.rows, options: [.old, .new]) {
      _, _, change in rows.value!.append(change)
    }
    ledger.removeRow(at: 1)
    #expect(rows.value == [KeyValueChange(kind: .removal, oldValue: ["b"], indexes: [1])])
    _ = watcher
  }

  @Test("A subclass property that transforms an inherited one keeps its own values")
  func transformingSubclassProperty() {
    let library = BranchLibrary()
    library.books = ["a", "b"]
    let (watcher, changes) = observe(library, \.reversedBooks)
    library.books = ["a", "b", "c"]
    #expect(
      changes.value == [
        KeyValueChange(kind: .setting, oldValue: ["b", "a"], newValue: ["c", "b", "a"])
      ])
    _ = watcher
  }
}
