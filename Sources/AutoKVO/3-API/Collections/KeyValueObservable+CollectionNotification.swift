import Foundation

extension KeyValueObservable {
  /// Tells observers that elements of the array at `keyPath` are about to be inserted, removed or
  /// replaced at `indexes`.
  ///
  /// Pair it with ``didChange(_:valuesAt:for:)`` on the same thread, around the mutation, as
  /// with KVO's `willChange(_:valuesAt:forKey:)`:
  ///
  /// <!-- snippet-glue
  /// final class Playlist: KeyValueObservable {
  ///     let observationRegistry = ObservationRegistry()
  ///     private var storage = (items: [String](), name: "")
  ///     var items: [String] { storage.items }
  ///     func prepend(_ item: String) {
  /// <snippet>
  ///     }
  /// }
  /// -->
  /// ```swift
  /// willChange(.insertion, valuesAt: [0], for: \.items)
  /// storage.items.insert(item, at: 0)
  /// didChange(.insertion, valuesAt: [0], for: \.items)
  /// ```
  ///
  /// Observers of `keyPath` receive the change's kind, `indexes`, and the affected elements as
  /// their old and new values. Indexes outside the array are reported as an
  /// ``ObservationDiagnostic`` and observers receive a `.setting` change instead.
  public func willChange<Element>(
    _ kind: ChangeKind,
    valuesAt indexes: IndexSet,
    for keyPath: KeyPath<Self, [Element]>
  ) {
    let descriptor = CollectionChanges.arrayChange(
      kind, at: indexes, of: self[keyPath: keyPath],
      keyPath: Dependencies.postedKeyPath(of: keyPath, on: self), object: self)
    observationRegistry.willChangeValue(of: self, descriptor)
  }

  /// Tells observers that elements of the array at `keyPath` were inserted, removed or replaced
  /// at `indexes`, completing the matching ``willChange(_:valuesAt:for:)`` on this thread.
  public func didChange<Element>(
    _ kind: ChangeKind,
    valuesAt indexes: IndexSet,
    for keyPath: KeyPath<Self, [Element]>
  ) {
    let posted = Dependencies.postedKeyPath(of: keyPath, on: self)
    observationRegistry.didChangeValue(of: self, keyPath: posted, calledKeyPath: keyPath) {
      descriptor in
      CollectionChanges.completeArrayChange(
        &descriptor, with: self[keyPath: keyPath], object: self)
    }
  }

  /// Tells observers that the set at `keyPath` is about to change by `mutation` with `members`.
  ///
  /// Pair it with ``didChangeValue(for:withSetMutation:using:)`` on the same thread, as with
  /// KVO's `willChangeValue(forKey:withSetMutation:using:)`. ``SetMutationKind`` shows which
  /// change kind and values observers receive.
  public func willChangeValue<Element>(
    for keyPath: KeyPath<Self, Set<Element>>,
    withSetMutation mutation: SetMutationKind,
    using members: Set<Element>
  ) {
    let descriptor = CollectionChanges.setChange(
      mutation, with: members, of: self[keyPath: keyPath],
      keyPath: Dependencies.postedKeyPath(of: keyPath, on: self))
    observationRegistry.willChangeValue(of: self, descriptor)
  }

  /// Tells observers that the set at `keyPath` changed by `mutation` with `members`, completing
  /// the matching ``willChangeValue(for:withSetMutation:using:)`` on this thread.
  public func didChangeValue<Element>(
    for keyPath: KeyPath<Self, Set<Element>>,
    withSetMutation mutation: SetMutationKind,
    using members: Set<Element>
  ) {
    observationRegistry.didChangeValue(
      of: self, keyPath: Dependencies.postedKeyPath(of: keyPath, on: self), calledKeyPath: keyPath)
  }

  /// A proxy for the array at `keyPath` whose mutations notify observers with the exact kind,
  /// indexes and elements, as KVO's `mutableArrayValue(forKey:)` does.
  ///
  /// ```swift
  /// let items = list.mutableArrayValue(for: \.items)
  /// items.append("milk")        // observers of \.items get .insertion at [count]
  /// items.remove(at: 0)         // .removal at [0], the removed element as old value
  /// ```
  ///
  /// Assigning the whole array through the property stays a `.setting` change.
  public func mutableArrayValue<Element>(
    for keyPath: ReferenceWritableKeyPath<Self, [Element]>
  ) -> MutableArrayProxy<Self, Element> {
    MutableArrayProxy(object: self, keyPath: keyPath)
  }

  /// A proxy for the set at `keyPath` whose mutations notify observers with the kind and
  /// members that ``SetMutationKind`` describes, as KVO's `mutableSetValue(forKey:)` does.
  ///
  /// ```swift
  /// let tags = photo.mutableSetValue(for: \.tags)
  /// tags.insert("beach")        // observers of \.tags get .insertion, new value ["beach"]
  /// ```
  public func mutableSetValue<Element>(
    for keyPath: ReferenceWritableKeyPath<Self, Set<Element>>
  ) -> MutableSetProxy<Self, Element> {
    MutableSetProxy(object: self, keyPath: keyPath)
  }
}
