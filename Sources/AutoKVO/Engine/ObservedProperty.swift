/// One ``Observed`` property of one object, as the engine knows it once a registration has read
/// it: the storage of the property holds it, so that a set finds everything it needs there and
/// names no key path.
///
/// Created under the object's registry lock by the first recording that reads the property
/// (a registration evaluating its key path, or a re-evaluation after a change), stored in the
/// property's storage and kept by the registry too, for the life of the object. A property no
/// registration ever read has none, and its sets skip notification after one lock-guarded load.
// @unchecked Sendable: immutable.
@usableFromInline
final class ObservedProperty: @unchecked Sendable {
  /// The key path of the property's declaration (`\Base.items` for a property declared in `Base`,
  /// whichever subclass instance it belongs to): what the property's changes are posted under.
  let keyPath: AnyKeyPath

  init(keyPath: AnyKeyPath) {
    self.keyPath = keyPath
  }
}
