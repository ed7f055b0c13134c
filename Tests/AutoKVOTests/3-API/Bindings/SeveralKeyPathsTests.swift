import Dispatch
import Foundation
import Testing

@testable import AutoKVO

/// One log line for a call of a several-key-path handler: `name prior setting Ann->nil`.
private func entry(
  _ keyPath: PartialKeyPath<Profile>,
  _ change: AnyKeyValueChange
) -> String {
  let names: [PartialKeyPath<Profile>: String] = [
    \.name: "name", \.age: "age", \.greeting: "greeting", \.doubled: "doubled", \.tags: "tags",
    \.pet?.name: "pet.name", \.manual: "manual", \.plain: "plain",
  ]
  let old = change.oldValue.map { "\($0)" } ?? "nil"
  let new = change.newValue.map { "\($0)" } ?? "nil"
  return "\(names[keyPath] ?? "?") \(change.isPrior ? "prior " : "")\(change.kind) \(old)->\(new)"
}

@Suite("Several key paths, one handler (K1–K10)")
struct SeveralKeyPathsTests {
  @Test("K1: each call passes the listed key path that changed, the observer and the object")
  func whichKeyPath() {
    let profile = Profile()
    let watcher = Watcher()
    var matched: [String] = []
    watcher.autoObserve(profile, keyPaths: [\.name, \.age]) { observer, object, keyPath, change in
      #expect(observer === watcher)
      #expect(object === profile)
      switch keyPath {
      case \.name: matched.append("name=\(change.newValue(as: String.self)!)")
      case \.age: matched.append("age=\(change.newValue(as: Int.self)!)")
      default: matched.append("other")
      }
    }
    profile.name = "Bo"
    profile.age = 31
    #expect(matched == ["name=Bo", "age=31"])
  }

  @Test("K2: stored, computed, chained, manual and collection key paths, each with its own values")
  func perKeyPathAsAutoObserve() {
    let profile = Profile()
    let watcher = Watcher()
    var log: [String] = []
    watcher.autoObserve(profile, keyPaths: [\.greeting, \.pet?.name, \.manual, \.tags]) {
      _, _, keyPath, change in log.append(entry(keyPath, change))
    }
    profile.name = "Bo"
    profile.pet = Dog("Rex")
    profile.pet?.name = "Max"
    profile.willChangeValue(for: \.manual)
    profile.manual = 5
    profile.didChangeValue(for: \.manual)
    profile.mutableArrayValue(for: \.tags).append("x")
    profile.age = 40  // no listed key path depends on it
    #expect(
      log == [
        "greeting setting Hello, Ann->Hello, Bo",
        // The chain's value type is `String?`: its values are boxed optionals.
        "pet.name setting nil->Optional(\"Rex\")",
        "pet.name setting Optional(\"Rex\")->Optional(\"Max\")",
        "manual setting 0->5",
        "tags insertion nil->[\"x\"]",
      ])
  }

  @Test("K2: a collection mutation carries its kind and indexes")
  func collectionIndexes() {
    let profile = Profile()
    profile.tags = ["a", "b"]
    let watcher = Watcher()
    var indexes: [IndexSet?] = []
    watcher.autoObserve(profile, keyPaths: [\.tags, \.name]) { _, _, _, change in
      indexes.append(change.indexes)
    }
    profile.mutableArrayValue(for: \.tags).remove(at: 1)
    #expect(indexes == [IndexSet(integer: 1)])
  }

  @Test(
    "K2/K3: .prior calls carry isPrior and the old value, and every prior comes before every after call"
  )
  func priorsBeforeAfters() {
    let profile = Profile()
    let watcher = Watcher()
    var log: [String] = []
    watcher.autoObserve(profile, keyPaths: [\.greeting, \.name], options: [.old, .new, .prior]) {
      _, _, keyPath, change in log.append(entry(keyPath, change))
    }
    profile.name = "Bo"
    #expect(log.count == 4)
    #expect(Array(log.prefix(2)).allSatisfy { $0.contains("prior") })
    #expect(
      Set(log.prefix(2)) == [
        "greeting prior setting Hello, Ann->nil", "name prior setting Ann->nil",
      ])
    #expect(
      Array(log.suffix(2)) == ["greeting setting Hello, Ann->Hello, Bo", "name setting Ann->Bo"])
  }

  @Test(
    "K3: one change of several listed key paths calls once per key path, in the order of keyPaths")
  func orderOfKeyPaths() {
    for order in [[\Profile.name, \Profile.greeting], [\Profile.greeting, \Profile.name]]
      as [[PartialKeyPath<Profile>]]
    {
      let profile = Profile()
      let watcher = Watcher()
      var log: [String] = []
      watcher.autoObserve(profile, keyPaths: order + [\.doubled], options: .new) {
        _, _, keyPath, change in log.append(entry(keyPath, change))
      }
      profile.name = "Bo"
      let expected = order.map {
        $0 == \Profile.name ? "name setting nil->Bo" : "greeting setting nil->Hello, Bo"
      }
      #expect(log == expected + ["doubled setting nil->BoHello, Bo"])
    }
  }

  @Test(
    "K4: .initial calls once per key path, in order, with the current value and no old value, before returning"
  )
  func initialCalls() {
    let profile = Profile()
    let watcher = Watcher()
    var log: [String] = []
    watcher.autoObserve(profile, keyPaths: [\.age, \.greeting], options: [.initial, .old, .new]) {
      _, _, keyPath, change in log.append(entry(keyPath, change))
    }
    #expect(log == ["age setting nil->30", "greeting setting nil->Hello, Ann"])
  }

  @Test("K5: a key path listed twice is observed once, at its first position")
  func duplicates() {
    let profile = Profile()
    let watcher = Watcher()
    var log: [String] = []
    watcher.autoObserve(
      profile, keyPaths: [\.name, \.greeting, \.name], options: [.initial, .new]
    ) {
      _, _, keyPath, change in log.append(entry(keyPath, change))
    }
    #expect(log == ["name setting nil->Ann", "greeting setting nil->Hello, Ann"])
    #expect(watcher.observationRegistry.observingCount == 2)
    log = []
    profile.name = "Bo"
    #expect(log == ["name setting nil->Bo", "greeting setting nil->Hello, Bo"])
  }

  /// Registers `[\.name, \.age]` and returns the handle; `calls` counts the handler's calls.
  private func register(
    _ watcher: Watcher,
    _ profile: Profile,
    calls: Cell<Int>
  ) -> KeyValueObservation {
    watcher.autoObserve(profile, keyPaths: [\.name, \.age]) { _, _, _, _ in calls.value += 1 }
  }

  @Test(
    "K6: counts and activeObservations include it while active, and come back once it has ended")
  func countsWhileActive() {
    let profile = Profile()
    let watcher = Watcher()
    let calls = Cell(0)
    let handle = register(watcher, profile, calls: calls)
    #expect(watcher.observationRegistry.observingCount == 2)
    #expect(profile.observationRegistry.observerCount == 2)
    #expect(watcher.activeObservations.count == 2)
    #expect(!handle.isCancelled)
    handle.cancel()
    #expect(handle.isCancelled)
    #expect(watcher.observationRegistry.observingCount == 0)
    #expect(profile.observationRegistry.observerCount == 0)
    #expect(watcher.activeObservations.isEmpty)
    profile.name = "Bo"
    profile.age = 1
    #expect(calls.value == 0)
  }

  @Test("K6: cancelling any handle activeObservations lists ends every key path")
  func cancelListedHandle() {
    for index in 0..<2 {
      let profile = Profile()
      let watcher = Watcher()
      let calls = Cell(0)
      let handle = register(watcher, profile, calls: calls)
      watcher.activeObservations[index].cancel()
      #expect(handle.isCancelled)
      #expect(watcher.activeObservations.isEmpty)
      #expect(profile.observationRegistry.observerCount == 0)
      profile.name = "Bo"
      profile.age = 1
      #expect(calls.value == 0)
    }
  }

  @Test("K6: stopObserving(object) and stopObservingAll() end every key path")
  func stopObservingObject() {
    for stop in [
      { (w: Watcher, p: Profile) in w.stopObserving(p) }, { w, _ in w.stopObservingAll() },
    ] {
      let profile = Profile()
      let watcher = Watcher()
      let calls = Cell(0)
      let handle = register(watcher, profile, calls: calls)
      #expect(stop(watcher, profile) == 2)
      #expect(handle.isCancelled)
      #expect(profile.observationRegistry.observerCount == 0)
      profile.name = "Bo"
      #expect(calls.value == 0)
    }
  }

  @Test(
    "K6: stopObserving(object, keyPath:) ends that key path only; the handle ends with the last")
  func stopOneKeyPath() {
    let profile = Profile()
    let watcher = Watcher()
    var log: [String] = []
    let handle = watcher.autoObserve(profile, keyPaths: [\.name, \.age]) { _, _, keyPath, change in
      log.append(entry(keyPath, change))
    }
    #expect(watcher.stopObserving(profile, keyPath: \.name) == 1)
    #expect(!handle.isCancelled)
    #expect(watcher.observationRegistry.observingCount == 1)
    profile.name = "Bo"
    profile.age = 31
    #expect(log == ["age setting 30->31"])
    #expect(watcher.stopObserving(profile, keyPath: \.age) == 1)
    #expect(handle.isCancelled)
    #expect(watcher.observationRegistry.observingCount == 0)
    #expect(profile.observationRegistry.observerCount == 0)
  }

  @Test("K6/K8: the observer deallocated first ends every key path; neither side is retained")
  func observerDeallocatedFirst() {
    let tracker = LifetimeTracker()
    let profile = Profile()
    var watcher: Watcher? = Watcher(tracker: tracker)
    let calls = Cell(0)
    let handle = register(watcher!, profile, calls: calls)
    watcher = nil
    #expect(tracker.liveCount == 0)
    #expect(handle.isCancelled)
    #expect(profile.observationRegistry.observerCount == 0)
    profile.name = "Bo"
    #expect(calls.value == 0)
  }

  @Test("K6/K8: the object deallocated first ends every key path; neither side is retained")
  func objectDeallocatedFirst() {
    let tracker = LifetimeTracker()
    let watcher = Watcher()
    var profile: Profile? = Profile(tracker: tracker)
    let handle = register(watcher, profile!, calls: Cell(0))
    profile = nil
    #expect(tracker.liveCount == 0)
    #expect(handle.isCancelled)
    #expect(watcher.observationRegistry.observingCount == 0)
  }

  @Test("K6: dropping the handle does not end it")
  func droppingTheHandle() {
    let profile = Profile()
    let watcher = Watcher()
    let calls = Cell(0)
    _ = register(watcher, profile, calls: calls)
    profile.name = "Bo"
    profile.age = 1
    #expect(calls.value == 2)
    #expect(watcher.observationRegistry.observingCount == 2)
  }

  @Test("K7: cancelling inside a call stops the calls of the other key paths of the same change")
  func cancelInsideCall() {
    let profile = Profile()
    let watcher = Watcher()
    var log: [String] = []
    let handle = Cell<KeyValueObservation?>(nil)
    handle.value = watcher.autoObserve(profile, keyPaths: [\.greeting, \.name, \.doubled]) {
      _, _, keyPath, change in
      log.append(entry(keyPath, change))
      handle.value?.cancel()
    }
    profile.name = "Bo"
    profile.name = "Cy"
    #expect(log == ["greeting setting Hello, Ann->Hello, Bo"])
    #expect(profile.observationRegistry.observerCount == 0)
    #expect(watcher.observationRegistry.observingCount == 0)
  }

  @Test("K7: stopObserving(object) inside a call stops the calls of the other key paths")
  func stopInsideCall() {
    let profile = Profile()
    let watcher = Watcher()
    var log: [String] = []
    watcher.autoObserve(profile, keyPaths: [\.name, \.greeting]) {
      watcher, profile, keyPath, change in
      log.append(entry(keyPath, change))
      watcher.stopObserving(profile)
    }
    profile.name = "Bo"
    #expect(log == ["name setting Ann->Bo"])
    #expect(profile.observationRegistry.observerCount == 0)
  }

  @Test(
    "K7: cancelling inside an .initial call skips the other key paths' .initial calls and registers nothing"
  )
  func cancelInsideInitial() {
    let profile = Profile()
    let watcher = Watcher()
    var log: [String] = []
    let handle = watcher.autoObserve(
      profile, keyPaths: [\.name, \.age, \.greeting], options: [.initial, .new]
    ) {
      watcher, _, keyPath, change in
      log.append(entry(keyPath, change))
      if keyPath == \Profile.age { watcher.activeObservations.last?.cancel() }
    }
    #expect(log == ["name setting nil->Ann", "age setting nil->30"])
    #expect(handle.isCancelled)
    #expect(profile.observationRegistry.observerCount == 0)
    #expect(watcher.observationRegistry.observingCount == 0)
    profile.name = "Bo"
    #expect(log.count == 2)
  }

  @Test("K8: the handler is released when the registration ends")
  func handlerReleased() {
    let tracker = LifetimeTracker()
    let profile = Profile()
    let watcher = Watcher()
    let handle: KeyValueObservation = {
      let token = Token(tracker)
      return watcher.autoObserve(profile, keyPaths: [\.name, \.age]) { _, _, _, _ in
        withExtendedLifetime(token) {}
      }
    }()
    #expect(tracker.liveCount == 1)
    handle.cancel()
    #expect(tracker.liveCount == 0)
  }

  @Test("K9: from nonisolated code, the handler runs on the mutating thread, during the set")
  func synchronousOnTheMutatingThread() {
    let profile = Profile()
    let watcher = Watcher()
    let threads = LockedCell<[Bool]>([])
    let mutator = LockedCell<ObjectIdentifier?>(nil)
    let inSet = LockedCell(false)
    watcher.autoObserve(profile, keyPaths: [\.name, \.age]) { _, _, _, _ in
      let here = ObjectIdentifier(Thread.current)
      threads.mutate { $0.append(here == mutator.value && inSet.value) }
    }
    let done = DispatchSemaphore(value: 0)
    Thread {
      mutator.mutate { $0 = ObjectIdentifier(Thread.current) }
      inSet.mutate { $0 = true }
      profile.name = "Bo"
      profile.age = 2
      inSet.mutate { $0 = false }
      done.signal()
    }.start()
    done.wait()
    #expect(threads.value == [true, true])
  }

  @Test("K9: registered from the main actor, the handler runs on the main actor")
  @MainActor
  func onTheMainActor() async {
    let profile = Profile()
    let watcher = Watcher()
    let log = LockedCell<[String]>([])
    watcher.autoObserve(profile, keyPaths: [\.name, \.age], options: .new) {
      _, _, keyPath, change in
      MainActor.preconditionIsolated()
      log.mutate { $0.append(entry(keyPath, change)) }
    }
    profile.name = "Bo"
    #expect(log.value == ["name setting nil->Bo"])
    await Task.detached {
      profile.age = 2
      profile.name = "Cy"
    }.value
    #expect(await eventually { log.value.count == 3 })
    #expect(log.value == ["name setting nil->Bo", "age setting nil->2", "name setting nil->Cy"])
  }

  @Test(
    "K9: with deliveryQueue:, the handler runs on the queue, in the order of the changes, whichever key path changed"
  )
  func onTheDeliveryQueue() {
    let profile = Profile()
    let watcher = Watcher()
    let queue = DispatchQueue(label: "k9 delivery")
    let log = LockedCell<[String]>([])
    watcher.autoObserve(profile, keyPaths: [\.name, \.age], options: .new, deliveryQueue: queue) {
      _, _, keyPath, change in
      dispatchPrecondition(condition: .onQueue(queue))
      log.mutate { $0.append(entry(keyPath, change)) }
    }
    for index in 0..<50 {
      if index.isMultiple(of: 2) { profile.name = "n\(index)" } else { profile.age = index }
    }
    queue.sync {}
    #expect(
      log.value
        == (0..<50).map {
          $0.isMultiple(of: 2) ? "name setting nil->n\($0)" : "age setting nil->\($0)"
        })
  }

  @Test(
    "K9: a change made on the delivery queue waits behind another key path's change still waiting there"
  )
  func onTheDeliveryQueueBehindWaitingChanges() {
    let profile = Profile()
    let watcher = Watcher()
    let queue = DispatchQueue(label: "k9 delivery, on the queue")
    let log = LockedCell<[String]>([])
    watcher.autoObserve(profile, keyPaths: [\.name, \.age], options: .new, deliveryQueue: queue) {
      _, _, keyPath, change in log.mutate { $0.append(entry(keyPath, change)) }
    }
    let nameWasSet = DispatchSemaphore(value: 0)
    queue.async {
      nameWasSet.wait()
      profile.age = 5
    }
    profile.name = "Bo"
    nameWasSet.signal()
    // Behind the name's delivery; the age's is scheduled behind this wait.
    queue.sync {}
    queue.sync {}
    #expect(log.value == ["name setting nil->Bo", "age setting nil->5"])
  }

  @Test("K10: an empty keyPaths is refused with .emptyKeyPaths naming the types and the call site")
  func emptyKeyPaths() {
    let recorder = DiagnosticsRecorder()
    defer { recorder.restore() }
    let profile = Profile()
    let watcher = Watcher()
    let handle = watcher.autoObserve(profile, keyPaths: []) { _, _, _, _ in }
    let line = #line - 1
    #expect(recorder.kinds == [.emptyKeyPaths])
    let message = recorder.messages.first ?? ""
    #expect(message.contains("Profile"))
    #expect(message.contains("Watcher"))
    #expect(message.contains("SeveralKeyPathsTests.swift:\(line)"))
    #expect(handle.isCancelled)
    #expect(watcher.observationRegistry.observingCount == 0)
    #expect(profile.observationRegistry.observerCount == 0)
  }

  @Test("K10: a key path that can never notify is reported, naming it; the others are observed")
  func neverNotifies() {
    let recorder = DiagnosticsRecorder()
    defer { recorder.restore() }
    let profile = Profile()
    let watcher = Watcher()
    var log: [String] = []
    let handle = watcher.autoObserve(profile, keyPaths: [\.plain, \.name]) {
      _, _, keyPath, change in
      log.append(entry(keyPath, change))
    }
    #expect(recorder.kinds == [.keyPathNeverNotifies])
    #expect(recorder.messages.first?.contains("plain") == true)
    #expect(recorder.messages.first?.hasPrefix("autoObserve(_:keyPaths: Profile.plain)") == true)
    #expect(!handle.isCancelled)
    profile.name = "Bo"
    #expect(log == ["name setting Ann->Bo"])
  }

  @Test(
    "K10: registered from either side's deinit, it is refused with .registrationWhileDeallocating")
  func fromDeinit() {
    let recorder = DiagnosticsRecorder()
    defer { recorder.restore() }
    let profile = Profile()
    let handles = Cell<[KeyValueObservation]>([])
    do {
      _ = DeinitRegistrar { registrar in
        handles.value.append(
          registrar.autoObserve(profile, keyPaths: [\.name, \.age]) { _, _, _, _ in })
      }
    }
    do {
      let watcher = Watcher()
      _ = DeinitObserved { observed in
        handles.value.append(
          watcher.autoObserve(observed, keyPaths: [\.value, \.other]) { _, _, _, _ in })
      }
      #expect(watcher.observationRegistry.observingCount == 0)
    }
    #expect(recorder.kinds == [.registrationWhileDeallocating, .registrationWhileDeallocating])
    #expect(handles.value.count == 2)
    #expect(handles.value.allSatisfy { $0.isCancelled })
    #expect(profile.observationRegistry.observerCount == 0)
  }
}

/// An observer that runs `body` from its `deinit`.
final class DeinitRegistrar: KeyValueObservable, @unchecked Sendable {  // single-threaded tests
  let observationRegistry = ObservationRegistry()
  var label = ""
  private let body: (DeinitRegistrar) -> Void

  init(_ body: @escaping (DeinitRegistrar) -> Void) { self.body = body }

  deinit { body(self) }
}

/// An observed object that runs `body` from its `deinit`.
final class DeinitObserved: KeyValueObservable, @unchecked Sendable {  // single-threaded tests
  let observationRegistry = ObservationRegistry()
  @Observed var value = 0
  @Observed var other = ""
  private let body: (DeinitObserved) -> Void

  init(_ body: @escaping (DeinitObserved) -> Void) { self.body = body }

  deinit { body(self) }
}

/// A value read and mutated from several threads.
final class LockedCell<Value>: @unchecked Sendable {  // `stored` is guarded by `lock`
  private let lock = NSLock()
  private var stored: Value

  init(_ value: Value) { stored = value }

  var value: Value { lock.withLock { stored } }

  func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}

@Suite("Several key paths and bindings: teardown on two threads at once")
struct GroupedTeardownRaceTests {
  @Test(
    "K6/T5: the observer and the object released at once on two threads: everything ends, nothing leaks"
  )
  func bothSidesAtOnce() {
    let tracker = LifetimeTracker()
    for round in 0..<200 {
      let watcher = Handoff(Watcher(tracker: tracker))
      let profile = Handoff(Profile(tracker: tracker))
      let handle = watcher.object!.autoObserve(profile.object!, keyPaths: [\.name, \.age]) {
        _, _, _, _ in
      }
      let badge = Handoff(Badge(tracker: tracker))
      let sync = badge.object!.autoSync(\.text, with: profile.object!, keyPath: \.name)
      runSimultaneously([
        { watcher.release() },
        { profile.release() },
        { round.isMultiple(of: 2) ? badge.release() : sync.cancel() },
      ])
      badge.release()
      #expect(handle.isCancelled)
      #expect(sync.isCancelled)
    }
    #expect(tracker.liveCount == 0)
  }

  @Test(
    "K6: cancel() on two member handles and the returned one at once, on three threads: ends once")
  func cancelsAtOnce() {
    for _ in 0..<200 {
      let watcher = Watcher()
      let profile = Profile()
      let handle = watcher.autoObserve(profile, keyPaths: [\.name, \.age]) { _, _, _, _ in }
      let members = watcher.activeObservations
      runSimultaneously([
        { handle.cancel() },
        { members[0].cancel() },
        { members[1].cancel() },
      ])
      #expect(handle.isCancelled)
      #expect(watcher.observationRegistry.observingCount == 0)
      #expect(profile.observationRegistry.observerCount == 0)
    }
  }

  @Test(
    "K6: each of those cancel() calls returns only once every registration of the group has ended")
  func eachCancelReturnsOnceAllHaveEnded() {
    let unended = LockedCell(0)
    for _ in 0..<500 {
      let watcher = Watcher()
      let profile = Profile()
      let handle = watcher.autoObserve(profile, keyPaths: [\.name, \.age, \.tags]) {
        _, _, _, _ in
      }
      let all = [handle] + watcher.activeObservations
      // Each thread cancels one registration, then counts the ones still active: none may be,
      // whichever thread ended the group and whichever ended which registration first.
      runSimultaneously(
        all.map { registration in
          {
            registration.cancel()
            let active = all.filter { !$0.isCancelled }.count
            unended.mutate { $0 += active }
          }
        })
    }
    #expect(unended.value == 0)
  }

  @Test("T5: the same for a two-way binding, its handle and both directions cancelled at once")
  func eachSyncCancelReturnsOnceAllHaveEnded() {
    let unended = LockedCell(0)
    for _ in 0..<500 {
      let badge = Badge()
      let profile = Profile()
      let handle = badge.autoSync(\.text, with: profile, keyPath: \.name)
      let all = [handle] + badge.activeObservations + profile.activeObservations
      runSimultaneously(
        all.map { registration in
          {
            registration.cancel()
            let active = all.filter { !$0.isCancelled }.count
            unended.mutate { $0 += active }
          }
        })
      #expect(all.count == 3)
    }
    #expect(unended.value == 0)
  }
}
