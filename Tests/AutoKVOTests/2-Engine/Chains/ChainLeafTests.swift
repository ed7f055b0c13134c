import Dispatch
import Testing

@testable import AutoKVO

/// A set of a chain's last property, when the chain is nothing but stored `@Observed` properties
/// (`\.pet.name`), is delivered with the set's own values: nothing is read again. Everything else
/// about a chain behaves as before: these tests pin the values each kind of change delivers.
@Suite("Key-path chains: a set of the leaf delivers the set's own values")
struct ChainLeafTests {
  /// Holds a playlist: a chain whose leaf is a collection.
  final class Library: KeyValueObservable, @unchecked Sendable {  // single-threaded tests
    let observationRegistry = ObservationRegistry()
    @Observed var playlist = Playlist()
  }

  @Test("Each set of a stored chain's leaf is delivered once, with exactly its old and new values")
  func leafSets() {
    let owner = Owner(pet: Dog("Rex"))
    let watcher = Watcher()
    watcher.autoObserve(owner, keyPath: \.pet.name) { w, _, c in w.record(describe(c)) }
    owner.pet.name = "Max"
    owner.pet.name = "Max"
    owner.pet.name = "Bo"
    #expect(watcher.log == ["setting Rex->Max", "setting Max->Max", "setting Max->Bo"])
  }

  @Test("After the intermediate is replaced, the new leaf's sets are delivered, the old leaf's not")
  func replacedIntermediate() {
    let rex = Dog("Rex")
    let owner = Owner(pet: rex)
    let watcher = Watcher()
    watcher.autoObserve(owner, keyPath: \.pet.name) { w, _, c in w.record(describe(c)) }
    let spot = Dog("Spot")
    owner.pet = spot
    rex.name = "Ghost"
    spot.name = "Spotty"
    owner.pet = rex
    rex.name = "Rex"
    #expect(
      watcher.log == [
        "setting Rex->Spot", "setting Spot->Spotty", "setting Spotty->Ghost", "setting Ghost->Rex",
      ])
    #expect(rex.observationRegistry.observerCount == 1)
    #expect(spot.observationRegistry.observerCount == 0)
  }

  @Test("Observer freed first: a set of the leaf delivers nothing, and the leaf keeps no link")
  func observerFreedFirst() {
    let rex = Dog("Rex")
    let owner = Owner(pet: rex)
    var watcher: Watcher? = Watcher()
    let observation = watcher!.autoObserve(owner, keyPath: \.pet.name) { w, _, c in
      w.record(describe(c))
    }
    rex.name = "Max"
    #expect(watcher!.log == ["setting Rex->Max"])
    watcher = nil
    #expect(observation.endReason == .observerDeallocated)
    #expect(rex.observationRegistry.observerCount == 0)
    rex.name = "Bo"
    withExtendedLifetime(owner) {}
  }

  @Test("Root freed first: a set of the leaf delivers nothing, and the leaf keeps no link")
  func rootFreedFirst() {
    let rex = Dog("Rex")
    var owner: Owner? = Owner(pet: rex)
    let watcher = Watcher()
    let observation = watcher.autoObserve(owner!, keyPath: \.pet.name) { w, _, c in
      w.record(describe(c))
    }
    owner = nil
    #expect(observation.endReason == .observedDeallocated)
    rex.name = "Max"
    #expect(watcher.log.isEmpty)
    #expect(rex.observationRegistry.observerCount == 0)
  }

  @Test("A handler that cancels inside a leaf set: that set delivered once, the next ones not")
  func cancelInsideLeafSet() {
    let rex = Dog("Rex")
    let owner = Owner(pet: rex)
    let watcher = Watcher()
    let handle = Box<KeyValueObservation>()
    handle.value = watcher.autoObserve(owner, keyPath: \.pet.name) { w, _, c in
      w.record(describe(c))
      handle.value?.cancel()
    }
    rex.name = "Max"
    rex.name = "Bo"
    #expect(watcher.log == ["setting Rex->Max"])
    #expect(rex.observationRegistry.observerCount == 0)
    withExtendedLifetime(owner) {}
  }

  @Test("A computed last hop is read again: its value is delivered, not the stored property's")
  func computedLastHop() {
    let owner = Owner(pet: Dog("Rex"))
    let watcher = Watcher()
    watcher.autoObserve(owner, keyPath: \.pet.loudName) { w, _, c in w.record(describe(c)) }
    owner.pet.name = "Max"
    #expect(watcher.log == ["setting REX->MAX"])
  }

  @Test("With .prior, the leaf's prior call carries the old value, then the change both")
  func priorCall() {
    let owner = Owner(pet: Dog("Rex"))
    let watcher = Watcher()
    watcher.autoObserve(owner, keyPath: \.pet.name, options: [.prior, .old, .new]) { w, _, c in
      w.record(describe(c))
    }
    owner.pet.name = "Max"
    #expect(watcher.log == ["prior setting Rex->nil", "setting Rex->Max"])
  }

  @Test("Delivered on a queue, each leaf set arrives in order with its values")
  func deliveredOnQueue() {
    let queue = DispatchQueue(label: "chain leaf")
    let owner = Owner(pet: Dog("Rex"))
    let watcher = Watcher()
    watcher.autoObserve(owner, keyPath: \.pet.name, deliveryQueue: queue) { w, _, c in
      w.record(describe(c))
    }
    // The path is read again on the queue: each set waits for it, as a model that is not
    // thread-safe must.
    owner.pet.name = "A"
    queue.sync {}
    owner.pet.name = "B"
    queue.sync {}
    #expect(watcher.log == ["setting Rex->A", "setting A->B"])
  }

  @Test("An append to the leaf through a proxy reaches the chain as a change of its value")
  func collectionLeaf() {
    let library = Library()
    library.playlist.songs = ["a"]
    let watcher = Watcher()
    watcher.autoObserve(library, keyPath: \.playlist.songs) { w, _, c in w.record(describe(c)) }
    library.playlist.mutableArrayValue(for: \.songs).append("b")
    library.playlist.songs = ["c"]
    #expect(watcher.log == ["setting [\"a\"]->[\"a\", \"b\"]", "setting [\"a\", \"b\"]->[\"c\"]"])
  }

  @Test("A chain through an optional hop delivers its leaf's sets with optional values")
  func optionalHop() {
    let owner = Owner(dog: Dog("Rex"))
    let watcher = Watcher()
    watcher.autoObserve(owner, keyPath: \.dog?.name) { w, _, c in w.record(describe(c)) }
    owner.dog?.name = "Max"
    owner.dog = nil
    #expect(
      watcher.log == [
        "setting Optional(\"Rex\")->Optional(\"Max\")", "setting Optional(\"Max\")->nil",
      ])
  }

  @Test(
    "An optional chain's last property: each set delivers the path's old and new values, and replacing the hop still moves the chain"
  )
  func optionalChainLastRead() {
    let rex = Dog("Rex")
    let owner = Owner(dog: rex)
    let watcher = Watcher()
    watcher.autoObserve(owner, keyPath: \.dog?.name, options: [.old, .new, .prior]) {
      w, _, change in w.record(describe(change))
    }
    rex.name = "Max"
    let fido = Dog("Fido")
    owner.dog = fido
    rex.name = "unseen"
    fido.name = "Bo"
    owner.dog = nil
    fido.name = "unseen too"
    #expect(
      watcher.log == [
        "prior setting Optional(\"Rex\")->nil", "setting Optional(\"Rex\")->Optional(\"Max\")",
        "prior setting Optional(\"Max\")->nil", "setting Optional(\"Max\")->Optional(\"Fido\")",
        "prior setting Optional(\"Fido\")->nil", "setting Optional(\"Fido\")->Optional(\"Bo\")",
        "prior setting Optional(\"Bo\")->nil", "setting Optional(\"Bo\")->nil",
      ])
    #expect(rex.observationRegistry.observerCount == 0)
    #expect(fido.observationRegistry.observerCount == 0)
  }

  @Test("A computed last property of an optional chain delivers what the key path reads")
  func computedLastRead() {
    let rex = Dog("Rex")
    let owner = Owner(dog: rex)
    let watcher = Watcher()
    watcher.autoObserve(owner, keyPath: \.dog?.loudName, options: [.old, .new]) {
      w, _, change in w.record(describe(change))
    }
    rex.name = "Max"
    rex.name = "Bo"
    #expect(
      watcher.log == [
        "setting Optional(\"REX\")->Optional(\"MAX\")",
        "setting Optional(\"MAX\")->Optional(\"BO\")",
      ])
  }

  @Test(
    "A leaf object whose class overrides the property is delivered what the key path reads, not what the setter stores"
  )
  func leafOverride() {
    let canvas = OverrideCanvas()
    let watcher = Watcher()
    watcher.autoObserve(canvas, keyPath: \.shape.size, options: [.old, .new]) { w, canvas, change in
      w.record("\(describe(change)) reads \(canvas.shape.size)")
    }
    canvas.shape.size = 70
    canvas.shape = StoredShape()
    canvas.shape.size = 5
    #expect(
      watcher.log == [
        "setting 10->70 reads 70", "setting 70->1 reads 1", "setting 1->5 reads 5",
      ])
  }
}

/// A shape whose `size` is `@Observed`.
class StoredShape: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  @Observed var size = 1
}

/// Overrides `size` to read and write ten times what is stored.
final class TenfoldShape: StoredShape, @unchecked Sendable {  // one thread per test
  override var size: Int {
    get { super.size * 10 }
    set { super.size = newValue / 10 }
  }
}

final class OverrideCanvas: KeyValueObservable, @unchecked Sendable {  // one thread per test
  let observationRegistry = ObservationRegistry()
  @Observed var shape: StoredShape = TenfoldShape()
}
