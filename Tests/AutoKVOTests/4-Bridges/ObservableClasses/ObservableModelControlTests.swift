#if canImport(Observation) && !canImport(ObjectiveC)
  import AutoKVO
  import Foundation
  import Observation
  import Testing

  /// A model whose reference counts are Objective-C's (an `NSObject` subclass): AutoKVO holds it
  /// `weak`, not by an unowned count.
  @Observable private final class CountedModel: NSObject {
    var count = 0
  }

  @Suite("Observer-side control of registrations on @Observable models")
  struct ObservableModelControlTests {
    @Test("stopObserving(_:keyPath:) ends this observer's registrations on that key path only")
    func stopOneKeyPath() {
      let board = Scoreboard()
      let other = Scoreboard()
      let watcher = Watcher()
      let bystander = Watcher()
      for _ in 0..<2 {
        watcher.autoObserve(board, keyPath: \.count, options: .new) { watcher, _, change in
          watcher.record("count \(change.newValue!)")
        }
      }
      watcher.autoObserve(board, keyPath: \.label, options: .new) { watcher, _, change in
        watcher.record("label \(change.newValue!)")
      }
      watcher.autoObserve(other, keyPath: \.count, options: .new) { watcher, _, change in
        watcher.record("other \(change.newValue!)")
      }
      bystander.autoObserve(board, keyPath: \.count, options: .new) { bystander, _, change in
        bystander.record("count \(change.newValue!)")
      }
      #expect(watcher.activeObservations.count == 4)

      #expect(watcher.stopObserving(board, keyPath: \.count) == 2)
      #expect(watcher.stopObserving(board, keyPath: \.count) == 0)
      #expect(watcher.activeObservations.count == 2)
      board.count = 1
      board.label = "one"
      other.count = 1
      #expect(watcher.log == ["label one", "other 1"])
      #expect(bystander.log == ["count 1"])
    }

    @Test("stopObserving(_:) ends this observer's registrations on every key path of that model")
    func stopEveryKeyPath() {
      let board = Scoreboard()
      let other = Scoreboard()
      let watcher = Watcher()
      watcher.autoObserve(board, keyPath: \.count, options: .new) { watcher, _, change in
        watcher.record("count \(change.newValue!)")
      }
      watcher.autoObserve(board, keyPath: \.summary, options: .new) { watcher, _, change in
        watcher.record("summary \(change.newValue!)")
      }
      watcher.autoObserve(other, keyPath: \.count, options: .new) { watcher, _, change in
        watcher.record("other \(change.newValue!)")
      }

      #expect(watcher.stopObserving(board) == 2)
      #expect(watcher.stopObserving(board) == 0)
      board.count = 1
      other.count = 2
      #expect(watcher.log == ["other 2"])
      #expect(watcher.activeObservations.count == 1)
    }

    @Test("A cancelled registration is not counted again, and a key path never observed ends none")
    func cancelledAndUnobserved() {
      let board = Scoreboard()
      let watcher = Watcher()
      let observation = watcher.autoObserve(board, keyPath: \.count) { _, _, _ in }
      observation.cancel()
      #expect(watcher.stopObserving(board, keyPath: \.count) == 0)
      watcher.autoObserve(board, keyPath: \.count) { _, _, _ in }
      #expect(watcher.stopObserving(board, keyPath: \.label) == 0)
      #expect(watcher.activeObservations.count == 1)
    }

    @Test("A model with Objective-C reference counts is found as a native one is")
    func objectiveCCountedModel() {
      let model = CountedModel()
      let other = CountedModel()
      let watcher = Watcher()
      watcher.autoObserve(model, keyPath: \.count, options: .new) { watcher, _, change in
        watcher.record("model \(change.newValue!)")
      }
      watcher.autoObserve(other, keyPath: \.count, options: .new) { watcher, _, change in
        watcher.record("other \(change.newValue!)")
      }
      #expect(watcher.stopObserving(model, keyPath: \.count) == 1)
      model.count = 1
      other.count = 1
      #expect(watcher.log == ["other 1"])
    }

    @Test("A class that is both KeyValueObservable and Observable stops as a KeyValueObservable")
    func objectThatIsBoth() {
      let contact = Contact()
      let watcher = Watcher()
      watcher.autoObserve(contact, keyPath: \.firstName, options: .new) { watcher, _, change in
        watcher.record(change.newValue!)
      }
      #expect(watcher.stopObserving(contact, keyPath: \.firstName) == 1)
      #expect(watcher.stopObserving(contact) == 0)
      contact.firstName = "Bo"
      #expect(watcher.log.isEmpty)
      #expect(contact.observationRegistry.observerCount == 0)
    }
  }
#endif
