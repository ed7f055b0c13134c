// The objects the examples of AutoKVO's doc comments talk about, for .ci/snippets: each doc-comment
// snippet is compiled with `import SnippetsVocabulary`, so that `badge.autoObserve(person, ...)`
// compiles as written. A snippet's own declarations (its `Person`) hide these.
import AutoKVO

#if canImport(Observation)
  import Observation
#endif

public final class Person: KeyValueObservable {
  public let observationRegistry = ObservationRegistry()
  @Observed public var name = "Ann"
  @Observed public var age = 30
  public init() {}
}

/// An observer with something to update.
public final class Badge: KeyValueObservable {
  public let observationRegistry = ObservationRegistry()
  public var text = ""
  public init() {}
}

public final class Member: KeyValueObservable {
  public let observationRegistry = ObservationRegistry()
  @Observed public var status = "active"
  public init() {}
}

public final class Team {
  public let members = [Member(), Member()]
  public init() {}
}

public final class Board: KeyValueObservable {
  public let observationRegistry = ObservationRegistry()
  public func refresh(_ member: Member) {}
  public init() {}
}

public struct Logger: Sendable {
  public func warning(_ message: String) {}
}

#if canImport(Observation) && !canImport(ObjectiveC)
  @Observable public final class Counter {
    public var count = 0
    public init() {}
  }
  @MainActor public let counter = Counter()
#endif

@MainActor public let person = Person()
@MainActor public let badge = Badge()
@MainActor public let observer = Badge()
@MainActor public let board = Board()
@MainActor public let team = Team()
public let logger = Logger()

public final class ShoppingList: KeyValueObservable {
  public let observationRegistry = ObservationRegistry()
  @Observed public var items: [String] = []
  public init() {}
}

public final class Photo: KeyValueObservable {
  public let observationRegistry = ObservationRegistry()
  @Observed public var tags: Set<String> = []
  public init() {}
}

@MainActor public let list = ShoppingList()
@MainActor public let photo = Photo()
