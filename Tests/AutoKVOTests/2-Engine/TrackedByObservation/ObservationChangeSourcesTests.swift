import AutoKVO
import Foundation
@_spi(SwiftUI) import Observation
import Testing

/// Every way an `@Observed` property changes reaches Observation once per tracking, with the old
/// value still in place when `onChange` runs; AutoKVO's own registrations on the same object keep
/// their exact notifications.
@Suite("Swift Observation: every change reaches it, whatever its source")
struct ObservationChangeSourcesTests {
  @Test("Manual willChangeValue/didChangeValue of a property notified by hand")
  func manualNotification() {
    let bookcase = Bookcase()
    let log = TrackingLog()
    track(log, { _ = bookcase.balance }, entry: { "balance \(bookcase.balance)" })
    bookcase.deposit(5)
    #expect(log.all == ["balance 0"])
    #expect(bookcase.balance == 5)
  }

  @Test("Manual collection notifications: indexed and set-mutation forms")
  func manualCollectionNotifications() {
    let bookcase = Bookcase()
    let log = TrackingLog()
    track(log, { _ = bookcase.books }, entry: { "books \(bookcase.books)" })
    bookcase.willChange(.insertion, valuesAt: [0], for: \.books)
    bookcase.didChange(.insertion, valuesAt: [0], for: \.books)
    #expect(log.all == ["books []"])
    track(log, { _ = bookcase.tags }, entry: { "tags \(bookcase.tags.sorted())" })
    bookcase.willChangeValue(for: \.tags, withSetMutation: .union, using: ["a"])
    bookcase.didChangeValue(for: \.tags, withSetMutation: .union, using: ["a"])
    #expect(log.all == ["books []", "tags []"])
  }

  @Test("An array proxy's mutations, with nobody else observing: onChange once, before each")
  func arrayProxy() {
    let bookcase = Bookcase()
    bookcase.books = ["a"]
    let log = TrackingLog()
    let books = bookcase.mutableArrayValue(for: \.books)
    track(log, { _ = bookcase.books }, entry: { "books \(bookcase.books)" })
    books.append("b")
    track(log, { _ = bookcase.books }, entry: { "books \(bookcase.books)" })
    _ = books.remove(at: 0)
    track(log, { _ = bookcase.books }, entry: { "books \(bookcase.books)" })
    books.replace(at: 0, with: "c")
    #expect(log.all == ["books [\"a\"]", "books [\"a\", \"b\"]", "books [\"b\"]"])
    #expect(bookcase.books == ["c"])
  }

  @Test("A set proxy's mutations, with nobody else observing: onChange once, before each")
  func setProxy() {
    let bookcase = Bookcase()
    let log = TrackingLog()
    let tags = bookcase.mutableSetValue(for: \.tags)
    track(log, { _ = bookcase.tags }, entry: { "tags \(bookcase.tags.sorted())" })
    tags.insert("a")
    track(log, { _ = bookcase.tags }, entry: { "tags \(bookcase.tags.sorted())" })
    tags.formUnion(["b", "c"])
    track(log, { _ = bookcase.tags }, entry: { "tags \(bookcase.tags.sorted())" })
    tags.remove("a")
    #expect(log.all == ["tags []", "tags [\"a\"]", "tags [\"a\", \"b\", \"c\"]"])
    #expect(bookcase.tags == ["b", "c"])
  }

  @Test("An append through a proxy nobody tracks or observes stays silent and in place")
  func untrackedProxyAppend() {
    let bookcase = Bookcase()
    let books = bookcase.mutableArrayValue(for: \.books)
    for index in 0..<3 { books.append("\(index)") }
    #expect(bookcase.books == ["0", "1", "2"])
    let log = TrackingLog()
    track(log, { _ = bookcase.tags }, entry: { "tags" })
    books.append("3")
    #expect(log.count == 0)
  }

  @Test(
    "One set heard by both: Observation's willSet, AutoKVO's prior call, the store, AutoKVO's handler, Observation's didSet"
  )
  func orderOfBothSystems() {
    let contact = Contact()
    let watcher = Watcher()
    let log = TrackingLog()
    watcher.autoObserve(contact, keyPath: \.firstName, options: [.old, .new, .prior]) {
      _, contact, change in
      log.record(
        "AutoKVO \(change.isPrior ? "prior" : "change") \(change.oldValue ?? "-")→\(change.newValue ?? "-"), "
          + "stored \(contact.firstName)")
    }
    withObservationTracking {
      _ = contact.firstName
    } willSet: { _ in
      log.record("Observation willSet, stored \(contact.firstName)")
    } didSet: { tracking in
      log.record("Observation didSet, stored \(contact.firstName)")
      // This form stays armed until cancelled, as SwiftUI cancels it: left armed, its closures
      // would keep the model alive through the model's own registrar.
      tracking.cancel()
    }
    contact.firstName = "Bo"
    #expect(
      log.all == [
        "Observation willSet, stored Ann",
        "AutoKVO prior Ann→-, stored Ann",
        "AutoKVO change Ann→Bo, stored Bo",
        "Observation didSet, stored Bo",
      ])
  }

  @Test("The same order for a proxy mutation, whose AutoKVO change keeps its kind and indexes")
  func orderForProxyMutation() {
    let bookcase = Bookcase()
    let watcher = Watcher()
    let changes = Box<[KeyValueChange<[String]>]>()
    changes.value = []
    let log = TrackingLog()
    watcher.autoObserve(bookcase, keyPath: \.books, options: [.new]) { _, _, change in
      changes.value!.append(change)
      log.record("AutoKVO \(change.kind)")
    }
    withObservationTracking {
      _ = bookcase.books
    } willSet: { _ in
      log.record("Observation willSet \(bookcase.books)")
    } didSet: { tracking in
      log.record("Observation didSet \(bookcase.books)")
      // This form stays armed until cancelled, as SwiftUI cancels it: left armed, its closures
      // would keep the model alive through the model's own registrar.
      tracking.cancel()
    }
    bookcase.mutableArrayValue(for: \.books).append("a")
    #expect(
      log.all == ["Observation willSet []", "AutoKVO insertion", "Observation didSet [\"a\"]"])
    #expect(changes.value == [KeyValueChange(kind: .insertion, newValue: ["a"], indexes: [0])])
  }

  @Test("AutoKVO's registrations on a conforming class get exactly what they get on any other")
  func autoKVOSemanticsUnchanged() {
    let contact = Contact()
    let watcher = Watcher()
    let changes = Box<[KeyValueChange<String>]>()
    changes.value = []
    watcher.autoObserve(contact, keyPath: \.fullName, options: [.initial, .old, .new]) {
      _, _, change in changes.value!.append(change)
    }
    let log = TrackingLog()
    track(log, { _ = contact.fullName }, entry: { "fullName" })
    contact.firstName = "Bo"
    contact.lastName = "Kim"
    #expect(
      changes.value == [
        KeyValueChange(kind: .setting, newValue: "Ann Lee"),
        KeyValueChange(kind: .setting, oldValue: "Ann Lee", newValue: "Bo Lee"),
        KeyValueChange(kind: .setting, oldValue: "Bo Lee", newValue: "Bo Kim"),
      ])
    #expect(log.all == ["fullName"])
  }
}
