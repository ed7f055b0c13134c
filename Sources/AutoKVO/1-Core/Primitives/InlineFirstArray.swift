/// An ordered collection that keeps its first element inline and the others in an array.
///
/// Most registries hold one registration on each side, and most changes concern one
/// registration. A Swift array puts even a single element in a heap block of its own; this
/// collection allocates only from the second element on.
struct InlineFirstArray<Element> {
  /// The first element; `nil` only when the collection is empty. Readable, so that a caller can
  /// match it with a `switch`, which borrows it where a copy of the collection's element would be
  /// retained.
  private(set) var head: Element?
  /// The elements after `head`, in order.
  private(set) var tail: [Element] = []

  init() {}

  var isEmpty: Bool {
    if case .none = head { return true }
    return false
  }

  var count: Int {
    isEmpty ? 0 : 1 + tail.count
  }

  mutating func append(_ element: Element) {
    if isEmpty {
      head = element
    } else {
      tail.append(element)
    }
  }

  /// Removes the first element that satisfies `predicate` and returns it, or returns `nil`.
  mutating func removeFirst(where predicate: (Element) throws -> Bool) rethrows -> Element? {
    guard let first = head else { return nil }
    if try predicate(first) {
      head = tail.isEmpty ? nil : tail.removeFirst()
      return first
    }
    guard let index = try tail.firstIndex(where: predicate) else { return nil }
    return tail.remove(at: index)
  }

  /// Puts `element` at `position` (counted from the first element) and returns the element it
  /// replaces.
  mutating func replace(at position: Int, with element: Element) -> Element {
    if position == 0 {
      guard let first = head else { preconditionFailure("replace(at: 0) on an empty collection") }
      head = element
      return first
    }
    let replaced = tail[position - 1]
    tail[position - 1] = element
    return replaced
  }

  /// The element at `position` (counted from the first element), which must be below ``count``,
  /// read and changed where it lies: no copy of it is made, so reading one field of an element
  /// retains nothing the element holds.
  subscript(position: Int) -> Element {
    _read {
      if position == 0 {
        // A `switch` borrows the element where `if let` or `guard let` would copy it.
        switch head {
        case .some(let element): yield element
        case .none: preconditionFailure("element 0 of an empty list")
        }
      } else {
        yield tail[position - 1]
      }
    }
    _modify {
      if position == 0 {
        guard head != nil else { preconditionFailure("element 0 of an empty list") }
        yield &head!
      } else {
        yield &tail[position - 1]
      }
    }
  }

  /// The position of the first element that satisfies `predicate`, which reads each element
  /// where it lies.
  func firstPosition(where predicate: (Element) throws -> Bool) rethrows -> Int? {
    switch head {
    case .some(let first): if try predicate(first) { return 0 }
    case .none: return nil
    }
    return try tail.firstIndex(where: predicate).map { $0 + 1 }
  }

  /// Whether an element satisfies `predicate`, which reads each element where it lies.
  func contains(where predicate: (Element) throws -> Bool) rethrows -> Bool {
    try firstPosition(where: predicate) != nil
  }

  /// Calls `body` on each element in place, in order.
  mutating func updateEach(_ body: (inout Element) throws -> Void) rethrows {
    if head != nil {
      try body(&head!)
    }
    for position in tail.indices {
      try body(&tail[position])
    }
  }

  /// The elements that satisfy `isIncluded`, in order. When all of them do, the result shares
  /// this collection's storage, so a change's snapshot of a registry usually copies nothing.
  func keeping(where isIncluded: (Element) throws -> Bool) rethrows -> InlineFirstArray {
    // Built only from the first element left out: the elements before it are kept too.
    var kept: InlineFirstArray?
    for (position, element) in enumerated() {
      if try isIncluded(element) {
        kept?.append(element)
      } else if kept == nil {
        kept = InlineFirstArray(prefix(position))
      }
    }
    return kept ?? self
  }

  /// The results of `transform` on each element, in order.
  func mapElements<Result>(
    _ transform: (Element) throws -> Result
  ) rethrows -> InlineFirstArray<Result> {
    var results = InlineFirstArray<Result>()
    if let head {
      results.head = try transform(head)
    }
    if !tail.isEmpty {
      results.tail = try tail.map(transform)
    }
    return results
  }

  /// Calls `body` on each element, in order: what a `for` loop does, without an iterator holding
  /// a copy of the inline element, which every change would otherwise pay for.
  func forEachElement(_ body: (Element) throws -> Void) rethrows {
    if let head {
      try body(head)
    }
    for element in tail {
      try body(element)
    }
  }

  /// Calls `body` on each element and its position, in order.
  func forEachElementAndPosition(_ body: (Element, Int) throws -> Void) rethrows {
    if let head {
      try body(head, 0)
    }
    for (offset, element) in tail.enumerated() {
      try body(element, offset + 1)
    }
  }

  private init(_ elements: some Sequence<Element>) {
    for element in elements {
      append(element)
    }
  }
}

extension InlineFirstArray: Sequence {
  struct Iterator: IteratorProtocol {
    private var head: Element?
    private var tail: IndexingIterator<[Element]>

    fileprivate init(head: Element?, tail: [Element]) {
      self.head = head
      self.tail = tail.makeIterator()
    }

    mutating func next() -> Element? {
      if let element = head {
        head = nil
        return element
      }
      return tail.next()
    }
  }

  func makeIterator() -> Iterator {
    Iterator(head: head, tail: tail)
  }

  var underestimatedCount: Int { count }
}
