// A short story of observations that remove themselves, whichever side is deallocated first.
import AutoKVO

#if canImport(Observation)
  import Observation
#endif

final class Person: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  @Observed var name: String
  @Observed var age = 30

  init(name: String) {
    self.name = name
  }

  deinit {
    print("  (\(name) is deallocated)")
  }
}

final class Badge: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  let label: String
  var text = ""

  init(label: String, person: Person) {
    self.label = label
    autoObserve(person, keyPath: \.name, options: [.initial, .new]) { badge, _, change in
      badge.text = change.newValue ?? ""
      print("  \(badge.label) now shows \"\(badge.text)\"")
    }
  }

  deinit {
    print("  (\(label) is deallocated)")
  }
}

print("1. A badge observes a person; the badge goes first.")
let ann = Person(name: "Ann")
var badge: Badge? = Badge(label: "badge A", person: ann)
ann.name = "Ann Lee"
print("  person has \(ann.observationRegistry.observerCount) observer(s)")
badge = nil
print("  person has \(ann.observationRegistry.observerCount) observer(s) after the badge is gone")
ann.name = "Ann Lee-Smith"
print("  (the rename reached nobody, and nothing crashed)")

print("\n2. Another badge observes another person; the person goes first.")
var bob: Person? = Person(name: "Bob")
let badgeB = Badge(label: "badge B", person: bob!)
bob = nil
print(
  "  badge B is observing \(badgeB.observationRegistry.observingCount) object(s) after the person is gone"
)

print("\n3. Options: the old value, the new value and a call before the change.")
let cid = Person(name: "Cid")
let watcher = Badge(label: "watcher", person: cid)
watcher.autoObserve(cid, keyPath: \.age, options: [.old, .new, .prior]) { _, _, change in
  if change.isPrior {
    print("  age is about to change from \(change.oldValue!)")
  } else {
    print("  age changed from \(change.oldValue!) to \(change.newValue!)")
  }
}
cid.age = 31

print("\n4. A handle cancels early; cancelling twice is harmless.")
let observation = watcher.autoObserve(cid, keyPath: \.age) { _, _, _ in print("  never printed") }
observation.cancel()
observation.cancel()
print("  cancelled: \(observation.isCancelled)")

print("\n5. A key-path chain: the dog's name, through whichever dog the owner has.")
final class Dog: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  @Observed var name: String
  init(_ name: String) { self.name = name }
}
final class Owner: KeyValueObservable {
  let observationRegistry = ObservationRegistry()
  @Observed var dog: Dog?
  @Observed var errands: [String] = []
}
let owner = Owner()
owner.dog = Dog("Rex")
watcher.autoObserve(owner, keyPath: \.dog?.name, options: [.new]) { _, _, change in
  print("  the owner's dog is now called \(change.newValue.flatMap { $0 } ?? "nobody")")
}
owner.dog?.name = "Max"
let oldDog = owner.dog!
owner.dog = Dog("Fido")
oldDog.name = "Ghost"
print("  (renaming the old dog reached nobody)")
owner.dog = nil

print("\n6. A collection: each mutation reports its kind, indexes and elements.")
watcher.autoObserve(owner, keyPath: \.errands, options: [.old, .new]) { _, _, change in
  let indexes = change.indexes.map { Array($0) } ?? []
  print(
    "  \(change.kind) at \(indexes): old \(change.oldValue ?? []), new \(change.newValue ?? [])")
}
let errands = owner.mutableArrayValue(for: \.errands)
errands.append("milk")
errands.insert("bread", at: 0)
errands.replace(at: 1, with: "oat milk")
errands.remove(at: 0)

print("\n7. An async sequence: every change, in order, finishing when the object goes.")
do {
  var dee: Person? = Person(name: "Dee")
  let ages = dee!.changes(for: \.age, options: [.old, .new])
  dee!.age = 31
  dee!.age = 32
  dee = nil
  for await change in ages {
    print("  age \(change.oldValue!) -> \(change.newValue!)")
  }
  print("  (the loop ended by itself: the person is gone)")
}

#if canImport(Observation)
  /// A model seen by both Swift's Observation (what SwiftUI uses) and AutoKVO: both conformances,
  /// nothing else.
  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  final class Track: KeyValueObservable, Observable {
    let observationRegistry = ObservationRegistry()
    @Observed var title = "Intro"
  }

  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  func showTitle(of track: Track) {
    withObservationTracking {
      print("  a view shows \"\(track.title)\"")
    } onChange: {
      // Before the value is stored, as with @Observable: a view redraws after it.
      print("  Observation: the title is about to change")
    }
  }

  if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) {
    print("\n8. One model, two observers: Swift's Observation, as SwiftUI uses it, and AutoKVO.")
    let track = Track()
    watcher.autoObserve(track, keyPath: \.title, options: [.old, .new]) { _, _, change in
      print("  AutoKVO: the title changed from \(change.oldValue!) to \(change.newValue!)")
    }
    showTitle(of: track)
    track.title = "Overture"
    showTitle(of: track)
  }
#endif

#if canImport(Observation) && !canImport(ObjectiveC)
  /// An `@Observable` model written with no thought of AutoKVO.
  @Observable final class Counter {
    var count = 0
    deinit { print("  (the counter is deallocated)") }
  }

  /// Watches one counter: its handler keeps the last change it saw.
  final class CounterLabel: KeyValueObservable {
    let observationRegistry = ObservationRegistry()
    var text = ""
  }

  print("\n9. An @Observable class nobody wrote for AutoKVO: every change, old and new values.")
  var counter: Counter? = Counter()
  let label = CounterLabel()
  let counting = label.autoObserve(counter!, keyPath: \.count) { label, _, change in
    label.text = "\(change.oldValue!) -> \(change.newValue!)"
    print("  the label shows \(label.text)")
  }
  counter!.count += 1
  counter!.count += 1
  counter!.count = 2  // an equal value: Observation reports no change
  counter = nil
  print("  the registration ended with the model: isCancelled == \(counting.isCancelled)")
#endif

print("\nNo teardown code was written anywhere in this program.")
